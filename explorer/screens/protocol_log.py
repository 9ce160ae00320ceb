"""`l`: the protocol log, every JSON-RPC frame of every server as sent and received on the wire.

Rows show time, server, direction, what the frame is (method and id, or which request a result answers),
the response time and the size; the highlighted frame's JSON is pretty-printed below. The filter box takes
words: `server:NAME`, `method:TEXT` (a result counts under its request's method) and any other text, which
must appear in the frame. `e` exports what is shown as JSON Lines into the log folder. Frames are masked
(config secrets) and, on screen, sanitized.
"""

from __future__ import annotations

import os
import time
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, Static

from explorer.connection.wire import WireLog, frame_text, record_line
from explorer.model.frames import Frame
from explorer.paths import log_dir
from explorer.sanitize import sanitize, sanitize_line
from explorer.widgets.frame_list import FrameList
from explorer.widgets.key_bar import KeyBar
from explorer.widgets.text_view import TextView

REFRESH_SECONDS = 0.2
DETAIL_CAP = 200_000


def parse_filter(text: str) -> tuple[str | None, str | None, str | None]:
    """`server:demo method:read clock` -> ("demo", "read", "clock")."""
    server = method = None
    rest: list[str] = []
    for word in text.split():
        if word.startswith("server:") and len(word) > 7:
            server = word[7:]
        elif word.startswith("method:") and len(word) > 7:
            method = word[7:]
        else:
            rest.append(word)
    return server, method, " ".join(rest) or None


class ProtocolLogScreen(Screen[None]):
    """Every server's frames, filtered, with the highlighted one's JSON."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back", id="log.close"),
        Binding("slash", "focus_filter", "Filter", id="log.filter"),
        Binding("e", "export", "Export JSONL", id="log.export"),
        Binding("c", "copy", "Copy frame", id="log.copy"),
    ]
    HELP = """
## Protocol log
Every JSON-RPC frame of every server, as sent (→) and received (←), newest last; the highlighted frame's
JSON is shown below. `/` filters: `server:NAME`, `method:TEXT` and any text the frame contains. `e` exports
the frames shown as JSON Lines (t, server, dir, frame, ms), `c` copies the highlighted frame, `end` follows
new frames, `escape` goes back. Header, env and URL secrets of the config are masked; strings over 64 KB
are kept as their length only.
"""
    DEFAULT_CSS = """
    ProtocolLogScreen #log-filter { height: 3; border: tall $accent; }
    ProtocolLogScreen #log-status { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    ProtocolLogScreen #frames { height: 1fr; }
    ProtocolLogScreen #frame-detail { height: 1fr; border-top: solid $panel; }
    """

    def __init__(self, wire: WireLog) -> None:
        super().__init__()
        self.wire = wire
        self._dirty = False
        self._timer: Timer | None = None
        self._filter: tuple[str | None, str | None, str | None] = (None, None, None)
        self.shown: list[Frame] = []

    def compose(self) -> ComposeResult:
        yield Input(placeholder="Filter: server:NAME method:TEXT or any text", id="log-filter")
        yield Static(Content(""), id="log-status")
        yield FrameList(id="frames")
        yield Vertical(id="frame-detail")
        yield KeyBar()

    def on_mount(self) -> None:
        self.wire.add_listener(self._on_frame)
        self._timer = self.set_interval(REFRESH_SECONDS, self._refresh_if_dirty)
        self._show()
        self.query_one(FrameList).focus()

    def on_unmount(self) -> None:
        self.wire.remove_listener(self._on_frame)

    def _on_frame(self, frame: Frame) -> None:
        self._dirty = True  # painted by the timer: a flood of frames costs one refresh per tick

    def _refresh_if_dirty(self) -> None:
        if self._dirty:
            self._dirty = False
            self._show()

    def _show(self) -> None:
        server, method, text = self._filter
        self.shown = self.wire.select(server=server, method=method, text=text)
        self.query_one(FrameList).set_frames(self.shown)
        total = len(self.wire.frames)
        status = f"{len(self.shown):,} of {total:,} frames"
        if self.wire.dropped:
            status += (
                f" · {self.wire.dropped:,} older frames dropped (the log keeps {self.wire.max_frames:,})"
            )
        self.query_one("#log-status", Static).update(Content(status))

    @on(Input.Changed, "#log-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self._filter = parse_filter(event.value)
        self._show()

    @on(Input.Submitted, "#log-filter")
    def _filter_submitted(self) -> None:
        self.query_one(FrameList).focus()

    @on(FrameList.Highlighted)
    async def _highlighted(self, event: FrameList.Highlighted) -> None:
        text = frame_text(event.frame, indent=2)
        box = self.query_one("#frame-detail", Vertical)
        await box.remove_children()
        await box.mount(TextView(sanitize(text, limit=DETAIL_CAP), language="json", wrap=True))

    def action_focus_filter(self) -> None:
        self.query_one("#log-filter", Input).focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_export(self) -> None:
        """Export what is shown into a new file in the log folder; a failure is said, never a crash."""
        folder = log_dir()
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            if os.path.lexists(folder) and not folder.is_dir():
                why = f"the log folder {folder} is not a folder"
            else:
                why = f"the log folder {folder} could not be created ({exc.strerror or exc})"
            self.notify(f"Export failed: {sanitize_line(why, 400)}", severity="error", markup=False)
            return
        stem = f"protocol-{time.strftime('%Y%m%d-%H%M%S')}"
        try:
            path, count = self.wire.export_new(folder, stem, self.shown)
        except OSError as exc:
            where = exc.filename if exc.filename is not None else folder
            why = f"{where} could not be written ({exc.strerror or exc})"
            self.notify(f"Export failed: {sanitize_line(why, 400)}", severity="error", markup=False)
            return
        self.notify(f"Exported {count:,} frames to {sanitize_line(str(path), 300)}", markup=False, timeout=10)

    def action_copy(self) -> None:
        frames = self.query_one(FrameList)
        if 0 <= frames.cursor < len(frames.frames):
            frame = frames.frames[frames.cursor]
            self.app.copy_to_clipboard(record_line(frame))
            self.notify("Frame copied (JSON, as exported).", markup=False)
