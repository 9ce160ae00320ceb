"""An HTTP answer is read within the message cap, counted after inflating; event streams are left alone."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import AsyncIterator, Callable

import anyio
import httpx2
import pytest

from explorer.connection import http_limits
from explorer.connection.http_limits import ACCEPT_ENCODING, AnswerTooLarge, cap_answer

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


def read(headers: dict[str, str], stream: httpx2.AsyncByteStream | bytes) -> bytes:
    """GET through a client with the hook, as the SDK reads a JSON answer (`aread`)."""
    body = Body(stream) if isinstance(stream, bytes) else stream

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers=headers, stream=body)

    async def go() -> bytes:
        hooks: dict[str, list[Callable[..., object]]] = {"response": [cap_answer]}
        async with httpx2.AsyncClient(transport=httpx2.MockTransport(handler), event_hooks=hooks) as client:
            response = await client.get("http://server.test/mcp")
            return response.content

    return anyio.run(go)


JSON = {"content-type": "application/json"}


def test_an_answer_within_the_cap_is_read_as_sent() -> None:
    body = b'{"jsonrpc": "2.0", "id": 1, "result": {}}' * 100
    assert read(JSON, body) == body


def test_an_endless_body_stops_soon_after_the_cap() -> None:
    endless = Endless()
    with pytest.raises(AnswerTooLarge, match="the most the explorer reads of one message"):
        read(JSON, endless)
    assert LIMIT < endless.pulled <= LIMIT + CHUNK


def test_a_declared_length_over_the_cap_is_refused_before_reading() -> None:
    endless = Endless()
    with pytest.raises(AnswerTooLarge):
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
    with pytest.raises(AnswerTooLarge):
        read({**JSON, "content-encoding": "gzip"}, bomb)


def test_an_encoding_not_asked_for_is_refused() -> None:
    assert "br" not in ACCEPT_ENCODING
    with pytest.raises(AnswerTooLarge, match="encoding the explorer did not ask for: 'br'"):
        read({**JSON, "content-encoding": "br"}, b"\x00\x01")


def test_an_event_stream_is_left_to_the_event_limit() -> None:
    stream = Endless(b"data: {}\n\n", total=LIMIT * 4)
    assert len(read({"content-type": "text/event-stream; charset=utf-8"}, stream)) == stream.pulled > LIMIT
