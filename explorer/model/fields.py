"""Form fields for template variables and prompt arguments: what to ask, how to read the typed text,
and what is wrong with it. Pure logic, shared by the template and prompt forms (no Textual here).

Template fields
---------------
One field per distinct variable name, labelled the way the template writes it (`{id}`, `{+path}`,
`{/segments*}`, `{?q}`, `{x:3}`). RFC 6570 makes every variable optional; the form calls a variable
*required* when leaving it out would leave a hole in the URI: simple and reserved expansion (`{x}`,
`{+x}`), which usually stand for a path segment. Variables under an operator that brings its own
prefix (`#`, `.`, `/`, `;`, `?`, `&`) simply vanish when empty, so they are optional.

Explode variables (`{/segments*}`, `{?tags*}`) take several values in one input, separated by `/` for
the `/` operator, `.` for `.`, and `,` for every other operator (so `eu-west/checkout` fills
`{/segments*}` as two segments, and a path suggested by the server can be accepted as typed). Empty
items are dropped. Under a named operator (`;`, `?`, `&`) items that all look like `key=value` make a
map: `{?params*}` with `a=1,b=2` expands to `?a=1&b=2`, and a key may repeat, as in a query string:
`a=1,a=2` expands to `?a=1&a=2` (kept as `Pairs`; read as a list of strings, it gave
`?params=a%3D1&params=a%3D2`, not what was typed). A non-explode variable always takes the text as
one string: `a,b` in `{x}` expands to `a%2Cb`. So does a variable used anywhere with a prefix modifier,
whatever its first use: RFC 6570 2.4.1 gives a prefix no list or map, and `{/x*}` with a string expands
as `{/x}` does, so `d://r{/x*}/p/{x:3}` with `abcdef` is `d://r/abcdef/p/abc` (a list was refused).
Its hint names every use: "one value; {/x*} keeps the whole, {x:3} its first 3 characters".

Checks
------
An empty required field is an error. A value that the URI cannot carry faithfully is an error for that
field: alone (a value longer than a `{x:3}` prefix, a `.` inside a `{.x}` value) or together with the
others (`{a}{b}`: `a` would swallow `b`). `check_template` says which, using `round_trips` and the
values `match` reads back from the expanded URI.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from explorer.model.templates import (
    ParsedTemplate,
    TemplateError,
    Value,
    Values,
    Variable,
    as_map,
    expand,
    is_pairs,
    match,
    parse_template,
    round_trips,
)
from explorer.sanitize import sanitize_line

__all__ = [
    "FieldSpec",
    "FormCheck",
    "check_prompt",
    "check_template",
    "format_value",
    "parse_text",
    "plain_value_text",
    "prompt_fields",
    "template_fields",
    "typed_values",
]

_NAMED = frozenset(";?&")
_OPTIONAL_OPERATORS = frozenset("#./;?&")


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One input of a form. `variable` (the first use) and `uses` (every distinct use, in order) are set for
    template fields, `separator` for list-valued ones."""

    name: str
    label: str
    required: bool
    title: str | None = None
    description: str | None = None
    variable: Variable | None = None
    separator: str | None = None
    uses: tuple[Variable, ...] = ()

    @property
    def hint(self) -> str:
        """A short note on how to type the value ("" when it is a plain string)."""
        if len(self.uses) > 1 and any(var.prefix for var in self.uses):
            return _shared_hint(self.uses)
        if self.separator is None:
            if self.variable is not None and self.variable.prefix:
                return f"only the first {self.variable.prefix} characters go into the URI"
            return ""
        text = f"several values: separate them with {self.separator}"
        if self.variable is not None and self.variable.operator in _NAMED:
            text += " (key=value items make pairs)"
        return text


@dataclass(frozen=True, slots=True)
class FormCheck:
    """The result of checking a form: what to send, and what is wrong (field name -> sentence)."""

    values: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    uri: str | None = None
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return not self.errors and self.problem is None


def _separator(var: Variable) -> str | None:
    if not var.explode:
        return None
    if var.operator == "/":
        return "/"
    if var.operator == ".":
        return "."
    return ","


def _label(var: Variable) -> str:
    return "{" + var.operator + str(var) + "}"


