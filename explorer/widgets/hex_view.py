"""HexView: the hex dump of a binary content, as many bytes per line as its pane's width shows whole.

Why a widget of its own: the classic dump is 78 cells wide (16 bytes per line), wider than the preview
pane on a 120-column terminal, which cut the ASCII column off. The view dumps again when its width changes,
with 16, 8 or 4 bytes per line (`explorer.model.contents.binary.hex_bytes_per_line`), and keeps the byte
at the top of the view in sight. `HexDumpBlock` is the same view as one block among others in a column
that scrolls as a whole (a prompt's result). The dump is plain ASCII (offsets, hex digits, `.` for what
is not printable), so it needs no sanitizing.
"""

from __future__ import annotations

from textual.events import Resize

from explorer.model.contents.binary import HEX_WIDTHS, hex_bytes_per_line, hex_dump
from explorer.widgets.text_view import TextView

__all__ = ["HexDumpBlock", "HexView"]


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
        per_line = hex_bytes_per_line(width)
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
