"""Over Streamable HTTP, a server's request whose id is no string or integer (`1.5`, `true`, `null`, an
object) is answered as JSON-RPC 2.0 says, an error -32600 "Invalid Request" to the id null, and said among
the connection's problems, as over stdio (`test_server_request_odd_ids`). The SDK parses each event
itself and took such a request for a notification (the id dropped): unanswered and unsaid, the server
waited."""

from __future__ import annotations

import json
import threading
from typing import Any, ClassVar

import pytest

from tests.helpers.cli import warnings_of
from tests.helpers.loopback_http import JsonRpcHandler, QuietHandler, tree_against

pytestmark = pytest.mark.slow

INVALID = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}}
ANSWERS_WITHIN = 20.0  # a hang guard: the server answers the listing anyway after this


def event(message: dict[str, Any]) -> bytes:
    return f"event: message\ndata: {json.dumps(message)}\n\n".encode()


def sampling(ident: object) -> dict[str, Any]:
    params = {"messages": [], "maxTokens": 1}
    return {"jsonrpc": "2.0", "id": ident, "method": "sampling/createMessage", "params": params}


class _AsksWithOddIds(JsonRpcHandler):
    """Answers `resources/list` on an event stream of its POST: first its requests with `odd` ids there
    (or on the GET stream, with `on_get`), then the listing once it received as many answers (what the
    client POSTs that is no request is kept in `received`)."""

    odd: ClassVar[list[object]] = [1.5, True]
    on_get: ClassVar[bool] = False
    received: ClassVar[list[dict[str, Any]]]
    arrived: ClassVar[threading.Condition]
    stop: ClassVar[threading.Event]
    result_headers = (("Mcp-Session-Id", "s-1"),)

    def do_POST(self) -> None:
        message = self.read_message()
        if "method" not in message:
            with self.arrived:
                self.received.append(message)
                self.arrived.notify_all()
            self.send(202)
            return
        if message.get("method") != "resources/list":
            self.answer(str(message.get("method")), message)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        if not self.on_get:
            self.wfile.write(b"".join(event(sampling(odd)) for odd in self.odd))
            self.wfile.flush()
        with self.arrived:
            self.arrived.wait_for(lambda: len(self.received) >= len(self.odd), timeout=ANSWERS_WITHIN)
        result = {"resources": [{"uri": "odd://one", "name": "one"}]}
        self.wfile.write(event({"jsonrpc": "2.0", "id": message["id"], "result": result}))
        self.wfile.flush()

    def do_GET(self) -> None:
        if not self.on_get:
            self.send(405)
            return
        QuietHandler.stream_events(self, _queued(self.odd), self.stop)


def _queued(odd: list[object]) -> Any:
    import queue

    events: queue.Queue[bytes] = queue.Queue()
    events.put(b"".join(event(sampling(ident)) for ident in odd))
    return events


def _explored(handler: type[_AsksWithOddIds]) -> Any:
    handler.received = []
    handler.arrived = threading.Condition()
    handler.stop = threading.Event()
    _url, result = tree_against(handler, "--protocol", "legacy", stopping=handler.stop.set)
    return result


def test_odd_id_requests_on_the_answers_event_stream_are_answered_invalid_and_said() -> None:
    result = _explored(_AsksWithOddIds)
    assert result.code == 0, result
    assert "odd://one" in result.stdout, result
    assert _AsksWithOddIds.received == [INVALID, INVALID], result
    [warning] = warnings_of(result)
    assert "sent 2 requests the explorer could not read" in warning, result
    assert "sampling/createMessage whose id 1.5 is no string or integer" in warning, result
    assert "answered with errors" in warning, result


class _AsksOnTheGetStream(_AsksWithOddIds):
    odd: ClassVar[list[object]] = [None, {"a": 1}, [1]]
    on_get = True


def test_odd_id_requests_on_the_get_stream_are_answered_invalid_and_said() -> None:
    result = _explored(_AsksOnTheGetStream)
    assert result.code == 0, result
    assert _AsksOnTheGetStream.received == [INVALID, INVALID, INVALID], result
    [warning] = warnings_of(result)
    assert "sent 3 requests the explorer could not read" in warning, result
    assert "sampling/createMessage whose id null is no string or integer" in warning, result
