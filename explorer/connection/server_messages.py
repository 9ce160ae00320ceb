"""What a server sends on its own that the SDK would mishandle, put right before the session sees it.

It sits between the protocol log's tap and the session, on every transport (`watching`):

- A `notifications/cancelled` naming one of the explorer's requests in flight fails that request at once
  with the server's reason (an error answer made here, `stray_answers.error_answer`). The SDK applies a
  cancel only to the requests it serves and swallows the rest, so the request waited for its timeout
  ("the server did not answer after 8 s"). A cancel naming a request of the server's own (one the explorer
  is answering), a `subscriptions/listen` stream (the SDK's signal that the stream ended) or nothing in
  flight goes on as before.
- A request of the server's the SDK cannot read (params that are not an object, a bad envelope) is
  answered at once with a JSON-RPC error (-32602 or -32600), written back to the server: it waits for an
  answer, and the SDK dropped such a request without one. It is counted in `ProtocolProblems`. One whose
  id is no string or integer (1.5, true, null, an object) is answered -32600 with the id null, as
  JSON-RPC 2.0 says: the SDK took it for a notification, unanswered and unsaid.
- A log entry the SDK would refuse (a level that is none, no level, no data, no params) is counted and
  not handed on: the SDK dropped it with a traceback in its log, and the user never learnt the server
  logged anything. One whose params are not an object is no JSON-RPC message: counted as such. A
  progress notification the SDK would refuse (no token, a progress that is no number) likewise.
- Anything else a transport could not read is counted with the server's own text, not the validator's.
- On stdio (`count_strays`), an answer naming a request never sent is counted: the SDK drops it, and
  nothing said the server answered ids the explorer never used. Over HTTP `stray_answers` does this.

What the stdio reader could not read comes as an `UnreadableMessage`, what an HTTP transport could not as
the SDK's validation error (`errors.sent_message` finds the message in both).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc

from explorer.connection.answer_checks import coerced
from explorer.connection.errors import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    ProtocolProblems,
    quoted,
    sent_message,
    shown_id,
)
from explorer.connection.sizes import RequestId
from explorer.connection.stray_answers import error_answer, keep_latest
from explorer.connection.stream_wrappers import ReceiveWrapper, SendWrapper
from explorer.connection.wire import RELEASE_ID
from explorer.sanitize import sanitize_line

if TYPE_CHECKING:
    from explorer.sdk_door import TransportStreams

__all__ = ["LOG_LEVELS", "ServerMessages", "log_fault", "progress_fault"]

LOG_LEVELS = frozenset({"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"})
_WRITE_WAIT = 10.0  # at most, for an error answer to a request to be written back
_LISTEN = "subscriptions/listen"
UNDECLARED = frozenset({"sampling/createMessage", "elicitation/create", "roots/list"})
"""Requests for capabilities the explorer does not declare: the SDK refuses them; counted, so said."""


class ServerMessages:
    """One connection's requests in flight both ways, and what the server sends on its own (see the
    module)."""

    def __init__(self, problems: ProtocolProblems, *, count_strays: bool = False) -> None:
        self._problems = problems
        self._ours: OrderedDict[RequestId, tuple[RequestId, str]] = OrderedDict()  # key -> (id, method)
        # Every request of ours sent (its key), with `count_strays`: an answer naming none is a stray.
        self._sent: OrderedDict[RequestId, None] | None = OrderedDict() if count_strays else None
        self._theirs: OrderedDict[RequestId, None] = OrderedDict()  # the server's requests not answered
        self._group: anyio.abc.TaskGroup | None = None
        self._write: Any = None

    @asynccontextmanager
    async def watching(self, streams: TransportStreams) -> AsyncIterator[TransportStreams]:
        """`streams` (read, write) with the server's messages looked at; answers to its requests are
        written in tasks of their own, never holding up the session's read loop."""
        read, write = streams
        self._write = write
        async with anyio.create_task_group() as group:
            self._group = group
            try:
                yield _WatchedReceive(read, self), _WatchedSend(write, self)
            finally:
                self._group = None
                group.cancel_scope.cancel()

    # -- what the explorer sends

    def sent(self, item: Any) -> None:
        """Note a request of ours in flight, one of ours cancelled, or a request of the server's answered."""
        import mcp_types as types

        message = getattr(item, "message", None)
        if isinstance(message, types.JSONRPCRequest):
            keep_latest(self._ours, coerced(message.id), (message.id, message.method))
            if self._sent is not None:
                keep_latest(self._sent, coerced(message.id), None)
        elif isinstance(message, types.JSONRPCResponse | types.JSONRPCError) and message.id is not None:
            self._theirs.pop(coerced(message.id), None)
        elif isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
            ident = _request_id((message.params or {}).get("requestId"))
            if ident is not None:
                self._ours.pop(coerced(ident), None)

    # -- what the server sends

    def received(self, item: Any) -> Any | None:
        """What the session gets for `item`: the item, an error answer made here in its place, or None
        (nothing: it was answered or counted here)."""
        import mcp_types as types

        if isinstance(item, Exception):
            return self._unread(item)
        message = getattr(item, "message", None)
        if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            if message.id is not None:
                key = coerced(message.id)
                answered = self._ours.pop(key, None) is not None
                if not answered and self._sent is not None and key not in self._sent and key != RELEASE_ID:
                    # (RELEASE_ID: the stdio reader's own marker, not the server's)
                    self._problems.stray_answer(shown_id(message.id))  # the session drops it unsaid
        elif isinstance(message, types.JSONRPCRequest):
            keep_latest(self._theirs, coerced(message.id), None)
            if message.method in UNDECLARED:
                self._problems.undeclared_request(message.method)
        elif isinstance(message, types.JSONRPCNotification):
            if message.method == "notifications/cancelled":
                return self._cancelled(item, message.params)
            if message.method == "notifications/message":
                fault = log_fault(message.params)
                if fault is not None:
                    self._problems.unreadable_log(fault)
                    return None
            if message.method == "notifications/progress":
                fault = progress_fault(message.params)
                if fault is not None:
                    self._problems.unreadable_progress(fault)
                    return None
        return item

    def _cancelled(self, item: Any, params: Any) -> Any:
        """A server's cancel: an error answer failing the request of ours it names, else `item`."""
        ident = _request_id(params.get("requestId")) if isinstance(params, dict) else None
        if ident is None:
            return item
        key = coerced(ident)
        ours = self._ours.get(key)
        if key in self._theirs or ours is None or ours[1] == _LISTEN:
            return item
        del self._ours[key]
        reason = params.get("reason")
        said = f" (reason: {sanitize_line(reason, 120)})" if isinstance(reason, str) and reason else ""
        return error_answer(ours[0], f"the server cancelled the request{said}")

    def _unread(self, exc: Exception) -> Exception | None:
        """A message a transport could not read: a request is answered with an error; anything else (a
        notification whose params are not an object, not JSON-RPC at all) is counted with its text, as
        the stdio reader counts such a line. An error holding no message goes on."""
        sent = sent_message(exc)
        if sent is None:
            return exc
        if isinstance(sent, dict) and isinstance(sent.get("method"), str):
            ident = _request_id(sent.get("id"))
            if ident is not None or "id" in sent:  # an id that is none (1.5, true, null): answered to null
                self._answer_unread_request(ident, sent["method"], sent)
                return None
        self._problems.bad_line(quoted(sent))
        return None

    def _answer_unread_request(self, ident: RequestId | None, method: str, sent: dict[str, Any]) -> None:
        """Answer a request the SDK cannot read with an error (a task of its own), and count it. One whose
        id is neither a string nor an integer is answered -32600 with the id null, as JSON-RPC 2.0 says."""
        import mcp_types as types
        from mcp.shared.message import SessionMessage

        shown = sanitize_line(method, 60)
        params = sent.get("params")
        if ident is None:
            what = f"{shown} whose id {_shown_value(sent.get('id'))} is no string or integer"
            code, text = INVALID_REQUEST, "Invalid Request"
        elif "params" in sent and not isinstance(params, dict):
            code, text, what = INVALID_PARAMS, "Invalid params", f"{shown} with params that are not an object"
        elif sent.get("jsonrpc") != "2.0":
            code, text, what = INVALID_REQUEST, "Invalid Request", f'{shown} whose "jsonrpc" is not "2.0"'
        else:
            code, text, what = INVALID_REQUEST, "Invalid Request", f"{shown}, not a valid JSON-RPC request"
        self._problems.unreadable_request(what)
        error = types.ErrorData(code=code, message=text)
        answer = SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=ident, error=error))
        if self._group is not None:
            self._group.start_soon(self._write_back, answer)

    async def _write_back(self, answer: Any) -> None:
        with anyio.move_on_after(_WRITE_WAIT):
            try:
                await self._write.send(answer)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
                return  # the connection ended meanwhile


