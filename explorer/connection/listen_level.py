"""The log level a modern-era listen stream asks for, stamped on its `subscriptions/listen` request.

Why: in the modern era (2026-07-28) a server sends log entries only on requests whose `_meta` asks for
them (`io.modelcontextprotocol/logLevel`), and what it says outside a request (a new note, a job that
ended) only on listen streams that asked. `ServerConnection.request_sized` stamps its own requests; the
SDK's `Client.listen` builds and stamps its request itself, with no way to add to its `_meta`, so the
level is added here, on the way to the transport, as the connection's level is when the stream opens
(a new level opens the stream again: `Follower.relisten`). A request that names a level keeps it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from explorer.connection.stream_wrappers import SendWrapper

LOG_LEVEL_META_KEY = "io.modelcontextprotocol/logLevel"
LISTEN_METHOD = "subscriptions/listen"


def with_log_level(message: Any, level: str | None) -> Any:
    """`message` (a JSON-RPC message model) with `level` in its `_meta` when it is a listen request that
    names none; else `message` itself."""
    if (
        level is None
        or getattr(message, "method", None) != LISTEN_METHOD
        or getattr(message, "id", None) is None
    ):
        return message
    params = getattr(message, "params", None)
    params = dict(params) if isinstance(params, dict) else {}
    meta = params.get("_meta")
    meta = dict(meta) if isinstance(meta, dict) else {}
    if LOG_LEVEL_META_KEY in meta:
        return message
    meta[LOG_LEVEL_META_KEY] = level
    params["_meta"] = meta
    return message.model_copy(update={"params": params})


class _LevelledSend(SendWrapper):
    def __init__(self, inner: Any, level: Callable[[], str | None]) -> None:
        super().__init__(inner)
        self._level = level

    async def send(self, item: Any) -> None:
        message = getattr(item, "message", None)
        if message is not None:
            stamped = with_log_level(message, self._level())
            if stamped is not message:
                item = replace(item, message=stamped)
        await self._inner.send(item)


def stamp_listen_level(streams: Any, level: Callable[[], str | None]) -> Any:
    """A transport's `(read, write)` streams whose listen requests ask for `level()` as it is when sent."""
    read, write = streams
    return read, _LevelledSend(write, level)
