"""One HTTP answer of an MCP server is read up to `MAX_MESSAGE_BYTES`, decoded, never more.

Why: the SDK reads a JSON answer whole (`response.aread()`), with no bound; a server that streams an
endless body (a bug as much as an attack) grew the explorer to 8 GB in the 30 s before the request timed
out. stdio caps a message at `MAX_MESSAGE_BYTES`; this does the same for HTTP, as a response hook on the
client the transport builds: the body's bytes are counted as they arrive, and past the cap the read fails
with a sentence that names the cap. Counted after decoding: a compressed body is inflated here, a piece at
a time (a gzip body of 1 MB can inflate to 1 GB), and handed on as it would be uncompressed. Only gzip and
deflate are asked for (`ACCEPT_ENCODING`); a body in another encoding is refused when it has any bytes.

Every answer to a request is capped, event streams included (the legacy SSE client reads the answer to a
POST whole, whatever its type). Only the event stream a client opens with GET is left to the transports'
per-event limit: it may rightly last for hours. Every body, that one too, is then mended on its way to the
SDK (`http_text`: bytes that are not UTF-8 and lone surrogates become U+FFFD, as over stdio).

The errors are the kinds the SDK fails one request with, not the connection (`httpx2.StreamError` for an
answer read whole, `httpx2.SSEError` for an event stream): the next request still works, as over stdio.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import orjson

from explorer.connection.errors import REFUSED_PREFIX, UnreadableAnswer  # REFUSED_PREFIX: see there
from explorer.connection.http_text import TextRepair
from explorer.connection.sizes import MAX_MESSAGE_BYTES, RequestId, ResponseSizes, limit_text
from explorer.model.sizes import human_size

__all__ = [
    "ACCEPT_ENCODING",
    "AnswerRefused",
    "EventsRefused",
    "cap_answer",
    "refuse_body",
    "remember_request_id",
    "request_id",
]

ACCEPT_ENCODING = "gzip, deflate"
"""What the explorer's HTTP client accepts: the encodings `cap_answer` can inflate a piece at a time."""

_PIECE = 1 << 20  # at most this many inflated bytes at a time
_MOST_REQUEST_READ = 64 * 1024  # a request body longer than this is not looked into for its id
_INFLATABLE = ("gzip", "x-gzip", "deflate")


class AnswerRefused(httpx2.StreamError):
    """An HTTP answer not read on: past the cap, unreadable in its encoding, or in one not asked for."""


class EventsRefused(httpx2.SSEError):
    """The same, for an answer that is an event stream (the SDK fails its request with the sentence)."""


async def cap_answer(response: httpx2.Response, sizes: ResponseSizes | None = None) -> None:
    """Response hook: read this answer's body within `MAX_MESSAGE_BYTES` (see the module docstring).

    With `sizes` (bind it with `functools.partial`), as the stdio reader does: a JSON answer's size is
    recorded under the id of the request it answers, and one to a request asked to be at most a size
    (`ResponseSizes.expect_at_most`, a listing page past --max-bytes) is read no further than that. Not an
    event stream's: its body may hold notifications, or only a priming event when the answer comes on
    another stream, so the listing measures the page itself. A redirect's body is never read: the client
    drains it where no error is caught, and the answer is the redirected request's.
    """
    inner = response.stream
    assert isinstance(inner, httpx2.AsyncByteStream)  # the async client's
    if 300 <= response.status_code < 400:
        response.stream = _Unread(inner, None)
        return
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    events = kind == "text/event-stream"
    limit = None if events and response.request.method == "GET" else MAX_MESSAGE_BYTES
    refused: type[AnswerRefused] | type[EventsRefused] = EventsRefused if events else AnswerRefused
    ident = request_id(response.request) if sizes is not None and kind == "application/json" else None
    bound = _Bound(sizes, ident) if sizes is not None and ident is not None else None
    encodings = [
        part
        for part in (
            piece.strip().lower() for piece in response.headers.get("content-encoding", "").split(",")
        )
        if part and part != "identity"
    ]
    length = response.headers.get("content-length", "")
    said = int(length) if not encodings and length.isdigit() else None  # what the body will be
    if said is not None and limit is not None and said > limit:
        response.stream = _Unread(inner, refused(_too_large(limit)))
        return
    if said is not None and bound is not None and bound.past(said):
        response.stream = _Unread(inner, refused(bound.refusal(said, whole=True)))
        return
    if encodings:
        del response.headers["content-encoding"]  # inflated here: the client must not inflate it again
        if "content-length" in response.headers:
            del response.headers["content-length"]
    decoders = [_Inflater(encoding) for encoding in reversed(encodings)]  # undone last to first
    response.stream = _CappedStream(inner, limit, decoders, refused, bound)


