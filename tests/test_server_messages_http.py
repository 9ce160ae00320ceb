"""What an HTTP server sends on its own (Streamable HTTP and legacy SSE): a cancel of the explorer's request,
a request the explorer cannot read, log entries it cannot read.

Before, a server's `notifications/cancelled` naming the explorer's read was swallowed by the SDK and the
read waited for its timeout ("the server did not answer after 8 s"); a request of the server's with
params that are not an object was never answered (the server waited for ever) and the warning quoted
pydantic ("4 validation errors for union[...]") instead of what the server sent; a log entry with a level
that is none vanished, with a traceback in the SDK's log.

The servers here are also what `test_notification_flood` floods from.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Iterator
from typing import Any, ClassVar

from tests.helpers.cli import CliResult, run_cli
from tests.helpers.loopback_http import QuietHandler, served

NEVER = "60"  # longer than a run may take: a request that waits for its timeout fails the run
RUN_AT_MOST = 45.0
ESCAPES = "\x1b[31mred\u202e"


def event(message: dict[str, Any]) -> bytes:
    return f"event: message\ndata: {json.dumps(message)}\n\n".encode()


def log_entry(params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/message", "params": params}


class Streamable(QuietHandler):
    """Streamable HTTP, handshake era: `initialize` answered with JSON and a session id; every other request
    on an event stream of its own POST, `before(message)` written there first, then `answer(message)`'s
    result (None: no answer, the stream held open until the test ends). The GET stream sends `pushed`
    (none: GET refused with 405). What the client posts that is no request is kept in `posted`."""

    pushed: ClassVar[list[dict[str, Any]]] = []
    posted: ClassVar[list[dict[str, Any]]]
    stop: ClassVar[threading.Event]

    def before(self, message: dict[str, Any]) -> bytes:
        return b""

    def answer(self, message: dict[str, Any]) -> dict[str, Any] | None:
        params = message.get("params") or {}
        return {
            "resources/list": {"resources": [{"uri": "x://h/one", "name": "one"}]},
            "resources/templates/list": {"resourceTemplates": []},
            "resources/read": {"contents": [{"uri": params.get("uri"), "text": "hello"}]},
        }.get(str(message.get("method")), {})

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        if "id" not in message or "method" not in message:
            type(self).posted.append(message)
            self._plain(202)
            return
        if message["method"] == "initialize":
            result = {
                "protocolVersion": "2025-06-18",
                "capabilities": {"resources": {}, "logging": {}},
                "serverInfo": {"name": "pushy", "version": "1"},
            }
            body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode()
            self._plain(200, body, ("Content-Type", "application/json"), ("Mcp-Session-Id", "s-1"))
            return
        self._events()
        self.wfile.write(self.before(message))
        self.wfile.flush()
        result = self.answer(message)
        if result is None:
            self.stop.wait(RUN_AT_MOST)
            return
        self.wfile.write(event({"jsonrpc": "2.0", "id": message["id"], "result": result}))
        self.wfile.flush()

    def do_GET(self) -> None:
        if not self.pushed:
            self._plain(405)
            return
        self._events()
        self.wfile.write(b"".join(event(message) for message in self.pushed))
        self.wfile.flush()
        self.stop.wait(RUN_AT_MOST)

    def do_DELETE(self) -> None:
        self._plain(200)

    def _events(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Mcp-Session-Id", "s-1")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _plain(self, status: int, body: bytes = b"", *headers: tuple[str, str]) -> None:
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def answered(self, ident: str, within: float = 20.0) -> dict[str, Any] | None:
        """The client's answer to the server's request `ident`, waited for a while (None: none came)."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            found = next((m for m in self.posted if m.get("id") == ident and "method" not in m), None)
            if found is not None:
                return found
            time.sleep(0.05)
        return None


