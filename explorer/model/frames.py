"""The records of the protocol log: one JSON-RPC frame as it was on a server's wire.

Plain data in the model because the connection layer records frames (`explorer.connection.wire`) and the
UI shows them (`explorer.widgets.frame_list`): neither should depend on the other. A frame keeps the
transport's message object and is turned into JSON only when someone looks at it; strings over
`BIG_STRING` are not kept (their length is), so the log never keeps a 50 MB read alive.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from explorer.config import ServerSpec, redact_value

Direction = Literal["send", "recv"]

BIG_STRING = 64 * 1024  # a string longer than this is not kept in the ring (its length is)
_LIGHTEN_BUDGET = 2_000  # nodes looked at per frame to find big strings (pages of small items stop early)
_NO_BUDGET = 1 << 62
JSON_DEPTH = 100  # levels of a frame shown as JSON; deeper objects and arrays are replaced by TOO_DEEP
TOO_DEEP = f"[nested deeper than {JSON_DEPTH} levels: too deep to show as JSON]"

FrameKind = Literal["request", "notification", "response", "error"]


@dataclass(slots=True)
class Frame:
    """One JSON-RPC message on one server's wire.

    `message` is the transport's message model, or (when the message carried strings over `BIG_STRING`)
    a JSON copy with those strings replaced by a note of their length, so the ring never keeps a 50 MB
    read alive; `dropped` counts the characters left out, so `size` still tells the wire size.
    """

    seq: int
    at: float
    server: str
    direction: Direction
    message: Any
    method: str | None
    id: str | int | None
    kind: FrameKind
    spec: ServerSpec | None = field(default=None, repr=False)
    duration: float | None = None  # responses and errors: seconds since their request was sent
    dropped: int = 0
    wire_size: int | None = None  # bytes of the line, when the transport told (it counts against max_bytes)
    _json: dict[str, Any] | None = field(default=None, repr=False)
    _size: int | None = field(default=None, repr=False)

    def json(self) -> dict[str, Any]:
        """The frame as JSON, with the server's secrets masked (computed once, on demand)."""
        if self._json is None:
            raw = plain_json(self.message)
            self._json = redact_value(raw, self.spec) if self.spec is not None else raw
        return self._json

    @property
    def size(self) -> int:
        """Bytes of the frame on the wire when the transport told, else as compact JSON (on demand)."""
        if self._size is None and self.wire_size is not None:
            self._size = self.wire_size
        if self._size is None:
            try:
                compact = json.dumps(self.json(), ensure_ascii=False, separators=(",", ":"))
            except (RecursionError, ValueError, TypeError):  # not JSON-encodable: its size is unknown
                compact = ""
            self._size = len(compact.encode()) + self.dropped
        return self._size

    def record(self) -> dict[str, Any]:
        """The JSON Lines object: `t`, `server`, `dir`, `frame`, and `ms` for a response."""
        data: dict[str, Any] = {
            "t": iso_time(self.at),
            "server": self.server,
            "dir": self.direction,
            "frame": self.json(),
        }
        if self.duration is not None:
            data["ms"] = round(self.duration * 1000, 3)
        return data


def plain_json(message: Any) -> Any:
    """A message as JSON; a server's answer nested deeper than `JSON_DEPTH` levels is cut there (pydantic
    refuses to dump it, and every JSON encoder after would recurse past Python's limit)."""
    dump = getattr(message, "model_dump", None)
    if dump is None:
        return cut_deep(message)
    try:
        return dump(by_alias=True, mode="json", exclude_unset=True)
    except (RecursionError, ValueError):  # pydantic's "Maximum serialization depth exceeded"
        return _model_json(message, 0)


def cut_deep(value: Any, limit: int = JSON_DEPTH) -> Any:
    """`value` with every object or array deeper than `limit` levels replaced by `TOO_DEEP` (a loop, not
    recursion; copies only when something is cut)."""
    if not isinstance(value, dict | list) or not _deeper_than(value, limit):
        return value
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, int]] = [(value, root, 0, 0)]  # (source, target, slot, depth)
    while stack:
        source, target, slot, depth = stack.pop()
        if isinstance(source, dict | list) and source and depth >= limit:
            target[slot] = TOO_DEEP
        elif isinstance(source, dict):
            copy: dict[str, Any] = dict.fromkeys(source)
            target[slot] = copy
            stack.extend((item, copy, key, depth + 1) for key, item in source.items())
        elif isinstance(source, list):
            items: list[Any] = [None] * len(source)
            target[slot] = items
            stack.extend((item, items, index, depth + 1) for index, item in enumerate(source))
        else:
            target[slot] = source
    return root[0]


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether a non-empty object or array sits `limit` levels down in `value` (a loop)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list) and item:
            if depth >= limit:
                return True
            stack.extend((kid, depth + 1) for kid in (item.values() if isinstance(item, dict) else item))
    return False


