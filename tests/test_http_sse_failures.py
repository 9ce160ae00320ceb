"""Legacy HTTP+SSE servers that fail a POST or name an endpoint the explorer does not use: the user is told
what the server did, at once.

Before, one HTTP 500 to a POST ended the SDK's writer: that request waited for its timeout ("did not
answer"), every later one said "the server closed the connection", and the server still looked connected.
An endpoint on another origin was waited for until the timeout ("gave no endpoint"), and one holding a
control character said "the server closed the connection" though nothing had been posted.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator
from typing import ClassVar

import anyio
import pytest

from explorer.config import ServerSpec
from explorer.connection.errors import ServerFault
from explorer.connection.session import ServerConnection
from tests.helpers.cli import run_cli
from tests.helpers.loopback_http import QuietHandler, served

# Longer than the CLI run may take: a request that waits for its timeout fails the run, not just its text.
NEVER = "60"
RUN_AT_MOST = 45.0


class _Legacy(QuietHandler):
    """A legacy HTTP+SSE server for one client: GET /sse sends the endpoint event (`endpoint`), then the
    answers to what is posted there; subclasses answer some POSTs otherwise (`refused`)."""

    endpoint = "/messages?session=1"
    events: ClassVar[queue.Queue[bytes]]
    stop: ClassVar[threading.Event]
    posts: ClassVar[list[str]]

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.write(f"event: endpoint\ndata: {self.endpoint}\n\n".encode())
        self.wfile.flush()
        while not self.stop.is_set():
            try:
                event = self.events.get(timeout=0.2)
            except queue.Empty:
                continue
            self.wfile.write(event)
            self.wfile.flush()

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        method = str(message.get("method"))
        type(self).posts.append(method)
        if self.refused(message):
            return
        self._status(202, b"Accepted")
        if "id" in message:
            answer = {"jsonrpc": "2.0", "id": message["id"], "result": _result(method, message)}
            self.events.put(f"event: message\ndata: {json.dumps(answer)}\n\n".encode())

    def refused(self, message: dict[str, object]) -> bool:
        """Answer `message` otherwise than with 202 and its answer on the stream; True when it did."""
        return False

    def _status(self, status: int, body: bytes = b"", *headers: tuple[str, str]) -> None:
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _result(method: str, message: dict[str, object]) -> dict[str, object]:
    params = message.get("params")
    uri = params.get("uri") if isinstance(params, dict) else None
    return {
        "initialize": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"resources": {}},
            "serverInfo": {"name": "legacy", "version": "1"},
        },
        "resources/list": {"resources": [{"uri": "sse://a", "name": "a"}]},
        "resources/templates/list": {"resourceTemplates": []},
        "resources/read": {"contents": [{"uri": uri, "text": "hello"}]},
    }.get(method, {})


def _serve(handler: type[_Legacy]) -> Iterator[str]:
    """The handler's server on a free loopback port; its SSE URL for as long as the test runs."""
    handler.events = queue.Queue()
    handler.stop = threading.Event()
    handler.posts = []
    yield from served(handler, "/sse", stopping=handler.stop.set)


def _tree(url: str) -> str:
    """What `tree --sse` printed on stderr, the run failed as a whole."""
    result = run_cli("tree", "--sse", "--timeout", NEVER, "-s", url, timeout=RUN_AT_MOST)
    assert result.code == 1 and "Traceback" not in result.stderr, result
    return result.stderr


# ------------------------------------------------------------------------------------------ a POST fails


class _ListFails(_Legacy):
    """`resources/list` is answered HTTP 500; everything else as usual."""

    def refused(self, message: dict[str, object]) -> bool:
        if message.get("method") != "resources/list":
            return False
        self._status(500, b"oops")
        return True


class _ReadFailsOnce(_Legacy):
    """The first `resources/read` is answered HTTP 503; the next ones as usual."""

    failed = False

    def refused(self, message: dict[str, object]) -> bool:
        if message.get("method") != "resources/read" or type(self).failed:
            return False
        type(self).failed = True
        self._status(503, b"busy")
        return True