def _shared_hint(uses: Sequence[Variable]) -> str:
    """The hint of a variable used several ways, one with a prefix: it takes one string, and each use
    keeps all of it or its first characters (a label says `{x:3}` alone, which is not the whole story)."""
    parts = [
        sanitize_line(_label(var), 40)
        + (" keeps " if index == 0 else " ")
        + (f"its first {var.prefix} characters" if var.prefix else "the whole")
        for index, var in enumerate(uses)
    ]
    return "one value; " + ", ".join(parts)


def left_undefined(parsed: ParsedTemplate, values: Mapping[str, object]) -> list[str]:
    """The required variables a match of a URI left undefined: RFC 6570 expands them to nothing, so the
    template produces the URI, but with the hole the form would refuse (`docs://handbook/` from
    `docs://handbook/{chapter}`), which a server will likely refuse too: a match must say so."""
    return [spec.name for spec in template_fields(parsed) if spec.required and spec.name not in values]


def template_fields(parsed: ParsedTemplate) -> list[FieldSpec]:
    """One field per distinct variable, in order of first appearance; one used with a prefix anywhere
    takes one string (no separator), even when its first use is exploded (module docstring)."""
    first: dict[str, Variable] = {}
    required: dict[str, bool] = {}
    prefixed: set[str] = set()
    uses: dict[str, dict[Variable, None]] = {}
    for var in parsed.variables:
        first.setdefault(var.name, var)
        uses.setdefault(var.name, {})[var] = None
        required[var.name] = required.get(var.name, False) or var.operator not in _OPTIONAL_OPERATORS
        if var.prefix:
            prefixed.add(var.name)
    return [
        FieldSpec(
            name,
            _label(var),
            required[name],
            variable=var,
            separator=None if name in prefixed else _separator(var),
            uses=tuple(uses[name]),
        )
        for name, var in first.items()
    ]


def prompt_fields(prompt: Mapping[str, Any]) -> list[FieldSpec]:
    """One field per declared argument of a prompt (as listed, raw JSON); malformed ones are skipped."""
    arguments = prompt.get("arguments")
    if not isinstance(arguments, list):
        return []
    fields: list[FieldSpec] = []
    seen: set[str] = set()
    for argument in arguments:
        if not isinstance(argument, Mapping):
            continue
        name = argument.get("name")
        if not isinstance(name, str) or not name or name in seen:
            continue
        seen.add(name)
        title = argument.get("title")
        description = argument.get("description")
        fields.append(
            FieldSpec(
                name,
                name,
                argument.get("required") is True,
                title=title if isinstance(title, str) and title else None,
                description=description if isinstance(description, str) and description else None,
            )
        )
    return fields


def parse_text(spec: FieldSpec, text: str) -> Value | None:
    """The value a typed text stands for; None when it is empty (the variable stays undefined)."""
    if spec.separator is None:
        return text if text else None
    items = [item for item in text.split(spec.separator) if item]
    if not items:
        return None
    var = spec.variable
    if var is not None and var.operator in _NAMED and all("=" in item for item in items):
        pairs = [(key, value) for key, _, value in (item.partition("=") for item in items)]
        if all(key for key, _ in pairs):
            return as_map(pairs)  # a dict, or the pairs when a key repeats (module docstring)
    return items


def format_value(spec: FieldSpec, value: object) -> str:
    """The text to put in a field for a stored or matched value (the inverse of `parse_text`)."""
    if isinstance(value, str):
        return value
    sep = spec.separator or ","
    if isinstance(value, Mapping):
        return sep.join(f"{k}={v}" for k, v in value.items())
    if is_pairs(value):
        return sep.join(f"{k}={v}" for k, v in value)
    if isinstance(value, list | tuple):
        return sep.join(str(item) for item in value)
    return ""


def plain_value_text(value: object) -> str:
    """A value as `a,b` or `a=1,a=2` when no field says its separator (a variable the template lacks)."""
    if isinstance(value, Mapping):
        return ",".join(f"{k}={v}" for k, v in value.items())
    if is_pairs(value):
        return ",".join(f"{k}={v}" for k, v in value)
    if isinstance(value, list | tuple):
        return ",".join(str(item) for item in value)
    return str(value)


