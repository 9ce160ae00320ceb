"""An answer naming a request never sent fails at once the one request waiting (HTTP transports).

Why: the session drops an answer whose id names no request it waits for, and the request the server meant
then waited for its timeout ("the server did not answer"). A JSON answer to a POST is checked as it is
read (`answer_checks`), but not an answer that comes on the Streamable HTTP GET event stream or the legacy
SSE stream, nor a JSON answer whose id sits between two big members (found only by a parse of the whole
answer, which the SDK does). Here, between the transport and the session, each answer's id is looked up
among the requests sent: an answer to a request sent earlier (late, or after its timeout) goes on as
before; one naming a request never sent, while exactly one request waits, fails that request with the
sentence `answer_checks` says for a JSON answer. With several waiting, which one the server meant cannot
be told: they wait as before. A request the server cancelled (`server_messages` fails it) waits no more.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from explorer.connection.answer_checks import coerced
from explorer.connection.errors import INTERNAL_ERROR, REFUSED_PREFIX, UnreadableAnswer, shown_id
from explorer.connection.sizes import RequestId
from explorer.connection.stream_wrappers import ReceiveWrapper, SendWrapper

__all__ = ["StrayAnswers", "error_answer"]

_MOST_KEPT = 4096  # ids of requests sent (and waiting) remembered: past that, the oldest are forgotten


def error_answer(ident: RequestId, why: str) -> Any:
    """A JSON-RPC error answer to `ident` made here, carrying `why` (`describe_exception` says it)."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    unread = UnreadableAnswer(why)
    error = types.ErrorData.model_construct(code=INTERNAL_ERROR, message=why, data=unread)
    return SessionMessage(types.JSONRPCError.model_construct(jsonrpc="2.0", id=ident, error=error))


class StrayAnswers:
    """The requests a connection sent, and the answers that name none of them (see the module)."""

    def __init__(self) -> None:
        self._waiting: OrderedDict[RequestId, RequestId] = OrderedDict()  # coerced id -> id as sent
        self._sent: OrderedDict[RequestId, None] = OrderedDict()  # coerced ids of every request sent
        self._made: list[Any] = []  # error answers made here, handed out before the next message

    def watched(self, streams: tuple[Any, Any]) -> tuple[Any, Any]:
        """`streams` (a transport's read and write streams) with the requests and answers watched."""
        read, write = streams
        return _WatchedReceive(read, self), _WatchedSend(write, self)

    def sent(self, item: Any) -> None:
        """A message the session sends: a request is waited for, a cancellation ends the wait."""
        import mcp_types as types

        message = getattr(item, "message", None)
        if isinstance(message, types.JSONRPCRequest):
            key = coerced(message.id)
            keep_latest(self._waiting, key, message.id)
            keep_latest(self._sent, key, None)
        elif isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
            self._cancelled(message.params)

    def received(self, item: Any) -> None:
        """A message from the server: an answer to no request sent fails the one waiting, if one is."""
        import mcp_types as types

        message = getattr(item, "message", None)
        if isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
            self._cancelled(message.params)  # the request it names fails (`server_messages`): not waiting
            return
        if not isinstance(message, types.JSONRPCResponse | types.JSONRPCError) or message.id is None:
            return
        key = coerced(message.id)
        if self._waiting.pop(key, None) is not None or key in self._sent:
            return  # its request's answer, or a late one: the session takes it or drops it as before
        if len(self._waiting) != 1:
            return
        _, ident = self._waiting.popitem()
        why = f"{REFUSED_PREFIX}to request {shown_id(ident)} is an answer to request {shown_id(message.id)}"
        self._made.append(error_answer(ident, why))

    def _cancelled(self, params: Any) -> None:
        ident = params.get("requestId") if isinstance(params, dict) else None
        if isinstance(ident, int | str) and not isinstance(ident, bool):
            self._waiting.pop(coerced(ident), None)

    def made(self) -> Any | None:
        """The next error answer made here, or None."""
        return self._made.pop(0) if self._made else None


def keep_latest(kept: OrderedDict[RequestId, Any], key: RequestId, value: Any) -> None:
    """Remember `key` as the newest of `kept`, forgetting the oldest past `_MOST_KEPT` (ids of requests
    in flight: a server that never answers must not make them grow for ever)."""
    kept[key] = value
    kept.move_to_end(key)
    if len(kept) > _MOST_KEPT:
        kept.popitem(last=False)


class _WatchedReceive(ReceiveWrapper):
    """The transport's read stream, each answer looked at, the answers made here handed out next."""

    def __init__(self, inner: Any, strays: StrayAnswers) -> None:
        super().__init__(inner)
        self._strays = strays

    async def receive(self) -> Any:
        made = self._strays.made()
        if made is not None:
            return made
        item = await self._inner.receive()
        self._strays.received(item)
        return item


class _WatchedSend(SendWrapper):
    """The transport's write stream, each request noted before it goes."""

    def __init__(self, inner: Any, strays: StrayAnswers) -> None:
        super().__init__(inner)
        self._strays = strays

    async def send(self, item: Any) -> None:
        self._strays.sent(item)
        await self._inner.send(item)
