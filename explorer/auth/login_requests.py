"""The requests a login makes (discovery, registration, token): what they are called, what their answers
may be, and why one failed, in words.

Why a module of its own: the HTTP client sends a login's requests and, when one fails to go out or to be
answered (a refused connection, a timeout, a redirect loop), raises in its own code and only closes the
SDK's flow, which so never sees why. The login watches each of its requests through the HTTP stack's
`trace` extension (`SendWatch`) and says, when the flow is closed under a request, which request it was,
to which URL and why. Answers are read within `ANSWER_CAP` (a metadata document of 200 MB took 1.3 GB);
a token answer the SDK could not parse is said in one sentence (`token_answer_problem`).
"""

from __future__ import annotations

import errno
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import httpx2

from explorer.config.spec import add_runtime_secrets
from explorer.sanitize import sanitize_line

ANSWER_CAP = 1024 * 1024  # a metadata document, a registration or a token answer is a few kB
HTTP_CLIENT_REDIRECTS = 20  # httpx counts every answer of a login's requests as a redirect of one request
_EXCERPT = 40  # characters of a token answer that is not JSON shown in the message

# Form fields of a login's requests and answers that are credentials: masked from the moment they are
# sent or received (an authorization server that echoes one in an error gets it masked).
SECRET_FIELDS = frozenset(
    {
        "code",
        "code_verifier",
        "refresh_token",
        "access_token",
        "id_token",
        "client_secret",
        "client_assertion",
        "assertion",
        "subject_token",
        "actor_token",
    }
)

Trace = Callable[[str, dict[str, Any]], Awaitable[None]]


class LoginRequestFailed(Exception):
    """A request of the login failed or was answered unusably; the message is one sentence."""


def shown_url(url: httpx2.URL | str) -> str:
    """`url` as a message names it: without credentials, query or fragment."""
    parts = urlsplit(str(url))
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def request_name(request: httpx2.Request) -> str:
    """`the token request to URL`, `the request for the protected resource metadata at URL`, ..."""
    url = shown_url(request.url)
    path = request.url.path
    if "/.well-known/oauth-protected-resource" in path:
        return f"the request for the protected resource metadata at {url}"
    if "/.well-known/oauth-authorization-server" in path or "/.well-known/openid-configuration" in path:
        return f"the request for the authorization server metadata at {url}"
    if request.method == "POST" and _form(request).get("grant_type"):
        return f"the token request to {url}"
    if request.method == "POST":
        return f"the registration request to {url}"
    return f"the login's request to {url}"


def _form(request: httpx2.Request) -> dict[str, str]:
    """The request's form fields (empty when it has no form body)."""
    if "application/x-www-form-urlencoded" not in request.headers.get("content-type", ""):
        return {}
    try:
        return dict(parse_qsl(request.content.decode("utf-8", "replace")))
    except httpx2.RequestNotRead:
        return {}


def learn_request_secrets(request: httpx2.Request) -> None:
    """Mask the credentials a request of the login carries (the code, the PKCE verifier, a refresh
    token, a client assertion) before it goes out: an error that echoes them shows `***`."""
    form = _form(request)
    add_runtime_secrets(value for name, value in form.items() if name in SECRET_FIELDS)


class SendWatch:
    """What the HTTP stack's trace tells of one request of the login (and the redirects it followed):
    the error it failed with, and the status of the last answer."""

    def __init__(self, chained: Trace | None = None) -> None:
        self._chained = chained
        self.failure: BaseException | None = None
        self.status: int | None = None
        self.answers = 0

    async def __call__(self, name: str, info: dict[str, Any]) -> None:
        if name.endswith(".failed") and self.failure is None:
            failure = info.get("exception")
            self.failure = failure if isinstance(failure, BaseException) else None
        elif name.endswith("receive_response_headers.complete"):
            got = info.get("return_value")
            if isinstance(got, tuple) and len(got) >= 2 and isinstance(got[1], int):
                self.status = got[1]
                self.answers += 1
        if self._chained is not None:
            await self._chained(name, info)

    @classmethod
    def on(cls, request: httpx2.Request) -> SendWatch:
        """A watch put on `request` (a trace it had already is still called)."""
        chained = request.extensions.get("trace")
        watch = cls(chained if callable(chained) else None)
        request.extensions = {**request.extensions, "trace": watch}
        return watch

    def sentence(self, request: httpx2.Request, redirected: list[str], answered: int) -> str:
        """`the token request to URL failed (connection refused)`: the flow was closed under `request`.
        `answered`: how many answers the login's requests had before it; `redirected`: the URLs of
        those answered with a redirect (the HTTP client counts all of them as one request's redirects)."""
        failure = self.failure
        if failure is not None:
            return f"{request_name(request)} failed ({send_error_reason(failure, request)})"
        if self.answers == 0 and answered >= HTTP_CLIENT_REDIRECTS and redirected:
            return (
                f"{request_name(request)} was not sent: the login's requests were redirected "
                f"{len(redirected)} times (first by {redirected[0]}), and the HTTP client stops a login "
                f"after {HTTP_CLIENT_REDIRECTS} answers"
            )
        if self.status is not None and 300 <= self.status < 400:
            return f"{request_name(request)} failed (it was redirected {self.answers} times, and again)"
        return f"{request_name(request)} failed (it was stopped before an answer came)"