def log_fault(params: Any) -> str | None:
    """Why the SDK would refuse a `notifications/message` with these params (`level "loud" is not a log
    level`), or None when it reads it. Checked by hand: the SDK's validation costs as much as the entry."""
    if not isinstance(params, dict):
        return "it has no params" if params is None else "its params are not an object"
    if "level" not in params:
        return "it has no level"
    level = params["level"]
    if not isinstance(level, str) or level not in LOG_LEVELS:
        return f"level {_shown_value(level)} is not a log level"
    if "data" not in params:
        return "it has no data"
    logger = params.get("logger")
    if logger is not None and not isinstance(logger, str):
        return "its logger is not a string"
    return None


_PROGRESS_FIELDS = {
    "progressToken": "a string or an integer",
    "progress": "a number",
    "total": "a number",
    "_meta": "an object",
}


def progress_fault(params: Any) -> str | None:
    """Why the SDK would refuse a `notifications/progress` with these params (`its progress is "half", not
    a number`), or None when it reads it: the SDK dropped such a notification with a traceback in its log,
    and the user never learnt the server reported progress. The SDK's own model decides (its lax rules:
    "5" is a number to it); only the reason is worded here."""
    if not isinstance(params, dict):
        return "it has no params" if params is None else "its params are not an object"
    from mcp_types import ProgressNotificationParams
    from pydantic import ValidationError

    try:
        ProgressNotificationParams.model_validate(params)
    except ValidationError as invalid:
        errors = invalid.errors()
        where = errors[0]["loc"][0] if errors and errors[0]["loc"] else None
        if not isinstance(where, str):
            return "its params are not what the protocol says"
        if where not in params:
            return f"it has no {where}"
        wanted = _PROGRESS_FIELDS.get(where, "a string")
        return f"its {sanitize_line(where, 40)} is {_shown_value(params[where])}, not {wanted}"
    return None


def _shown_value(value: Any) -> str:
    """A JSON value of the server's as a problem shows it: a string in quotes, anything else as JSON;
    sanitized and cut."""
    if isinstance(value, str):
        return f'"{sanitize_line(value, 40)}"'
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = type(value).__name__
    return sanitize_line(text, 40)


def _request_id(value: Any) -> RequestId | None:
    """A JSON-RPC request id (an integer or a string; a boolean is none), or None."""
    if isinstance(value, int | str) and not isinstance(value, bool):
        return value
    return None


class _WatchedReceive(ReceiveWrapper):
    """The read stream the session reads: each message looked at (`ServerMessages.received`)."""

    def __init__(self, inner: Any, messages: ServerMessages) -> None:
        super().__init__(inner)
        self._messages = messages

    async def receive(self) -> Any:
        while True:
            item = self._messages.received(await self._inner.receive())
            if item is not None:
                return item


class _WatchedSend(SendWrapper):
    """The write stream the session writes: each message noted before it goes (`ServerMessages.sent`)."""

    def __init__(self, inner: Any, messages: ServerMessages) -> None:
        super().__init__(inner)
        self._messages = messages

    async def send(self, item: Any) -> None:
        self._messages.sent(item)
        await self._inner.send(item)
