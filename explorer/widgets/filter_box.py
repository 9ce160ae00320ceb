"""The tree's filter box: Textual's `Input`, without a layout of the whole screen on every keystroke.

Why: `Input` sets its `virtual_size` to the text's width on each change, and a widget's `virtual_size`
asks for a new layout, which re-arranges and repaints every widget on the screen (4 to 40 ms measured at
160x45, on every character typed into the filter, on top of the filter's own work). The box has a fixed
size and no scrollbar (`Input`'s `scrollbar-size-horizontal: 0`), so its virtual width only bounds how far
the text scrolls: a repaint is enough, once the scroll is brought back within that bound (which the
layout did for a stock `Input`: deleting to the right of the cursor shortens the text under a view
scrolled past its new end).
"""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Input


class FilterBox(Input):
    """An `Input` whose text width changes with a repaint only (see the module docstring)."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    def watch_virtual_size(self, size: Size) -> None:
        if self.scroll_x > self.max_scroll_x:
            self.scroll_to(x=self.max_scroll_x, animate=False, immediate=True)