class Legacy(QuietHandler):
    """A legacy HTTP+SSE server for one client: GET /sse sends the endpoint, then what is queued; a POSTed
    request is accepted (202) and `before(message)`, then its answer, is queued."""

    events: ClassVar[queue.Queue[bytes]]
    stop: ClassVar[threading.Event]
    posted: ClassVar[list[dict[str, Any]]]

    def before(self, message: dict[str, Any]) -> bytes:
        return b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.wfile.write(b"event: endpoint\ndata: /messages?session=1\n\n")
        self.wfile.flush()
        while not self.stop.is_set():
            try:
                chunk = self.events.get(timeout=0.2)
            except queue.Empty:
                continue
            self.wfile.write(chunk)
            self.wfile.flush()

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        type(self).posted.append(message)
        self.send_response(202)
        self.send_header("Content-Length", "0")
        self.end_headers()
        if "id" not in message or "method" not in message:
            return
        method = message["method"]
        result = {
            "initialize": {
                "protocolVersion": "2025-06-18",
                "capabilities": {"resources": {}, "logging": {}},
                "serverInfo": {"name": "legacy", "version": "1"},
            },
            "resources/list": {"resources": [{"uri": "x://sse/one", "name": "one"}]},
            "resources/templates/list": {"resourceTemplates": []},
        }.get(method, {})
        self.events.put(
            self.before(message) + event({"jsonrpc": "2.0", "id": message["id"], "result": result})
        )


def serve(handler: type[Streamable] | type[Legacy]) -> Iterator[str]:
    """The handler's server on a free loopback port: its URL while the test runs."""
    handler.stop = threading.Event()
    handler.posted = []
    if issubclass(handler, Legacy):
        handler.events = queue.Queue()
        yield from served(handler, "/sse", stopping=handler.stop.set)
    else:
        yield from served(handler, stopping=handler.stop.set)


def explore(handler: type[Streamable] | type[Legacy], *args: str) -> CliResult:
    """The CLI run against the handler's server (`--sse` for a legacy one); no traceback, whatever it did."""
    for url in serve(handler):
        sse = ["--sse"] if issubclass(handler, Legacy) else []
        result = run_cli(*args, *sse, "--timeout", NEVER, "-s", url, timeout=RUN_AT_MOST)
        assert "Traceback" not in result.stderr, result
        return result
    raise AssertionError("not served")


# ---------------------------------------------------------------------------- the server cancels our read


class _CancelsTheRead(Streamable):
    reason: ClassVar[Any] = "upstream went away " + ESCAPES

    def before(self, message: dict[str, Any]) -> bytes:
        if message["method"] != "resources/read":
            return b""
        params = {"requestId": message["id"]}
        if self.reason is not None:
            params["reason"] = self.reason
        return event({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})

    def answer(self, message: dict[str, Any]) -> dict[str, Any] | None:
        return None if message["method"] == "resources/read" else super().answer(message)


def test_a_cancel_of_our_read_fails_it_at_once_with_the_servers_reason() -> None:
    result = explore(_CancelsTheRead, "read", "x://h/one")
    assert result.code == 1, result
    assert (
        "reading x://h/one: the server cancelled the request (reason: upstream went away \\x1b[31mred\\u202e)"
        in result.stderr
    ), result
    assert "\x1b" not in result.stderr and "timeout" not in result.stderr


def test_a_cancel_without_a_reason_says_so_plainly() -> None:
    class Handler(_CancelsTheRead):
        reason = None

    result = explore(Handler, "read", "x://h/one")
    assert result.code == 1, result
    assert "reading x://h/one: the server cancelled the request\n" in result.stderr, result


class _CancelsNothingOfOurs(Streamable):
    def before(self, message: dict[str, Any]) -> bytes:
        cancel = {"requestId": "never-sent", "reason": "tidying up"}
        return event({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel})


def test_a_cancel_naming_no_request_in_flight_is_ignored() -> None:
    result = explore(_CancelsNothingOfOurs, "read", "x://h/one")
    assert result.code == 0, result
    assert "hello" in result.stdout and "cancelled" not in result.stderr


# ------------------------------------------------------------------- requests the explorer cannot read


