"""A Streamable HTTP session the server ended is started again once; when that fails, the connection ends
with a sentence that says so. A session id too long to send back is refused at once.

Why: a server that ended a session answers 404 to every request carrying its id, and the spec has the
client start a new session. The SDK made each such 404 an error of its own ("Session terminated", -32600)
and kept the old id: every later request failed so, `tree` said "the server answered error -32600:
Session terminated" (the server had sent no error), and the TUI kept the server shown connected. Here the
first 404 to a request that carried the session id starts a new session (the `initialize` the SDK sent,
again without an id, then `notifications/initialized`) and sends the request again in it; the SDK's later
requests are given the new id. When the new session gets 404 too, or cannot be started, the request's task
raises `SessionGone`: the SDK's transport ends with it, and the connection's fault is that sentence (the
CLI prints it, the TUI shows the server failed). A 404 whose body is a JSON-RPC error naming the request
(a method the server does not know, as some servers say it) is that request's answer, not the session's
end, and is handed on as it came.

A server restarted on the same port forgot its sessions; many answer a request carrying an id they do not
know with HTTP 400, not 404: the reference server (server-everything) and the TypeScript SDK's examples
send a JSON-RPC error without an id, "Bad Request: No valid session ID provided" (or "Server not
initialized"). The SDK could not read that body and made its own -32603 "Server returned an error
response": the TUI said "internal error", never the server's words, every later request failed alike and
the server stayed shown connected. An HTTP 400 (exactly) to a request that carried the session id, whose
body is text or a JSON-RPC error naming no request (id null or absent) with code -32000, -32001 or none,
and says the session is unknown, invalid, expired or the server not initialized (`_SESSION_LOST`), is
taken as a 404: a new session, the request sent again, else `SessionGone`. Any other error (a 500 "search
index not initialized yet", a -32002 "resource not found: invalid session id in URI", an error naming the
request) is that request's answer, whatever it says. Once a request succeeded in the new session, a later
end of it (a second restart) starts a new session again; a request that finds its new session ended too
ends the connection.

Any other error status (not 401/403, whose advice the connection gives) to a request after connecting is
handed on with the server's words (`_handed_on`): a JSON-RPC error in its body as the request's answer
(given the request's id when it had none, as the SDK does for an id null), else its text (`text/plain`
or JSON) quoted in a sentence with the status and what the `Retry-After` asks; a body with no words (HTML,
empty) goes to the SDK as it came ("the server answered with an HTTP error (HTTP 500 ...)"). So is an
error to `initialize` or `server/discover` before there is a session (a 5xx, a 429): connecting fails with
the server's words. A 4xx to them (`_refusal`) is the connection's to read (the legacy SSE fallback, the
era advice, which asks for the SDK's own error) and is handed on as it came.

A server that gave no session id has none to end: a 404 to a later request (not `initialize` nor
`server/discover`, which the connection reads to try the legacy SSE transport) means its endpoint is gone
or the URL is wrong. The SDK made it "-32601: Not Found", as if the method did not exist (and a listing of
templates read it as "no templates"); here the request fails with a sentence that says the server answered
HTTP 404 (`_failed`). A request answered HTTP 431 fails saying its headers were too large for the server,
naming the user's own headers (-H, a config's) by name and size, never by value: the SDK said only "an
HTTP error". A JSON-RPC error in a 404's body naming the request is still that request's answer.

The SDK sends the session id back in a header of every request; one of 90 KB was answered HTTP 431 or
the server hung up, which read as "the server closed the connection". An id over `MOST_SESSION_ID` is
refused where the `initialize` answer that set it is read, and never sent.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import anyio
import httpx2
import orjson

from explorer.connection.answer_checks import ANSWERING
from explorer.connection.errors import (
    ANSWERED_PREFIX,
    REFUSED_PREFIX,
    ServerSentence,
    describe_exception,
    headers_too_large,
    retry_hint,
)
from explorer.connection.http_limits import (
    MOST_ERROR_BODY,
    AnswerRefused,
    EventsRefused,
    given_headers,
    read_error_body,
    refuse_body,
    request_id,
    sent_message,
)

__all__ = ["MOST_SESSION_ID", "SessionGone", "keep_sessions"]

MOST_SESSION_ID = 8 * 1024
"""The longest `Mcp-Session-Id` taken (bytes). The spec's ids are short tokens (a UUID, a JWT of a few
hundred bytes); common HTTP servers refuse a request whose headers pass 8 to 16 KiB."""

SESSION_HEADER = "mcp-session-id"
_CONNECTING = ("initialize", "server/discover")  # a refusal of these is the connection's to read (`_refusal`)
_AUTH_STATUSES = (401, 403)  # credentials refused: the connection's advice (`session.auth_advice`) says it
_SESSION_LOST = re.compile(
    r"\b(?:no valid|invalid|unknown|expired)\b[^.;:!?]{0,24}\bsession\b"
    r"|\bsession\b(?:[ -]?ids?\b)?[^.;:!?]{0,24}?\b(?:not found|expired|terminated)\b"
    r"|\b(?:server|session)\b(?: is)? not (?:yet )?initiali[sz]ed\b",
    re.IGNORECASE,
)
"""What a server's error says when it no longer knows the session id sent ("Bad Request: No valid session
ID provided", "Session not found", "Bad Request: Server not initialized")."""
_SESSION_CODES = (-32000, -32001)  # the codes servers give the error of an unknown session (or none)