_REQUEST_ID = "explorer.request_id"
"""Where `remember_request_id` keeps a request's id among its extensions (a redirect keeps them)."""


async def remember_request_id(request: httpx2.Request) -> None:
    """Request hook: keep the JSON-RPC request id a POST sends, for the answer's hook. A redirected
    request's body can no longer be read, but it keeps the extensions of the request it follows."""
    if _REQUEST_ID not in request.extensions:
        request.extensions[_REQUEST_ID] = _sent_id(request)


def request_id(request: httpx2.Request) -> RequestId | None:
    """The id of the JSON-RPC request `request` sent, or None (not a request, or a batch)."""
    if _REQUEST_ID in request.extensions:
        found = request.extensions[_REQUEST_ID]
        return found if isinstance(found, int | str) else None
    return _sent_id(request)


def _sent_id(request: httpx2.Request) -> RequestId | None:
    if request.method != "POST":
        return None
    try:
        body = request.content
    except httpx2.RequestNotRead:  # a streamed body: not one of the SDK's
        return None
    if len(body) > _MOST_REQUEST_READ:
        return None
    try:
        message = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(message, dict) or "method" not in message:
        return None  # a batch, or the client's answer to a request of the server's (its id is the server's)
    ident = message.get("id")
    return ident if isinstance(ident, int | str) and not isinstance(ident, bool) else None


def refuse_body(response: httpx2.Response, error: Exception) -> None:
    """Response hook's part: reading `response`'s body fails with `error`, its bytes never read (raised
    from the hook itself, an error ends the whole connection: see `_Unread`)."""
    inner = response.stream
    assert isinstance(inner, httpx2.AsyncByteStream)  # the async client's
    response.stream = _Unread(inner, error)


class _Unread(httpx2.AsyncByteStream):
    """A body not read: reading it fails with `error` (a refusal before the first byte), or finds it empty
    (no error: a redirect's). Not raised from the hook: an error there escapes the SDK's request task and
    ends the whole connection; one raised while the body is read fails that one request."""

    def __init__(self, inner: httpx2.AsyncByteStream, error: Exception | None) -> None:
        self._inner = inner
        self._error: Exception | None = error

    async def __aiter__(self) -> AsyncIterator[bytes]:
        await self._inner.aclose()
        if self._error is not None:
            raise self._error
        nothing: tuple[bytes, ...] = ()
        for piece in nothing:  # an async generator all the same, as httpx iterates one
            yield piece

    async def aclose(self) -> None:
        await self._inner.aclose()


class _Bound:
    """One answer's size, told to `sizes` as it is read, and the most it may be (`expect_at_most`)."""

    def __init__(self, sizes: ResponseSizes, ident: RequestId) -> None:
        self.sizes = sizes
        self.ident = ident
        self.most = sizes.most_for(ident)

    def past(self, size: int) -> bool:
        return self.most is not None and size > self.most

    def refusal(self, size: int, *, whole: bool) -> str:
        """Say why the answer is refused, to the request (through `sizes`) and as the error's words."""
        assert self.most is not None
        unread = UnreadableAnswer.past_max_bytes(self.ident, size, self.most, whole=whole)
        self.sizes.refuse(self.ident, unread)
        return unread.why  # begins with REFUSED_PREFIX, as every refusal here


def _too_large(limit: int) -> str:
    return f"{REFUSED_PREFIX}is over {limit_text(limit)}, the most the explorer reads of one message"


