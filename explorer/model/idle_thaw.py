"""Idle thaw: the garbage frozen for good is freed while the user is away.

Why: the app freezes what is alive after each page and each change to a big tree, so that no collection
walks a million entries again (`explorer.model.heap`). Textual's own reference cycles that are alive at
such a moment (the style nodes it makes anew at each restyle, strips that cache themselves) are frozen
with them, and when they are dropped later nothing frees them: about 2,000 objects a filter text at
200,000 items, growing with use for as long as the app runs. Only a full collection of the whole heap
frees them (`heap.thaw`: 511 ms at 10^6), a pause no key may wait for.

So it runs only when the user is not there to wait: the terminal reported that its window lost focus
(`AppBlur`) and no input came for `QUIET` seconds (many terminals send the wheel to a window without
focus), or no input came for `IDLE` seconds. And only when it is worth a walk of the heap (`WORTH`
freezes since the last thaw, each one a chance of garbage kept), and not while pages still merge (they
freeze after each page: `QUIET` seconds since the last freeze). A key pressed while it runs waits for it.

Core-free (no Textual): the app notes input (`note_activity`) and asks `due` on its blur and on a timer.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from explorer.model import heap

__all__ = ["IdleThaw"]


class IdleThaw:
    """When to free the frozen garbage (`due`), and doing it (`run`)."""

    IDLE = 120.0
    """Seconds without input after which the user counts as away: long enough that someone reading the
    screen is rarely caught by the pause when they come back."""

    QUIET = 5.0
    """Seconds since the last freeze (a listing that streams freezes after every page: not idle), and since
    the last input when the window lost focus (the wheel still scrolls a window without focus)."""

    WORTH = 20
    """Freezes since the last thaw that make a walk of the whole heap worth it (each filter keystroke on a
    big tree and each page freezes once)."""

    CHECK = 10.0
    """Seconds between two looks at the idle time (the app's timer)."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        *,
        freezes: Callable[[], int] = heap.freezes_since_thaw,
        frozen_at: Callable[[], float] = heap.last_freeze_at,
        thaw: Callable[[], int | None] = heap.thaw,
    ) -> None:
        self._clock = clock
        self._freezes = freezes
        self._frozen_at = frozen_at
        self._thaw = thaw
        self._active_at = clock()

    def note_activity(self) -> None:
        """The user did something (a key, a click, the mouse): they are here."""
        self._active_at = self._clock()

    def due(self, *, away: bool) -> bool:
        """Whether to thaw now; `away`: the terminal said its window lost focus."""
        if self._freezes() < self.WORTH:
            return False
        now = self._clock()
        if now - self._frozen_at() < self.QUIET:
            return False
        idle = now - self._active_at
        return idle >= self.IDLE or (away and idle >= self.QUIET)

    def run(self, *, away: bool) -> int | None:
        """Thaw if due: how many objects were freed, or None when nothing was done."""
        if not self.due(away=away):
            return None
        return self._thaw()
