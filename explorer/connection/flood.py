"""Notifications from a server at most `RATE` a second (bursts of `BURST`): past that, dropped.

Why: the SDK validates and dispatches every notification on the connection's loop, about 100 us each (110
us for a log entry, more for one it finds invalid, with a traceback in its log). A server that sent
100,000 log entries before a page took 11 s to get through, and the page's request, answered all along,
was reported as timed out. Lists changing and resources updated are never dropped: they are coalesced
further on (`connection.pacing`), and one of them lost would leave the tree stale. What was dropped is
counted by method in the connection's `ProtocolProblems`, so a fault and the TUI's notice say so.

One `FloodGate` a connection, on every transport: the stdio reader asks it of each message it parsed
(`admits`), before the message is handed on. Over HTTP (Streamable HTTP and legacy SSE) the SDK reads the
event streams itself, and it parses every event (pydantic, about 100 us) before anything of the explorer's
sees the message: 30,000 log entries ahead of an answer made its request time out at `--timeout 2` although
the gate dropped most of them. So each event stream's bytes go through `EventGate` on their way to the
SDK (`http_limits`): an event is told a notification from its bytes (a small event's data read by orjson,
a few microseconds) and one past the rate is taken out there, never parsed by the SDK. The gate also
wraps the transport's read stream (`watched`) for what the bytes do not tell (an event too big to look
at); a notification admitted from its bytes is not charged there again.

The same look at an event's bytes finds a request whose id is no string or integer (1.5, true, null, an
object), which the SDK's parser takes for a notification (it drops the id): unanswered and unsaid, the
server waited. Such an event is handed on as a notification of a method of this gate's own (`mark`, with
a number only this gate knows), which `watched` turns back into the message as the server sent it, an
`UnreadableMessage`: the connection answers it (an error to id null) and counts it, as the stdio reader
has it do (`stdio_lines`). Not made unreadable for the SDK: on a request's own event stream the SDK fails
the request on an event it cannot parse, and reads no further.
"""

from __future__ import annotations

import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

from explorer.connection.stream_wrappers import ReceiveWrapper

if TYPE_CHECKING:
    from explorer.connection.errors import ProtocolProblems, UnreadableMessage

__all__ = ["BURST", "KEPT", "RATE", "EventGate", "FloodGate", "NotificationBudget", "notification_method"]

RATE = 2_000.0  # notifications a second, sustained: 20% of a core in the SDK, no listing waits on it
BURST = 10_000  # at once: a server that logs a burst at start-up loses none of it
KEPT = frozenset(
    {
        "notifications/resources/list_changed",
        "notifications/resources/updated",
        "notifications/prompts/list_changed",
        "notifications/tools/list_changed",
        "notifications/cancelled",
    }
)


