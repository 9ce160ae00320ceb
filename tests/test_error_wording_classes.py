"""No class name of the explorer's, the SDK's or the HTTP client's reaches a message: each error is said in
a sentence a user understands.

Before, the last branch of `describe_exception` added the exception's class name: `read --watch` over the
legacy SSE transport, when the server was killed, said "the server's answer broke off after 12.8 kB: peer
closed connection without sending complete message body (incomplete chunked read) (EventsRefused)" (the
explorer's own class, and it was the event stream that broke off, not an answer), and `--sse` on a URL that
serves a file said "Expected response with content type 'text/event-stream', got 'application/octet-stream'.
(SSEError)".
"""

from __future__ import annotations

import json
import queue
import re
from collections.abc import Iterator
from typing import ClassVar

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.loopback_http import QuietHandler, served

NEVER = "60"  # a request that waits for its timeout fails the run (`RUN_AT_MOST`), not just its text
RUN_AT_MOST = 45.0
URI = "sse://a"
CLASS_NAMES = re.compile(r"\((?:\w+Refused|SSEError|StreamError|\w+Error)\)")


class _BreaksOff(QuietHandler):
    """A legacy HTTP+SSE server whose event stream (chunked) breaks off once it answered the subscription
    `read --watch` asks for: the server exits mid-stream, its last chunk never sent."""

    events: ClassVar[queue.Queue[bytes | None]]

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self._chunk(b"event: endpoint\ndata: /messages?session=1\n\n")
        while True:
            event = self.events.get()
            if event is None:  # killed: the connection closes with no last (empty) chunk
                self.close_connection = True
                return
            self._chunk(event)

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        method = str(message.get("method"))
        self.send_response(202)
        self.send_header("Content-Length", "0")
        self.end_headers()
        if "id" not in message:
            return
        answer = {"jsonrpc": "2.0", "id": message["id"], "result": _result(method)}
        self.events.put(f"event: message\ndata: {json.dumps(answer)}\n\n".encode())
        if method == "resources/subscribe":
            self.events.put(None)


def _result(method: str) -> dict[str, object]:
    return {
        "initialize": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"resources": {"subscribe": True}},
            "serverInfo": {"name": "breaks-off", "version": "1"},
        },
        "resources/list": {"resources": [{"uri": URI, "name": "a"}]},
        "resources/templates/list": {"resourceTemplates": []},
        "resources/read": {"contents": [{"uri": URI, "text": "hello"}]},
    }.get(method, {})


class _ServesAFile(QuietHandler):
    """A plain file server: GET answers a file (application/octet-stream), as `python -m http.server`."""

    def do_GET(self) -> None:
        body = b"not an event stream\n"
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def breaks_off() -> Iterator[str]:
    _BreaksOff.events = queue.Queue()
    yield from served(_BreaksOff, "/sse", stopping=lambda: _BreaksOff.events.put(None))


@pytest.fixture
def serves_a_file() -> Iterator[str]:
    yield from served(_ServesAFile, "/sse")


def test_an_event_stream_that_breaks_off_is_said_so_without_a_class_name(breaks_off: str) -> None:
    result = run_cli(
        "read", "--watch", "--sse", "--timeout", NEVER, "-s", breaks_off, URI, timeout=RUN_AT_MOST
    )
    assert "Traceback" not in result.stderr, result
    assert "hello" in result.stdout
    said = "talking to the server: the server's event stream broke off after "
    assert said in result.stderr, result
    assert (
        "(did the server exit?): peer closed connection without sending complete message body"
        in result.stderr
    )
    assert "the server's answer broke off" not in result.stderr
    assert CLASS_NAMES.search(result.stderr) is None, result


def test_a_url_that_serves_no_event_stream_is_asked_whether_it_is_an_sse_endpoint(serves_a_file: str) -> None:
    result = run_cli("tree", "--sse", "--timeout", NEVER, "-s", serves_a_file, timeout=RUN_AT_MOST)
    assert result.code == 1 and "Traceback" not in result.stderr, result
    said = (
        "connecting: the URL did not answer with an event stream (it sent application/octet-stream): "
        "is it an SSE endpoint?"
    )
    assert said in result.stderr, result
    assert "Expected response with content type" not in result.stderr
    assert CLASS_NAMES.search(result.stderr) is None, result