def typed_values(template: str, values: Mapping[str, object]) -> dict[str, str]:
    """Each matched value as the template form (and `expand`) reads it (`q=a=1,a=2`, `path=a/b` under
    `{/path*}`), unsanitized: the go-to box and the details pane showed Python's `(('a', '1'), ...)`."""
    try:
        fields = {spec.name: spec for spec in template_fields(parse_template(template))}
    except TemplateError:
        fields = {}
    return {
        name: format_value(fields[name], value) if name in fields else plain_value_text(value)
        for name, value in values.items()
    }


def _same_expansion(parsed: ParsedTemplate, name: str, a: object, b: object) -> bool:
    """Whether two values of one variable put the same text into the URI (representation aside)."""
    try:
        return expand(parsed, {name: a}) == expand(parsed, {name: b})  # type: ignore[dict-item]
    except (TypeError, TemplateError):
        return False


def _items(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [str(v) for pair in value.items() for v in pair]
    if is_pairs(value):
        return [str(v) for pair in value for v in pair]
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return []


def _shown(value: object) -> str:
    return "nothing" if value is None else repr(value)


def _field_problem(parsed: ParsedTemplate, spec: FieldSpec, mine: object, theirs: object) -> str | None:
    """Why one field's value does not come back from the URI (None when it does)."""
    var = spec.variable
    if var is not None and var.prefix and isinstance(mine, str) and len(mine) > var.prefix:
        return (
            f"{len(mine)} characters, but {{{var.operator}{var}}} keeps only the first {var.prefix}: "
            "the URI would not give this value back"
        )
    if _same_expansion(parsed, spec.name, mine, theirs):
        return None
    if var is not None and var.operator == "." and any("." in item for item in _items(mine)):
        return "a '.' inside this value cannot be told apart from the separator: it would not round-trip"
    if mine is None:
        return f"left empty, but the URI would read back {spec.name} = {_shown(theirs)}"
    return f"runs into the other values: the URI would read back {spec.name} = {_shown(theirs)}"


def check_template(
    parsed: ParsedTemplate, fields: Sequence[FieldSpec], texts: Mapping[str, str]
) -> FormCheck:
    """Values, expanded URI and per-field errors for the typed texts of a template form."""
    return check_round_trip(parsed, fields, check_typed(parsed, fields, texts))


def check_typed(parsed: ParsedTemplate, fields: Sequence[FieldSpec], texts: Mapping[str, str]) -> FormCheck:
    """The cheap part of `check_template`: values, required fields and the expanded URI, no matching.

    A UI shows this at once and runs `check_round_trip` (which matches) off its thread.
    """
    values: Values = {}
    errors: dict[str, str] = {}
    for spec in fields:
        value = parse_text(spec, texts.get(spec.name, ""))
        if value is not None:
            values[spec.name] = value
        elif spec.required:
            errors[spec.name] = "required: the URI has a hole without it"
    try:
        uri = expand(parsed, values)
    except (TypeError, TemplateError) as error:
        return FormCheck(dict(values), errors, None, f"cannot expand: {error}")
    return FormCheck(dict(values), errors, uri)


def check_round_trip(parsed: ParsedTemplate, fields: Sequence[FieldSpec], typed: FormCheck) -> FormCheck:
    """`typed` (from `check_typed`) plus an error for each value the URI would not give back."""
    if typed.uri is None:
        return typed
    values: Values = dict(typed.values)
    errors = dict(typed.errors)
    try:
        faithful = round_trips(parsed, values)
    except (TypeError, TemplateError) as error:
        return FormCheck(dict(values), errors, None, f"cannot expand: {error}")
    if faithful:
        return FormCheck(dict(values), errors, typed.uri)
    read_back = match(parsed, typed.uri) or {}
    flagged = False
    for spec in fields:
        problem = _field_problem(parsed, spec, values.get(spec.name), read_back.get(spec.name))
        if problem is not None:
            flagged = True
            errors.setdefault(spec.name, problem)
    problem_text = None if flagged else "these values together would not come back from the URI"
    return FormCheck(dict(values), errors, typed.uri, problem_text)


def check_prompt(fields: Sequence[FieldSpec], texts: Mapping[str, str]) -> FormCheck:
    """Arguments to send (non-empty fields only) and an error for each empty required one."""
    values: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for spec in fields:
        text = texts.get(spec.name, "")
        if text:
            values[spec.name] = text
        elif spec.required:
            errors[spec.name] = "required: the server needs this argument"
    return FormCheck(values, errors)
