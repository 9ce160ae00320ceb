"""A test's HTTP server on a free loopback port, for as long as the test runs.

The hostile HTTP servers of the tests are `BaseHTTPRequestHandler`s that speak HTTP/1.1 and log nothing
(`QuietHandler`); `served` runs one in a thread and gives its URL. `JsonRpcHandler` is the handshake-era
Streamable HTTP server the tests that vary one answer start from, `tree_against` what `tree` does against
one.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

from tests.helpers.cli import CliResult, run_cli

__all__ = [
    "METHOD_NOT_FOUND",
    "NEVER",
    "RUN_AT_MOST",
    "JsonRpcHandler",
    "QuietHandler",
    "served",
    "tree_against",
]

NEVER = "60"  # a request that waits for its timeout fails the run (`RUN_AT_MOST`), not just its text
RUN_AT_MOST = 45.0

METHOD_NOT_FOUND: dict[str, object] = {"code": -32601, "message": "Method not found"}


class QuietHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 (a session's connections are kept), and no log line per request on the test's stderr."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        return None

    def stream_events(
        self,
        events: queue.Queue[bytes],
        stop: threading.Event,
        *,
        headers: dict[str, str] | None = None,
        first: bytes = b"",
    ) -> None:
        """Answer a GET with an event stream: `first` (a legacy server's `endpoint` event), then each
        chunk queued in `events`, as it comes, until `stop` is set."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(first)
        self.wfile.flush()
        while not stop.is_set():
            try:
                chunk = events.get(timeout=0.1)
            except queue.Empty:
                continue
            self.wfile.write(chunk)
            self.wfile.flush()


class JsonRpcHandler(QuietHandler):
    """One handshake-era Streamable HTTP server (no session, every answer JSON) for the tests that vary one
    answer: each test overrides only that (`answer`, `result`, `results`, a `do_*`), so what it tests is
    all its file says of the server.

    A notification is answered 202, `server/discover` -32601 (the method is unknown in the handshake era),
    `initialize` with `server_name` and `capabilities`, `resources/templates/list` with none, and any other
    request with `result` (an empty result unless a subclass says otherwise); a GET (the event stream) 405,
    a DELETE (ending a session) 200.
    """

    server_name: ClassVar[str] = "loopback"
    capabilities: ClassVar[dict[str, object]] = {"resources": {}}
    result_headers: ClassVar[tuple[tuple[str, str], ...]] = ()  # sent with each result (a session id)

    def do_POST(self) -> None:
        message = self.read_message()
        self.answer(str(message.get("method")), message)

    def do_GET(self) -> None:
        self.send(405)

    def do_DELETE(self) -> None:
        self.send(200)

    def read_message(self) -> dict[str, Any]:
        """The JSON-RPC message in the request's body (`{}` when it has none)."""
        message: dict[str, Any] = json.loads(
            self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}"
        )
        return message

    def answer(self, method: str, message: dict[str, Any]) -> None:
        """Send the answer to `message` (`method` its method); a subclass answers what it tests, then
        leaves the rest to this."""
        if "id" not in message:
            self.send(202)
        elif method == "server/discover":
            self.reply(message["id"], error=METHOD_NOT_FOUND)
        else:
            result = self.result(method, message)
            if result is None:
                self.reply(message["id"], error=METHOD_NOT_FOUND)
            else:
                self.reply(message["id"], result=result, headers=self.result_headers)

    def result(self, method: str, message: dict[str, Any]) -> object | None:
        """The result of request `message`; None: the method is unknown (-32601)."""
        return self.results().get(method, {})

    def results(self) -> dict[str, object]:
        """The result of each method this server knows."""
        return {
            "initialize": {
                "protocolVersion": "2025-11-25",
                "capabilities": self.capabilities,
                "serverInfo": {"name": self.server_name, "version": "1"},
            },
            "resources/templates/list": {"resourceTemplates": []},
        }

    def reply(
        self,
        ident: object,
        *,
        result: object = None,
        error: dict[str, object] | None = None,
        status: int = 200,
        headers: Iterable[tuple[str, str]] = (),
    ) -> None:
        """Send the JSON-RPC answer to request `ident`: `error` when given, else `result`."""
        answer = {"result": result} if error is None else {"error": error}
        self.send(status, json.dumps({"jsonrpc": "2.0", "id": ident, **answer}).encode(), headers=headers)

    def send(
        self,
        status: int,
        body: bytes = b"",
        kind: str = "application/json",
        *,
        headers: Iterable[tuple[str, str]] = (),
    ) -> None:
        """Send `body` (of type `kind`, none when empty) with `status` and `headers`, its length said."""
        self.send_response(status)
        if body:
            self.send_header("Content-Type", kind)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def served(
    handler: type[BaseHTTPRequestHandler], path: str = "/mcp", *, stopping: Callable[[], None] | None = None
) -> Iterator[str]:
    """`handler`'s server: yields its URL (`path` on it), then stops it (`stopping` first: what makes a
    handler that still waits give up)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{path}"
    finally:
        if stopping is not None:
            stopping()
        server.shutdown()
        server.server_close()


def tree_against(
    handler: type[BaseHTTPRequestHandler], *more: str, stopping: Callable[[], None] | None = None
) -> tuple[str, CliResult]:
    """The URL of `handler`'s server and what `tree -s URL MORE` did against it (with a timeout `NEVER`
    reached); a Traceback fails the test."""
    for url in served(handler, stopping=stopping):
        result = run_cli("tree", "--timeout", NEVER, "-s", url, *more, timeout=RUN_AT_MOST)
        assert "Traceback" not in result.stderr, result
        return url, result
    raise AssertionError("not served")
