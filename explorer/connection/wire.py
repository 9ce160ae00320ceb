"""The protocol log: every JSON-RPC frame of every server, as sent and received on the wire.

Why a tap on the transport's streams and not the SDK's callbacks: the SDK validates and re-dumps results
into its own models, which drop fields it does not know; a developer debugging a server needs the frames
as they were. The tap sits between the transport and `mcp.Client` (`tap_streams`) and records the message
objects themselves: a frame is turned into JSON only when someone looks at it (the TUI pane shows the rows
on screen, an export writes them), so following a million-resource listing costs a reference per frame.

`WireLog` is a bounded ring over all servers (frames and, roughly, bytes), matches responses to their
requests for durations, tells listeners about new frames, and can stream every frame to a JSON Lines
file as it happens (`--wire-log FILE`). Server secrets (header, env and URL values of the spec) are masked
in every frame's JSON, on screen and in files.

A transport that read the line itself (stdio) hands over its size and, for a mid-sized line (a listing
page), the line's bytes: such a frame keeps the bytes (a fifth of the parsed page's objects; a million
listed resources kept 280 MB alive through the ring otherwise) and decodes them when looked at, leaving
its big strings out then (the line is at most a megabyte and its bytes count against the bound). Looking
for big strings as each page arrives cost half a millisecond a page, half a second over a million
resources. A line too short to hold a big string is kept as it is. Frames of known size count against
`max_bytes`; the oldest leave the ring first.
"""

from __future__ import annotations

import errno
import io
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any

from explorer.config import ServerSpec
from explorer.connection.stream_wrappers import ReceiveWrapper, SendWrapper
from explorer.model.frames import BIG_STRING, Direction, Frame, describe, iso_time, lighten, lighten_json
from explorer.storage import create_new_file, open_for_append

RELEASE_ID = "mcp-url-explorer:release"  # a response to this id is the stdio reader's, not the server's
DEFAULT_MAX_FRAMES = 5_000
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
EXPORT_NAMES = 100  # names an export tries in one second (`STEM.jsonl`, `STEM-2.jsonl`, ...)


Listener = Callable[[Frame], None]


def open_sink(path: Path) -> IO[str]:
    """`--wire-log FILE` opened to append. A FIFO nothing reads or a directory is refused (OSError):
    open() of the FIFO waited for a reader, Ctrl+C unheard. A terminal, `/dev/stderr` or a FIFO that a
    reader has open are taken: the user named them for this run."""
    return io.TextIOWrapper(open_for_append(path, streams=True), encoding="utf-8")


class WireLog:
    """Frames of every server: a bounded ring, listeners, and an optional JSON Lines sink."""

    def __init__(
        self,
        *,
        max_frames: int = DEFAULT_MAX_FRAMES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        sink: Path | None = None,
    ) -> None:
        self.max_frames = max_frames
        self.max_bytes = max_bytes
        self.frames: deque[Frame] = deque()
        self.dropped = 0  # frames pushed out of the ring
        self._bytes = 0  # wire bytes of the frames in the ring whose size the transport told
        self._seq = 0
        self._pending: dict[tuple[str, str | int], float] = {}  # (server, request id) -> sent at
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()
        self._sink: IO[str] | None = open_sink(sink) if sink is not None else None
        self._specs: dict[str, ServerSpec] = {}

    def add_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def register(self, spec: ServerSpec) -> None:
        """Learn a server's spec, for masking its secrets in its frames."""
        self._specs[spec.name] = spec

    def record(
        self,
        server: str,
        direction: Direction,
        message: Any,
        *,
        size: int | None = None,
        text: bytes | None = None,
    ) -> Frame:
        """Add a frame; `size` is its wire size when the transport knows it, `text` its line's bytes."""
        now = time.time()
        with self._lock:
            self._seq += 1
            method, ident, kind = describe(message)
            if text is not None:
                kept, dropped = WireText(text), 0  # its big strings are left out when it is decoded
            elif size is not None and size <= BIG_STRING:
                kept, dropped = message, 0  # too short to hold a big string: nothing to look for
            else:
                kept, dropped = lighten(message)
            spec = self._specs.get(server)
            frame = Frame(self._seq, now, server, direction, kept, method, ident, kind, spec, dropped=dropped)
            if size is not None:
                frame.wire_size = size
                self._bytes += size
            if ident is not None:
                key = (server, ident)
                if frame.kind == "request" and direction == "send":
                    self._pending[key] = now
                elif frame.kind in ("response", "error") and direction == "recv" and key in self._pending:
                    frame.duration = now - self._pending.pop(key)
            self.frames.append(frame)
            frames = self.frames
            while len(frames) > self.max_frames or (self._bytes > self.max_bytes and len(frames) > 1):
                old = self.frames.popleft()
                self.dropped += 1
                if old.wire_size is not None:
                    self._bytes -= old.wire_size
            if len(self._pending) > self.max_frames:  # requests never answered: forget the oldest
                for stale in list(self._pending)[: len(self._pending) - self.max_frames]:
                    del self._pending[stale]
        if self._sink is not None:
            self._sink.write(record_line(frame) + "\n")
            self._sink.flush()
        for listener in list(self._listeners):
            listener(frame)
        return frame

    def close(self) -> None:
        if self._sink is not None:
            self._sink.close()
            self._sink = None

    def select(
        self, *, server: str | None = None, method: str | None = None, text: str | None = None
    ) -> list[Frame]:
        """Frames by server, by method (a response counts under its request's method) and by text."""
        methods: dict[tuple[str, str | int], str] = {}
        chosen: list[Frame] = []
        for frame in list(self.frames):
            if frame.kind == "request" and frame.id is not None and frame.method is not None:
                methods[(frame.server, frame.id)] = frame.method
            if server is not None and frame.server != server:
                continue
            if method is not None:
                own = frame.method or (
                    methods.get((frame.server, frame.id)) if frame.id is not None else None
                )
                if own is None or method not in own:
                    continue
            if text is not None and text not in frame_text(frame):
                continue
            chosen.append(frame)
        return chosen

    def export(self, path: Path, frames: Iterable[Frame] | None = None) -> int:
        """Write frames (all by default) as JSON Lines into a new file at `path`; returns how many.

        The file is created, never opened: a taken name (an earlier export, a FIFO whose open would wait
        for a reader for good) raises FileExistsError and what is there is left as it was.
        """
        count = 0
        with create_new_file(path) as handle:
            for frame in frames if frames is not None else list(self.frames):
                handle.write(record_line(frame).encode("utf-8") + b"\n")
                count += 1
        return count

    def export_new(self, folder: Path, stem: str, frames: Iterable[Frame] | None = None) -> tuple[Path, int]:
        """Export into `folder` as `STEM.jsonl`, or `STEM-2.jsonl`, `STEM-3.jsonl`... when that is taken
        (two exports in one second share a stem); returns the file written and how many frames."""
        chosen = list(frames if frames is not None else self.frames)  # iterated again after a taken name
        for number in range(1, EXPORT_NAMES + 1):
            path = folder / (f"{stem}.jsonl" if number == 1 else f"{stem}-{number}.jsonl")
            try:
                return path, self.export(path, chosen)
            except FileExistsError:
                continue
        taken = f"that name and the next {EXPORT_NAMES - 1} are taken"
        raise FileExistsError(errno.EEXIST, taken, str(folder / f"{stem}.jsonl"))