class _AsksBadly(Streamable):
    """The GET stream carries requests whose params are not objects; the listing's answer names the code
    of the client's answer to the first (none: it never came)."""

    pushed: ClassVar[list[dict[str, Any]]] = [
        {"jsonrpc": "2.0", "id": "bad-1", "method": "ping", "params": [1, 2]},
        {"jsonrpc": "2.0", "id": "bad-2", "method": "sampling/createMessage", "params": "x"},
        {"jsonrpc": "2.0", "method": "notifications/zzz", "params": "not an object " + ESCAPES},
    ]

    def answer(self, message: dict[str, Any]) -> dict[str, Any] | None:
        if message["method"] != "resources/list":
            return super().answer(message)
        answered = [self.answered(ident) for ident in ("bad-1", "bad-2")]
        codes = "-".join(str((a or {}).get("error", {}).get("code", "none")) for a in answered)
        return {"resources": [{"uri": f"x://answered/{codes}", "name": "answered"}]}


def test_requests_with_params_that_are_not_objects_are_answered_with_an_error() -> None:
    result = explore(_AsksBadly, "tree")
    assert result.code == 0, result
    assert "x://answered/-32602--32602" in result.stdout, result  # the server got its answers
    assert (
        "2 requests the explorer could not read (first: ping with params that are not an object), "
        "answered with errors" in result.stderr
    ), result


def test_a_message_the_explorer_cannot_read_is_quoted_not_the_validators_words() -> None:
    result = explore(_AsksBadly, "tree")
    assert (
        "1 line that is not a JSON-RPC message "
        """(first: '{"jsonrpc": "2.0", "method": "notifications/zzz", """ in result.stderr
    ), result
    assert "validation error" not in result.stderr and "union[" not in result.stderr
    assert "\x1b" not in result.stderr


# -------------------------------------------------------------------------- log entries it cannot read


class _LogsBadly(Streamable):
    def before(self, message: dict[str, Any]) -> bytes:
        if message["method"] != "resources/list":
            return b""
        entries = [
            {"level": "loud", "data": "one"},
            {"level": 5, "data": "two"},
            {"data": "no level"},
            {"level": "info", "data": "fine"},
        ]
        return b"".join(event(log_entry(params)) for params in entries)


def test_log_entries_with_no_log_level_are_counted_and_said() -> None:
    result = explore(_LogsBadly, "tree")
    assert result.code == 0, result
    assert "x://h/one" in result.stdout
    assert (
        'sent 3 log messages the explorer could not read (first: level "loud" is not a log level)'
        in result.stderr
    ), result


class _LogsBadlyOverSse(Legacy):
    def before(self, message: dict[str, Any]) -> bytes:
        if message["method"] != "resources/list":
            return b""
        entries = [{"level": "loud", "data": "x"}, {"data": "no level"}, "params string"]
        return b"".join(event(log_entry(params)) for params in entries)


def test_log_entries_the_explorer_cannot_read_are_said_over_legacy_sse_too() -> None:
    result = explore(_LogsBadlyOverSse, "tree")
    assert result.code == 0, result
    assert "x://sse/one" in result.stdout
    assert (
        'and 2 log messages the explorer could not read (first: level "loud" is not a log level)'
        in result.stderr
    ), result


class _AsksBadlyOnTheAnswersStream(Streamable):
    def before(self, message: dict[str, Any]) -> bytes:
        if message["method"] != "resources/list":
            return b""
        return event({"jsonrpc": "2.0", "id": "bad-1", "method": "ping", "params": [1, 2]})


def test_a_bad_request_on_the_answers_own_stream_fails_it_in_a_sentence_not_pydantic() -> None:
    """The SDK fails the request whose event stream held a message it cannot read, and reads no further:
    the answer that follows is lost (the SDK's doing), but the user gets a sentence, not a pydantic dump."""
    result = explore(_AsksBadlyOnTheAnswersStream, "tree")
    assert result.code == 1, result
    assert (
        "listing resources: the server's event stream for this request held a message that is not JSON-RPC, "
        "and it was read no further" in result.stderr
    ), result
    assert "validation error" not in result.stderr and "pydantic" not in result.stderr