def send_error_reason(exc: BaseException, request: httpx2.Request) -> str:
    """Why sending `request` failed, in a few words: `connection refused`, `no answer within 5 s`."""
    kind = type(exc).__name__
    timeouts = request.extensions.get("timeout")
    waits = timeouts if isinstance(timeouts, dict) else {}

    def within(which: str) -> str:
        seconds = waits.get(which)
        return f" within {seconds:g} s" if isinstance(seconds, int | float) else " in time"

    if kind == "ConnectTimeout":
        return f"no connection{within('connect')}"
    if kind == "ReadTimeout":
        return f"no answer came{within('read')}"
    if kind == "WriteTimeout":
        return f"the request could not be sent{within('write')}"
    if kind == "PoolTimeout":
        return "no connection was free in time"
    number = _errno_of(exc)
    if number == errno.ECONNREFUSED:
        return "connection refused"
    if number in (errno.ECONNRESET, errno.EPIPE):
        return "the connection was reset"
    if number in (errno.EHOSTUNREACH, errno.ENETUNREACH):
        return "the host cannot be reached"
    text = str(exc).strip()
    if kind == "ConnectError" and ("name" in text.lower() or "address" in text.lower()):
        return f"cannot connect: {sanitize_line(text, 120)}"
    if kind == "RemoteProtocolError":
        return "the server broke the HTTP protocol or closed the connection"
    if kind in ("ReadError", "WriteError"):
        return f"the connection broke{': ' + sanitize_line(text, 120) if text else ''}"
    return f"{kind}{': ' + sanitize_line(text, 120) if text else ''}"


def _errno_of(exc: BaseException) -> int | None:
    """The errno of the OSError behind `exc` (its causes and contexts), if any."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno is not None:
            return current.errno
        if "Connection refused" in str(current) or "Connect call failed" in str(current):
            return errno.ECONNREFUSED
        current = current.__cause__ or current.__context__
    return None


class _CappedBody(httpx2.AsyncByteStream):
    """An answer's body, read no further than `limit` bytes."""

    def __init__(self, inner: httpx2.AsyncByteStream, limit: int, what: str, said: int | None) -> None:
        self._inner = inner
        self._limit = limit
        self._what = what
        self._said = said

    def _refusal(self) -> LoginRequestFailed:
        return LoginRequestFailed(
            f"the answer to {self._what} is larger than {self._limit // 1024:,} KiB (a login's documents "
            "are a few kB); stopped reading it"
        )

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self._said is not None and self._said > self._limit:
            raise self._refusal()
        total = 0
        async for chunk in self._inner:
            total += len(chunk)
            if total > self._limit:
                raise self._refusal()
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


def cap_answer(response: httpx2.Response, limit: int = ANSWER_CAP) -> None:
    """Read `response` (to a request of the login) within `limit` bytes; a redirect's body is left alone
    (the HTTP client drains it where the login cannot catch what it raises)."""
    inner = response.stream
    if 300 <= response.status_code < 400 or not isinstance(inner, httpx2.AsyncByteStream):
        return
    length = response.headers.get("content-length", "")
    said = int(length) if length.isdigit() and not response.headers.get("content-encoding") else None
    response.stream = _CappedBody(inner, limit, request_name(response.request), said)


def learn_answer_secrets(body: bytes) -> None:
    """Mask the tokens of a token answer, JSON or (wrongly) a form: before any message quotes it."""
    text = body.decode("utf-8", "replace")
    try:
        data = json.loads(text)
    except ValueError:
        data = dict(parse_qsl(text))
    if isinstance(data, dict):
        add_runtime_secrets(
            value for name, value in data.items() if name in SECRET_FIELDS and isinstance(value, str)
        )


def token_answer_problem(response: httpx2.Response) -> str:
    """Why the SDK could not take a successful token answer, in one sentence: not JSON (with how it
    begins), or JSON without what a token answer must hold."""
    try:
        body = response.content
    except httpx2.ResponseNotRead:
        return "the token endpoint's answer is not a token response"
    learn_answer_secrets(body)  # a token in it is masked where the excerpt is shown
    text = body.decode("utf-8", "replace")
    kind = response.headers.get("content-type", "").split(";")[0].strip() or "no content type"
    try:
        data = json.loads(text)
    except ValueError:
        pass
    else:
        return f"the token endpoint's answer is not a token response ({_token_error(data)})"
    start = sanitize_line(text[:_EXCERPT], None)
    more = "…" if len(text) > _EXCERPT else ""
    if not text.strip():
        return f"the token endpoint answered {sanitize_line(kind, 60)} with an empty body, not JSON"
    return f"the token endpoint answered {sanitize_line(kind, 60)}, not JSON (it begins '{start}{more}')"


def _token_error(data: object) -> str:
    from mcp.shared.auth import OAuthToken
    from pydantic import ValidationError

    if not isinstance(data, dict):
        return f"a JSON {type(data).__name__}, not an object"
    try:
        OAuthToken.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ())) or "the answer"
        return f"{sanitize_line(where, 60)}: {sanitize_line(str(first.get('msg', '')), 120).lower()}"
    return "it was refused"