class SessionGone(ServerSentence):
    """The server ended its session and a new one could not be had: the connection ends with this."""


def keep_sessions(client: httpx2.AsyncClient, on_renewed: Callable[[], None] | None = None) -> None:
    """Make `client` (the SDK's Streamable HTTP client) start a session the server ended again, once, and
    refuse a session id over `MOST_SESSION_ID` (see the module docstring). Its class is swapped for one
    with this `send`, as `http_limits.guard_posts` does: the client stays the one the transport uses."""
    client.__class__ = _SessionKeeping
    cast(_SessionKeeping, client).sessions = _Session(given_headers(client), on_renewed)


class _Session:
    """What a new session needs (the bodies of the SDK's `initialize` and `notifications/initialized`),
    and what became of the first one."""

    def __init__(
        self, given: frozenset[str] = frozenset(), on_renewed: Callable[[], None] | None = None
    ) -> None:
        self.given = given  # the names of the user's own headers (-H, config), for what a 431 says
        self.on_renewed = on_renewed  # told of each new session (the connection's follows are gone)
        self.initialize: bytes | None = None
        self.initialized: bytes | None = None
        self.renewed_to: str | None = None  # the new session's id (None: not renewed)
        self.proven = False  # a request succeeded in `renewed_to`: when it ends too, it is renewed again
        self.stale: set[str] = set()  # ids the SDK still sends, replaced by `renewed_to`
        self.gone: str | None = None  # why no session can be had any more
        self.lock = anyio.Lock()

    def note(self, request: httpx2.Request) -> str | None:
        """The JSON-RPC method `request` sent (None: not a message); keeps the two bodies a new session
        sends again."""
        message = sent_message(request)
        method = message.get("method") if message is not None else None
        if method == "initialize" and self.initialize is None:
            self.initialize = request.content
        elif method == "notifications/initialized" and self.initialized is None:
            self.initialized = request.content
        return method if isinstance(method, str) else None

    def rewrite(self, request: httpx2.Request) -> None:
        """The new session's id in place of the old one the SDK still sends."""
        sent = request.headers.get(SESSION_HEADER)
        if self.renewed_to is not None and sent in self.stale:
            request.headers[SESSION_HEADER] = self.renewed_to


