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
SDK (`http_text`: bytes that are not UTF-8 and lone surrogates become U+FFFD, as over stdio; a UTF-8 BOM
before a JSON answer, or an event's data, is skipped, as browsers and JSON clients do).

The errors are the kinds the SDK fails one request with, not the connection (`httpx2.StreamError` for an
answer read whole, `httpx2.SSEError` for an event stream): the next request still works, as over stdio.

A JSON answer to a Streamable HTTP request is looked at before the SDK gets it (`answer_checks`, its
first and last bytes only): one that is not JSON text, or names another request, is refused (the SDK
dropped it, and the request waited for its timeout), and an error answer whose id is null is given the
request's id, as the SDK does itself for an error status. The task reading a POST's answer notes which
request it answers (`answer_checks.ANSWERING`), for an id the first and last bytes do not tell
(`stray_answers`). An event stream's notifications past the connection's rate are taken out of its bytes
before the SDK parses them (`flood.EventGate`). A body in a declared charset other than UTF-8
is made UTF-8 first (`http_text.Transcoder`). The legacy SSE transport is guarded in two places: its
event stream's first endpoint event is checked as it is read, and a later one is kept from the SDK
(`watch_endpoint`); and its message POSTs never raise (`guard_posts`; a success's body is not read on,
`_accepted`); a 431 there names the user's own headers (`given_headers`, `errors.headers_too_large`).
An error status to its GET or a POST quotes what the server said in a JSON or text body (`read_error_body`,
which `http_sessions` uses for Streamable HTTP too), not for a 401 or 403 (the connection's advice).
"""

from __future__ import annotations

import contextlib
import re
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import urljoin, urlsplit

import httpx2
import orjson

from explorer.connection.answer_checks import ANSWERING, AnswerCheck
from explorer.connection.errors import (  # REFUSED_PREFIX: see there
    REFUSED_PREFIX,
    ProtocolProblems,
    ServerSentence,
    UnreadableAnswer,
    describe_exception,
    headers_too_large,
    redirect_loop,
    redirect_refusal,
    retry_hint,
)
from explorer.connection.flood import EventGate, FloodGate
from explorer.connection.http_text import EventBoms, LeadingBom, TextRepair, Transcoder, declared_charset
from explorer.connection.sizes import MAX_MESSAGE_BYTES, RequestId, ResponseSizes, limit_text
from explorer.model.sizes import human_size

__all__ = [
    "ACCEPT_ENCODING",
    "MOST_ERROR_BODY",
    "AnswerRefused",
    "EndpointRefused",
    "ErrorBody",
    "EventsRefused",
    "HeadersRefused",
    "StreamRefused",
    "cap_answer",
    "given_headers",
    "guard_posts",
    "read_error_body",
    "refuse_body",
    "remember_request_id",
    "request_id",
    "request_method",
    "sent_message",
    "watch_endpoint",
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


async def cap_answer(
    response: httpx2.Response,
    sizes: ResponseSizes | None = None,
    *,
    heads: bool = False,
    flood: FloodGate | None = None,
) -> None:
    """Response hook: read this answer's body within `MAX_MESSAGE_BYTES` (see the module docstring).

    With `sizes` (bind it with `functools.partial`), as the stdio reader does: a JSON answer's size is
    recorded under the id of the request it answers, and one to a request asked to be at most a size
    (`ResponseSizes.expect_at_most`, a listing page past --max-bytes) is read no further than that. Not an
    event stream's: its body may hold notifications, or only a priming event when the answer comes on
    another stream, so the listing measures the page itself. A redirect's body is never read: the client
    drains it where no error is caught, and the answer is the redirected request's.

    With `heads` (Streamable HTTP, whose JSON answer is the request's answer), a successful JSON answer's
    head and tail are checked against the request's id (`answer_checks.AnswerCheck`), and the task reading
    the answer to a POST notes the request's id (`answer_checks.ANSWERING`). With `flood` (the
    connection's gate), an event stream's notifications past the rate never reach the SDK's parse.
    """
    inner = response.stream
    assert isinstance(inner, httpx2.AsyncByteStream)  # the async client's
    if heads and response.request.method == "POST" and (asked := request_id(response.request)) is not None:
        ANSWERING.set(asked)  # this task's messages answer `asked` (the SDK: one task a request)
    if 300 <= response.status_code < 400:
        response.stream = _Unread(inner, None)
        return
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    events = kind == "text/event-stream"
    limit = None if events and response.request.method == "GET" else MAX_MESSAGE_BYTES
    refused: type[AnswerRefused] | type[EventsRefused] = EventsRefused if events else AnswerRefused
    ident = request_id(response.request) if sizes is not None and kind == "application/json" else None
    bound = _Bound(sizes, ident) if sizes is not None and ident is not None else None
    head = _answer_head(response, kind) if heads else None
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
    charset = declared_charset(response.headers.get("content-type", ""))
    if charset is not None:  # made UTF-8 here: the SDK's event streams must not decode it again
        response.headers["content-type"] = f"{kind}; charset=utf-8"
    transcoder = Transcoder(charset) if charset is not None else None
    boms = EventBoms() if events else LeadingBom() if kind == "application/json" else None
    gated = flood.events() if flood is not None and events else None
    response.stream = _CappedStream(inner, limit, decoders, refused, bound, head, transcoder, boms, gated)


def _answer_head(response: httpx2.Response, kind: str) -> AnswerCheck | None:
    """A check of a successful JSON answer to a POST that sent a request (`answer_checks`), else None."""
    if kind != "application/json" or not 200 <= response.status_code < 300:
        return None
    expected = request_id(response.request)
    return AnswerCheck(expected, request_method(response.request)) if expected is not None else None


_REQUEST_ID = "explorer.request_id"
"""Where `remember_request_id` keeps a request's id among its extensions (a redirect keeps them)."""
_REQUEST_METHOD = "explorer.request_method"  # and its method, for what a refusal says


async def remember_request_id(request: httpx2.Request) -> None:
    """Request hook: keep the JSON-RPC request id a POST sends (and its method), for the answer's hook. A
    redirected request's body can no longer be read, but it keeps the extensions of the request it
    follows."""
    if _REQUEST_ID not in request.extensions:
        message = sent_message(request)
        request.extensions[_REQUEST_ID] = _id_of(message)
        request.extensions[_REQUEST_METHOD] = _method_of(message)


def request_id(request: httpx2.Request) -> RequestId | None:
    """The id of the JSON-RPC request `request` sent, or None (not a request, or a batch)."""
    if _REQUEST_ID in request.extensions:
        found = request.extensions[_REQUEST_ID]
        return found if isinstance(found, int | str) else None
    return _id_of(sent_message(request))


def request_method(request: httpx2.Request) -> str | None:
    """The method of the JSON-RPC message `request` sent, or None."""
    if _REQUEST_METHOD in request.extensions:
        found = request.extensions[_REQUEST_METHOD]
        return found if isinstance(found, str) else None
    return _method_of(sent_message(request))


def sent_message(request: httpx2.Request) -> dict[str, Any] | None:
    """The JSON-RPC message a POST sent (a JSON object), or None: another method, a streamed or long body
    (not one of the SDK's), a batch, or not JSON."""
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
    return message if isinstance(message, dict) else None


def _id_of(message: dict[str, Any] | None) -> RequestId | None:
    if message is None or "method" not in message:
        return None  # not a request, or the client's answer to a request of the server's (its id is theirs)
    ident = message.get("id")
    return ident if isinstance(ident, int | str) and not isinstance(ident, bool) else None


def _method_of(message: dict[str, Any] | None) -> str | None:
    method = message.get("method") if message is not None else None
    return method if isinstance(method, str) else None


_CLIENT_DEFAULTS = {"accept": "*/*", "connection": "keep-alive", "accept-encoding": ACCEPT_ENCODING}


def given_headers(client: httpx2.AsyncClient) -> frozenset[str]:
    """The lower-case names of the headers the user gave (-H, a config's headers): the client's own
    headers (the transport builds it with them) but for the HTTP client's defaults, for what a 431 says
    (`errors.headers_too_large`)."""
    return frozenset(
        name
        for name, value in client.headers.items()
        if value != _CLIENT_DEFAULTS.get(name)
        and not (name == "user-agent" and value.startswith("python-httpx"))
    )


def refuse_body(response: httpx2.Response, error: Exception) -> None:
    """Response hook's part: reading `response`'s body fails with `error`, its bytes never read (raised
    from the hook itself, an error ends the whole connection: see `_Unread`)."""
    inner = response.stream
    assert isinstance(inner, httpx2.AsyncByteStream)  # the async client's
    response.stream = _Unread(inner, error)


MOST_ERROR_BODY = 64 * 1024
"""The most of an error status's body read for what it says (its words, whether it is a JSON-RPC error)."""
_WORDED = ("application/json", "text/plain")  # an error's body of these types is read for the server's words
_MOST_WORDS = 200  # characters of an error's words a sentence quotes


@dataclass(frozen=True)
class ErrorBody:
    """What an error status's body said: its bytes (b"" when longer than `MOST_ERROR_BODY`, or its reading
    failed), `words` (one line, cut at `_MOST_WORDS` characters; "" when none), and `error`, the JSON-RPC
    error object it is (None: another JSON, or text), with whether that names a request (`named`)."""

    body: bytes
    words: str
    error: dict[str, Any] | None = None
    named: bool = False  # the JSON-RPC error gives an id: it answers a request
    plain: bool = False  # the body is text/plain


async def read_error_body(response: httpx2.Response) -> ErrorBody | None:
    """What an error status's body says (`ErrorBody`), read within `MOST_ERROR_BODY`, the response closed;
    None when its type holds no words (HTML, an event stream, none said), and it is left unread.

    Why: a server says why it refused in the body ({"error": "missing API key"}, "invalid token for tenant
    x"); the status alone ("HTTP 500") left a developer nothing to go by. The words are the JSON-RPC
    error's message when the body is one, else the body's text (JSON or plain) on one line; the caller
    quotes them with `repr` (the sanitizer makes them safe where they are shown)."""
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind not in _WORDED and not kind.endswith("+json"):
        return None
    body = bytearray()
    try:
        async for piece in response.aiter_bytes():
            body += piece
            if len(body) > MOST_ERROR_BODY:
                return ErrorBody(b"", "")
    except (httpx2.HTTPError, httpx2.StreamError):
        return ErrorBody(b"", "")
    finally:
        await response.aclose()
    text = bytes(body).decode("utf-8", errors="replace")
    error: dict[str, Any] | None = None
    named = False
    with contextlib.suppress(orjson.JSONDecodeError):
        answer = orjson.loads(body)
        found = answer.get("error") if isinstance(answer, dict) else None
        if isinstance(found, dict) and isinstance(found.get("message"), str):
            error = found
            text = cast(str, found["message"])
            named = answer.get("id") is not None
    return ErrorBody(bytes(body), cut_words(" ".join(text.split())), error, named, kind == "text/plain")


_WORD_ENDS = re.compile(r"[\s\"',:;=&{}()\[\]<>]")
"""Where a run that may be a secret ends: a token (`sk-live-…`, a JWT, base64url) holds none of these."""


def cut_words(words: str) -> str:
    """`words` cut to `_MOST_WORDS` characters, the cut moved back to the start of the run it falls in:
    the connection masks its secrets in a message (`config.redact`) only where they are whole, and a
    server that echoes the token it refused ("given: Bearer sk-live-…") would show its start otherwise."""
    if len(words) <= _MOST_WORDS:
        return words
    head = words[:_MOST_WORDS]
    if _WORD_ENDS.match(words, _MOST_WORDS) is None:  # the cut falls inside a run: drop all of it
        ends = [found.end() for found in _WORD_ENDS.finditer(head)]
        head = head[: ends[-1]] if ends else ""
    head = head.rstrip()
    return f"{head}… [+{len(words) - len(head):,} chars]"


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
    limit: an event stream opened with GET), then mended into JSON the SDK parses (`http_text`: a BOM
    before a JSON text skipped, as browsers do, then what is not UTF-8 made U+FFFD), and, with `gated`
    (an event stream), without the notifications past the connection's rate (`flood.EventGate`)."""

    def __init__(
        self,
        inner: httpx2.AsyncByteStream,
        limit: int | None,
        decoders: list[_Inflater],
        refused: type[AnswerRefused] | type[EventsRefused],
        bound: _Bound | None = None,
        head: AnswerCheck | None = None,
        transcoder: Transcoder | None = None,
        boms: LeadingBom | EventBoms | None = None,
        gated: EventGate | None = None,
    ) -> None:
        self._inner = inner
        self._gated = gated
        self._boms = boms
        self._bound = bound
        self._head = head
        self._transcoder = transcoder
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
            if self._transcoder is not None and (mended := self._onward(self._transcoder.rest())):
                yield mended
            if self._boms is not None and (mended := self._checked(self._boms.rest())):
                yield mended
            if self._head is not None and (mended := self._headed(b"", end=True)):
                yield mended
            if rest := self._gate(self._repair.rest(), end=True):
                yield rest
        except (ValueError, zlib.error) as exc:
            encoding = " and ".join(decoder.encoding for decoder in reversed(self._decoders))
            raise self._refused(f"{REFUSED_PREFIX}cannot be read as {encoding[:60]}: {exc}") from None
        except (httpx2.RemoteProtocolError, httpx2.ReadError) as exc:
            # A body cut off mid-way (the server closed the connection, a chunk never ended): as the
            # HTTP client's own error it escaped the SDK's request and ended the whole connection; as
            # this kind, it fails only the request it answers.
            # Said in words when the HTTP client's error says nothing (a reset connection): its class's
            # name ("ReadError") meant nothing to a user.
            if str(exc):
                why = str(exc).splitlines()[0][:200]
            elif isinstance(exc, httpx2.ReadError):
                why = "the connection was reset or closed"
            else:
                why = "the server broke the HTTP protocol or closed the connection"
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
        if self._transcoder is not None:
            piece = self._transcoder.feed(piece)
        return self._onward(piece)

    def _onward(self, piece: bytes) -> bytes:
        """`piece` (UTF-8 now) without the BOM before a JSON text, on to the answer's checks, mended."""
        return self._checked(self._boms.feed(piece) if self._boms is not None else piece)

    def _checked(self, piece: bytes) -> bytes:
        return self._headed(piece) if self._head is not None else self._gate(self._repair.feed(piece))

    def _gate(self, piece: bytes, *, end: bool = False) -> bytes:
        """`piece` (mended) without the notifications past the rate, for an event stream."""
        if self._gated is None:
            return piece
        return self._gated.feed(piece) + self._gated.rest() if end else self._gated.feed(piece)

    def _headed(self, piece: bytes, *, end: bool = False) -> bytes:
        """`piece` once the answer's head or tail tells its id (`AnswerCheck`), mended; refused when it
        names another request or is not JSON text."""
        assert self._head is not None
        piece = self._head.take(piece, end=end)
        if self._head.refusal is not None:
            raise self._refused(self._head.refusal)
        return self._repair.feed(piece) if piece else b""

    async def aclose(self) -> None:
        await self._inner.aclose()


# ------------------------------------------------------------------------------------------ legacy SSE

FailedPost = Callable[[RequestId, str], Awaitable[None]]
"""Fails the request `ident` at once with a sentence (the legacy SSE transport's merged read stream)."""
_HOPS = "explorer.redirects_followed"  # kept in the extensions a redirect's next request shares
_LINE_END = re.compile(rb"\r\n|\r|\n")


class EndpointRefused(httpx2.SSEError, ServerSentence):
    """The legacy SSE endpoint event names a URL the explorer does not post to (raised as the event stream
    is read: the SDK's reader then fails, and so does connecting, at once)."""


def guard_posts(client: httpx2.AsyncClient, failed: FailedPost) -> None:
    """Make the legacy SSE transport's message POSTs on `client` never fail: a POST the server answered
    with an error status, a redirect the SDK does not follow, or no answer at all fails the request it
    sent at once, through `failed`, and the SDK is handed a 202 Accepted made here.

    Why: the SDK's writer calls `raise_for_status()` on each POST's answer, and its task ends at the first
    error: one HTTP 500 left every later request unsent (it waited for its timeout, then "the server closed
    the connection") while the event stream kept the server looking connected. The class of the SDK's own
    client is swapped for one with this `send`, so the client stays the one the SDK builds."""
    client.__class__ = _GuardedPosts
    cast(_GuardedPosts, client).post_failed = failed
    cast(_GuardedPosts, client).given = given_headers(client)


_MOST_ACCEPTED_BODY = 64 * 1024  # the longest body of a POST's success read (else closed unread)


async def _accepted(response: httpx2.Response) -> httpx2.Response:
    """A POST's success as the SDK gets it: without a body. Why: the answer comes on the event stream,
    but the SDK read the POST's body whole, and one over the message cap ended its writer (every later
    request waited for its timeout). A short body (its length said) is read, so that its connection
    serves the next POST; any other is closed unread."""
    length = response.headers.get("content-length", "")
    try:
        if length.isdigit() and int(length) <= _MOST_ACCEPTED_BODY:
            async for _ in response.aiter_raw():
                pass
    except (httpx2.HTTPError, httpx2.StreamError):
        pass  # accepted all the same: what it said is of no use
    finally:
        await response.aclose()
    return httpx2.Response(response.status_code, request=response.request)


class _GuardedPosts(httpx2.AsyncClient):
    """The SDK's client whose POSTs never raise nor answer an error status (`guard_posts`)."""

    post_failed: FailedPost
    given: frozenset[str]  # the user's headers' names (`given_headers`)

    async def send(
        self,
        request: httpx2.Request,
        *,
        stream: bool = False,
        auth: Any = httpx2.USE_CLIENT_DEFAULT,
        follow_redirects: Any = httpx2.USE_CLIENT_DEFAULT,
    ) -> httpx2.Response:
        sent = super().send(request, stream=stream, auth=auth, follow_redirects=follow_redirects)
        if request.method != "POST":
            response = await sent
            if response.status_code == 431:  # the event stream's GET: connecting fails with why
                await response.aclose()
                raise HeadersRefused(
                    f"{_status(response)} to the event stream's GET: {self._too_large(request)}"
                )
            return await _stream_refused(response)
        try:
            response = await sent
        except httpx2.TransportError as exc:  # no answer: the POST itself failed
            why = describe_exception(exc, action="sending the request").message
        else:
            words = await _words(response)
            refused = self._refusal(request, response, words)
            if refused is None:
                return await _accepted(response) if 200 <= response.status_code < 300 else response
            await response.aclose()
            why = refused
        ident = request_id(request)
        if ident is not None:
            await self.post_failed(ident, why)
        return httpx2.Response(202, request=request)

    def _refusal(self, request: httpx2.Request, response: httpx2.Response, words: str = "") -> str | None:
        """Why `response` is no answer the SDK goes on after, or None when it is one (a success, or a
        redirect `stream_within_origin` follows: within its rules and its budget of redirects). `words`:
        what its body said (`_words`), quoted."""
        status = response.status_code
        if 200 <= status < 300:
            return None
        following = response.next_request
        if following is None:
            later = retry_hint(response.headers.get("retry-after"))
            too_large = f": {self._too_large(request)}" if status == 431 else ""
            said = f": {words!r}" if words else ""
            return f"{_status(response)} to the request{said}{later}{too_large}"
        url, location = str(request.url), str(following.url)
        why = redirect_refusal(request.method, url, status, location)
        if why is None:
            hops = int(request.extensions.get(_HOPS, 0))
            if hops < self.max_redirects:
                following.extensions[_HOPS] = hops + 1
                return None
            why = redirect_loop(url, location)
        shown = following.url.copy_with(userinfo=b"", query=None, fragment=None)
        return f"the server redirected the request to {shown}: not followed ({why})"

    def _too_large(self, request: httpx2.Request) -> str:
        return headers_too_large(request.headers.raw, self.given)


class HeadersRefused(ServerSentence):
    """The event stream's GET was answered HTTP 431: its headers were too large for the server."""


class StreamRefused(ServerSentence):
    """The event stream's GET was answered an error status whose body says why (`_stream_refused`)."""


_UNWORDED = (401, 403, 431)  # credentials refused (the connection's advice says it), headers too large


async def _words(response: httpx2.Response) -> str:
    """What the body of an error status to a legacy SSE POST says (`read_error_body`), or "": a success,
    a redirect, credentials refused, headers too large, or a body with no words (left unread)."""
    if response.status_code < 400 or response.status_code in _UNWORDED:
        return ""
    said = await read_error_body(response)
    return said.words if said is not None else ""


async def _stream_refused(response: httpx2.Response) -> httpx2.Response:
    """The answer to the legacy SSE transport's GET as the SDK gets it, unless it is an error status whose
    body says why (JSON or text): connecting then fails with the server's words (`StreamRefused`). The
    SDK raised it as a status alone, "the server answered HTTP 404 Not Found". A body read that had no
    words is handed on as it came; credentials refused (401, 403) are the connection's advice."""
    status = response.status_code
    if status < 400 or status in _UNWORDED:
        return response
    said = await read_error_body(response)
    if said is None:
        return response
    if said.words:
        later = retry_hint(response.headers.get("retry-after"))
        raise StreamRefused(f"{_status(response)} to the event stream's GET: {said.words!r}{later}")
    kind = {"content-type": response.headers.get("content-type", "text/plain")}
    extensions = {"reason_phrase": response.reason_phrase.encode("ascii", errors="replace")}
    return httpx2.Response(
        status, headers=kind, content=said.body, request=response.request, extensions=extensions
    )


def _status(response: httpx2.Response) -> str:
    """`the server answered HTTP 431 Request Header Fields Too Large`: the status and its reason."""
    reason = f" {response.reason_phrase}" if response.reason_phrase else ""
    return f"the server answered HTTP {response.status_code}{reason}"


def watch_endpoint(
    url: str, problems: ProtocolProblems | None = None
) -> Callable[[httpx2.Response], Awaitable[None]]:
    """Response hook of the legacy SSE transport: its event stream's first `endpoint` event is checked as
    it is read, wherever it comes, and one the SDK or the HTTP client would refuse fails connecting at
    once with what it named and why (`EndpointRefused`). Why: the SDK waited for another endpoint,
    unbounded (the explorer's wait then said no endpoint came), when the one that came was on another
    origin; and it took one the HTTP client cannot post to (a control character in it), whose first POST
    ended the writer (every request then waited for its timeout). A later endpoint event reaches the SDK
    renamed, an event it ignores (`_EndpointWatch`), and is counted in `problems`: the SDK's reader failed
    on it ("called 'started' twice"), which ended the connection."""

    async def hook(response: httpx2.Response) -> None:
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if response.request.method != "GET" or kind != "text/event-stream" or response.status_code != 200:
            return
        inner = response.stream
        assert isinstance(inner, httpx2.AsyncByteStream)  # the async client's
        response.stream = _EndpointWatch(inner, url, problems)

    return hook


_ENDPOINT_LINE = re.compile(rb"(?<![^\r\n])event: ?endpoint(?=[\r\n])")
"""A line naming an event `endpoint` (at the start of the bytes searched, or after a line's end)."""
_ENDPOINT_NAMES = (b"event: endpoint", b"event:endpoint")
_RENAMED = b"event: endpoint-not-used"  # an event the SDK does not know: it ignores it (and logs its name)


class _EndpointWatch(httpx2.AsyncByteStream):
    """An event stream's bytes on their way to the SDK: its events parsed until the first endpoint event
    (checked, `_check_endpoint`), with no bound on how far (before it, the SDK does nothing else with the
    stream, and a comment line is not kept). After it, each piece is searched for `endpoint` (in C), and
    only a piece that holds it is looked at: an `event: endpoint` line is renamed, so the SDK ignores
    that event as one it does not know. A line that may become one is held until it ends (15 bytes)."""

    def __init__(self, inner: httpx2.AsyncByteStream, url: str, problems: ProtocolProblems | None) -> None:
        self._inner = inner
        self._url = url
        self._problems = problems
        self._line = bytearray()  # the line not ended yet (a comment's first byte only)
        self._after_cr = False  # the last line ended with CR: a LF first in the next bytes belongs to it
        self._event = ""
        self._data: list[str] = []
        self._taken = False  # the first endpoint event came, and was checked
        self._held = b""  # after it: the start of a line that may name an endpoint event
        self._at_line_start = True  # after it: the bytes handed on end with a line's end

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            if not self._taken:
                at = self._scan(chunk)  # raises for an endpoint refused, before its bytes go on
                if at is None:
                    yield chunk
                    continue
                self._taken = True
                if out := chunk[:at] + self._later(chunk[at:]):
                    yield out
            elif out := self._later(chunk):
                yield out
        if self._held:
            yield self._held

    async def aclose(self) -> None:
        await self._inner.aclose()

    def _scan(self, chunk: bytes) -> int | None:
        """Read the lines `chunk` ends; where in it the first endpoint event ended (checked), else None."""
        skip = 1 if self._after_cr and chunk.startswith(b"\n") else 0
        self._after_cr = chunk.endswith(b"\r")
        if _LINE_END.search(chunk, skip) is None:
            if self._line[:1] != b":":
                self._line += chunk[skip:]
                if self._line[:1] == b":":  # a comment: what it says is of no use
                    del self._line[1:]
            return None
        kept = len(self._line)
        text = bytes(self._line) + chunk[skip:]
        start = 0
        for end in _LINE_END.finditer(text):
            line, start = text[start : end.start()], end.end()
            if self._field(line):
                self._line = bytearray()
                return start - kept + skip
        rest = text[start:]
        self._line = bytearray(b":" if rest.startswith(b":") else rest)
        return None

    def _field(self, line: bytes) -> bool:
        """One line of the event stream (the WHATWG rules): a field, or the blank line ending an event.
        True when it ended the first endpoint event (the SDK's), and that was checked."""
        if line.startswith(b":"):
            return False
        if not line:
            ended = self._event == "endpoint"
            if ended:
                _check_endpoint(self._url, "\n".join(self._data))
            self._event, self._data = "", []
            return ended
        name, _, value = line.decode("utf-8", errors="replace").lstrip("\ufeff").partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        return False

    def _later(self, chunk: bytes) -> bytes:
        """What of `chunk` goes on, after the first endpoint event: an `event: endpoint` line renamed."""
        text = self._held + chunk if self._held else chunk
        at_start, self._held = self._at_line_start, b""
        if b"endpoint" in text:
            text = _ENDPOINT_LINE.sub(lambda found: self._renamed(found, at_start), text)
        tail = text[-len(_ENDPOINT_NAMES[0]) - 1 :]  # the longest name, and the line's end before it
        cut = max(tail.rfind(b"\n"), tail.rfind(b"\r"))
        begins = len(text) - len(tail) + cut + 1 if cut >= 0 else None  # where its last line begins
        if begins is None and len(tail) == len(text) and at_start:
            begins = 0
        if (
            begins is not None
            and begins < len(text)
            and any(name.startswith(text[begins:]) for name in _ENDPOINT_NAMES)
        ):
            text, self._held = text[:begins], text[begins:]  # held: it may end as `event: endpoint`
        if text:
            self._at_line_start = text.endswith((b"\n", b"\r"))
        return text

    def _renamed(self, found: re.Match[bytes], at_start: bool) -> bytes:
        if found.start() == 0 and not at_start:
            return found.group()  # the end of a longer line, not a field of its own
        if self._problems is not None:
            self._problems.later_endpoints += 1
        return _RENAMED


def _check_endpoint(url: str, data: str) -> None:
    """Refuse an endpoint as the SDK does (another scheme or host, port and userinfo than `url`), and one
    the HTTP client cannot post to."""
    from explorer.sanitize import sanitize_line

    endpoint = urljoin(url, data)
    sent, named = urlsplit(url), urlsplit(endpoint)
    shown = sanitize_line(data, limit=120)
    why = None
    if (sent.scheme, sent.netloc) != (named.scheme, named.netloc):
        same_place = (sent.scheme, sent.netloc) == (named.scheme, named.netloc.rpartition("@")[2])
        if same_place:  # what it names is shown without the password
            shown = sanitize_line(named._replace(netloc=named.netloc.rpartition("@")[2]).geturl(), limit=120)
        why = "it holds a user name and password" if same_place else f"another origin than {sent.netloc}"
    else:
        try:
            httpx2.URL(endpoint)
        except httpx2.InvalidURL as exc:
            why = f"the HTTP client cannot post to it: {sanitize_line(str(exc), limit=120)}"
    if why is not None:
        raise EndpointRefused(f"the server's event stream named {shown} as its endpoint: not used ({why})")
