"""Two classes for a terminal smaller than the app's breakpoints tell apart: `-tiny` and `-thin`.

Why: the app's breakpoints give a screen one class a dimension (`-short` under 32 rows, `-narrow` under
100 columns), and 80x24 has both. A dialog that must still work at 40x12 (every field and button reached
with `tab` and in sight when focused) needs tighter rules there, such as buttons without borders or
without their 16-cell minimum, and these must not change how it looks at 80x24. A dialog calls
`mark_tiny` from its `on_resize`, which runs before the screen's own breakpoints are applied, so it reads
the size it is given, never the breakpoint classes.
"""

from __future__ import annotations

from typing import Any, Final

from textual.geometry import Size
from textual.screen import Screen

__all__ = ["THIN_COLUMNS", "TINY_ROWS", "mark_tiny"]

TINY_ROWS: Final = 16
"""Under this many rows a screen has the class `-tiny`."""
THIN_COLUMNS: Final = 60
"""Under this many columns a screen has the class `-thin`."""


def mark_tiny(screen: Screen[Any], size: Size) -> None:
    """Set `-tiny` and `-thin` on `screen` for a terminal of `size`, then bring the focused widget back
    in sight in the layout they make (a terminal made smaller leaves it where the old layout had it).

    A dialog that focuses a widget as it mounts, before its first resize, should not scroll to it
    then (`focus(scroll_visible=False)`): that scroll is animated towards where the widget is in the
    layout without these classes, lands after this one, and undid it (the connect dialog opened at
    40x12 scrolled past its first field's top)."""
    screen.set_class(size.height < TINY_ROWS, "-tiny")
    screen.set_class(size.width < THIN_COLUMNS, "-thin")
    screen.call_after_refresh(_focused_in_sight, screen)


def _focused_in_sight(screen: Screen[Any]) -> None:
    focused = screen.focused
    if not screen.is_attached or focused is None:
        return
    focused.scroll_visible(animate=False, immediate=True)
