"""Template expansion through `uritemplate`, with the fixes for where it deviates from RFC 6570.

Why a module of its own: filling a template is never string replacement; this is the one place values
become URI text (deviations 1-8 in the package docstring say what is fixed here and how).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from uritemplate import URITemplate

from explorer.model.templates.percent import encode_keeping, truncate_units
from explorer.model.templates.syntax import (
    OPERATOR_RULES,
    Expression,
    InputValue,
    Literal,
    ParsedTemplate,
    UnusableValue,
    Variable,
    coerce_value,
    is_pairs,
)


def expand(template: str | ParsedTemplate, values: Mapping[str, InputValue]) -> str:
    """Expand through `uritemplate`, one expression at a time, with the fixes listed in the package docstring.

    Missing or ``None`` variables, empty lists and empty dicts are undefined (omitted).
    Raises `TemplateError` for a malformed template, `UnusableValue` (a `TemplateError`) for a value one
    use of its variable cannot take (a list or a map for ``{x:3}``), and `TypeError` for a value that is
    not a str, a sequence of str, a mapping of str or a sequence of (str, str) pairs (a map whose keys
    may repeat).
    """
    parsed = coerce_value(template)
    out: list[str] = []
    for part in parsed.parts:
        if isinstance(part, Literal):
            out.append(part.encoded)
            continue
        out.append(expand_expression(part, values))
    return "".join(out)


def expand_expression(expr: Expression, values: Mapping[str, object]) -> str:
    reserved = OPERATOR_RULES[expr.operator].allow_reserved
    args: dict[str, Any] = {}
    for var in expr.variables:
        prepared = _prepare(var, values.get(var.name), reserved)
        if prepared is not None:
            args[var.name] = prepared
    return _uritemplate(_uritemplate_text(expr)).expand(args) if args else ""


def _uritemplate_text(expr: Expression) -> str:
    """The expression for `uritemplate`; `+`/`#` prefixes are applied here instead (deviation 5)."""
    reserved = OPERATOR_RULES[expr.operator].allow_reserved
    specs = [
        v.name + ("*" if v.explode else "") + (f":{v.prefix}" if v.prefix and not reserved else "")
        for v in expr.variables
    ]
    return "{" + expr.operator + ",".join(specs) + "}"


@lru_cache(maxsize=1024)
def _uritemplate(text: str) -> URITemplate:
    return URITemplate(text)


def _prepare(var: Variable, value: object, reserved: bool) -> object:
    """Turn one value into what `uritemplate` expands per the RFC (None means undefined)."""
    if value is None:
        return None
    if isinstance(value, str):
        if reserved:
            return encode_keeping(truncate_units(value, var.prefix) if var.prefix else value)
        return value
    if isinstance(value, Mapping) or is_pairs(value):
        # A map: a dict, or (key, value) pairs when a key repeats (`{?q*}` gives `?a=1&a=2`).
        given = value.items() if isinstance(value, Mapping) else value
        pairs = [(_check(var, k), _check(var, v)) for k, v in given]
        if not pairs:
            return None
        _no_prefix(var, "a map of key=value pairs")
        if reserved:
            return [(encode_keeping(k), encode_keeping(v)) for k, v in pairs]
        return pairs
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        items = [_check(var, item) for item in value]
        if not items:
            return None
        _no_prefix(var, "a list")
        return [encode_keeping(item) for item in items] if reserved else items
    raise TypeError(f"value of {var.name} must be a str, a sequence of str or a mapping of str")


def _no_prefix(var: Variable, kind: str) -> None:
    """RFC 6570 2.4.1: a prefix modifier does not apply to a list or a map (deviation 7)."""
    if var.prefix:
        raise UnusableValue(
            var.name,
            f"{var.name} is {kind}, but {{{var.operator}{var}}} takes a string: RFC 6570 says prefix "
            "modifiers are not applicable to variables that have composite values (section 2.4.1)",
        )


def _check(var: Variable, item: object) -> str:
    if not isinstance(item, str):
        raise TypeError(f"value of {var.name} holds {type(item).__name__}, expected str")
    return item
