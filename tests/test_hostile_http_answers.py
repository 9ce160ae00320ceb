"""An HTTP server whose answer never ends: the explorer stops at the message cap, says so, and lists the rest.

Before the cap the SDK read such an answer until the request timed out, 8 GB in 30 s.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import anyio
import pytest

from explorer.config import ServerSpec
from explorer.connection.errors import ServerFault
from explorer.connection.session import ServerConnection
from explorer.connection.sizes import MAX_MESSAGE_BYTES
from tests.helpers.cli import demo_server, run_cli

pytestmark = pytest.mark.slow

SENT_AT_MOST = MAX_MESSAGE_BYTES + 32 * 1024 * 1024  # then the body stays open, unfinished


class _Server(BaseHTTPRequestHandler):
    """What every server here shares: HTTP/1.1, a session's DELETE answered, no log, JSON answers."""

    protocol_version = "HTTP/1.1"
    stop = threading.Event()  # set when the test ends: what waits stops waiting

    def _answer(self, ident: object, result: Mapping[str, object], *headers: tuple[str, str]) -> None:
        answer = json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def _empty(self, status: int) -> None:
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_DELETE(self) -> None:
        self._empty(200)

    def log_message(self, format: str, *args: object) -> None:
        return None


def _serve(handler: type[_Server]) -> Iterator[int]:
    """The handler's server on a free loopback port, for as long as the test runs."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield int(server.server_address[1])
    handler.stop.set()
    server.shutdown()
    server.server_close()


class _Endless(_Server):
    """Streamable HTTP in the handshake era: `initialize` is answered, and so is a read of anything but
    `big://endless` and `big://claimed` (whose length is said to be past the cap); any other request gets a
    JSON answer whose body goes on past the cap, never ending."""

    stop = threading.Event()

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        if "id" not in body:  # a notification
            self._empty(202)
            return
        if body.get("method") == "initialize":
            result = {
                "protocolVersion": "2025-11-25",
                "capabilities": {"resources": {}},
                "serverInfo": {"name": "endless", "version": "1"},
            }
            self._answer(body["id"], result)
            return
        if body.get("method") == "resources/read" and body["params"]["uri"] == "big://claimed":
            self.send_response(200)  # a length past the cap, said up front: refused before any byte
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(MAX_MESSAGE_BYTES + 1))
            self.end_headers()
            self.wfile.write(b'{"jsonrpc": "2.0", ')
            self.stop.wait(60)
            return
        if body.get("method") == "resources/read" and body["params"]["uri"] != "big://endless":
            uri = body["params"]["uri"]
            self._answer(body["id"], {"contents": [{"uri": uri, "mimeType": "text/plain", "text": "small"}]})
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        head = b'{"jsonrpc": "2.0", "id": %s, "result": {"resources": [' % json.dumps(body["id"]).encode()
        piece = b'{"uri": "x://endless", "name": "' + b"A" * 1000 + b'"},'
        chunk = piece * 1000
        sent = 0
        try:
            self._chunk(head)
            while sent < SENT_AT_MOST:
                self._chunk(chunk)
                sent += len(chunk)
            self.stop.wait(60)  # unfinished: no last chunk
        except OSError:
            return

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def do_GET(self) -> None:
        self._empty(405)


@pytest.fixture
def endless_url() -> Iterator[str]:
    for port in _serve(_Endless):
        yield f"http://127.0.0.1:{port}/mcp"


def endless_listing(url: str, *bounds: str) -> tuple[dict[str, object], int]:
    """`tree --json` of the endless server and the demo: the endless one's entry and the exit code."""
    result = run_cli(
        "tree", "--json", "--protocol", "legacy", "--timeout", "20", *bounds, "-s", url, "-s", demo_server()
    )
    assert "Traceback" not in result.stderr
    servers = {server["name"]: server for server in json.loads(result.stdout)["servers"]}
    endless = next(server for name, server in servers.items() if name.startswith("127.0.0.1:"))
    assert any(server["ok"] and server["complete"] for server in servers.values())  # the demo
    return endless, result.code


def test_an_endless_page_stops_the_listing_at_its_bytes_bound(endless_url: str) -> None:
    """The page is read no further than the listing's bound (64 MiB by default), as any bound stops it."""
    endless, code = endless_listing(endless_url)
    assert endless["ok"] and not endless["complete"] and endless["stoppedBy"] == "max_bytes"
    assert isinstance(endless["bytes"], int) and 64 * 1024 * 1024 < endless["bytes"] < 65 * 1024 * 1024
    assert code == 3


def test_an_endless_answer_stops_at_the_cap_and_the_other_server_is_listed(endless_url: str) -> None:
    endless, code = endless_listing(endless_url, "--max-bytes", str(1024**3))  # a bound past the cap
    assert not endless["ok"]
    said = "the server's answer is over 256 MiB, the most the explorer reads of one message"
    assert said in str(endless["error"])
    assert code == 1


