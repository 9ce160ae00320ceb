"""A small URI-template matcher for the demo's own templates (RFC 6570 levels 1-4, the forms used here).

Given a template and a concrete URI, `match` returns the variable values or None. Supported expressions:
`{var}` (one segment), `{+var}` (reserved: may contain "/"), `{#var}` (fragment), `{.var}` (a label such
as a file extension), `{/var*}` (exploded path segments, a list), `{/a,b}` (path segments) and `{?a,b}`
(query parameters, all optional, in any order). Values are percent-decoded. This is deliberately
independent of the explorer's own template module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from urllib.parse import parse_qsl, unquote

_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_UNRESERVED_SEGMENT = r"[^/?#&=,]*"
Values = dict[str, str | list[str]]


@dataclass(frozen=True, slots=True)
class _Compiled:
    pattern: re.Pattern[str]
    groups: tuple[tuple[str, str, bool], ...]  # (group name, variable name, exploded) for path-like parts
    query_vars: tuple[str, ...]


def _split_vars(spec: str) -> list[tuple[str, bool]]:
    out: list[tuple[str, bool]] = []
    for raw in spec.split(","):
        name = raw.strip()
        explode = name.endswith("*")
        name = name.rstrip("*").split(":", 1)[0]
        out.append((name, explode))
    return out


@cache
def _compile(template: str) -> _Compiled:
    regex: list[str] = ["^"]
    groups: list[tuple[str, str, bool]] = []
    query_vars: list[str] = []
    pos = 0
    for m in _EXPRESSION.finditer(template):
        regex.append(re.escape(template[pos : m.start()]))
        pos = m.end()
        body = m.group(1)
        op = body[0] if body and body[0] in "+#./;?&" else ""
        variables = _split_vars(body[len(op) :])
        if op in ("?", "&"):
            if not query_vars:
                regex.append(r"(?:[?&](?P<_query>[^#]*))?")
            query_vars.extend(name for name, _ in variables)
            continue
        for index, (name, explode) in enumerate(variables):
            group = f"g{len(groups)}"
            groups.append((group, name, explode))
            if op == "+":
                part = rf"(?P<{group}>[^?#]*)"
            elif op == "#":
                part = rf"(?:#(?P<{group}>.*))?" if index == 0 else rf"(?:,(?P<{group}>.*))?"
            elif op == ".":
                part = rf"(?:\.(?P<{group}>[^/?#.]*))?"
            elif op == "/":
                part = rf"(?P<{group}>(?:/[^/?#]*)*)" if explode else rf"(?:/(?P<{group}>[^/?#]*))?"
            else:
                sep = "," if index else ""
                part = rf"{re.escape(sep)}(?P<{group}>{_UNRESERVED_SEGMENT})"
            regex.append(part)
    regex.append(re.escape(template[pos:]))
    regex.append("$")
    return _Compiled(re.compile("".join(regex)), tuple(groups), tuple(query_vars))


def variables(template: str) -> list[str]:
    """The variable names of a template, in order."""
    names: list[str] = []
    for m in _EXPRESSION.finditer(template):
        body = m.group(1)
        op = body[0] if body and body[0] in "+#./;?&" else ""
        names.extend(name for name, _ in _split_vars(body[len(op) :]))
    return names


def match(template: str, uri: str) -> Values | None:
    """Match `uri` against `template`; return the decoded variable values (absent ones left out)."""
    compiled = _compile(template)
    m = compiled.pattern.match(uri)
    if m is None:
        return None
    values: Values = {}
    for group, name, explode in compiled.groups:
        raw = m.group(group)
        if raw is None:
            continue
        if explode:
            segments = [unquote(s) for s in raw.split("/")[1:]]
            values[name] = segments
        elif raw != "":
            values[name] = unquote(raw)
    query = m.group("_query") if compiled.query_vars else None
    if query:
        allowed = set(compiled.query_vars)
        for key, value in parse_qsl(query, keep_blank_values=True):
            if key not in allowed:
                return None
            values[key] = value
    return values
