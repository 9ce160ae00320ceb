"""Lists that take the same keys as the tree: `j`/`k` as well as the arrows, `home`/`end` for the ends.

Why: every list and tree in the app should answer the same vim keys (`g`/`G` are left out because `g` is
go-to on the main screen; `home` and `end` go to the first and last item).
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import OptionList


class VimOptionList(OptionList):
    """An `OptionList` that also moves with `j` and `k`."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False, id="list.cursor_down"),
        Binding("k", "cursor_up", "Up", show=False, id="list.cursor_up"),
    ]
