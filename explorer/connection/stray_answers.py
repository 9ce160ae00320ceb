"""An answer naming a request never sent fails at once the request the server meant (HTTP transports).

Why: the session drops an answer whose id names no request it waits for, and the request the server meant
then waited for its timeout ("the server did not answer"). A JSON answer to a POST is checked as it is
read (`answer_checks`), but only its first and last bytes: an id between two big members is found by the
SDK's parse alone. Here, between the transport and the session, each answer's id is looked at after that
parse, and nothing is parsed twice:

- An answer the SDK read from a POST's body is known to answer that POST's request: the task reading it
  noted the request's id (`answer_checks.ANSWERING`), and the SDK hands the message on with a copy of
  that task's context (`last_context`). One naming another request is that request's answer refused, as
  `answer_checks` refuses it when the id comes first or last (before, it went to the other request when
  that one waited, its own answer then dropped, or it was dropped; the POST's request waited for its
  timeout either way). An error naming none (id null) is given the request's id, as there.
- An answer on an event stream of no POST (the Streamable HTTP GET stream, the legacy SSE stream) names
  its request by its id alone. One to a request sent earlier (late, or after its timeout) goes on as
  before. One naming a request never sent is a stray: it is taken as meant for one of the requests that
  waited when it came; with one waiting, that one fails at once with the sentence `answer_checks` says
  for a JSON answer; with several, each answered later is not the one, and once one alone is left, it
  fails so (it waited for its timeout before). A request cancelled meanwhile (a timeout's courtesy
  cancel, the user stopping a listing, or `server_messages` failing it) makes the stray's request
  unknown: nothing is failed for it, and the stray is counted in the connection's `ProtocolProblems`,
  as is one that comes while no request waits (meant for none), so the warning a listing ends with says
  it (before, both were dropped without a word). Its id was never sent: a server fault whichever request
  it was meant for, the one cancelled too. An answer naming a request the explorer cancelled is not one:
  the server may answer a request before the cancel reaches it, and such a late answer goes on to the
  session, which drops it, neither counted nor failing anything.
- Every stray is said once, by the request it fails or in that count: past `_MOST_STRAYS` strays not
  told yet, the oldest is counted rather than forgotten, and one told for a request failed or forgotten
  meanwhile (several strays among the same requests, or `_MOST_KEPT` requests waiting) is counted too.
"""

from __future__ import annotations

from collections import OrderedDict
from contextvars import Context
from typing import Any

from explorer.connection.answer_checks import ANSWERING, coerced
from explorer.connection.errors import (
    INTERNAL_ERROR,
    REFUSED_PREFIX,
    ProtocolProblems,
    UnreadableAnswer,
    shown_id,
)
from explorer.connection.sizes import RequestId
from explorer.connection.stream_wrappers import ReceiveWrapper, SendWrapper

__all__ = ["StrayAnswers", "error_answer"]

_MOST_KEPT = 4096  # ids of requests sent (and waiting) remembered: past that, the oldest are forgotten
LISTEN = "subscriptions/listen"
_MOST_STRAYS = 64  # strays waiting to be told whose they are: past that, the oldest is counted untold


