"""Slices sized by time: how many items a long loop on the event loop takes before it lets others run.

Why: the loops that parse a page and merge it into the tree (`connection.discovery`,
`connection.supervisor`) give the event loop back between slices, so a key pressed meanwhile waits for at
most one slice. A slice of a fixed count waits longer where an item costs more (merging into a node of
10^6 children is some 17 us an item, parsing a page 3 us) and on a slower machine. A slice sized by the
measured cost of the last ones waits about the same `budget` everywhere, and is bigger (fewer turns of the
loop, a faster listing) where items are cheap.

The cost is read on the thread's CPU clock where it is precise: time the OS gave to other processes is no
work of the loop's and must not shrink the slices. Core-free (no Textual).
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["SLICE_BUDGET", "TimedSlices", "work_clock"]

SLICE_BUDGET = 0.001
"""Seconds of work a slice aims at: a key's frame waits for at most one slice, on top of its own paint."""


def work_clock() -> Callable[[], float]:
    """The thread's CPU clock where it resolves microseconds (Linux, macOS), else the wall clock (Windows
    counts thread time in 15.6 ms ticks: a slice would measure as nothing or as a whole tick)."""
    if time.get_clock_info("thread_time").resolution <= 1e-6:
        return time.thread_time
    return time.perf_counter


class TimedSlices:
    """The size of the next slice (`size`), from the cost of the slices before it (`start`, `done`).

    The cost per item is a running average weighted by items, the past halved at each slice, or the last
    slice's own cost when that is higher: items that grow dear (a node grown wide) shrink the very next
    slice, cheaper ones grow the slices over a few; a short slice at a page's end (fewer than `least`
    items) only counts in the average, so one slow item there barely moves the size."""

    __slots__ = ("_clock", "_items", "_started", "_took", "budget", "least", "most", "size")

    def __init__(
        self,
        first: int,
        *,
        budget: float | None = SLICE_BUDGET,
        least: int = 16,
        most: int = 2048,
        clock: Callable[[], float] | None = None,
    ) -> None:
        """`first`: the size before anything was measured; `budget` None: always `first` (tests count
        slices); `least` and `most` bound the size whatever the clock says."""
        self.size = first
        self.budget = budget
        self.least = least
        self.most = most
        self._clock = clock if clock is not None else work_clock()
        self._started = 0.0
        self._items = 0.0
        self._took = 0.0

    @classmethod
    def fixed(cls, size: int) -> TimedSlices:
        """Slices of `size` items always: where a test counts where the pauses fall."""
        return cls(size, budget=None)

    def start(self) -> None:
        """A slice begins (after the loop got the event loop back)."""
        if self.budget is not None:
            self._started = self._clock()

    def done(self, items: int) -> None:
        """The slice begun at `start` handled `items` items: size the next one."""
        if self.budget is None or items <= 0:
            return
        took = max(0.0, self._clock() - self._started)
        self._items = self._items / 2 + items
        self._took = self._took / 2 + took
        per_item = self._took / self._items
        if items >= self.least:  # dearer at once (a key waits on it), cheaper a slice at a time
            per_item = max(per_item, took / items)
        if per_item <= 0.0:
            self.size = self.most
            return
        self.size = max(self.least, min(self.most, round(self.budget / per_item)))
