"""Suggestions for one form field, as a server's `completion/complete` gave them (checked, capped).

A plain record in the model because the forms (widgets) show it and the connection layer's `Completer`
makes it: neither should depend on the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MAX_SUGGESTIONS", "Suggestions", "parse_completion"]

MAX_SUGGESTIONS = 100
"""The spec caps `values` at 100 items; more than that is cut (and `has_more` set)."""


@dataclass(frozen=True, slots=True)
class Suggestions:
    """Values to offer for one field; `reason` says why there are none when that is not "no match"."""

    values: list[str] = field(default_factory=list)
    total: int | None = None
    has_more: bool = False
    reason: str | None = None

    @property
    def ok(self) -> bool:
        """True when the server answered normally (even with no values)."""
        return self.reason is None


def parse_completion(completion: Mapping[str, Any]) -> Suggestions:
    """Check the shape of a `completion` object; keep its string values, at most MAX_SUGGESTIONS."""
    raw = completion.get("values")
    if not isinstance(raw, list):
        return Suggestions(reason="the server's completion has no 'values' list")
    values = list(dict.fromkeys(v for v in raw if isinstance(v, str)))
    dropped = len(raw) - sum(1 for v in raw if isinstance(v, str))
    total = completion.get("total")
    if isinstance(total, bool) or not isinstance(total, int):
        total = None
    has_more = completion.get("hasMore") is True or len(values) > MAX_SUGGESTIONS
    reason = f"the server sent {dropped} value(s) that are not strings" if dropped and not values else None
    return Suggestions(values[:MAX_SUGGESTIONS], total, has_more, reason)
