"""`expand` and `match`: build a URI from a template, or find the templates that produce a URI.

`match` writes each value as `expand` reads it for that template (`explorer.model.fields`, the template
form's reader too), one shell word each, so its text output can be fed back to `expand`.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from explorer.cli.ctrl_c import stopping_on_ctrl_c
from explorer.cli.output import (
    EXIT_FAILED,
    EXIT_INCOMPLETE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    emit_json,
    error,
    mask,
    note,
    out,
    safe_line,
)
from explorer.cli.runner import Interrupt, run_on_servers
from explorer.cli.tree_cmd import build_catalogue, exit_code, lister, report_errors, server_json
from explorer.config import ListingBounds, ServerSpec
from explorer.model.fields import (
    FieldSpec,
    format_value,
    left_undefined,
    parse_text,
    plain_value_text,
    template_fields,
)
from explorer.model.resolve import resolve_uri
from explorer.model.templates import ParsedTemplate, TemplateError, Value, Values, expand, parse_template
from explorer.sanitize import sanitize_line


def parse_assignments(pairs: Sequence[str]) -> dict[str, str]:
    """NAME=VALUE words; raises ValueError naming the bad word. A name given twice is refused: the
    last one silently won, where the user may have meant two items of a list."""
    values: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"expected NAME=VALUE, got {pair!r}")
        if name in values:
            raise ValueError(
                f"{name} is given twice: give each variable once (the items of an explode variable go in "
                "one word, separated as the template form takes them: x=a/b for {/x*})"
            )
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
    except TemplateError as exc:  # `UnusableValue`: a list or a map where a use needs a string
        error(f"cannot expand with these values: {exc}")
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
    """Why URI resolves or not: the same answer as the TUI's go-to box (`resolve_uri`). The first Ctrl+C
    stops the listings and answers from what arrived (exit 130); a second one quits at once."""
    interrupt = Interrupt()
    async with stopping_on_ctrl_c(interrupt) as ctrl_c:
        job = lister(bounds, stop=interrupt.listings)
        outcomes = await run_on_servers(specs, job, protocol=protocol, timeout=timeout, interrupt=interrupt)
    if ctrl_c.aborted:
        return EXIT_INTERRUPTED
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
                        "undefined": _left_undefined(m.entry.uri_template, m.values),
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
        said: set[str] = set()  # a note on a value holds for every reading that has that value: said once
        for m in resolution.matches:
            template = safe_line(m.entry.uri_template, 300)
            shown = _values_text(m.entry.uri_template, m.values, said)
            out(f"{safe_line(m.entry.server, 80)}  {template}  {shown}")
            for other in m.alternatives:
                out(f"    or  {_values_text(m.entry.uri_template, other, said)}")
        if not resolution.resolves:
            for server, template, report in resolution.near_misses:
                problems = safe_line("; ".join(report.problems), 500)
                out(f"{safe_line(server, 80)}  {safe_line(template, 300)}  near miss: {problems}")
    report_errors(outcomes)
    # As `tree`'s: 3 when a listing stopped at a bound (matches may lie past it), 130 after Ctrl+C.
    code = exit_code(outcomes, interrupted=ctrl_c.interrupted)
    if code == EXIT_FAILED:
        return EXIT_FAILED
    if not resolution.resolves:
        nearest = resolution.nearest.prefix
        where = f"; the nearest prefix that exists is {nearest}" if nearest else ""
        listed = {
            EXIT_INCOMPLETE: " in what was listed before the bound",
            EXIT_INTERRUPTED: " in what was listed before Ctrl+C",
        }.get(code, "")
        error(f"no server lists {uri} and no template matches it{listed}{where}")
        return EXIT_INTERRUPTED if code == EXIT_INTERRUPTED else EXIT_FAILED
    return code


VALUE_LIMIT = 4000  # a NAME=VALUE word: long enough for any URI's value, so it round-trips


def _left_undefined(template: str, values: Mapping[str, Any]) -> list[str]:
    """The required variables a match left undefined (`fields.left_undefined`): a hole in the URI."""
    try:
        return left_undefined(parse_template(template), values)
    except TemplateError:
        return []


def _values_text(template: str, values: dict[str, Any], said: set[str]) -> str:
    """The values as `expand` reads them for this template, NAME=VALUE words quoted for a shell, so that
    `expand TEMPLATE WORDS...` gives the URI back (a value no word can carry is said on stderr, once:
    `said` holds the notes given so far)."""
    try:
        parsed: ParsedTemplate | None = parse_template(template)
    except TemplateError:
        parsed = None
    fields = {spec.name: spec for spec in template_fields(parsed)} if parsed is not None else {}
    words = []
    for name, value in values.items():
        spec = fields.get(name)
        text = format_value(spec, value) if spec is not None else plain_value_text(value)
        word = f"{name}={text}"
        printed = safe_line(word, VALUE_LIMIT)  # what the shell gives `expand`, once it unquotes it
        if parsed is not None and spec is not None:
            why = _why_not_back(parsed, spec, value, text, word, printed)
            shown_name = safe_line(name, 80)
            line = f"note: {safe_line(template, 300)}: the value of {shown_name} {why}" if why else ""
            if line and line not in said:
                said.add(line)
                note(line)
        words.append(shlex.quote(printed))
    holes = _left_undefined(template, values)
    if holes:  # it matches (RFC 6570 expands them to nothing), yet a server will likely refuse it
        names = ", ".join(safe_line(name, 80) for name in holes)
        line = (
            f"note: {safe_line(template, 300)}: {names} left undefined: the URI has a hole where "
            f"{'they go' if len(holes) > 1 else 'it goes'}, which the server may refuse"
        )
        if line not in said:
            said.add(line)
            note(line)
    return "  ".join(words)


def _why_not_back(
    parsed: ParsedTemplate, spec: FieldSpec, value: Value, text: str, word: str, printed: str
) -> str | None:
    """Why the `printed` word, fed to `expand`, gives another URI than `value` (None when it does not).

    Checked on the word as printed: the sanitizer escapes control and bidi characters and cuts a word
    past `VALUE_LIMIT`, and the word shown is then not the value's, though the value itself reads back.
    """
    if _reads_back(parsed, spec, value, printed.partition("=")[2]):
        return None
    if printed == word or not _reads_back(parsed, spec, value, text):
        return "cannot be written as expand reads it; expanding the words shown gives another URI"
    masked = mask(word)
    escaped = sanitize_line(masked, limit=None)
    changes = []
    if masked != word:
        changes.append("holds a secret of the configuration, printed as ***")
    if escaped != masked:
        changes.append("holds characters printed as escapes (control, bidi or invisible characters)")
    if len(escaped) > VALUE_LIMIT:
        changes.append(f"is cut here at {VALUE_LIMIT:,} characters")
    # `--json` writes the value whole, with those characters as JSON escapes; a secret is masked there too.
    exact = "" if masked != word else "; match --json gives the exact value"
    return f"{' and '.join(changes)}, so expanding the words shown gives another URI{exact}"


def _reads_back(parsed: ParsedTemplate, spec: FieldSpec, value: Value, text: str) -> bool:
    """Whether `text`, read as `expand` reads it, puts the same into the URI as the matched value."""
    read = parse_text(spec, text)
    back: Value = read if read is not None else ("" if spec.separator is None else [])
    try:
        return expand(parsed, {spec.name: back}) == expand(parsed, {spec.name: value})
    except TemplateError:
        return False
