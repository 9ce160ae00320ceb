"""Compile a template into what matching walks: its literals, and per expression the shapes of its values.

Why a module of its own: this is built once per template (cached) from the RFC character classes; the
search in `matching` reads it. Everything here is a flat list (a part per literal or expression, shapes per
variable): its size is linear in the template, and nothing in it is walked recursively.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from explorer.model.templates.percent import UNRESERVED, URI_CHARS, normalize_pct
from explorer.model.templates.syntax import OPERATOR_RULES, Expression, Literal, Variable, parse_template


def _char_class(chars: Iterable[str]) -> str:
    return "[" + "".join("\\" + c if c in "\\]^-[" else c for c in sorted(set(chars))) + "]"


def _item(chars: Iterable[str]) -> str:
    """Zero or more allowed characters or pct-encoded triplets."""
    return rf"(?:{_char_class(chars)}|%[0-9A-F]{{2}})*"


def _chars_upto(chars: Iterable[str], low: int, high: int, passthrough: bool = False) -> str:
    """Between low and high characters, a UTF-8 pct-encoded sequence counting as one (prefixes).

    With `passthrough` (``+``/``#``) any single triplet also counts as one: the value held it as is.
    """
    single = "%[0-9A-F]{2}" if passthrough else "%[0-7][0-9A-F]"
    unit = rf"(?:{_char_class(chars)}|%[C-F][0-9A-F](?:%[89AB][0-9A-F]){{1,3}}|{single})"
    return f"{unit}{{{low},{high}}}"


@lru_cache(maxsize=4096)
def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _run(chars: Iterable[str]) -> re.Pattern[str]:
    """The longest run of these characters (``%`` included): no value of the shape reaches past it."""
    return _compile(_char_class({*chars, "%"}) + "*")


@dataclass(frozen=True, slots=True)
class Slot:
    """What one capture holds: which expression, which variable, in which shape."""

    expr_index: int
    var: Variable
    kind: str


@dataclass(frozen=True, slots=True)
class _Shape:
    """One way a variable's text may look: `regex` must match it whole; `reach` bounds where it can end."""

    slot: Slot
    regex: re.Pattern[str]
    reach: re.Pattern[str]
    lazy: bool  # try the shortest text first (an earlier variable that takes several items)
    chars: frozenset[str]  # what `reach` runs over (without "%")


@dataclass(frozen=True, slots=True)
class _VarPattern:
    var: Variable
    key: str  # the name as it appears in a URI (named operators)
    shapes: tuple[_Shape, ...]  # unnamed operators: most preferred first


@dataclass(frozen=True, slots=True, eq=False)
class ExprPattern:
    """One expression: ``first`` then its variables' texts joined by ``sep``, within `body`'s run."""

    index: int  # among the template's expressions
    expr: Expression
    first: str
    sep: str
    named: bool
    body: re.Pattern[str]  # the longest run of characters the text after `first` can hold
    variables: tuple[_VarPattern, ...]
    keyed: dict[str, tuple[int, ...]]  # named: URI key -> indexes of the variables with that name
    exploded: tuple[int, ...]  # named: indexes of the exploded variables


Part = str | ExprPattern  # a literal, as it appears in a normalized URI, or an expression


@dataclass(frozen=True, slots=True, eq=False)
class Matcher:
    parts: tuple[Part, ...]
    alphabet: frozenset[str]  # every character an expansion can contain
    literals: tuple[str, ...]  # in order, as they appear in a URI
    suffix: str  # the trailing literal, if the template ends with one
    named: frozenset[str]  # URI keys of every variable under ;, ? or &


def _alphabet(expr: Expression) -> frozenset[str]:
    """Characters an expansion of `expr` can contain (a URI is normalized: `%` only in triplets)."""
    spec = OPERATOR_RULES[expr.operator]
    if spec.allow_reserved:
        return frozenset(URI_CHARS | {"%"})
    return frozenset(UNRESERVED + "%,=" + spec.first + spec.sep)


def _body_chars(expr: Expression, shapes: Iterable[_Shape]) -> frozenset[str]:
    """Characters the text after the operator's first character can hold: what its variables' values
    can hold, and the separator only if there is something to separate (``{/x}`` ends at the next ``/``).
    """
    spec = OPERATOR_RULES[expr.operator]
    if spec.allow_reserved:
        return frozenset(URI_CHARS)
    several = len(expr.variables) > 1
    if spec.named:
        several = several or any(v.explode for v in expr.variables)
        chars = set(UNRESERVED + ",=")
    else:
        chars = set().union(*(shape.chars for shape in shapes))
    return frozenset(chars | ({spec.sep} if several else set()))


def _var_shapes(var: Variable, last: bool) -> list[tuple[str, str, frozenset[str], bool]]:
    """(kind, pattern, characters, lazy) alternatives for one variable of an unnamed operator, best first.

    The last variable of an expression is greedy; an earlier one prefers a single item (so that
    ``{x,y}`` reads ``1024,768`` as two values) and takes more only if the rest cannot match.
    """
    spec = OPERATOR_RULES[var.operator]
    unreserved = frozenset(UNRESERVED)
    if spec.allow_reserved:
        no_comma = URI_CHARS - {","}
        if var.prefix:
            bounded = [("raw", _chars_upto(URI_CHARS, 0, var.prefix, True), URI_CHARS, False)]
            if last:
                return bounded
            return [("raw", _chars_upto(no_comma, 0, var.prefix, True), no_comma, False), *bounded]
        if last:
            return [("raw", _item(URI_CHARS), URI_CHARS, False)]
        return [("raw", _item(no_comma), no_comma, False), ("raw", _item(URI_CHARS), URI_CHARS, False)]
    item = _item(unreserved)
    sep = re.escape(spec.sep)
    no_sep = unreserved - {spec.sep}
    with_sep = unreserved | {spec.sep}
    if var.prefix:
        bounded = [("str", _chars_upto(unreserved, 0, var.prefix), unreserved, False)]
        if last or spec.sep not in unreserved:
            return bounded
        return [("str", _chars_upto(no_sep, 0, var.prefix), no_sep, False), *bounded]
    part = _item(no_sep)
    listed = unreserved | {","}
    if not var.explode:
        if last:
            return [("items", f"{item}(?:,{item})*", listed, False)]
        return [
            ("str", part, no_sep, False),
            ("str", item, unreserved, False),
            ("list", f"{item}(?:,{item})+?", listed, True),
        ]
    pair = f"{item}={item}"
    paired = with_sep | {"="}
    many = "*" if last else "*?"
    return [
        ("xlist", f"{part}(?:{sep}{part}){many}", with_sep, not last),
        ("xdict", f"{pair}(?:{sep}{pair}){many}", paired, not last),
    ]


def _expression(index: int, expr: Expression) -> ExprPattern:
    spec = OPERATOR_RULES[expr.operator]
    count = len(expr.variables)
    variables: list[_VarPattern] = []
    keyed: dict[str, list[int]] = {}
    for j, var in enumerate(expr.variables):
        key = normalize_pct(var.name)
        keyed.setdefault(key, []).append(j)
        shapes: tuple[_Shape, ...] = ()
        if not spec.named:
            shapes = tuple(
                _Shape(Slot(index, var, kind), _compile(pattern), _run(chars), lazy, chars)
                for kind, pattern, chars, lazy in _var_shapes(var, j == count - 1)
            )
        variables.append(_VarPattern(var, key, shapes))
    return ExprPattern(
        index=index,
        expr=expr,
        first=spec.first,
        sep=spec.sep,
        named=spec.named,
        body=_run(_body_chars(expr, (shape for v in variables for shape in v.shapes))),
        variables=tuple(variables),
        keyed={key: tuple(found) for key, found in keyed.items()},
        exploded=tuple(j for j, var in enumerate(expr.variables) if var.explode),
    )


@lru_cache(maxsize=1024)
def matcher_for(text: str) -> Matcher:
    """The parts of a template as matching reads them (raises `TemplateError` like `parse_template`)."""
    parsed = parse_template(text)
    parts: list[Part] = []
    alphabet: set[str] = set()
    index = 0
    for part in parsed.parts:
        if isinstance(part, Literal):
            literal = normalize_pct(part.encoded)
            parts.append(literal)
            alphabet |= set(literal)
            continue
        parts.append(_expression(index, part))
        alphabet |= _alphabet(part)
        index += 1
    literals = tuple(p for p in parts if isinstance(p, str))
    suffix = parts[-1] if parts and isinstance(parts[-1], str) else ""
    named = frozenset(normalize_pct(v.name) for v in parsed.variables if OPERATOR_RULES[v.operator].named)
    return Matcher(tuple(parts), frozenset(alphabet), literals, suffix, named)
