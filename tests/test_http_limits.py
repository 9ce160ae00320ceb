"""An HTTP answer is read within the message cap, counted inflated; a GET event stream is not capped."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import AsyncIterator, Callable

import anyio
import httpx2
import pytest

from explorer.connection import http_limits
from explorer.connection.http_limits import (
    ACCEPT_ENCODING,
    AnswerRefused,
    EventsRefused,
    cap_answer,
    remember_request_id,
    request_id,
)

LIMIT = 64 * 1024
CHUNK = 4096


@pytest.fixture(autouse=True)
def small_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http_limits, "MAX_MESSAGE_BYTES", LIMIT)


class Endless(httpx2.AsyncByteStream):
    """A body that never ends (or ends after `total` bytes), counting what was pulled from it."""

    def __init__(self, piece: bytes = b"x" * CHUNK, total: int | None = None) -> None:
        self.piece = piece
        self.total = total
        self.pulled = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while self.total is None or self.pulled < self.total:
            self.pulled += len(self.piece)
            yield self.piece


class Body(httpx2.AsyncByteStream):
    """These bytes as a server streams them, a piece at a time (`content=` would be read at once)."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for start in range(0, len(self.data), CHUNK):
            yield self.data[start : start + CHUNK]


def read(headers: dict[str, str], stream: httpx2.AsyncByteStream | bytes, method: str = "POST") -> bytes:
    """A request through a client with the hook, its answer read whole as the SDK reads one (`aread`)."""
    body = Body(stream) if isinstance(stream, bytes) else stream

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers=headers, stream=body)

    async def go() -> bytes:
        hooks: dict[str, list[Callable[..., object]]] = {"response": [cap_answer]}
        async with httpx2.AsyncClient(transport=httpx2.MockTransport(handler), event_hooks=hooks) as client:
            response = await client.request(method, "http://server.test/mcp")
            return response.content

    return anyio.run(go)


JSON = {"content-type": "application/json"}


def test_an_answer_within_the_cap_is_read_as_sent() -> None:
    body = b'{"jsonrpc": "2.0", "id": 1, "result": {}}' * 100
    assert read(JSON, body) == body


def test_an_endless_body_stops_soon_after_the_cap() -> None:
    endless = Endless()
    with pytest.raises(AnswerRefused, match="the most the explorer reads of one message"):
        read(JSON, endless)
    assert LIMIT < endless.pulled <= LIMIT + CHUNK


def test_a_declared_length_over_the_cap_is_refused_before_reading() -> None:
    endless = Endless()
    with pytest.raises(AnswerRefused):
        read({**JSON, "content-length": str(LIMIT + 1)}, endless)
    assert endless.pulled == 0


@pytest.mark.parametrize(
    ("encoding", "compress"),
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),  # zlib-wrapped, as the standard says
        ("deflate", lambda data: zlib.compress(data)[2:-4]),  # raw, as some servers send it
    ],
)
def test_compressed_answers_are_inflated(encoding: str, compress: Callable[[bytes], bytes]) -> None:
    body = b'{"uri": "x://a", "name": "item"},' * 1000
    assert read({**JSON, "content-encoding": encoding}, compress(body)) == body


def test_a_compression_bomb_is_counted_inflated() -> None:
    bomb = gzip.compress(b"0" * (LIMIT * 64))  # about 6 KB that inflate to 4 MB
    assert len(bomb) < LIMIT
    with pytest.raises(AnswerRefused):
        read({**JSON, "content-encoding": "gzip"}, bomb)


def test_an_encoding_not_asked_for_is_refused_unless_the_body_is_empty() -> None:
    assert "br" not in ACCEPT_ENCODING
    with pytest.raises(AnswerRefused, match="encoding the explorer did not ask for: 'br'"):
        read({**JSON, "content-encoding": "br"}, b"\x00\x01")
    assert read({"content-encoding": "br"}, b"") == b""  # a 202 to a notification, say


def test_a_get_event_stream_is_left_to_the_event_limit() -> None:
    stream = Endless(b"data: {}\n\n", total=LIMIT * 4)
    events = {"content-type": "text/event-stream; charset=utf-8"}
    assert len(read(events, stream, method="GET")) == stream.pulled > LIMIT


def test_an_event_stream_answering_a_post_is_capped_as_an_event_stream() -> None:
    """The legacy SSE client reads a POST's answer whole, whatever its type; Streamable HTTP reads it as
    events and fails the request with an `SSEError`'s words."""
    with pytest.raises(EventsRefused, match="the most the explorer reads of one message"):
        read({"content-type": "text/event-stream"}, Endless(b"data: {}\n\n"))


def test_the_errors_fail_one_request_in_the_sdk_not_the_connection() -> None:
    assert issubclass(AnswerRefused, httpx2.StreamError) and issubclass(EventsRefused, httpx2.SSEError)


@pytest.mark.parametrize("encoding", ["gzip, identity", "identity, gzip", "GZip"])
def test_identity_in_a_list_of_encodings_is_nothing_to_undo(encoding: str) -> None:
    body = b'{"ok": true}' * 100
    assert read({**JSON, "content-encoding": encoding}, gzip.compress(body)) == body


def test_encodings_applied_one_after_another_are_undone_in_turn() -> None:
    body = b'{"ok": true}' * 100
    assert read({**JSON, "content-encoding": "deflate, gzip"}, gzip.compress(zlib.compress(body))) == body


def test_gzip_members_one_after_another_are_one_body() -> None:
    assert (
        read({**JSON, "content-encoding": "gzip"}, gzip.compress(b"[1,") + gzip.compress(b"2]")) == b"[1,2]"
    )


