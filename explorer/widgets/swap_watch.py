"""When a widget's swap of its children has landed: the new widgets all mounted.

Why: a view that sets its state, removes its children and mounts new ones shows for a moment the old
children next to part of the new (a message box is mounted before what it holds). Reading the view then
(a test, a copy of its text) mixes two states; `SwapWatch.shown` says when that moment is over.
"""

from __future__ import annotations

from collections.abc import Awaitable

from textual.widget import Widget

__all__ = ["SwapWatch"]


class SwapWatch:
    """Whether the last swap of a widget's children is shown (mounted): False from `started` until then."""

    def __init__(self) -> None:
        self.shown = True
        self._swaps = 0

    def started(self, widget: Widget, mounting: Awaitable[object]) -> None:
        """`widget` swapped its children; `mounting` completes once the new ones are all mounted."""
        self.shown = False
        self._swaps += 1
        this = self._swaps

        async def note_shown() -> None:
            await mounting
            if this == self._swaps:  # a later swap is not shown yet
                self.shown = True

        widget.call_later(note_shown)
