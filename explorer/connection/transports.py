"""ServerSpec -> an MCP transport (an async context manager yielding the two message streams).

A stdio server's stderr goes to its own log file, never the terminal: under Textual the default
`sys.stderr` has no real file descriptor, so the child would write straight over the screen.
stdio itself is `stdio.py` (a linear, bounded reader; secrets masked on the way to the log).

HTTP transports record every error status the server answered (`HttpAnswers`): the SDK turns a 401 or a
405 into a generic JSON-RPC error, and the user needs the status and the `WWW-Authenticate` challenge to
know what to do (log in, or use the legacy SSE transport). Redirects are recorded too: the SDK names only
where one pointed, and the user needs to know why it was not followed. What the server said in the body of
a 401 or 403, and of a Streamable HTTP refusal of `initialize` or `server/discover`, is recorded with its
answer (`HttpAnswer.words`), read once the OAuth flow has decided (`_WordsRead`): the connection's advice
and its legacy SSE fallback quote it.

The legacy SSE transport's message POSTs never fail the SDK's writer (`http_limits.guard_posts`): a POST
that failed fails its request at once with an error answer made here (`_PostFailures`), handed to the
session with the server's messages, and the transport goes on. A Streamable HTTP session the server ended
is started again once (`http_sessions`). On both, an answer naming a request never sent fails the request
the server meant, when it can be told (`stray_answers`), and notifications past the connection's rate are
dropped and counted (`flood`), as over stdio: taken out of each event stream's bytes before the SDK parses
them, and gated again on the read stream for what the bytes did not tell.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import anyio
import anyio.abc

from explorer import sdk_door
from explorer.config import ServerSpec
from explorer.connection.errors import ProtocolProblems, redirect_loop, redirect_refusal, timed_out
from explorer.connection.sizes import MAX_MESSAGE_BYTES, RequestId, ResponseSizes
from explorer.connection.stray_answers import StrayAnswers, error_answer

if TYPE_CHECKING:
    import httpx2
    from anyio.streams.memory import MemoryObjectSendStream

    from explorer.connection.flood import FloodGate
    from explorer.connection.stdio import StartedServer, StderrPump
    from explorer.sdk_door import TransportStreams

T = TypeVar("T")

_AUTH_STATUSES = (401, 403)
# Set in the extensions of the requests an OAuth login makes (metadata, registration, token): their
# errors are the login's, not answers of the MCP endpoint (explorer.auth.login.AUTH_REQUEST).
_AUTH_REQUEST = "mcp_url_explorer.auth_request"
# Credentials, rate limits and headers too large (the user's own -H): no reason to try another transport.
_NOT_REFUSALS = (401, 403, 429, 431)
_CONNECTING = ("initialize", "server/discover")  # a Streamable HTTP refusal of these is quoted (`words`)


@dataclass(frozen=True, slots=True)
class HttpAnswer:
    """One HTTP error answer or redirect: which request got it, the status, the auth challenge if any,
    where a redirect pointed (absolute), and what the body said (`words`)."""

    method: str
    url: str
    status: int
    reason: str
    challenge: str | None
    location: str | None = None
    retry_after: str | None = None  # the `Retry-After` header of a 429 or 503, as sent (cut)
    # What the body of a 401 or 403, or of a Streamable HTTP refusal of connecting, said (one line, cut:
    # `http_limits.read_error_body`; unescaped, quoted where it is shown); "" when it said nothing.
    words: str = ""


@dataclass
class HttpAnswers:
    """Error statuses an HTTP server answered, in order (bounded: a flood of errors keeps the first ones)."""

    errors: list[HttpAnswer] = field(default_factory=list)
    limit: int = 20
    redirects: list[HttpAnswer] = field(default_factory=list)  # the last `limit` ones
    # Called when the server ended the session and a new one was started (`http_sessions`): what the
    # connection had set up in the old one (subscriptions, the event stream) is gone.
    on_renewed: Callable[[], None] | None = field(default=None, compare=False)
    # The answers whose words may be read (`read_words`), with their responses, until their send ends.
    _unread: list[tuple[HttpAnswer, httpx2.Response]] = field(
        default_factory=list, init=False, repr=False, compare=False
    )

    async def on_response(self, response: httpx2.Response) -> None:
        request = response.request
        if request.extensions.get(_AUTH_REQUEST):
            return
        if 300 <= response.status_code < 400:
            self._redirected(response)
        if response.status_code < 400:
            # Accepted now (after a login): an earlier refusal is no longer the reason for anything.
            self.errors = [answer for answer in self.errors if answer.status not in _AUTH_STATUSES]
            return
        if len(self.errors) >= self.limit:
            return
        answer = HttpAnswer(
            method=request.method,
            url=str(request.url),
            status=response.status_code,
            reason=response.reason_phrase or "",
            challenge=response.headers.get("www-authenticate"),
            retry_after=(response.headers.get("retry-after") or "")[:60] or None,
        )
        self.errors.append(answer)
        if answer.status in _AUTH_STATUSES or _refused_post(answer):
            self._unread.append((answer, response))  # its words: once its send has ended (`read_words`)

    async def read_words(self, handed: httpx2.Response | None, *, connecting: bool) -> httpx2.Response | None:
        """Record what the body of each 401 or 403 said (and with `connecting`, Streamable HTTP, of each
        refusal of `initialize` or `server/discover`) on its answer (`HttpAnswer.words`), once the send
        that got it has ended, so after the OAuth flow decided: read within `MOST_ERROR_BODY`
        (`http_limits.read_error_body`), a JSON or text body only. `handed`: the answer that send hands on
        (None: it raised); returned as it came, or, when its body was read here, as an answer with that
        body read (a body past the bound is handed on empty), so the SDK still reads a JSON-RPC error in
        it. An answer the HTTP client read already (the 401 that started an OAuth login, whose body it
        read before the login's first request; an answer not streamed) is read where it is, in memory.

        Why: a server says why it refused in the body ({"error": "invalid_token", "error_description":
        "token expired"}, "missing X-API-Key header", {"error": "missing tenant header"}); the connection
        said the status and its advice alone. Not read before the flow decided: a 401 that starts a login
        goes to the OAuth flow as it came."""
        import httpx2

        from explorer.connection.http_limits import read_error_body

        ended = [(a, got) for a, got in self._unread if got is handed or got.is_closed]
        self._unread = [(a, got) for a, got in self._unread if not (got is handed or got.is_closed)]
        for answer, got in ended:
            if answer.status not in _AUTH_STATUSES and not (connecting and _connecting(got.request)):
                continue
            try:
                got.content  # noqa: B018  (read already: its words are in memory)
            except httpx2.ResponseNotRead:
                if got is not handed:
                    continue  # closed unread (a login that failed at once): nothing to go by
                said = await read_error_body(got)
                if said is not None:
                    handed = _with_body(got, said.body)
            else:
                said = await read_error_body(got)
            if said is not None and said.words:
                self.errors = [replace(a, words=said.words) if a is answer else a for a in self.errors]
        return handed

    def get_refusal(self) -> HttpAnswer | None:
        """The first 4xx a GET got, but an auth refusal (401, 403) or headers too large (431, said as such
        where it came): the legacy SSE stream refused."""
        return next(
            (
                answer
                for answer in self.errors
                if answer.method == "GET"
                and 400 <= answer.status < 500
                and answer.status not in (*_AUTH_STATUSES, 431)
            ),
            None,
        )

    def _redirected(self, response: httpx2.Response) -> None:
        import httpx2

        request, location = response.request, response.headers.get("location")
        if not location:
            return
        try:
            target = str(request.url.join(location))
        except httpx2.InvalidURL:
            return
        answer = HttpAnswer(request.method, str(request.url), response.status_code, "", None, target)
        self.redirects = [*self.redirects[-(self.limit - 1) :], answer]

    def redirect_refusal(self, shown: str) -> str | None:
        """Why the last redirect to `shown` (as the SDK names it: without userinfo, query and fragment) was
        not followed, or None when none was recorded (`errors.RedirectWhy`)."""
        import httpx2

        for answer in reversed(self.redirects):
            assert answer.location is not None
            try:
                named = httpx2.URL(answer.location).copy_with(userinfo=b"", query=None, fragment=None)
            except httpx2.InvalidURL:
                continue
            if str(named) == shown:
                why = redirect_refusal(answer.method, answer.url, answer.status, answer.location)
                return why or redirect_loop(answer.url, answer.location)
        return None

    def auth_refusal(self) -> HttpAnswer | None:
        """The last 401 or 403 of the server's own URL (the one the first came from; not the login's
        endpoints): the server wants (other) credentials. The first one started a login; a refusal after
        the login is why connecting failed (a 403 for the account), and its status and words are said."""
        refusals = [answer for answer in self.errors if answer.status in _AUTH_STATUSES]
        if not refusals:
            return None
        return next(answer for answer in reversed(refusals) if answer.url == refusals[0].url)

    def post_refusal(self) -> HttpAnswer | None:
        """The first 4xx to a POST that is not about credentials or rate: a server without Streamable HTTP."""
        return next((answer for answer in self.errors if _refused_post(answer)), None)

    def hooks(self) -> dict[str, list[Any]]:
        return {"response": [self.on_response]}


def _refused_post(answer: HttpAnswer) -> bool:
    """A 4xx to a POST that is not about credentials or rate (`HttpAnswers.post_refusal`)."""
    return answer.method == "POST" and 400 <= answer.status < 500 and answer.status not in _NOT_REFUSALS


def _connecting(request: httpx2.Request) -> bool:
    """Whether `request` sent `initialize` or `server/discover`."""
    from explorer.connection.http_limits import sent_message

    message = sent_message(request)
    return message is not None and message.get("method") in _CONNECTING


def _with_body(response: httpx2.Response, body: bytes) -> httpx2.Response:
    """`response` (its body read and closed) made again with `body`, its bytes as read (decoded), for
    whoever reads it next: its status, reason and headers but those of the bytes on the wire."""
    import httpx2

    wire = ("content-encoding", "content-length", "transfer-encoding")
    headers = [(name, value) for name, value in response.headers.multi_items() if name.lower() not in wire]
    extensions: dict[str, Any] = {
        key: response.extensions[key]
        for key in ("reason_phrase", "http_version")
        if key in response.extensions
    }
    made = httpx2.Response(
        response.status_code, headers=headers, content=body, request=response.request, extensions=extensions
    )
    made.history = list(response.history)
    return made


def _http_client(
    headers: Mapping[str, str] | None,
    timeout: Any,
    auth: Any,
    answers: HttpAnswers | None,
    *,
    wait: float,
    sizes: ResponseSizes | None = None,
    legacy: tuple[str, _PostFailures, ProtocolProblems] | None = None,
    flood: FloodGate | None = None,
) -> httpx2.AsyncClient:
    """The SDK's HTTP client, each answer read within the message cap (`http_limits`; with `sizes`, its
    size told by request id), waited for at most `wait` seconds between two reads (`_waits_at_most`) and,
    with `answers`, the server's error statuses recorded; with `flood` (the connection's gate), each event
    stream's notifications past the rate are taken out before the SDK parses them. Streamable HTTP: a JSON
    answer's head is checked against its request's id. `legacy` (the legacy SSE transport: its URL, where
    failed POSTs go, and the connection's problems): its endpoint event is checked (a later one is counted
    there) and its message POSTs never raise (`http_limits`)."""
    from explorer.connection.http_limits import (
        ACCEPT_ENCODING,
        cap_answer,
        guard_posts,
        remember_request_id,
        watch_endpoint,
    )
    from explorer.connection.resumptions import Resumptions

    wanted = dict(headers or {})
    if not any(name.lower() == "accept-encoding" for name in wanted):
        wanted["Accept-Encoding"] = ACCEPT_ENCODING  # what `cap_answer` can inflate within the cap
    client = sdk_door.http_client(headers=wanted, timeout=timeout, auth=auth)
    hooks = dict(client.event_hooks)
    recorded = answers.hooks()["response"] if answers is not None else []
    capped = functools.partial(cap_answer, sizes=sizes, heads=legacy is None, flood=flood)
    watched = [watch_endpoint(legacy[0], legacy[2])] if legacy else []  # reads what the cap hands on
    resumptions = Resumptions()  # one budget a connection (`resumptions`)
    # Statuses first: the cap raises. The resumption budget last: its refusal wraps what the cap made.
    hooks["response"] = [*hooks.get("response", []), *recorded, capped, *watched, resumptions.on_response]
    hooks["request"] = [*hooks.get("request", []), _waits_at_most(wait)]
    if sizes is not None:
        hooks["request"].append(remember_request_id)
    client.event_hooks = hooks
    if legacy is not None:
        guard_posts(client, legacy[1].fail)
    else:
        from explorer.connection.http_sessions import keep_sessions

        keep_sessions(client, on_renewed=functools.partial(_tell_renewed, answers))
    if answers is not None:
        _read_words(client, answers, connecting=legacy is None)
    return client


def _read_words(client: httpx2.AsyncClient, answers: HttpAnswers, *, connecting: bool) -> None:
    """Make `client` record what the body of an error answer said (`HttpAnswers.read_words`) as each send
    ends, right after the HTTP client's own (its OAuth flow), before the `send` of the class `http_limits`
    or `http_sessions` swapped in reads the answer: its class is swapped for one with `_WordsRead` under
    that `send`. `connecting`: Streamable HTTP (the legacy SSE transport quotes its POSTs' errors itself)."""
    client.__class__ = _worded(type(client))
    worded = cast(Any, client)
    worded.answers, worded.connecting = answers, connecting


_WORDED: dict[type[Any], type[Any]] = {}  # the class `_worded` made for each


def _worded(kind: type[httpx2.AsyncClient]) -> type[httpx2.AsyncClient]:
    """`kind` with `_WordsRead` next in line after it: its `super().send` is the words' `send`."""
    made = _WORDED.get(kind)
    if made is None:
        made = _WORDED[kind] = type(kind.__name__, (kind, _words_read()), {})
    return cast("type[httpx2.AsyncClient]", made)


@functools.cache
def _words_read() -> type[httpx2.AsyncClient]:
    """`_WordsRead`, made when an HTTP transport is first opened (the HTTP client is imported then)."""
    import httpx2

    class _WordsRead(httpx2.AsyncClient):
        """The HTTP client's `send` (its OAuth flow, redirects, hooks), then the words of the error answers
        it got recorded (`HttpAnswers.read_words`)."""

        answers: HttpAnswers
        connecting: bool

        async def send(
            self,
            request: httpx2.Request,
            *,
            stream: bool = False,
            auth: Any = httpx2.USE_CLIENT_DEFAULT,
            follow_redirects: Any = httpx2.USE_CLIENT_DEFAULT,
        ) -> httpx2.Response:
            try:
                response = await super().send(
                    request, stream=stream, auth=auth, follow_redirects=follow_redirects
                )
            except Exception:
                await self.answers.read_words(None, connecting=self.connecting)  # a login that failed
                raise
            handed = await self.answers.read_words(response, connecting=self.connecting)
            assert handed is not None
            return handed

    return _WordsRead


def _tell_renewed(answers: HttpAnswers | None) -> None:
    """A new session was started: the connection is told (`HttpAnswers.on_renewed`), when it listens."""
    if answers is not None and answers.on_renewed is not None:
        answers.on_renewed()


def _waits_at_most(seconds: float) -> Callable[[httpx2.Request], Awaitable[None]]:
    """Request hook: an answer is waited for at most `seconds` between two reads (`--timeout`), except the
    event stream a GET opens, which keeps the client's long read timeout (a quiet stream may go minutes
    without an event). Why: the SDK's OAuth flow holds one lock from a request's sending to its answer's
    headers, so a request the server never answered held every other one, the session's closing DELETE
    too, for the 300 s of the read timeout: `tree` printed its timeout at 5 s and exited at 300."""
    import httpx2

    limits = httpx2.Timeout(seconds).as_dict()

    async def hook(request: httpx2.Request) -> None:
        if request.method == "GET" and "text/event-stream" in request.headers.get("accept", ""):
            return
        request.extensions = {**request.extensions, "timeout": limits}

    return hook


class _PostFailures:
    """Error answers made here for the legacy SSE requests whose POST failed (`http_limits.guard_posts`),
    handed to the session among the server's messages (`merged`): the request fails at once with why."""

    def __init__(self) -> None:
        self._send: MemoryObjectSendStream[Any] | None = None

    async def fail(self, ident: RequestId, why: str) -> None:
        if self._send is None:
            return
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await self._send.send(error_answer(ident, why))  # else the connection ended meanwhile

    @asynccontextmanager
    async def merged(self, streams: TransportStreams) -> AsyncIterator[TransportStreams]:
        """`streams` with this side's error answers among the messages read; ends when the server's
        messages end (so the connection is seen lost as before)."""
        read, write = streams
        send, receive = anyio.create_memory_object_stream[Any](0)

        async def forward() -> None:
            async with send:
                try:
                    while True:
                        await send.send(await read.receive())
                except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return

        async with anyio.create_task_group() as group:
            self._send = send
            group.start_soon(forward)
            try:
                yield receive, write
            finally:
                self._send = None
                group.cancel_scope.cancel()


@asynccontextmanager
async def _opened_within(opening: AbstractAsyncContextManager[T], seconds: float) -> AsyncIterator[T]:
    """`opening` entered, in a task of its own, within `seconds`, else `TimeoutError`; left when this is.

    Why: the legacy SSE client waits for the server's `endpoint` event with no bound of its own (a server
    that never sent one, or sent one on another origin, was waited for until killed), and for the event
    stream's headers with its 300 s read timeout. A task of its own, because a cancel scope cannot bound
    the entering of a context that outlives it."""
    async with anyio.create_task_group() as group:

        async def hold(*, task_status: anyio.abc.TaskStatus[T] = anyio.TASK_STATUS_IGNORED) -> None:
            async with opening as value:
                task_status.started(value)
                await anyio.sleep_forever()

        try:
            with anyio.fail_after(seconds):
                value: T = await group.start(hold)
        except TimeoutError:
            raise TimeoutError(
                f"the server's event stream gave no endpoint to post to within {seconds:g} s {timed_out()}"
            ) from None
        try:
            yield value
        finally:
            group.cancel_scope.cancel()


@asynccontextmanager
async def open_transport(
    spec: ServerSpec,
    *,
    timeout: float,
    stderr_log: Path | None,
    problems: ProtocolProblems | None = None,
    pump_holder: list[StderrPump] | None = None,
    http_answers: HttpAnswers | None = None,
    auth: httpx2.Auth | None = None,
    sizes: ResponseSizes | None = None,
    started: StartedServer | None = None,
    started_holder: list[StartedServer] | None = None,
) -> AsyncIterator[TransportStreams]:
    """Open the transport a spec describes; the caller builds an `mcp.Client` on the streams.

    `problems` collects what a server sent that was not a usable message (over HTTP: the notifications
    past the rate, `flood`; over stdio, also the lines that are not messages); `pump_holder` receives the
    stderr pump when one masks secrets on the way to the log (so callers can wait for it to settle);
    `http_answers` records the error statuses of an HTTP server; `auth` (an OAuth login) authenticates
    its requests; `sizes` receives each response's size on the wire where the transport can tell (stdio,
    JSON answers over Streamable HTTP); `started` is the stdio server's process when it was started
    already (`stdio.start_server`); `started_holder` receives the stdio server's process (how it ended is
    told in faults).
    """
    if spec.transport == "stdio":
        from explorer.connection.stdio import stdio_transport

        async with stdio_transport(
            spec,
            stderr_log=stderr_log,
            problems=problems if problems is not None else ProtocolProblems(),
            pump_holder=pump_holder,
            sizes=sizes,
            started=started,
            started_holder=started_holder,
        ) as streams:
            yield streams
    elif spec.transport == "sse":
        from mcp.client.sse import sse_client

        from explorer.connection.flood import FloodGate

        assert spec.url is not None
        sdk_door.raise_sse_event_limit(MAX_MESSAGE_BYTES)  # one event is one message, a whole page

        login_auth = auth
        wait = timeout
        failures = _PostFailures()
        counted = problems if problems is not None else ProtocolProblems()
        legacy = (spec.url, failures, counted)
        gate = FloodGate(counted)

        def factory(
            headers: dict[str, str] | None = None, timeout: Any = None, auth: Any = None
        ) -> httpx2.AsyncClient:
            return _http_client(
                headers, timeout, login_auth or auth, http_answers, wait=wait, legacy=legacy, flood=gate
            )

        opening = sse_client(
            spec.url, headers=dict(spec.headers), timeout=timeout, httpx_client_factory=factory
        )
        async with _opened_within(opening, timeout) as streams, failures.merged(streams) as merged:
            yield _gated(StrayAnswers(counted).watched(merged), gate)
    else:
        from mcp.client.streamable_http import streamable_http_client

        from explorer.connection.flood import FloodGate

        assert spec.url is not None
        import httpx2

        counted = problems if problems is not None else ProtocolProblems()
        gate = FloodGate(counted)
        read_timeout = httpx2.Timeout(timeout, read=max(timeout, 300.0))
        http = _http_client(
            spec.headers, read_timeout, auth, http_answers, wait=timeout, sizes=sizes, flood=gate
        )
        # A streamed answer is one event: the SDK's 1 MiB default failed a page of 10,000 resources.
        streaming = streamable_http_client(spec.url, http_client=http, max_sse_event_size=MAX_MESSAGE_BYTES)
        async with http, streaming as streams:
            yield _gated(StrayAnswers(counted).watched(streams), gate)


def _gated(streams: TransportStreams, gate: FloodGate) -> TransportStreams:
    """`streams` with the notifications past the connection's rate dropped and counted (`flood`), as the
    stdio reader drops them. Most never come here: the SDK reads an HTTP server's event streams itself,
    parsing each event (a flood of log entries ahead of an answer made its request time out), so the same
    gate takes them out of the bytes first (`http_limits`); this one sees the events too big to look at."""
    read, write = streams
    return gate.watched(read), write


def tail(path: Path | None, max_bytes: int = 4096, *, start: int = 0) -> str:
    """The end of a stderr log from byte `start` on, for error dialogs and messages (decoding never fails)."""
    if path is None or not path.exists():
        return ""
    with path.open("rb") as handle:
        handle.seek(0, 2)
        size = handle.tell()
        handle.seek(max(start, size - max_bytes) if size >= start else 0)
        return handle.read().decode("utf-8", errors="replace")