class _SessionKeeping(httpx2.AsyncClient):
    """The SDK's client, keeping the session (`keep_sessions`)."""

    sessions: _Session

    async def send(
        self,
        request: httpx2.Request,
        *,
        stream: bool = False,
        auth: Any = httpx2.USE_CLIENT_DEFAULT,
        follow_redirects: Any = httpx2.USE_CLIENT_DEFAULT,
    ) -> httpx2.Response:
        session = self.sessions
        session.rewrite(request)
        method = session.note(request)
        response = await super().send(request, stream=stream, auth=auth, follow_redirects=follow_redirects)
        if method == "initialize":
            _bound_session_id(response)
        sent = request.headers.get(SESSION_HEADER)
        status = response.status_code
        if 200 <= status < 300 and sent is not None and sent == session.renewed_to:
            session.proven = True  # the new session works: a later restart is renewed again
        if request_id(request) is None or status < 400 or status in _AUTH_STATUSES:
            return response  # a notification's status is ignored (the SDK's own for another request's)
        if status == 431:
            too_large = headers_too_large(request.headers.raw, session.given)
            return await _failed(response, f"{_status(response)} to {method or 'the request'}: {too_large}")
        if sent is None and method in _CONNECTING and _refusal(status):
            return response  # a refusal of connecting: the connection reads it (era advice, legacy SSE)
        ended: _Said | None = None  # what a 400 said of the session it ended (None: a 404)
        if status != 404:
            said = await _error_said(response)
            if said is None or sent is None or not said.session_lost:
                return await _handed_on(response, request, method, said)
            ended = said
        elif await _own_error(response, request):
            return _unread_again(response, request)
        elif sent is None:  # no session to start again: the endpoint is gone, or was never there
            return await _failed(response, _no_endpoint(request, response, method))
        await response.aclose()
        async with session.lock:
            if session.gone is not None:
                raise SessionGone(session.gone)
            renewed = session.renewed_to
            if renewed is None or (sent == renewed and session.proven):  # not renewed, or restarted again
                asked = ANSWERING.get()
                try:
                    renewed = await self._renew(request, sent, ended)
                finally:  # the answer this task reads is still the request's, not the new initialize's
                    ANSWERING.set(asked)
            elif sent == renewed:  # the new session ended too
                session.gone = _gone_again(request, ended)
                raise SessionGone(session.gone)
            retried = _again(self, request, renewed)
        answer = await super().send(retried, stream=stream, auth=auth, follow_redirects=follow_redirects)
        if 200 <= answer.status_code < 300 and renewed == session.renewed_to:
            session.proven = True
        if answer.status_code < 400 or answer.status_code in _AUTH_STATUSES:
            return answer
        if answer.status_code != 404:
            again = await _error_said(answer)
            if again is None or not again.session_lost:
                return await _handed_on(answer, retried, method, again)
            session.gone = _gone_again(request, again)
            raise SessionGone(session.gone)
        if await _own_error(answer, retried):
            return _unread_again(answer, retried)
        session.gone = _everything_404(request)
        raise SessionGone(session.gone)

    async def _renew(self, request: httpx2.Request, old: str, ended: _Said | None) -> str:
        """Start a new session (`initialize` again, then `notifications/initialized`) and return its id,
        or raise `SessionGone` with why it could not be (`ended`: what a 400 said of the session it ended;
        None: a 404)."""
        session = self.sessions
        if session.initialize is None:  # no initialize went out on this client: nothing to send again
            why = "no initialize was sent on this connection to send again"
            session.gone = _not_renewed(request, why, ended)
            raise SessionGone(session.gone)
        headers = {name: value for name, value in request.headers.items() if name.lower() != SESSION_HEADER}
        headers.pop("content-length", None)
        opening = self.build_request("POST", request.url, content=session.initialize, headers=headers)
        try:
            answer = await super().send(opening, stream=True)
            await _drained(answer)  # the answer to an initialize the SDK no longer waits for
        except httpx2.HTTPError as exc:
            why = describe_exception(exc, action="sending initialize again failed").message
            session.gone = _not_renewed(request, why, ended)
            raise SessionGone(session.gone) from None
        new = answer.headers.get(SESSION_HEADER) or ""
        if answer.status_code == 404 and ended is None:
            session.gone = _everything_404(request)
        elif not 200 <= answer.status_code < 300:
            reason = f" {answer.reason_phrase}" if answer.reason_phrase else ""
            why = f"initialize was answered HTTP {answer.status_code}{reason}"
            session.gone = _not_renewed(request, why, ended)
        elif not new:
            session.gone = _not_renewed(request, "the answer to initialize gave no session id", ended)
        elif len(new) > MOST_SESSION_ID:
            session.gone = _not_renewed(request, _long_id(len(new)), ended)
        if session.gone is not None:
            raise SessionGone(session.gone)
        session.stale.add(old)
        session.renewed_to = new
        session.proven = False
        if session.initialized is not None:
            told = _again(self, request, new, content=session.initialized)
            with contextlib.suppress(httpx2.HTTPError):  # the request sent again says if the session works
                await _drained(await super().send(told, stream=True))
        if session.on_renewed is not None:
            session.on_renewed()
        return new