def error_answer(ident: RequestId, why: str) -> Any:
    """A JSON-RPC error answer to `ident` made here, carrying `why` (`describe_exception` says it)."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    unread = UnreadableAnswer(why)
    error = types.ErrorData.model_construct(code=INTERNAL_ERROR, message=why, data=unread)
    return SessionMessage(types.JSONRPCError.model_construct(jsonrpc="2.0", id=ident, error=error))


def _misnamed(ident: RequestId, named: RequestId) -> str:
    return f"{REFUSED_PREFIX}to request {shown_id(ident)} is an answer to request {shown_id(named)}"


class StrayAnswers:
    """The requests a connection sent, and the answers that name none of them (see the module)."""

    def __init__(self, problems: ProtocolProblems | None = None) -> None:
        # `problems`: the connection's, where a stray that comes while no request waits is counted.
        self._problems = problems if problems is not None else ProtocolProblems()
        self._waiting: OrderedDict[RequestId, RequestId] = OrderedDict()  # coerced id -> id as sent
        self._sent: OrderedDict[RequestId, None] = OrderedDict()  # coerced ids of every request sent
        self._made: list[Any] = []  # error answers made here, handed out before the next message
        # Strays whose request is not told yet: the id each named, and the (coerced) requests that waited
        # when it came and have not been answered since.
        self._strays: list[tuple[RequestId, set[RequestId]]] = []

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
            if message.method != LISTEN:  # a stream open for as long as it lasts: no stray is meant for it
                keep_latest(self._waiting, key, message.id)
            keep_latest(self._sent, key, None)
        elif isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
            self._cancelled(message.params)

    def received(self, item: Any, answering: RequestId | None = None) -> Any:
        """A message from the server, and what goes on to the session in its place (`item` itself, but
        for an answer to the POST of request `answering` that names another). An answer naming no request
        sent fails the request the server meant once it is told (`made`)."""
        import mcp_types as types

        message = getattr(item, "message", None)
        if isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
            self._cancelled(message.params)  # the request it names fails (`server_messages`): not waiting
            return item
        if not isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            return item
        if answering is not None and (message.id is None or coerced(message.id) != coerced(answering)):
            return self._posted(message, answering)
        if message.id is None:
            return item
        key = coerced(message.id)
        if self._waiting.pop(key, None) is not None:
            self._answered(key)
            return item
        if key not in self._sent:  # else a late answer: the session drops it as before
            self._stray(message.id)
        return item

    def _posted(self, message: Any, answering: RequestId) -> Any:
        """The answer read from the POST of request `answering`, which names another request or none:
        an error naming none is given the request's id, anything else fails the request."""
        import mcp_types as types
        from mcp.shared.message import SessionMessage

        key = coerced(answering)
        if self._waiting.pop(key, None) is not None:
            self._answered(key)
        if message.id is None:  # an error (a result naming none is refused by the SDK's parse)
            return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=answering, error=message.error))
        return error_answer(answering, _misnamed(answering, message.id))

    def _stray(self, named: RequestId) -> None:
        """An answer naming request `named`, never sent: meant for one of the requests waiting now, or,
        with none waiting, for none (counted)."""
        if len(self._waiting) == 1:
            self._fail(next(iter(self._waiting)), named)
        elif self._waiting:
            self._strays.append((named, set(self._waiting)))
            if len(self._strays) > _MOST_STRAYS:  # the oldest is given up, but said
                given_up, _ = self._strays.pop(0)
                self._problems.stray_answer(shown_id(given_up))
        else:
            self._problems.stray_answer(shown_id(named))

    def _answered(self, key: RequestId) -> None:
        """Request `key` was answered: no stray was meant for it. A stray left with one request it may be
        meant for fails that one."""
        told: list[tuple[RequestId, RequestId]] = []
        kept = []
        for named, candidates in self._strays:
            candidates.discard(key)
            if len(candidates) == 1:
                told.append((next(iter(candidates)), named))
            elif candidates:
                kept.append((named, candidates))
        self._strays = kept
        for left, named in told:
            self._fail(left, named)

    def _fail(self, key: RequestId, named: RequestId) -> None:
        """Fail the waiting request `key` (coerced) with an answer made here: the stray naming `named`
        was its answer."""
        ident = self._waiting.pop(key, None)
        if ident is None:  # failed by another stray, or forgotten (`_MOST_KEPT`): this one is said here
            self._problems.stray_answer(shown_id(named))
            return
        self._made.append(error_answer(ident, _misnamed(ident, named)))
        self._answered(key)

    def _cancelled(self, params: Any) -> None:
        ident = params.get("requestId") if isinstance(params, dict) else None
        if isinstance(ident, int | str) and not isinstance(ident, bool):
            key = coerced(ident)
            if self._waiting.pop(key, None) is not None:
                # It may have been the one a stray was meant for: those strays' requests are unknown,
                # and nothing else will say them.
                kept = []
                for named, waited in self._strays:
                    if key in waited:
                        self._problems.stray_answer(shown_id(named))
                    else:
                        kept.append((named, waited))
                self._strays = kept

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
        return self._strays.received(item, _answering(self._inner))


class _WatchedSend(SendWrapper):
    """The transport's write stream, each request noted before it goes."""

    def __init__(self, inner: Any, strays: StrayAnswers) -> None:
        super().__init__(inner)
        self._strays = strays

    async def send(self, item: Any) -> None:
        self._strays.sent(item)
        await self._inner.send(item)


def _answering(read: Any) -> RequestId | None:
    """The request whose POST's answer the last message `read` gave was read from (`ANSWERING`, in the
    sender's context the SDK's streams keep, `last_context`), else None."""
    context = getattr(read, "last_context", None)
    return context.get(ANSWERING) if isinstance(context, Context) else None