class NotificationBudget:
    """A token bucket for one connection's notifications."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._tokens = float(BURST)
        self._at = clock()

    def admit(self, method: str) -> bool:
        """Whether a notification of `method` goes on to the SDK now (else it is dropped)."""
        if method in KEPT:
            return True
        now = self._clock()
        self._tokens = min(float(BURST), self._tokens + (now - self._at) * RATE)
        self._at = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False


def notification_method(item: Any) -> str | None:
    """The method of a notification (a `SessionMessage` whose message has a method and no id), else None."""
    inner = getattr(item, "message", None)
    method = getattr(inner, "method", None)
    if isinstance(method, str) and getattr(inner, "id", None) is None:
        return method
    return None


class FloodGate:
    """One connection's notification budget, and where what it drops is counted."""

    def __init__(self, problems: ProtocolProblems, clock: Callable[[], float] = time.monotonic) -> None:
        self._budget = NotificationBudget(clock)
        self._problems = problems
        self._waived = 0  # notifications admitted from their bytes (`admits_method`), not charged again
        # Requests with an id that is none, taken from events' bytes (`unreadable`) until `watched` hands
        # them on; an event names one by number, in a method no server can guess.
        self.mark = f"explorer/unreadable-{secrets.token_hex(8)}"
        self._unread: OrderedDict[int, dict[str, Any]] = OrderedDict()
        self._count = 0

    def admits(self, item: Any) -> bool:
        """Whether `item` goes on: a notification within the rate, or anything else. A notification past
        the rate is counted as dropped."""
        method = notification_method(item)
        if method is None:
            return True
        if self._waived and method not in KEPT:
            self._waived -= 1  # admitted from its bytes already (or one like it: the counts even out)
            return True
        if self._budget.admit(method):
            return True
        self._problems.dropped_notification(method)
        return False

    def admits_method(self, method: str) -> bool:
        """Whether a notification of `method`, told from an event's bytes before the SDK parses it, goes
        on (`EventGate`); one past the rate is counted as dropped. One admitted here passes `admits`
        uncharged: the budget is spent once a notification."""
        if method in KEPT:
            return True
        if self._budget.admit(method):
            self._waived = min(self._waived + 1, BURST)  # bounded: an event the SDK then lost leaves one
            return True
        self._problems.dropped_notification(method)
        return False

    def unreadable(self, data: bytes) -> bytes | None:
        """For an event's data that names a method and has an id the SDK reads as none (1.5, true, null,
        an object: it would take the request for a notification), the data of the event handed on in its
        place (a notification of `mark`), the request kept for `watched`; else None. The SDK's own parser
        decides, as the stdio reader's does (a rare event: only one whose id the bytes show is odd)."""
        import json

        import mcp_types as types

        try:
            parsed = types.jsonrpc_message_adapter.validate_json(data, by_name=False)
            sent = json.loads(data)
        except (ValueError, RecursionError):
            return None
        if (
            not isinstance(parsed, types.JSONRPCNotification)
            or not isinstance(sent, dict)
            or "id" not in sent
        ):
            return None
        self._count += 1
        self._unread[self._count] = sent
        while len(self._unread) > _MOST_UNREAD:  # bounded: an event the SDK then lost leaves one
            self._unread.popitem(last=False)
        return orjson.dumps({"jsonrpc": "2.0", "method": self.mark, "params": {"n": self._count}})

    def unread(self, item: Any) -> UnreadableMessage | None:
        """The request an event of `mark` stands for (`unreadable`), as the stdio reader hands it on."""
        from explorer.connection.errors import UnreadableMessage

        params = getattr(getattr(item, "message", None), "params", None)
        number = params.get("n") if isinstance(params, dict) else None
        sent = self._unread.pop(number, None) if isinstance(number, int) else None
        return UnreadableMessage(sent) if sent is not None else None

    def events(self) -> EventGate:
        """A gate for the bytes of one event stream (a new one for each HTTP answer)."""
        return EventGate(self)

    def watched(self, read: Any) -> Any:
        """A transport's read stream that skips the notifications past the rate."""
        return _GatedReceive(read, self)


class _GatedReceive(ReceiveWrapper):
    """A read stream handing out only what its gate admits."""

    def __init__(self, inner: Any, gate: FloodGate) -> None:
        super().__init__(inner)
        self._gate = gate

    async def receive(self) -> Any:
        while True:
            item = await self._inner.receive()
            if notification_method(item) == self._gate.mark:
                unread = self._gate.unread(item)
                if unread is not None:
                    return unread
            elif self._gate.admits(item):
                return item


_BLANK_LINE = re.compile(rb"(?:\r\n|\r(?!\n)|\n)(?:\r\n|\r(?!\n)|\n)")
"""A line's end, then an empty line's: where an event ends (searched from a line's start). A CR is a line
end of its own only when no LF follows it (CRLF is one)."""
_MOST_LOOKED = 64 * 1024  # an event longer than this is not looked at (its message is gated when parsed)
_MOST_UNREAD = 1024  # requests with an id that is none kept for `watched` at most (one a few, in truth)
_BOM = b"\xef\xbb\xbf"