class _ReadRedirected(_Legacy):
    """A `resources/read` is redirected with a 302 on the same origin (a POST would become a GET)."""

    def refused(self, message: dict[str, object]) -> bool:
        if message.get("method") != "resources/read":
            return False
        self._status(302, b"", ("Location", "/elsewhere"))
        return True


@pytest.fixture
def list_fails() -> Iterator[str]:
    yield from _serve(_ListFails)


def test_an_error_status_to_a_post_fails_that_request_at_once_with_the_status(list_fails: str) -> None:
    said = _tree(list_fails)
    assert "listing resources: the server answered HTTP 500 Internal Server Error to the request" in said
    assert "timeout" not in said and "closed the connection" not in said


@pytest.fixture
def read_fails_once() -> Iterator[str]:
    _ReadFailsOnce.failed = False
    yield from _serve(_ReadFailsOnce)


def test_the_session_goes_on_after_a_post_failed(read_fails_once: str) -> None:
    """The writer that sends the POSTs survives the error status: the next read is sent and answered,
    and the connection is not lost (the TUI keeps the server connected, and says why the read failed)."""

    async def session() -> None:
        spec = ServerSpec(name="legacy", transport="sse", url=read_fails_once)
        async with ServerConnection(spec, timeout=float(NEVER)) as conn:
            with pytest.raises(ServerFault) as failed:
                await conn.read_resource("sse://a")
            said = "reading sse://a: the server answered HTTP 503 Service Unavailable to the request"
            assert failed.value.message == said
            read = await conn.read_resource("sse://a")
            assert read["contents"][0]["text"] == "hello"
            assert not conn.lost.is_set()

    anyio.run(session)
    assert _ReadFailsOnce.posts.count("resources/read") == 2


@pytest.fixture
def read_redirected() -> Iterator[str]:
    yield from _serve(_ReadRedirected)


def test_a_post_redirected_where_it_would_become_a_get_says_so(read_redirected: str) -> None:
    result = run_cli(
        "read", "--sse", "--timeout", NEVER, "-s", read_redirected, "sse://a", timeout=RUN_AT_MOST
    )
    assert result.code == 1 and "Traceback" not in result.stderr, result
    host = read_redirected.removesuffix("/sse")
    said = (
        f"the server redirected the request to {host}/elsewhere: not followed (the POST would become a GET)"
    )
    assert said in result.stderr


# ------------------------------------------------------------------------------------------ the endpoint


class _OtherOrigin(_Legacy):
    endpoint = "http://127.0.0.1:9/messages?session=1"


class _WithPassword(_Legacy):
    """An endpoint on the server's own host and port, but with a user name and password in it."""

    endpoint = "http://user:s3cret@127.0.0.1:{port}/messages?session=1"

    def do_GET(self) -> None:
        self.endpoint = type(self).endpoint.format(port=self.server.server_address[1])
        super().do_GET()


class _Escapes(_Legacy):
    endpoint = "/messages?session=\x1b[31m\u202e1"


@pytest.mark.parametrize(
    ("handler", "said"),
    [
        (
            _OtherOrigin,
            "connecting: the server's event stream named http://127.0.0.1:9/messages?session=1 as its "
            "endpoint: not used (another origin than 127.0.0.1:",
        ),
        (_WithPassword, "as its endpoint: not used (it holds a user name and password)"),
        (
            _Escapes,
            "connecting: the server's event stream named /messages?session=\\x1b[31m\\u202e1 as its "
            "endpoint: not used (the HTTP client cannot post to it: ",
        ),
    ],
)
def test_an_endpoint_not_used_is_named_with_why(handler: type[_Legacy], said: str) -> None:
    for url in _serve(handler):
        stderr = _tree(url)
        assert said in stderr
        assert "gave no endpoint" not in stderr and "closed the connection" not in stderr
        assert "\x1b" not in stderr and "\u202e" not in stderr and "s3cret" not in stderr
        assert handler.posts == []  # nothing was posted to it


