"""`FrameList`: the protocol log's rows, one per JSON-RPC frame, virtualized with the Line API.

Why not a DataTable: frames arrive while the user reads, the ring holds thousands, and a frame's size is
only known once it is serialized. This list paints the rows on screen only, so a row's size is computed
when it is first shown, and appending frames costs nothing until they scroll into view. Every server string
(method names, server names, ids) goes through the sanitizer and is painted as plain segments.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from explorer.model.frames import Frame
from explorer.model.sizes import human_size
from explorer.sanitize import sanitize_line

ARROWS = {"send": "→", "recv": "←"}


def frame_columns(frame: Frame, request_methods: dict[tuple[str, str | int], str]) -> str:
    """One row's text: time, server, direction, what it is, duration and size."""
    clock = time.strftime("%H:%M:%S", time.localtime(frame.at)) + f".{int(frame.at * 1000) % 1000:03d}"
    if frame.method is not None:
        what = frame.method if frame.kind == "notification" else f"{frame.method} #{frame.id}"
    else:
        answered = request_methods.get((frame.server, frame.id)) if frame.id is not None else None
        label = "error" if frame.kind == "error" else "result"
        what = f"{label} #{frame.id}" + (f" ({answered})" if answered else "")
    duration = f"{frame.duration * 1000:8.1f} ms" if frame.duration is not None else " " * 11
    size = human_size(frame.size)
    server = _column(sanitize_line(frame.server, 200), _SERVER_COLUMN)
    return f"{clock}  {server} {ARROWS[frame.direction]} {duration} {size:>9}  {sanitize_line(what, 200)}"


_SERVER_COLUMN = 16  # cells


def _column(text: str, width: int) -> str:
    """`text` in exactly `width` cells: padded, or cut with an ellipsis (the sanitizer's own mark of a cut,
    `[+N chars]`, is wider than what it hides in a column this narrow)."""
    if cell_len(text) <= width:
        return text + " " * (width - cell_len(text))
    return set_cell_size(text, width - 1) + "…"


class FrameList(ScrollView, can_focus=True):
    """The frames shown (a filtered view of the protocol log); `enter`/highlight selects one."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor_up", "Up", show=False, id="frames.cursor_up"),
        Binding("down,j", "cursor_down", "Down", show=False, id="frames.cursor_down"),
        Binding("pageup", "page_up", "Page up", show=False, id="frames.page_up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="frames.page_down"),
        Binding("home", "first", "First", show=False, id="frames.first"),
        Binding("end", "last", "Last (follow)", show=False, id="frames.last"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"frame-list--cursor", "frame-list--error", "frame-list--send"}
    DEFAULT_CSS = """
    FrameList {
        height: 1fr;
        background: $surface;
        & > .frame-list--cursor { background: $block-cursor-blurred-background; }
        &:focus > .frame-list--cursor {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
        }
        & > .frame-list--error { color: $text-error; }
        & > .frame-list--send { color: $text-muted; }
    }
    """

    cursor: reactive[int] = reactive(-1, layout=False)

    class Highlighted(Message):
        def __init__(self, frame: Frame) -> None:
            super().__init__()
            self.frame = frame

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.frames: list[Frame] = []
        self.follow = True  # keep the newest frame in view while the cursor is on the last row
        self._methods: dict[tuple[str, str | int], str] = {}
        self._texts: dict[int, str] = {}  # seq -> row text (computed when first painted)

    def set_frames(self, frames: Sequence[Frame]) -> None:
        """Show these frames (newest last); the cursor stays on its frame, or follows the end."""
        chosen = self.frames[self.cursor].seq if 0 <= self.cursor < len(self.frames) else None
        self.frames = list(frames)
        for frame in self.frames:
            if frame.kind == "request" and frame.id is not None and frame.method is not None:
                self._methods[(frame.server, frame.id)] = frame.method
        self.virtual_size = Size(self.size.width, len(self.frames))
        if self.follow or chosen is None:
            self.cursor = len(self.frames) - 1
            self.scroll_end(animate=False)
        else:
            index = next((i for i, f in enumerate(self.frames) if f.seq == chosen), -1)
            self.cursor = index if index >= 0 else len(self.frames) - 1
        self.refresh()

    def validate_cursor(self, cursor: int) -> int:
        return max(-1, min(cursor, len(self.frames) - 1))

    def watch_cursor(self, cursor: int) -> None:
        self.follow = cursor == len(self.frames) - 1
        if 0 <= cursor < len(self.frames):
            self.scroll_to_region_if_needed(cursor)
            self.post_message(self.Highlighted(self.frames[cursor]))
        self.refresh()

    def scroll_to_region_if_needed(self, row: int) -> None:
        top = int(self.scroll_offset.y)
        height = self.scrollable_content_region.height
        if row < top:
            self.scroll_to(y=row, animate=False)
        elif height and row >= top + height:
            self.scroll_to(y=row - height + 1, animate=False)

    def render_line(self, y: int) -> Strip:
        index = int(self.scroll_offset.y) + y
        width = self.scrollable_content_region.width
        if index >= len(self.frames):
            return Strip.blank(width)
        frame = self.frames[index]
        text = self._texts.get(frame.seq)
        if text is None:
            text = frame_columns(frame, self._methods)
            self._texts[frame.seq] = text
        style = Style()
        if frame.kind == "error":
            style += self.get_component_rich_style("frame-list--error")
        elif frame.direction == "send":
            style += self.get_component_rich_style("frame-list--send")
        if index == self.cursor:
            style += self.get_component_rich_style("frame-list--cursor")
        return Strip([Segment(text, style)]).crop_extend(0, width, style)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def action_cursor_up(self) -> None:
        self.cursor -= 1

    def action_cursor_down(self) -> None:
        self.cursor += 1

    def action_page_up(self) -> None:
        self.cursor -= max(1, self.scrollable_content_region.height - 1)

    def action_page_down(self) -> None:
        self.cursor += max(1, self.scrollable_content_region.height - 1)

    def action_first(self) -> None:
        self.cursor = 0

    def action_last(self) -> None:
        self.cursor = len(self.frames) - 1

    def on_click(self, event: object) -> None:
        y = getattr(event, "y", None)
        if isinstance(y, int):
            self.cursor = int(self.scroll_offset.y) + y
