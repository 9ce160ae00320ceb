"""HexView: the hex dump of a binary content, as many bytes per line as its pane's width shows whole.

Why a widget of its own: the classic dump is 78 cells wide (16 bytes per line), wider than the preview
pane on a 120-column terminal, which cut the ASCII column off. The view dumps again when its width changes,
with 32 bytes per line where they fit (144 cells: a wide pane showed 16 beside a blank half), else 16, 8
or 4 (`explorer.model.contents.binary.hex_bytes_per_line`), and keeps the byte at the top of the view in
sight. The dump is of at most `limit` bytes (the preview's is 4 KiB of any blob), so a new width dumps it
again whole: 128 lines at 32 bytes. `HexDumpBlock` is the same view as one block among others in a column
that scrolls as a whole (a prompt's result). The dump is plain ASCII (offsets, hex digits, `.` for what
is not printable), so it needs no sanitizing.
"""

from __future__ import annotations

from typing import Final

from textual.events import Resize

from explorer.model.contents.binary import HEX_WIDTHS, hex_bytes_per_line, hex_dump, hex_line_width
from explorer.widgets.text_view import TextView

__all__ = ["WIDE", "HexDumpBlock", "HexView", "bytes_per_line"]

WIDE: Final = 32
"""Bytes per line of a pane wide enough for them, past the classic dump's 16."""


def bytes_per_line(width: int) -> int:
    """Bytes per line for a view `width` cells wide: `WIDE` where its lines fit, else the model's choice."""
    return WIDE if hex_line_width(WIDE) <= width else hex_bytes_per_line(width)


class HexView(TextView):
    """The first `limit` bytes of `data` as a hex dump that fits the view's width (no soft wrap)."""

    def __init__(
        self,
        data: bytes,
        *,
        limit: int,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        self._data = data
        self._limit = limit
        self.per_line = HEX_WIDTHS[0]
        super().__init__(
            hex_dump(data, limit=limit, per_line=self.per_line), wrap=False, name=name, id=id, classes=classes
        )

    def on_resize(self, event: Resize) -> None:  # runs before TextView's, which then finds the rows laid out
        width = self.scrollable_content_region.width
        if width <= 0:
            return
        per_line = bytes_per_line(width)
        if per_line != self.per_line:
            top_line = int(self.scroll_offset.y) * self.per_line // per_line
            self.per_line = per_line
            self.replace_text(hex_dump(self._data, limit=self._limit, per_line=per_line), top_line=top_line)


class HexDumpBlock(HexView, can_focus=False):
    """A `HexView` as tall as its dump, for a column of blocks that scrolls as a whole (a prompt's result).

    Not a scroll area of its own (the column scrolls; a wheel over it goes on to the column) and not a
    tab stop: its lines are chosen for the width like the preview's, nothing else.
    """

    DEFAULT_CSS = """
    HexDumpBlock { height: auto; overflow: hidden hidden; scrollbar-gutter: auto; }
    """
