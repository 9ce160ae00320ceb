"""Suggestions for one form field, as a server's `completion/complete` gave them (checked, capped).

A plain record in the model because the forms (widgets) show it and the connection layer's `Completer`
makes it: neither should depend on the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MAX_SUGGESTIONS", "Suggestions", "parse_completion", "suggestions_source"]

MAX_SUGGESTIONS = 100
"""The spec caps `values` at 100 items; more than that is cut (and `has_more` set)."""


@dataclass(frozen=True, slots=True)
class Suggestions:
    """Values to offer for one field; `reason` says why there are none when that is not "no match"."""

    values: list[str] = field(default_factory=list)
    total: int | None = None
    has_more: bool = False
    reason: str | None = None
    dropped: int = 0  # values sent that cannot be offered (not strings, or empty): said beside the rest

    @property
    def ok(self) -> bool:
        """True when the server answered normally (even with no values)."""
        return self.reason is None


def parse_completion(completion: Mapping[str, Any]) -> Suggestions:
    """Check the shape of a `completion` object; keep its string values, at most MAX_SUGGESTIONS."""
    raw = completion.get("values")
    if not isinstance(raw, list):
        return Suggestions(reason="the server's completion has no 'values' list")
    # An empty (or blank) value offers nothing to type: picking it emptied the field.
    usable = [v for v in raw if isinstance(v, str) and v.strip()]
    values = list(dict.fromkeys(usable))
    dropped = len(raw) - len(usable)
    total = completion.get("total")
    if isinstance(total, bool) or not isinstance(total, int):
        total = None
    has_more = completion.get("hasMore") is True or len(values) > MAX_SUGGESTIONS
    reason = None
    if dropped and not values:
        reason = f"the server sent {dropped} value(s) that are not text to offer"
    return Suggestions(values[:MAX_SUGGESTIONS], total, has_more, reason, dropped if values else 0)


def suggestions_source(unavailable: str | None, last: Suggestions | None, *, earlier: bool) -> str:
    """A form's line on where its suggestions come from, true to the server's last answer.

    `unavailable` is why the server cannot complete at all (`Completer.unavailable`), `last` its last
    answer in this form (None before the first), `earlier` whether values used before are offered
    (history). A form that said "from the server's completions" while every answer failed misled.
    Strings are raw: the caller sanitizes.
    """
    also = " Your earlier values are offered." if earlier else ""
    if unavailable is not None:
        return f"No suggestions from the server: {_clause(unavailable)}.{also}"
    if last is not None and last.reason is not None:
        return f"No suggestions from the server: its last answer failed: {_clause(last.reason)}.{also}"
    and_earlier = " and your earlier values" if earlier else ""
    if last is not None and not last.values:
        return f"Suggestions: from the server's completions{and_earlier} (its last answer offered none)."
    return f"Suggestions: from the server's completions{and_earlier}."


def _clause(reason: str) -> str:
    """A reason inside a sentence: without its own full stop."""
    return reason.rstrip().removesuffix(".")