def test_an_endless_body_after_a_small_gzip_member_stops_at_the_cap() -> None:
    """zlib keeps what follows a finished stream in `unused_data`: fed an endless body that way, the
    inflated count never grew, and each chunk cost more than the last."""
    member = gzip.compress(b"{}")
    garbage = Endless()
    with pytest.raises(AnswerRefused, match="cannot be read as gzip"):
        read({**JSON, "content-encoding": "gzip"}, Chain(member, garbage))
    assert garbage.pulled <= CHUNK


@pytest.mark.parametrize(
    ("encoding", "body"),
    [
        ("gzip", gzip.compress(b"{}" * 1000)[:-10]),  # cut short
        ("gzip", b"not gzip at all"),
        ("deflate", zlib.compress(b"{}")[:1]),  # one byte: no stream
        ("deflate", zlib.compress(b"{}") + b"more"),  # something after the stream
    ],
    ids=["gzip-cut-short", "gzip-not-gzip", "deflate-one-byte", "deflate-then-more"],
)
def test_a_body_that_cannot_be_inflated_says_so(encoding: str, body: bytes) -> None:
    with pytest.raises(AnswerRefused, match=f"the server's answer cannot be read as {encoding}"):
        read({**JSON, "content-encoding": encoding}, body)


def test_raw_deflate_is_told_from_zlib_deflate_whatever_the_first_chunk() -> None:
    body = b'{"ok": true}' * 50
    raw = zlib.compress(body)[2:-4]

    class OneByteFirst(httpx2.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            yield raw[:1]
            yield raw[1:]

    assert read({**JSON, "content-encoding": "deflate"}, OneByteFirst()) == body


class Chain(httpx2.AsyncByteStream):
    def __init__(self, first: bytes, then: httpx2.AsyncByteStream) -> None:
        self.first = first
        self.then = then

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.first
        async for chunk in self.then:
            yield chunk


class Events(httpx2.AsyncByteStream):
    """A GET event stream that sends `first`, then waits for the reader to have seen it before `rest`."""

    def __init__(self, first: bytes, rest: bytes) -> None:
        self.first = first
        self.rest = rest
        self.seen = anyio.Event()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.first
        with anyio.fail_after(10):  # a stream held back until its end would fail here, not hang
            await self.seen.wait()
        yield self.rest


def events_as_read(headers: dict[str, str], stream: Events) -> list[bytes]:
    """Each piece a GET event stream's reader gets, as it gets it."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers=headers, stream=stream)

    async def go() -> list[bytes]:
        hooks: dict[str, list[Callable[..., object]]] = {"response": [cap_answer]}
        got = []
        mock = httpx2.MockTransport(handler)
        async with (
            httpx2.AsyncClient(transport=mock, event_hooks=hooks) as client,
            client.stream("GET", "http://server.test/mcp") as response,
        ):
            async for piece in response.aiter_bytes():
                got.append(piece)
                stream.seen.set()
        return got

    return anyio.run(go)


def test_a_gzip_event_stream_is_inflated_an_event_at_a_time() -> None:
    """A server that compresses its event stream flushes each event: each one is handed on as it comes,
    not when the stream ends (which may be hours later)."""
    deflater = zlib.compressobj(wbits=zlib.MAX_WBITS | 16)
    first = deflater.compress(b"event: message\ndata: {}\n\n") + deflater.flush(zlib.Z_SYNC_FLUSH)
    rest = deflater.compress(b"data: {}\n\n") + deflater.flush()
    headers = {"content-type": "text/event-stream", "content-encoding": "gzip"}
    assert events_as_read(headers, Events(first, rest)) == [b"event: message\ndata: {}\n\n", b"data: {}\n\n"]


def test_a_lone_surrogate_in_a_get_event_stream_is_mended() -> None:
    stream = Events(b'data: {"name": "\\ud800"}\r\n\r\n', b'data: {"name": "ok"}\r\n\r\n')
    got = events_as_read({"content-type": "text/event-stream"}, stream)
    assert got == [b'data: {"name": "\\ufffd"}\r\n\r\n', b'data: {"name": "ok"}\r\n\r\n']


def test_only_a_request_s_id_is_taken_not_that_of_the_client_s_answer_to_the_server() -> None:
    """The client answers a server's ping with the server's id: a listing request of the same number must
    not lose its bound to it."""

    def post(message: object) -> httpx2.Request:
        return httpx2.Request("POST", "http://server.test/mcp", json=message)

    assert request_id(post({"jsonrpc": "2.0", "id": 3, "method": "resources/list"})) == 3
    assert request_id(post({"jsonrpc": "2.0", "id": "a", "method": "resources/list"})) == "a"
    assert request_id(post({"jsonrpc": "2.0", "id": 3, "result": {}})) is None  # an answer
    assert request_id(post([{"jsonrpc": "2.0", "id": 3, "method": "ping"}])) is None  # a batch
    assert request_id(post({"jsonrpc": "2.0", "id": True, "method": "ping"})) is None
    assert request_id(httpx2.Request("GET", "http://server.test/mcp")) is None


def test_a_redirected_request_keeps_the_id_of_the_one_it_follows() -> None:
    """Its body, a stream again, cannot be read; the extensions come along."""
    first = httpx2.Request("POST", "http://server.test/mcp", json={"jsonrpc": "2.0", "id": 9, "method": "x"})
    anyio.run(remember_request_id, first)
    again = httpx2.Request("POST", "http://server.test/mcp/", stream=Body(b"{}"), extensions=first.extensions)
    assert request_id(again) == 9