async def _failed(response: httpx2.Response, why: str) -> httpx2.Response:
    """An error status the SDK would word as a JSON-RPC error of its own (a 404 as "-32601: Not Found",
    the method unknown; a 431 as "Server returned an error response"), as an answer whose reading fails
    with `why`: the SDK then fails the request with it, which `errors.describe_exception` shows alone.
    Handed on as a 200: for an error status the SDK never reads a body's error (it made its own)."""
    await _drained(response)
    kind = {"content-type": "application/json"}
    made = httpx2.Response(200, headers=kind, stream=httpx2.ByteStream(b""), request=response.request)
    refuse_body(made, AnswerRefused(why))  # not read at once, as a body given as content is
    return made


def _refusal(status: int) -> bool:
    """Whether an error status to connecting is one the connection reads (`session._recover`): a 4xx but a
    429 (a 401, 403 or 431 never comes here) tries the legacy SSE transport or learns the era, and needs
    the SDK's own error as it came. Any other (a 5xx, a 429) fails connecting with the server's words."""
    return 400 <= status < 500 and status != 429


def _status(response: httpx2.Response) -> str:
    reason = f" {response.reason_phrase}" if response.reason_phrase else ""
    return f"{ANSWERED_PREFIX}{response.status_code}{reason}"


def _no_endpoint(request: httpx2.Request, response: httpx2.Response, method: str | None) -> str:
    return (
        f"{_status(response)} to {method or 'the request'}: there is no MCP endpoint at {_shown(request)} "
        "(any more), or the URL is wrong; check the URL, then reconnect"
    )


async def _drained(response: httpx2.Response) -> None:
    """Read a few KiB of an answer nobody waits for, so its connection serves the next request, and
    close it (an event stream is closed unread: it may stay open)."""
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    try:
        if kind != "text/event-stream":
            read = 0
            async for piece in response.aiter_raw():
                read += len(piece)
                if read > MOST_ERROR_BODY:
                    break
    except (httpx2.HTTPError, httpx2.StreamError):
        pass
    finally:
        await response.aclose()


def _again(
    client: httpx2.AsyncClient, request: httpx2.Request, session_id: str, *, content: bytes | None = None
) -> httpx2.Request:
    """`request` (or another body to its URL) again, in the session `session_id`."""
    headers = {name: value for name, value in request.headers.items() if name.lower() != SESSION_HEADER}
    headers.pop("content-length", None)
    headers[SESSION_HEADER] = session_id
    body = request.content if content is None else content
    again = client.build_request("POST", request.url, content=body, headers=headers)
    if content is None:
        again.extensions = {**request.extensions}  # its id, for the answer's checks (`http_limits`)
    return again


async def _own_error(response: httpx2.Response, request: httpx2.Request) -> bool:
    """Whether a 404 is the request's own answer: a JSON-RPC error naming it, read within a few KiB
    (kept for the SDK, `_unread_again`)."""
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        return False
    body = bytearray()
    try:
        async for piece in response.aiter_bytes():
            body += piece
            if len(body) > MOST_ERROR_BODY:
                return False
    except (httpx2.HTTPError, httpx2.StreamError):
        return False
    finally:
        await response.aclose()
    response.extensions = {**response.extensions, _READ_BODY: bytes(body)}
    try:
        answer = orjson.loads(body)
    except orjson.JSONDecodeError:
        return False
    ident = request_id(request)
    return (
        isinstance(answer, dict)
        and isinstance(answer.get("error"), dict)
        and answer.get("id") is not None
        and str(answer.get("id")) == str(ident)
    )


_READ_BODY = "explorer.read_body"  # a 404's body `_own_error` read, for the SDK to read again


@dataclass(frozen=True)
class _Said:
    """What an error status's body said: `words` (one line, cut; "" when none), and `error`, the JSON-RPC
    error object it is (None: another JSON, or text)."""

    status: str  # "HTTP 400 Bad Request"
    body: bytes
    words: str
    error: dict[str, Any] | None
    code: int = 0  # the HTTP status
    plain: bool = False  # the body is text/plain
    named: bool = False  # the JSON-RPC error gives an id: it answers a request, not the session

    @property
    def session_lost(self) -> bool:
        """Whether it is what servers answer a session id they do not know: HTTP 400 exactly, with text or a
        JSON-RPC error naming no request whose code is -32000, -32001 or none, saying so (`_SESSION_LOST`).
        Any other error (a 500, a -32002 "resource not found", an error naming the request) is the
        request's own, whatever its words."""
        if self.code != 400:
            return False
        if self.error is None:
            shaped = self.plain
        else:
            shaped = not self.named and self.error.get("code") in (None, *_SESSION_CODES)
        return shaped and _SESSION_LOST.search(self.words) is not None


