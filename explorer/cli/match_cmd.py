"""`expand` and `match`: build a URI from a template, or find the templates that produce a URI."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from explorer.cli.output import (
    EXIT_FAILED,
    EXIT_INCOMPLETE,
    EXIT_OK,
    EXIT_USAGE,
    emit_json,
    error,
    note,
    out,
    safe_line,
)
from explorer.cli.runner import run_on_servers
from explorer.cli.tree_cmd import build_catalogue, exit_code, lister, report_errors, server_json
from explorer.config import ListingBounds, ServerSpec
from explorer.model.fields import parse_text, template_fields
from explorer.model.resolve import resolve_uri
from explorer.model.templates import TemplateError, Values, expand, parse_template


def parse_assignments(pairs: Sequence[str]) -> dict[str, str]:
    """NAME=VALUE words; raises ValueError naming the bad word."""
    values: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"expected NAME=VALUE, got {pair!r}")
        values[name] = value
    return values


def _not_utf8(template: str, pairs: Sequence[str]) -> str | None:
    """Arguments that were not UTF-8 bytes arrive with surrogate escapes, which no URI can hold."""
    for index, text in enumerate([template, *pairs]):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            which = "the template" if index == 0 else f"argument {index + 1}"
            return f"{which} is not valid UTF-8 (an undecodable byte at character {exc.start + 1})"
    return None


def expand_command(template: str, pairs: Sequence[str]) -> int:
    problem = _not_utf8(template, pairs)
    if problem is not None:
        error(problem)
        return EXIT_USAGE
    try:
        parsed = parse_template(template)
        raw = parse_assignments(pairs)
    except (TemplateError, ValueError) as exc:
        error(str(exc))
        return EXIT_USAGE
    variables = {v.name: v for v in parsed.variables}
    unknown = [name for name in raw if name not in variables]
    if unknown:
        error(f"the template has no variable {', '.join(unknown)} (it has: {', '.join(variables) or 'none'})")
        return EXIT_USAGE
    fields = {spec.name: spec for spec in template_fields(parsed)}
    values: Values = {}
    for name, text in raw.items():
        # Read as the template form reads the same text (`parse_text`): an explode variable takes several
        # values, split on its operator's separator, and key=value items make pairs under `?`, `&`, `;`.
        value = parse_text(fields[name], text)
        # NAME= defines the variable as empty (RFC 6570 tells empty from undefined; a form cannot).
        values[name] = value if value is not None else ("" if fields[name].separator is None else [])
    missing = [name for name in variables if name not in values]
    if missing:
        note(f"note: no value for {', '.join(missing)}: omitted as RFC 6570 says")
    try:
        out(expand(parsed, values))
    except TemplateError as exc:
        error(str(exc))
        return EXIT_USAGE
    return EXIT_OK


async def match_command(
    specs: Sequence[ServerSpec],
    uri: str,
    bounds: ListingBounds,
    *,
    protocol: str,
    timeout: float,
    as_json: bool,
) -> int:
    """Why URI resolves or not: the same answer as the TUI's go-to box (`resolve_uri`)."""
    outcomes = await run_on_servers(specs, lister(bounds), protocol=protocol, timeout=timeout)
    resolution = resolve_uri(build_catalogue(outcomes, None).tree, uri)
    if as_json:
        emit_json(
            {
                "uri": uri,
                "listedBy": list(resolution.listed_by),
                "matches": [
                    {
                        "server": m.entry.server,
                        "uriTemplate": m.entry.uri_template,
                        "name": m.entry.name,
                        "values": m.values,
                        "alternatives": list(m.alternatives),
                    }
                    for m in resolution.matches
                ],
                "nearMisses": [
                    {"server": server, "uriTemplate": template, "problems": report.problems}
                    for server, template, report in resolution.near_misses
                ],
                "nearestPrefix": resolution.nearest.prefix,
                "servers": [server_json(o) for o in outcomes],
            }
        )
    else:
        for server in resolution.listed_by:
            out(f"{safe_line(server, 80)}  lists {safe_line(uri, 500)}")
        for m in resolution.matches:
            template = safe_line(m.entry.uri_template, 300)
            out(f"{safe_line(m.entry.server, 80)}  {template}  {_values_text(m.values)}")
            for other in m.alternatives:
                out(f"    or  {_values_text(other)}")
        if not resolution.resolves:
            for server, template, report in resolution.near_misses:
                problems = safe_line("; ".join(report.problems), 500)
                out(f"{safe_line(server, 80)}  {safe_line(template, 300)}  near miss: {problems}")
    report_errors(outcomes)
    code = exit_code(outcomes)  # as `tree`'s: 3 when a listing stopped at a bound (matches may lie past it)
    if code == EXIT_FAILED:
        return EXIT_FAILED
    if not resolution.resolves:
        nearest = resolution.nearest.prefix
        where = f"; the nearest prefix that exists is {nearest}" if nearest else ""
        listed = " in what was listed before the bound" if code == EXIT_INCOMPLETE else ""
        error(f"no server lists {uri} and no template matches it{listed}{where}")
        return EXIT_FAILED
    return code


def _values_text(values: dict[str, Any]) -> str:
    return "  ".join(f"{safe_line(k, 80)}={_value_text(v)}" for k, v in values.items())


def _value_text(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(safe_line(v, 200) for v in value)
    if isinstance(value, dict):
        return ",".join(f"{safe_line(k, 80)}={safe_line(v, 200)}" for k, v in value.items())
    return safe_line(value, 300)
