"""Back and forward over the places the user visited: nodes jumped to and resources read.

Why a plain object: the keys (`alt+left`/`alt+right`, `[`/`]`) only move along a list, like a browser's
history. Visiting a new place after going back drops the places ahead of it; the same place twice in a
row is one entry; the list is capped so a long session never grows it without bound.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

HISTORY_CAP = 200


@dataclass(frozen=True, slots=True)
class Place:
    """A visited place: a URI or prefix, the server it was read from (None for a prefix), read or not;
    for a URI that a template produced (not listed), the template and the values that give it, so going
    back shows that target again, not only the node nearest to it."""

    uri: str
    server: str | None = None
    read: bool = False
    template: str | None = None
    values: tuple[tuple[str, Any], ...] | None = None


class Navigation:
    """Visited places, a position, and the moves back and forward."""

    def __init__(self, cap: int = HISTORY_CAP) -> None:
        self.cap = cap
        self.places: list[Place] = []
        self.position = -1  # index of the current place

    def visit(self, place: Place) -> None:
        if 0 <= self.position < len(self.places) and self.places[self.position] == place:
            return
        del self.places[self.position + 1 :]
        self.places.append(place)
        if len(self.places) > self.cap:
            del self.places[: len(self.places) - self.cap]
        self.position = len(self.places) - 1

    def back(self) -> Place | None:
        if self.position <= 0:
            return None
        self.position -= 1
        return self.places[self.position]

    def forward(self) -> Place | None:
        if self.position + 1 >= len(self.places):
            return None
        self.position += 1
        return self.places[self.position]

    @property
    def current(self) -> Place | None:
        return self.places[self.position] if 0 <= self.position < len(self.places) else None
