"""Parse an HTTP `WWW-Authenticate` challenge (RFC 9110 section 11.6.1; OAuth's RFC 6750 parameters).

Why: a 401 from a protected MCP server carries what the user needs to know: the scheme (`Bearer`), the
`resource_metadata` URL where the server describes its authorization server, the `scope` it wants, and an
`error` such as `invalid_token` or `insufficient_scope`. The explorer quotes them in its advice.
Only the first challenge is read; the values are server strings (callers sanitize before showing them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_PARAM = re.compile(rf'\s*({_TOKEN})\s*=\s*(?:"((?:[^"\\]|\\.)*)"|({_TOKEN}))\s*,?')
_SCHEME = re.compile(rf"\s*({_TOKEN})(?:\s+|$)")


@dataclass(frozen=True)
class Challenge:
    scheme: str = ""
    params: dict[str, str] = field(default_factory=dict)


def parse_challenge(header: str) -> Challenge:
    """`Bearer realm="mcp", scope="a b"` -> Challenge("Bearer", {"realm": "mcp", "scope": "a b"}).

    Lenient: an unparsable rest is ignored, parameter names are lower-cased, the first value of a name wins,
    and parsing stops where a second challenge (a new scheme) begins.
    """
    match = _SCHEME.match(header)
    if match is None:
        return Challenge()
    scheme = match.group(1)
    params: dict[str, str] = {}
    position = match.end()
    while position < len(header):
        param = _PARAM.match(header, position)
        if param is None:
            break
        name = param.group(1).lower()
        quoted, token = param.group(2), param.group(3)
        value = re.sub(r"\\(.)", r"\1", quoted) if quoted is not None else token
        params.setdefault(name, value)
        position = param.end()
    return Challenge(scheme, params)
