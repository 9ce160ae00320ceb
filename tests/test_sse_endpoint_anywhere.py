"""A legacy HTTP+SSE server's `endpoint` event is checked wherever it comes in the event stream, and a
later one is not used.

Before, only the stream's first 64 KiB were looked at: after 70 KB of comments, an endpoint holding a
control character ended the SDK's writer at its first POST (every request then waited for --timeout), and
one on another origin was waited for until "gave no endpoint to post to". A second endpoint event ended
the session, its SDK error shown as a line the server sent ("called 'started' twice...").
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import AsyncIterator, Iterator
from typing import ClassVar

import anyio
import httpx2
import pytest

from explorer.connection.errors import ProtocolProblems
from explorer.connection.http_limits import watch_endpoint
from tests.helpers.cli import CliResult, run_cli, warnings_of
from tests.helpers.loopback_http import QuietHandler, served

PADDING = b": " + b"x" * 70_000 + b"\n\n"  # a comment past the 64 KiB looked at before
RUN_AT_MOST = 60.0  # the hang guard; --timeout 20 makes a regression say "did not answer" instead


class _Legacy(QuietHandler):
    """A legacy HTTP+SSE server for one client: GET /sse sends `first` (the endpoint event, after what a
    subclass puts before it), then the answers to what is posted; `after_first_answer` goes on the stream
    after the first answer."""

    first: ClassVar[bytes] = b"event: endpoint\ndata: /messages?s=1\n\n"
    after_first_answer: ClassVar[bytes] = b""
    events: ClassVar[queue.Queue[bytes]]
    stop: ClassVar[threading.Event]
    posts: ClassVar[list[str]]

    def do_GET(self) -> None:
        port = self.server.server_address[1]
        self.stream_events(self.events, self.stop, first=self.first.replace(b"{port}", str(port).encode()))

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        type(self).posts.append(self.path)
        self.send_response(202)
        self.send_header("Content-Length", "0")
        self.end_headers()
        if "id" not in message:
            return
        answer = {"jsonrpc": "2.0", "id": message["id"], "result": _result(str(message.get("method")))}
        self.events.put(f"event: message\ndata: {json.dumps(answer)}\n\n".encode())
        if message["method"] == "initialize" and self.after_first_answer:
            port = self.server.server_address[1]
            self.events.put(self.after_first_answer.replace(b"{port}", str(port).encode()))


def _result(method: str) -> dict[str, object]:
    return {
        "initialize": {
            "protocolVersion": "2024-11-05",
            "capabilities": {"resources": {}},
            "serverInfo": {"name": "legacy", "version": "1"},
        },
        "resources/list": {"resources": [{"uri": "sse://a", "name": "alpha"}]},
        "resources/templates/list": {"resourceTemplates": []},
    }.get(method, {})


def _tree(handler: type[_Legacy]) -> tuple[str, CliResult]:
    """The server's URL and what `tree --sse --protocol legacy` did against it."""
    handler.events = queue.Queue()
    handler.stop = threading.Event()
    handler.posts = []
    for url in served(handler, "/sse", stopping=handler.stop.set):
        result = run_cli(
            "-s", url, "--sse", "--protocol", "legacy", "--timeout", "20", "tree", timeout=RUN_AT_MOST
        )
        assert "Traceback" not in result.stderr, result
        return url, result
    raise AssertionError("not served")


# ------------------------------------------------------------------------------------------ after padding


class _PaddedControl(_Legacy):
    first = PADDING + b"event: endpoint\ndata: /messages?s=\x01\x1b[31m\n\n"


class _PaddedOtherOrigin(_Legacy):
    first = PADDING + b"event: endpoint\ndata: http://127.0.0.2:{port}/messages?s=1\n\n"


class _PaddedHuge(_Legacy):
    first = PADDING + b"event: endpoint\ndata: /messages?s=" + b"B" * 3_000_000 + b"\n\n"