def record_line(frame: Frame) -> str:
    """A frame's JSON Lines line (ASCII). A frame that cannot be encoded is logged as a note saying so: a log
    line never ends a connection (a tap error would close it)."""
    try:
        return json.dumps(frame.record(), ensure_ascii=True)
    except (RecursionError, ValueError, TypeError) as exc:
        record = {"t": iso_time(frame.at), "server": frame.server, "dir": frame.direction}
        note = f"this frame could not be written as JSON ({type(exc).__name__})"
        return json.dumps(record | {"frame": None, "note": note}, ensure_ascii=True)


def frame_text(frame: Frame, indent: int | None = None) -> str:
    """A frame's JSON as text (for the text filter and the detail pane); a note when it cannot be encoded."""
    try:
        return json.dumps(frame.json(), indent=indent, ensure_ascii=False)
    except (RecursionError, ValueError, TypeError) as exc:
        return f"[this frame could not be shown as JSON ({type(exc).__name__})]"


class WireText:
    """A frame kept as its line's bytes: `model_dump` (what `Frame.json` asks of a message) decodes them."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    def model_dump(self, **_: Any) -> Any:
        import orjson

        try:
            raw = orjson.loads(self.data)
        except orjson.JSONDecodeError:  # NaN, or bytes that are not UTF-8: read as the transport did
            raw = json.loads(self.data.decode("utf-8", errors="replace"))
        return lighten_json(raw)


class _TappedReceive(ReceiveWrapper):
    """A receive stream that records each message it hands out and says when it ends."""

    def __init__(self, inner: Any, on_item: Callable[[Any], None], on_end: Callable[[], None]) -> None:
        super().__init__(inner)
        self._on_item = on_item
        self._on_end = on_end

    async def receive(self) -> Any:
        import anyio

        try:
            item = await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._on_end()
            raise
        self._on_item(item)
        return item


class _TappedSend(SendWrapper):
    """A send stream that records each message it is given."""

    def __init__(self, inner: Any, on_item: Callable[[Any], None]) -> None:
        super().__init__(inner)
        self._on_item = on_item

    async def send(self, item: Any) -> None:
        self._on_item(item)
        await self._inner.send(item)


def tap_streams(
    streams: Any, log: WireLog | None, server: str, on_end: Callable[[], None] = lambda: None
) -> tuple[Any, Any]:
    """Wrap a transport's `(read, write)` streams: every message is recorded in `log` (when given), and
    `on_end` is called when the server's side of the stream ends (it exited, or the connection dropped)."""
    read, write = streams

    def received(item: Any) -> None:
        message = getattr(item, "message", None)
        # An Exception from the transport is not a frame (it is counted elsewhere), nor is the stdio
        # reader's own marker that releases a big answer from the SDK's memory.
        if log is not None and message is not None and getattr(message, "id", None) != RELEASE_ID:
            size = getattr(item, "wire_size", None)
            log.record(server, "recv", message, size=size, text=getattr(item, "wire_text", None))

    def sent(item: Any) -> None:
        message = getattr(item, "message", None)
        if log is not None and message is not None:
            log.record(server, "send", message)

    return _TappedReceive(read, received, on_end), _TappedSend(write, sent)