@pytest.mark.parametrize(
    "uri", ["big://endless", "big://claimed"], ids=["read-past-the-cap", "length-past-it"]
)
def test_an_answer_past_the_cap_fails_its_request_only(endless_url: str, uri: str) -> None:
    """As over stdio: the next request on the same connection works. An answer refused on its
    Content-Length alone once escaped the SDK's request task and ended the whole connection."""
    spec = ServerSpec(name="endless", transport="http", url=endless_url)

    async def session() -> None:
        async with ServerConnection(spec, protocol="legacy", timeout=20.0) as conn:
            with pytest.raises(ServerFault) as caught:
                await conn.read_resource(uri)
            said = f"reading {uri}: the server's answer is over 256 MiB, the most the explorer reads"
            assert caught.value.message.startswith(said)
            assert "small" in str(await conn.read_resource("small://a"))

    anyio.run(session)


class _Silent(_Server):
    """A server that goes quiet: the legacy SSE stream sends its headers and nothing more (no `endpoint`
    event); over Streamable HTTP `initialize` is answered and `resources/list` never is (not even headers)."""

    stop = threading.Event()

    def do_GET(self) -> None:
        if not self.path.startswith("/sse"):
            self._empty(405)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.wfile.flush()
        self.stop.wait(120)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        if "id" not in body:
            self._empty(202)
        elif body.get("method") == "initialize":
            info = {"name": "s", "version": "1"}
            result = {"protocolVersion": "2025-11-25", "capabilities": {"resources": {}}, "serverInfo": info}
            self._answer(body["id"], result, ("Mcp-Session-Id", "quiet"))
        else:
            self.stop.wait(120)  # no answer, not even headers


@pytest.fixture
def silent_port() -> Iterator[int]:
    yield from _serve(_Silent)


def test_an_sse_stream_without_an_endpoint_fails_within_the_timeout(silent_port: int) -> None:
    """The SDK waits for the endpoint event with no bound of its own: this run never ended before."""
    result = run_cli(
        "tree", "--sse", "--timeout", "3", "-s", f"http://127.0.0.1:{silent_port}/sse", timeout=60
    )
    assert result.code == 1 and "Traceback" not in result.stderr
    assert "connecting: the server's event stream gave no endpoint to post to within 3 s" in result.stderr


def test_a_request_never_answered_does_not_hold_the_exit(silent_port: int) -> None:
    """The OAuth flow's lock was held by the unanswered request until its 300 s read timeout, and the
    session's closing DELETE waited for it: the timeout was printed at once, the process ended 5 minutes
    later (past this test's 60 s)."""
    url = f"http://127.0.0.1:{silent_port}/mcp"
    result = run_cli("tree", "--protocol", "legacy", "--timeout", "3", "-s", url, timeout=60)
    assert result.code == 1 and "Traceback" not in result.stderr
    assert "the server did not answer after 3 s (timeout; --timeout SECONDS waits longer)" in result.stderr


class _Moved(_Server):
    """An SSE endpoint that moved: every request is redirected elsewhere (the target never answers)."""

    def do_GET(self) -> None:
        self.send_response(307)
        self.send_header("Location", "http://127.0.0.1:9/elsewhere/sse\x1b[31m")
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_POST = do_GET


@pytest.fixture
def moved_port() -> Iterator[int]:
    yield from _serve(_Moved)


def test_a_redirected_sse_endpoint_names_where_it_points(moved_port: int) -> None:
    """The legacy SSE client follows no redirect: the user is told the URL to use instead."""
    result = run_cli(
        "tree", "--sse", "--timeout", "5", "-s", f"http://127.0.0.1:{moved_port}/sse", timeout=60
    )
    assert result.code == 1 and "Traceback" not in result.stderr
    said = "connecting: the server answered HTTP 307 Temporary Redirect to http://127.0.0.1:9/elsewhere/sse"
    assert said in result.stderr and "(not followed)" in result.stderr
    assert "\x1b" not in result.stderr  # the server's Location is shown escaped


# ------------------------------------------------------------- sizes by request id, and what is not one


class _Paged(_Server):
    """Streamable HTTP, ten pages of 200 resources (about 10 KB each); subclasses vary how a page comes."""

    stop = threading.Event()

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        if "id" not in body:
            self._empty(202)
        elif body.get("method") == "initialize":
            info = {"name": "paged", "version": "1"}
            result = {"protocolVersion": "2025-11-25", "capabilities": {"resources": {}}, "serverInfo": info}
            self._answer(body["id"], result)
        elif body.get("method") == "resources/list":
            self._page(body["id"], int((body.get("params") or {}).get("cursor", "0")))
        else:
            self._answer(body["id"], {"resourceTemplates": []})

    def _page(self, ident: object, number: int) -> None:
        self._answer(ident, self.page(number))

    @staticmethod
    def page(number: int) -> dict[str, object]:
        items = [{"uri": f"x://p{number}/item{k:05d}", "name": f"item {k}"} for k in range(200)]
        return {"resources": items, **({"nextCursor": str(number + 1)} if number < 9 else {})}

    def do_GET(self) -> None:
        self._empty(405)


