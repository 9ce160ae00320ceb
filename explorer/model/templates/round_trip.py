"""Round trips: whether a template's expansion, matched back, gives the same values.

Why a module of its own: it is the check forms run on every keystroke to flag a field whose value the
URI cannot carry faithfully, and it needs both directions (expansion and matching) while neither of those
needs it. "The same" is up to the representation-only ambiguities listed in the package docstring.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from explorer.model.templates.expansion import expand, expand_expression
from explorer.model.templates.matching import match
from explorer.model.templates.percent import normalize_pct
from explorer.model.templates.syntax import (
    OPERATOR_RULES,
    Expression,
    InputValue,
    ParsedTemplate,
    Variable,
    coerce_value,
    is_pairs,
)

__all__ = ["round_trips"]


def _canonical(var: Variable, value: object) -> object:
    """A value up to the representation-only ambiguities listed in the package docstring."""
    spec = OPERATOR_RULES[var.operator]
    unbounded = Variable(var.name, var.operator, var.explode, None)
    if value is None or (not isinstance(value, str) and not value):
        return None
    if spec.allow_reserved:
        return normalize_pct(expand_expression(Expression(var.operator, (unbounded,)), {var.name: value}))
    if var.operator == "" and value in ("", [""]):
        return None
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Mapping) or is_pairs(value):
        given = value.items() if isinstance(value, Mapping) else value
        items = [(str(k), str(v)) for k, v in given]
        if not var.explode:
            return tuple(x for pair in items for x in pair)
        if spec.named and all(k == var.name for k, _ in items):
            return tuple(v for _, v in items)
        return ("=", tuple(items))
    assert isinstance(value, Sequence)
    return tuple(str(item) for item in value)


def round_trips(template: str | ParsedTemplate, values: Mapping[str, InputValue]) -> bool:
    """Whether `match(expand(t, v))` gives `v` back, up to representation-only ambiguity.

    False means the URI cannot carry these values faithfully (adjacent variables swallowing each
    other, a value longer than its prefix, list items that would split differently, ...), so a form
    can flag the field. Raises like `expand` for a malformed template or wrong value types.
    """
    parsed = coerce_value(template)
    uri = expand(parsed, values)
    matched = match(parsed, uri)
    if matched is None:
        return False
    for var in parsed.variables:
        if _canonical(var, values.get(var.name)) != _canonical(var, matched.get(var.name)):
            return False
    return True