class EventGate:
    """One event stream's bytes, the notifications past the connection's rate taken out before the SDK
    parses them (see the module). Each event is held until the empty line that ends it (the SDK
    dispatches an event there too, so nothing waits longer), then handed on or left out. An event over
    `_MOST_LOOKED` is handed on as it comes, unlooked. What an event left out said of the stream (its
    `id`, for a resumption's `Last-Event-ID`, and `retry`) is handed on in an event of those fields alone
    (an event without data, which the SDK takes as a priming event or a keep-alive): one for each run of
    events left out."""

    def __init__(self, gate: FloodGate) -> None:
        self._gate = gate
        self._held = b""  # the start of an event not ended yet (a line's start: nothing of it handed on)
        self._passing = False  # an event too long to look at is being handed on until it ends
        self._tail = b""  # while passing: the last bytes handed on, where an empty line may have begun
        self._first = True  # the stream's first event: a BOM may come before its first field
        self._kept_fields: dict[bytes, bytes] = {}  # `id` and `retry` of the events left out, not said yet

    def feed(self, data: bytes) -> bytes:
        """What of `data` goes on to the SDK now."""
        if not data:
            return b""
        out: list[bytes] = []
        if self._passing:
            data = self._passed(data, out)
            if not data:
                return b"".join(out)
        text = self._held + data if self._held else data
        start = 0
        end = len(text) - 1 if text.endswith(b"\r") else len(text)  # a last CR may begin a CRLF
        while (found := _BLANK_LINE.search(text, start, end)) is not None:
            self._event(text[start : found.end()], out)
            start = found.end()
        rest = text[start:]
        if len(rest) > _MOST_LOOKED:  # too long to hold: handed on as it comes, until its end
            self._said(out)
            self._passing, self._held, self._tail = True, b"", rest[-3:]
            out.append(rest)
        else:
            self._held = rest
            self._said(out)
        return b"".join(out)

    def rest(self) -> bytes:
        """What is left when the stream ends (an event never ended: handed on as it came)."""
        out: list[bytes] = []
        self._said(out)
        held, self._held = self._held, b""
        out.append(held)
        return b"".join(out)

    def _passed(self, data: bytes, out: list[bytes]) -> bytes:
        """Hand on the rest of a long event (`_passing`) up to its end; what follows its end is returned.
        Any empty line found is new: one wholly in what was searched before would have ended the event
        then (a last CR, left out of a search, is searched again with what follows it)."""
        joined = self._tail + data
        end = len(joined) - 1 if joined.endswith(b"\r") else len(joined)
        found = _BLANK_LINE.search(joined, 0, end)
        if found is None:
            self._tail = joined[-3:]
            out.append(data)
            return b""
        cut = found.end() - len(self._tail)
        out.append(data[:cut])
        self._passing, self._tail, self._first = False, b"", False
        return data[cut:]

    def _event(self, event: bytes, out: list[bytes]) -> None:
        """One whole event (up to its empty line): handed on, or left out when it is a notification
        past the rate, or in another's place when it is a request whose id is none (`unreadable`)."""
        first, self._first = self._first, False
        fields = _fields(event[len(_BOM) :] if first and event.startswith(_BOM) else event)
        message = _message(fields) if fields is not None else None
        if fields is None or message is None:
            self._said(out)
            out.append(event)
            return
        if _odd_id(message) and (data := self._gate.unreadable(fields[b""])) is not None:
            self._said(out)  # the event in its place keeps what it said of the stream (`id`, `retry`)
            kept = [name + b": " + fields[name] + b"\n" for name in (b"id", b"retry") if name in fields]
            out.append(b"".join(kept) + b"data: " + data + b"\n\n")
            return
        if (method := _notification(message)) is None or self._gate.admits_method(method):
            self._said(out)
            out.append(event)
            return
        for name in (b"id", b"retry"):
            if name in fields:
                self._kept_fields[name] = fields[name]

    def _said(self, out: list[bytes]) -> None:
        """The `id` and `retry` of the events left out since the last one handed on, as an event of
        their own."""
        if self._kept_fields:
            lines = [name + b": " + value + b"\n" for name, value in self._kept_fields.items()]
            out.append(b"".join(lines) + b"\n")
            self._kept_fields = {}


def _fields(event: bytes) -> dict[bytes, bytes] | None:
    """An event's `event`, `id` and `retry` fields and its data (lines joined), as the SSE rules read
    them; None when it is too long to look at or has no data."""
    if len(event) > _MOST_LOOKED:
        return None
    fields: dict[bytes, bytes] = {}
    data: list[bytes] = []
    for line in event.splitlines():
        if not line or line.startswith(b":"):
            continue
        name, _, value = line.partition(b":")
        if value.startswith(b" "):
            value = value[1:]
        if name == b"data":
            data.append(value)
        elif name == b"id":
            if b"\0" not in value:
                fields[b"id"] = value
        elif name == b"retry":
            if value.isdigit():
                fields[b"retry"] = value
        elif name == b"event":
            fields[b"event"] = value
    if not data:
        return None
    fields[b""] = b"\n".join(data)
    return fields


def _message(fields: dict[bytes, bytes]) -> dict[str, Any] | None:
    """The JSON object a `message` event carries when it names a method, else None."""
    if (fields.get(b"event") or b"message") != b"message":  # the SDK's rule: no name is `message`
        return None
    data = fields[b""]
    if b'"method"' not in data:  # an answer, most of what is not a notification: no parse
        return None
    try:
        message = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    return message if isinstance(message, dict) else None


def _odd_id(message: dict[str, Any]) -> bool:
    """Whether a message names a method and has an id that may be none to the SDK (no string, no integer
    as orjson reads it: a big integer comes as a float, the SDK's parser tells)."""
    if "id" not in message or not isinstance(message.get("method"), str):
        return False
    ident = message["id"]
    return not isinstance(ident, str) and (not isinstance(ident, int) or isinstance(ident, bool))


def _notification(message: dict[str, Any]) -> str | None:
    """The method of the notification a message is (a JSON-RPC notification the SDK reads as one), else
    None."""
    if message.get("jsonrpc") != "2.0" or message.get("id") is not None:
        return None
    method, params = message.get("method"), message.get("params")
    return method if isinstance(method, str) and (params is None or isinstance(params, dict)) else None
