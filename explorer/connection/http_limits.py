"""One HTTP answer of an MCP server is read up to `MAX_MESSAGE_BYTES`, decoded, never more.

Why: the SDK reads a JSON answer whole (`response.aread()`), with no bound; a server that streams an
endless body (a bug as much as an attack) grew the explorer to 8 GB in the 30 s before the request timed
out. stdio caps a message at `MAX_MESSAGE_BYTES`; this does the same for HTTP, as a response hook on the
client the transport builds: the body's bytes are counted as they arrive, and past the cap the read fails
with `AnswerTooLarge`, which names the cap. Counted after decoding: a compressed body is inflated here, a
piece at a time (a gzip body of 1 MB can inflate to 1 GB), and handed on as it would be uncompressed.
Only gzip and deflate are asked for (`ACCEPT_ENCODING`); a body in another encoding is refused.

Event streams are left alone: each event is a message, bounded by the transports' event limit
(`transports.open_transport`), and the stream itself may rightly last for hours.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Iterator

import httpx2

from explorer.connection.sizes import MAX_MESSAGE_BYTES, limit_text

__all__ = ["ACCEPT_ENCODING", "AnswerTooLarge", "cap_answer"]

ACCEPT_ENCODING = "gzip, deflate"
"""What the explorer's HTTP client accepts: the encodings `cap_answer` can inflate a piece at a time."""

_PIECE = 1 << 20  # at most this many inflated bytes at a time


class AnswerTooLarge(Exception):
    """An HTTP answer went past the cap (or came in an encoding that cannot be read within it)."""


async def cap_answer(response: httpx2.Response) -> None:
    """Response hook: read this answer's body within `MAX_MESSAGE_BYTES` (see the module docstring)."""
    if response.headers.get("content-type", "").split(";")[0].strip().lower() == "text/event-stream":
        return
    length = response.headers.get("content-length", "")
    encoding = response.headers.get("content-encoding", "").strip().lower()
    if encoding in ("", "identity") and length.isdigit() and int(length) > MAX_MESSAGE_BYTES:
        await response.aclose()
        raise AnswerTooLarge(_too_large(MAX_MESSAGE_BYTES))
    if encoding in ("", "identity"):
        inflate = None
    elif encoding in ("gzip", "x-gzip", "deflate"):
        inflate = _Inflater(encoding)
        del response.headers["content-encoding"]  # inflated here: the client must not inflate it again
        if "content-length" in response.headers:
            del response.headers["content-length"]
    else:
        await response.aclose()
        raise AnswerTooLarge(
            f"the server's answer came in an encoding the explorer did not ask for: {encoding[:40]!r}"
        )
    inner = response.stream
    assert isinstance(inner, httpx2.AsyncByteStream)  # the async client's
    response.stream = _CappedStream(inner, MAX_MESSAGE_BYTES, inflate)


def _too_large(limit: int) -> str:
    return f"the server's answer is over {limit_text(limit)}, the most the explorer reads of one message"


class _Inflater:
    """gzip or deflate (zlib-wrapped, or raw as some servers send it), inflated a bounded piece at a time."""

    def __init__(self, encoding: str) -> None:
        self._may_be_raw = encoding == "deflate"
        self._inflater = zlib.decompressobj(zlib.MAX_WBITS | 16 if encoding != "deflate" else zlib.MAX_WBITS)

    def pieces(self, data: bytes) -> Iterator[bytes]:
        """The inflated bytes of `data`, at most `_PIECE` at a time (the caller stops when it has enough)."""
        try:
            piece = self._inflater.decompress(data, _PIECE)
        except zlib.error:
            if not self._may_be_raw:
                raise
            self._inflater = zlib.decompressobj(-zlib.MAX_WBITS)  # deflate without its zlib wrapper
            piece = self._inflater.decompress(data, _PIECE)
        self._may_be_raw = False
        yield piece
        while self._inflater.unconsumed_tail:
            yield self._inflater.decompress(self._inflater.unconsumed_tail, _PIECE)

    def rest(self) -> bytes:
        return self._inflater.flush()


class _CappedStream(httpx2.AsyncByteStream):
    """The body's bytes (inflated when `inflate` is given), failing once more than `limit` came."""

    def __init__(self, inner: httpx2.AsyncByteStream, limit: int, inflate: _Inflater | None) -> None:
        self._inner = inner
        self._limit = limit
        self._inflate = inflate
        self._seen = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            for piece in [chunk] if self._inflate is None else self._inflate.pieces(chunk):
                self._count(piece)
                yield piece
        if self._inflate is not None:
            rest = self._inflate.rest()
            self._count(rest)
            yield rest

    def _count(self, piece: bytes) -> None:
        self._seen += len(piece)
        if self._seen > self._limit:
            raise AnswerTooLarge(_too_large(self._limit))

    async def aclose(self) -> None:
        await self._inner.aclose()