# ------------------------------------------------------------------------------------------ the event stream


class _StreamRedirected(_Legacy):
    """The GET of the event stream is redirected: `status` to `location`."""

    status: ClassVar[int] = 301
    location: ClassVar[str] = "/sse"

    def do_GET(self) -> None:
        self._status(self.status, b"", ("Location", self.location))


@pytest.mark.parametrize(
    ("status", "said"),
    [
        (301, "(HTTP 301 Moved Permanently)"),
        (302, "(HTTP 302 Found)"),
        (307, "(HTTP 307 Temporary Redirect)"),
        (308, "(HTTP 308 Permanent Redirect)"),
    ],
)
def test_a_redirected_event_stream_says_the_status_where_and_what_to_do(status: int, said: str) -> None:
    """Before: `the server answered HTTP 301 Moved Permanently to http://u:s3cret@.../sse?token=...
    (not followed)`: the location as sent, password and query too, and no word of why or what to do."""

    class Handler(_StreamRedirected):
        pass

    Handler.status, Handler.location = status, "http://u:s3cret@127.0.0.1:9/new/sse?token=t0ken#x"
    for url in _serve(Handler):
        stderr = _tree(url)
        assert (
            f"connecting: the server redirected the event stream {said} to http://127.0.0.1:9/new/sse: not "
            "followed (another origin); if that is the server, connect to http://127.0.0.1:9/new/sse instead"
        ) in stderr
        assert "s3cret" not in stderr and "t0ken" not in stderr


def test_an_event_stream_redirected_to_itself_is_said_to_be_a_loop() -> None:
    class Handler(_StreamRedirected):
        pass

    Handler.status, Handler.location = 307, "/sse"
    for url in _serve(Handler):
        stderr = _tree(url)
        said = f"the server redirected the event stream (HTTP 307 Temporary Redirect) to {url}: not followed"
        assert f"{said} (it redirects to itself, a loop)" in stderr
        assert "connect to" not in stderr


# ------------------------------------------------------------------------------------------ a 202's body


class _HugeAccepted(_Legacy):
    """Every POST is answered 202 with a body said to be (or going on) past the message cap; its answer
    comes on the event stream as usual."""

    endless: ClassVar[bool] = False

    def refused(self, message: dict[str, object]) -> bool:
        self.send_response(202)
        if self.endless:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(300 * 1024 * 1024))
        self.end_headers()
        if "id" in message:
            result = _result(str(message.get("method")), message)
            answer = {"jsonrpc": "2.0", "id": message["id"], "result": result}
            self.events.put(f"event: message\ndata: {json.dumps(answer)}\n\n".encode())
        chunk = b"x" * 65536
        try:
            for _ in range(5000):  # 320 MiB at most, then the body stays unfinished
                if self.endless:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                else:
                    self.wfile.write(chunk)
                if self.stop.is_set():
                    break
        except OSError:
            pass  # the client closed it: the bytes were not wanted
        self.close_connection = True
        return True


@pytest.mark.parametrize("endless", [False, True], ids=["said-length", "chunked"])
def test_a_202_with_a_body_past_the_cap_leaves_the_connection_working(endless: bool) -> None:
    """Before: the SDK read the 202's body whole, the cap refused it, and the SDK's writer died: connecting
    said "the server closed the connection"."""

    class Handler(_HugeAccepted):
        pass

    Handler.endless = endless

    async def session(url: str) -> None:
        spec = ServerSpec(name="legacy", transport="sse", url=url)
        with anyio.fail_after(RUN_AT_MOST):
            async with ServerConnection(spec, timeout=float(NEVER)) as conn:
                for _ in range(2):
                    read = await conn.read_resource("sse://a")
                    assert read["contents"][0]["text"] == "hello"
                assert not conn.lost.is_set()

    for url in _serve(Handler):
        anyio.run(session, url)
    assert Handler.posts.count("resources/read") == 2