async def _error_said(response: httpx2.Response) -> _Said | None:
    """What an error status's body says (`http_limits.read_error_body`); None when it is not read (a type
    that holds no words: HTML, an event stream), and it is handed on unread."""
    read = await read_error_body(response)
    if read is None:
        return None
    status = f"HTTP {response.status_code}{' ' + response.reason_phrase if response.reason_phrase else ''}"
    return _Said(status, read.body, read.words, read.error, response.status_code, read.plain, read.named)


async def _handed_on(
    response: httpx2.Response, request: httpx2.Request, method: str | None, said: _Said | None
) -> httpx2.Response:
    """An error status to `request` that is not the session's end, so the SDK fails the request with the
    server's words: a JSON-RPC error as the request's answer (with the request's id when it gave none: the
    SDK could not read it and said only "Server returned an error response"), else a sentence that quotes
    the body's text. A body not read (`said` None) or without words goes to the SDK as it came."""
    if said is None:
        return response
    error = said.error
    if error is not None and isinstance(error.get("code"), int) and type(error.get("code")) is not bool:
        answer = {"jsonrpc": "2.0", "id": request_id(request), "error": error}
        return httpx2.Response(
            response.status_code,
            headers={"content-type": "application/json"},
            content=orjson.dumps(answer),
            request=request,
        )
    if not said.words:
        kind = {"content-type": response.headers.get("content-type", "application/json")}
        return httpx2.Response(response.status_code, headers=kind, content=said.body, request=request)
    hint = retry_hint(response.headers.get("retry-after"))
    return await _failed(response, f"{_status(response)} to {method or 'the request'}: {said.words!r}{hint}")


def _unread_again(response: httpx2.Response, request: httpx2.Request) -> httpx2.Response:
    """A 404 whose body `_own_error` read, as the SDK would have got it."""
    body = response.extensions.get(_READ_BODY, b"")
    headers = {"content-type": response.headers.get("content-type", "application/json")}
    return httpx2.Response(response.status_code, headers=headers, content=body, request=request)


def _bound_session_id(response: httpx2.Response) -> None:
    """Refuse the answer to `initialize` when its session id is too long to send back (the SDK then
    never takes it: the header is dropped)."""
    given = response.headers.get(SESSION_HEADER)
    if given is None or len(given) <= MOST_SESSION_ID:
        return
    del response.headers[SESSION_HEADER]
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    refused = EventsRefused if kind == "text/event-stream" else AnswerRefused
    refuse_body(response, refused(f"{REFUSED_PREFIX}to initialize {_long_id(len(given))}"))


def _long_id(size: int) -> str:
    return (
        f"gives a session id (Mcp-Session-Id) of {size:,} bytes, over the {MOST_SESSION_ID // 1024} KiB "
        "the explorer sends back in a header: refused (HTTP servers refuse headers that long)"
    )


def _shown(request: httpx2.Request) -> str:
    """The URL a request went to, as a message names it: without user name, query and fragment."""
    return str(request.url.copy_with(userinfo=b"", query=None, fragment=None))[:200]


def _everything_404(request: httpx2.Request) -> str:
    return (
        f"the server answered 404 (Not Found) to every request at {_shown(request)}: it ended the session, "
        "and a new session got 404 too; check the URL, then reconnect"
    )


def _not_renewed(request: httpx2.Request, why: str, ended: _Said | None = None) -> str:
    answered = "404 Not Found" if ended is None else f"{ended.status}: {ended.words!r}"
    return (
        f"the server ended its session ({answered} at {_shown(request)}), and a new one could not be "
        f"started: {why}; reconnect"
    )


def _gone_again(request: httpx2.Request, ended: _Said | None) -> str:
    """Why no session can be had when the new one ended too (`ended`: what a 400 said; None: a 404)."""
    if ended is None:
        return _everything_404(request)
    return (
        f"the server answered {ended.status} at {_shown(request)}, saying {ended.words!r}, in its session "
        "and in a new one the explorer started: it keeps no session; check the server, then reconnect"
    )
