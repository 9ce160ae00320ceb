"""Whether `--protocol auto` went on to `initialize`, and if only after `server/discover` went unanswered.

Over stdio the SDK sends `initialize` itself when its `server/discover` probe times out, so a server that
answers nothing costs two waits: the probe's, then `initialize`'s. The failure that reaches the explorer
is `initialize`'s own timeout, which alone would name one wait. Looking at the frames as the session
sends and gets them tells that apart from a server that refused `server/discover` at once and then went
silent (one wait), and tells the HTTP fallback (`ServerConnection._fall_back_to_initialize`) that
`initialize` was already tried.
"""

from __future__ import annotations

from typing import Any

from explorer.connection.answer_checks import coerced
from explorer.connection.sizes import RequestId
from explorer.connection.stream_wrappers import ReceiveWrapper, SendWrapper

__all__ = ["DiscoverWait"]

_DISCOVER = "server/discover"
_INITIALIZE = "initialize"


class DiscoverWait:
    """One connect's `server/discover` requests still unanswered, and what became of `initialize`."""

    def __init__(self) -> None:
        self._unanswered: set[RequestId] = set()
        self.initialize_sent = False
        self.waited_out = False  # `initialize` was sent while a `server/discover` was still unanswered

    def watching(self, streams: tuple[Any, Any]) -> tuple[Any, Any]:
        """`streams` (read, write), with the connect's requests and answers noted."""
        read, write = streams
        return _WatchedReceive(read, self), _WatchedSend(write, self)

    def sent(self, item: Any) -> None:
        import mcp_types as types

        message = getattr(item, "message", None)
        if not isinstance(message, types.JSONRPCRequest):
            return
        if message.method == _DISCOVER:
            self._unanswered.add(coerced(message.id))
        elif message.method == _INITIALIZE:
            self.initialize_sent = True
            self.waited_out = self.waited_out or bool(self._unanswered)

    def received(self, item: Any) -> None:
        import mcp_types as types

        message = getattr(item, "message", None)
        if isinstance(message, types.JSONRPCResponse | types.JSONRPCError) and message.id is not None:
            self._unanswered.discard(coerced(message.id))


class _WatchedReceive(ReceiveWrapper):
    def __init__(self, inner: Any, wait: DiscoverWait) -> None:
        super().__init__(inner)
        self._wait = wait

    async def receive(self) -> Any:
        item = await self._inner.receive()
        self._wait.received(item)
        return item


class _WatchedSend(SendWrapper):
    def __init__(self, inner: Any, wait: DiscoverWait) -> None:
        super().__init__(inner)
        self._wait = wait

    async def send(self, item: Any) -> None:
        self._wait.sent(item)
        await self._inner.send(item)
