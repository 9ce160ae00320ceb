"""Checks of values that would otherwise fail late: at request time with a raw encoding error, or when a
server process is spawned.

One module so that `-H`, `-s`, config files and filled-in VS Code inputs reject the same things with the
same sentence, before anything is started. Each check returns the problem (or None) without naming the
value, which is often a token; callers put where it came from in front.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from urllib.parse import urlsplit

from explorer.sanitize import sanitize_line

# An RFC 9110 token: what a header name may be.
_HEADER_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_URL_SPACE_OR_CONTROL = re.compile(r"[\s\x00-\x1f\x7f]")


def header_name_problem(name: str) -> str | None:
    """Why `name` cannot be an HTTP header name, else None."""
    if not _HEADER_NAME.fullmatch(name):
        return "is not a valid header name"
    return None


def header_value_problem(value: str) -> str | None:
    """Why `value` cannot be sent as an HTTP header value, else None (the value itself is never quoted).

    HTTP clients encode header values as ASCII: a pasted `…` or a smart quote would otherwise end in a
    UnicodeEncodeError when the first request is sent.
    """
    if _CONTROL.search(value):
        return "the value contains control characters"
    found = _NON_ASCII.search(value)
    if found is not None:
        char = found.group()
        hint = " (an ellipsis: is it a placeholder copied from an example?)" if char == "\u2026" else ""
        return (
            f"the value contains the non-ASCII character U+{ord(char):04X} at position {found.start() + 1}"
            f"{hint}; HTTP header values must be ASCII"
        )
    return None


def url_problem(url: str) -> str | None:
    """Why `url` cannot be an http(s) server URL (scheme, spaces, host, port), else None."""
    if not url.lower().startswith(("http://", "https://")):
        return "must start with http:// or https://"
    if _URL_SPACE_OR_CONTROL.search(url):
        return "a URL cannot contain spaces or control characters"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - validates the port, raising ValueError when it is not a number in range
    except ValueError as exc:
        # Said in our words: the parser's quote the text it took for a port, which may be part of a
        # password (`https://u:pa/ss@h` takes `pa` for the port).
        if "Port" not in str(exc):
            return (
                "invalid URL (an IPv6 host must be one whole [address])"
                if "IPv6" in str(exc)
                else "invalid URL"
            )
        userinfo = " (a '/', '?' or '#' in a user name or password must be written %2F, %3F, %23)"
        return "invalid URL (its port is not a number from 0 to 65535)" + (userinfo if "@" in url else "")
    if not parts.hostname:
        return "the URL has no host"
    return None


def is_loopback_url(url: str) -> bool:
    """An http(s) URL to this machine (`localhost`, `127.0.0.0/8`, `::1`): no one else can read it."""
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    return host in ("localhost", "::1") or host.startswith("127.")


def secret_url_problem(url: str) -> str | None:
    """Why credentials must not be sent to `url` (not a URL, or plain http to another machine), else None."""
    problem = url_problem(url)
    if problem is None and not url.lower().startswith("https://") and not is_loopback_url(url):
        problem = "must be https:// (credentials are sent there; http:// only to this machine)"
    return problem


def process_problem(command: str, args: Sequence[str], env: Mapping[str, str]) -> str | None:
    """Why a process cannot be started with this command line and environment, else None: a NUL
    character (no C string holds one; the OS call failed with "embedded null byte" and no word of where),
    or a variable name that is empty or holds "=". Says which value, never the value itself."""
    if "\0" in command:
        return '"command" contains a NUL character'
    for number, arg in enumerate(args, start=1):
        if "\0" in arg:
            return f'"args" item {number} contains a NUL character'
    for name, value in env.items():
        shown = '"' + sanitize_line(name, limit=80) + '"'
        if "\0" in name or "\0" in value:
            return f"env {shown} contains a NUL character"
        if not name or "=" in name:
            return f'env {shown} is not a variable name (empty, or with "=" in it)'
    return None


def cwd_problem(cwd: str) -> str | None:
    """Why a stdio server could not be started in `cwd`, else None."""
    if "\0" in cwd:
        return "contains a NUL character"
    if not os.path.exists(cwd):
        return "does not exist"
    if not os.path.isdir(cwd):
        return "is not a directory"
    return None