def _model_json(value: Any, depth: int) -> Any:
    """What `model_dump(by_alias=True, mode="json", exclude_unset=True)` gives, cut at `JSON_DEPTH`
    (recursion at most that deep): for a message pydantic refused to dump."""
    fields = getattr(type(value), "model_fields", None)
    if fields is not None and hasattr(value, "model_fields_set"):
        if depth >= JSON_DEPTH:
            return TOO_DEEP
        data: dict[str, Any] = {}
        for name in value.model_fields_set:
            info = fields.get(name)
            data[(info.alias if info is not None else None) or name] = _model_json(
                getattr(value, name), depth + 1
            )
        for name, item in (getattr(value, "model_extra", None) or {}).items():
            data[name] = _model_json(item, depth + 1)
        return data
    if isinstance(value, dict | list | tuple) and value and depth >= JSON_DEPTH:
        return TOO_DEEP
    if isinstance(value, dict):
        return {str(key): _model_json(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_model_json(item, depth + 1) for item in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def iso_time(at: float) -> str:
    """`2026-12-01T10:11:29.488Z`: UTC, milliseconds."""
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def describe(message: Any) -> tuple[str | None, str | int | None, FrameKind]:
    """(method, id, kind) of a JSON-RPC message model."""
    method = getattr(message, "method", None)
    method = method if isinstance(method, str) else None
    ident = getattr(message, "id", None)
    ident = ident if isinstance(ident, str | int) else None
    if getattr(message, "error", None) is not None:
        return method, ident, "error"
    if method is not None:
        return method, ident, "request" if ident is not None else "notification"
    return method, ident, "response"


def lighten(message: Any) -> tuple[Any, int]:
    """The message, or a JSON copy without its big strings, and how many characters were left out."""
    body_name = next((n for n in ("result", "params") if isinstance(getattr(message, n, None), dict)), None)
    if body_name is None:
        return message, 0
    budget = [_LIGHTEN_BUDGET]
    body, dropped = _without_big_strings(getattr(message, body_name), budget)
    if not dropped:
        return message, 0
    envelope: dict[str, Any] = {"jsonrpc": "2.0"}
    for name in ("id", "method"):
        value = getattr(message, name, None)
        if value is not None:
            envelope[name] = value
    envelope[body_name] = body
    return envelope, dropped


def lighten_json(raw: Any) -> Any:
    """A frame decoded from its line's bytes, with its big strings replaced by a note (all of it looked at:
    a frame kept as bytes is at most a megabyte, and this runs only when someone looks at it)."""
    if not isinstance(raw, dict):
        return raw
    raw = cut_deep(raw)
    for name in ("result", "params"):
        body = raw.get(name)
        if isinstance(body, dict):
            light, dropped = _without_big_strings(body, [_NO_BUDGET])
            if dropped:
                return raw | {name: light}
    return raw


def _without_big_strings(value: Any, budget: list[int], depth: int = 0) -> tuple[Any, int]:
    """`value` with strings over BIG_STRING replaced by a note; copies only what contains one. Looks no
    deeper than `JSON_DEPTH` levels (recursion; the log shows no deeper)."""
    budget[0] -= 1
    if isinstance(value, str):
        if len(value) > BIG_STRING:
            return f"[{len(value):,} characters, not kept in the protocol log]", len(value)
        return value, 0
    if budget[0] <= 0 or depth > JSON_DEPTH:
        return value, 0
    if isinstance(value, dict):
        changed: dict[str, Any] | None = None
        total = 0
        for key, item in value.items():
            new, dropped = _without_big_strings(item, budget, depth + 1)
            if dropped:
                changed = dict(value) if changed is None else changed
                changed[key] = new
                total += dropped
        return (changed if changed is not None else value), total
    if isinstance(value, list):
        copied: list[Any] | None = None
        total = 0
        for index, item in enumerate(value):
            new, dropped = _without_big_strings(item, budget, depth + 1)
            if dropped:
                copied = list(value) if copied is None else copied
                copied[index] = new
                total += dropped
        return (copied if copied is not None else value), total
    return value, 0