class _Redirected(_Paged):
    """Every page asked of /mcp is redirected to /mcp/ (same origin: followed), with a 5 KB JSON body."""

    stop = threading.Event()

    def _page(self, ident: object, number: int) -> None:
        if self.path == "/mcp/":
            super()._page(ident, number)
            return
        moved = json.dumps({"moved": "m" * 5000}).encode()  # JSON, as the answer would be
        self.send_response(307)
        self.send_header("Location", "/mcp/")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(moved)))
        self.end_headers()
        self.wfile.write(moved)


class _Chatty(_Paged):
    """Each page is the last event of an event stream that first sends 100 log notifications of 1 KB."""

    stop = threading.Event()

    def _page(self, ident: object, number: int) -> None:
        note = {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "data": "n" * 1000},
        }
        answer = {"jsonrpc": "2.0", "id": ident, "result": self.page(number)}
        events = b"".join(
            b"event: message\ndata: %s\n\n" % json.dumps(m).encode() for m in [note] * 100 + [answer]
        )
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(events)))
        self.end_headers()
        self.wfile.write(events)


def listed(handler: type[_Paged], *bounds: str) -> dict[str, object]:
    """`tree --json` of a server with `handler`: its entry."""
    serving = _serve(handler)
    url = f"http://127.0.0.1:{next(serving)}/mcp"
    try:
        result = run_cli("tree", "--json", "--protocol", "legacy", "--timeout", "20", *bounds, "-s", url)
    finally:
        next(serving, None)  # the server stops
    assert "Traceback" not in result.stderr, result
    [server] = json.loads(result.stdout)["servers"]
    return server  # type: ignore[no-any-return]


@pytest.mark.parametrize("handler", [_Redirected, _Chatty], ids=["redirected", "with-notifications"])
def test_the_bytes_bound_counts_the_pages_whatever_comes_around_them(handler: type[_Paged]) -> None:
    """A redirect's body was taken for the page's size (18 bytes a page: the bound never came), and an event
    stream's notifications were counted as the page (refused at once); both pages are about 10 KB."""
    server = listed(handler, "--max-bytes", "25000")
    assert server["ok"] and server["stoppedBy"] == "max_bytes", server
    assert server["resources"] in (400, 600) and isinstance(server["bytes"], int) and server["bytes"] > 25_000
    assert listed(handler)["resources"] == 2000  # and all of it within the default bound


def test_a_redirect_body_past_the_bound_is_never_read() -> None:
    """It was read (and refused) where the SDK catches nothing: the whole connection ended, the template
    listing lost with it. The page it leads to is past the bound too: refused unread, the listing stops."""
    server = listed(_Redirected, "--max-bytes", "2000")
    assert server["ok"] and server["stoppedBy"] == "max_bytes" and server["resources"] == 0, server


class _CutShort(_Server):
    """Answers cut off mid-body, the connection then closed: `cut://length` says a longer Content-Length
    than it sends, `cut://chunk` stops inside a chunked body; any other read is answered whole."""

    stop = threading.Event()

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        if "id" not in body:
            self._empty(202)
            return
        uri = (body.get("params") or {}).get("uri", "")
        if body.get("method") == "initialize":
            result = {
                "protocolVersion": "2025-11-25",
                "capabilities": {"resources": {}},
                "serverInfo": {"name": "cut", "version": "1"},
            }
            self._answer(body["id"], result)
        elif uri == "cut://length":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "500")
            self.end_headers()
            self.wfile.write(b'{"jsonrpc": "2.0", "id": ')
            self.close_connection = True
        elif uri == "cut://chunk":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.write(b'19\r\n{"jsonrpc": "2.0", "id": \r\n')
            self.close_connection = True
        else:
            self._answer(body["id"], {"contents": [{"uri": uri, "mimeType": "text/plain", "text": "whole"}]})

    def do_GET(self) -> None:
        self._empty(405)


@pytest.fixture
def cut_url() -> Iterator[str]:
    for port in _serve(_CutShort):
        yield f"http://127.0.0.1:{port}/mcp"


def test_an_answer_cut_off_mid_body_fails_its_request_only(cut_url: str) -> None:
    """The HTTP client's own error for a body cut short escaped the SDK's request and ended the whole
    connection: every later request then said "not connected"."""
    spec = ServerSpec(name="cut", transport="http", url=cut_url)

    async def session() -> None:
        async with ServerConnection(spec, protocol="legacy", timeout=20.0) as conn:
            for uri in ("cut://length", "cut://chunk"):
                with pytest.raises(ServerFault) as caught:
                    await conn.read_resource(uri)
                assert caught.value.message.startswith(f"reading {uri}: the server's answer broke off after ")
                assert "whole" in str(await conn.read_resource("ok://a"))

    anyio.run(session)