class _Inflater:
    """One content coding undone a bounded piece at a time: gzip (members one after another, as the format
    allows) or deflate (zlib-wrapped, or raw as some servers send it, told apart by its first two bytes).
    Any other coding is refused at its first byte (an empty answer in it is read as empty)."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self._head = b""  # deflate: bytes kept until two tell which kind it is
        self._fed = False  # an empty body is empty in any coding
        self._inflater: Any = None  # zlib's decompressor
        if encoding != "deflate" and encoding in _INFLATABLE:
            self._inflater = zlib.decompressobj(zlib.MAX_WBITS | 16)

    def pieces(self, data: bytes) -> Iterator[bytes]:
        """The inflated bytes of `data`, at most `_PIECE` at a time (the caller stops when it has enough)."""
        if not data:
            return
        self._fed = True
        if self.encoding not in _INFLATABLE:
            raise ValueError(f"it came in an encoding the explorer did not ask for: {self.encoding[:40]!r}")
        if self._inflater is None:  # deflate, kind not known yet
            self._head += data
            if len(self._head) < 2:
                return
            data, self._head = self._head, b""
            wrapped = data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0  # RFC 1950 header
            self._inflater = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
        inflater = self._inflater
        while data:
            if inflater.eof:  # what follows a complete stream: another gzip member, else not allowed
                if self.encoding == "deflate":
                    raise ValueError("it goes on after its deflate stream ended")
                inflater = self._inflater = zlib.decompressobj(zlib.MAX_WBITS | 16)
            piece = inflater.decompress(data, _PIECE)
            data = inflater.unconsumed_tail or (inflater.unused_data if inflater.eof else b"")
            if piece:
                yield piece

    def rest(self) -> bytes:
        """The end of the body: what is left to inflate, or an error when it was cut short."""
        if not self._fed:
            return b""
        if self._head:  # one byte of deflate: not a stream
            raise ValueError("it is cut short")
        rest: bytes = self._inflater.flush()
        if not self._inflater.eof:
            raise ValueError("it is cut short")
        return rest


class _CappedStream(httpx2.AsyncByteStream):
    """The body's bytes (undone by `decoders`, outermost last), failing once more than `limit` came (no
    limit: an event stream opened with GET), then mended into JSON the SDK parses (`http_text`)."""

    def __init__(
        self,
        inner: httpx2.AsyncByteStream,
        limit: int | None,
        decoders: list[_Inflater],
        refused: type[AnswerRefused] | type[EventsRefused],
        bound: _Bound | None = None,
    ) -> None:
        self._inner = inner
        self._bound = bound
        self._limit = limit
        self._decoders = decoders
        self._refused = refused
        self._seen = 0
        self._repair = TextRepair(most_held=MAX_MESSAGE_BYTES)  # the most one message may be

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._inner:
                for piece in self._decoded(chunk, 0):
                    if mended := self._taken(piece):
                        yield mended
            for at, decoder in enumerate(self._decoders):  # each stage's end goes through the later ones
                for piece in self._decoded(decoder.rest(), at + 1):
                    if mended := self._taken(piece):
                        yield mended
            if rest := self._repair.rest():
                yield rest
        except (ValueError, zlib.error) as exc:
            encoding = " and ".join(decoder.encoding for decoder in reversed(self._decoders))
            raise self._refused(f"{REFUSED_PREFIX}cannot be read as {encoding[:60]}: {exc}") from None
        except (httpx2.RemoteProtocolError, httpx2.ReadError) as exc:
            # A body cut off mid-way (the server closed the connection, a chunk never ended): as the
            # HTTP client's own error it escaped the SDK's request and ended the whole connection; as
            # this kind, it fails only the request it answers.
            why = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
            raise self._refused(f"{REFUSED_PREFIX}broke off after {human_size(self._seen)}: {why}") from None

    def _decoded(self, data: bytes, start: int) -> Iterator[bytes]:
        """`data` through the decoders from `start` on, a bounded piece at a time."""
        if start == len(self._decoders):
            if data:
                yield data
            return
        for piece in self._decoders[start].pieces(data):
            yield from self._decoded(piece, start + 1)

    def _taken(self, piece: bytes) -> bytes:
        """`piece` counted against the limits, then mended (b"" while all of it waits for what follows)."""
        self._seen += len(piece)
        if self._limit is not None and self._seen > self._limit:
            raise self._refused(_too_large(self._limit))
        bound = self._bound
        if bound is not None:
            if bound.past(self._seen):
                raise self._refused(bound.refusal(self._seen, whole=False))
            bound.sizes.record(bound.ident, self._seen)  # the request takes it once its answer is in
        return self._repair.feed(piece)

    async def aclose(self) -> None:
        await self._inner.aclose()