@pytest.mark.parametrize(
    ("handler", "said"),
    [
        (
            _PaddedControl,
            "connecting: the server's event stream named /messages?s=\\x01\\x1b[31m as its endpoint: "
            "not used (the HTTP client cannot post to it: ",
        ),
        (
            _PaddedOtherOrigin,
            "connecting: the server's event stream named http://127.0.0.2:{port}/messages?s=1 as its "
            "endpoint: not used (another origin than 127.0.0.1:{port})",
        ),
        (_PaddedHuge, "as its endpoint: not used (the HTTP client cannot post to it: "),
    ],
)
def test_an_endpoint_after_70_kb_is_named_with_why(handler: type[_Legacy], said: str) -> None:
    url, result = _tree(handler)
    port = url.split(":")[2].split("/")[0]
    assert result.code == 1, result
    assert said.format(port=port) in result.stderr, result
    assert "did not answer" not in result.stderr and "gave no endpoint" not in result.stderr, result
    assert "\x1b" not in result.stderr and "\x01" not in result.stderr
    assert handler.posts == []  # nothing was posted to it


# ------------------------------------------------------------------------------------------ a later one


class _SecondSameOrigin(_Legacy):
    after_first_answer = b"event: endpoint\ndata: /messages?s=2\n\n"


class _SecondOtherOrigin(_Legacy):
    after_first_answer = b"id: 7\nevent: endpoint\ndata: http://127.0.0.2:{port}/evil\x1b]0;PWN\x07\n\n"


@pytest.mark.parametrize("handler", [_SecondSameOrigin, _SecondOtherOrigin])
def test_a_later_endpoint_is_not_used_and_said(handler: type[_Legacy]) -> None:
    _, result = _tree(handler)
    assert result.code == 0, result
    assert "alpha" in result.stdout, result
    [warning] = warnings_of(result)
    assert "sent another endpoint event after the first, which the explorer did not use" in warning, result
    assert set(handler.posts) == {"/messages?s=1"}, handler.posts
    assert "\x1b" not in result.stderr and "started' twice" not in result.stderr


# ------------------------------------------------------------------------------------------ the bytes


class _Pieces(httpx2.AsyncByteStream):
    def __init__(self, pieces: list[bytes]) -> None:
        self._pieces = pieces

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self._pieces:
            yield piece

    async def aclose(self) -> None:
        return None


STREAM = (
    b": hello\r\n\r\nevent: endpoint\r\ndata: /m?s=1\r\n\r\n"
    b'event: message\ndata: {"endpoint": 1}\n\n'
    b"id: 4\nevent: endpoint\ndata: /m?s=2\n\n"
    b"event:endpoint\rdata: /m?s=3\r\r"
    b"data: event: endpoint\n\n"
)


def _split(data: bytes) -> Iterator[list[bytes]]:
    for size in range(1, len(data) + 1):
        yield [data[at : at + size] for at in range(0, len(data), size)]


def test_later_endpoint_events_are_kept_from_the_sdk_however_the_stream_is_cut() -> None:
    """Whatever the pieces the stream comes in, the SDK's parser sees one endpoint event, and the
    messages as they were sent."""

    async def events(pieces: list[bytes]) -> tuple[list[tuple[str, str]], int]:
        problems = ProtocolProblems()
        request = httpx2.Request("GET", "http://127.0.0.1:1/sse")
        response = httpx2.Response(
            200, headers={"content-type": "text/event-stream"}, stream=_Pieces(pieces), request=request
        )
        await watch_endpoint(str(request.url), problems)(response)
        seen = [(event.event, event.data) async for event in httpx2.EventSource(response)]
        return seen, problems.later_endpoints

    async def main() -> None:
        with anyio.fail_after(60):
            for pieces in _split(STREAM):
                seen, later = await events(pieces)
                endpoints = [data for name, data in seen if name == "endpoint"]
                messages = [data for name, data in seen if name == "message"]
                assert endpoints == ["/m?s=1"], pieces
                assert messages == ['{"endpoint": 1}', "event: endpoint"], pieces
                assert later == 2, pieces

    anyio.run(main)
