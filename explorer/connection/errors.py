"""Turn whatever a failing server or transport raised into one clear sentence.

Users meet these messages in the CLI (one line on stderr) and in the TUI's error dialog, so every
branch names what the server did wrong, never a Python traceback. Server text inside a message is
kept raw here; callers sanitize before printing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from explorer.connection.sizes import limit_text
from explorer.model.sizes import human_size

if TYPE_CHECKING:
    from mcp import MCPError

# JSON-RPC / MCP codes people meet when exploring servers.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
LEGACY_NOT_FOUND = -32002
REQUEST_TIMEOUT = -32001
CONNECTION_CLOSED = -32000


class UnreadableAnswer(dict[str, Any]):
    """What the stdio reader puts in the JSON-RPC error it answers a request with, when the server's answer
    to that request could not be read (`stdio_lines`), or the legacy SSE transport when the POST that sent
    the request failed (`http_limits.guard_posts`): the request then fails at once with `why`, instead
    of waiting for its timeout. Only this process makes one: a server's error data is never one (it is
    told apart by its type). A dict, so the protocol log writes it as the rest of a frame."""

    def __init__(self, why: str, *, bound: str | None = None, size: int = 0) -> None:
        # `bound`: a listing bound the answer went past (it was refused unread), if that is why; `size`:
        # its bytes then.
        super().__init__(why=why, bound=bound, size=size)

    @property
    def why(self) -> str:
        return str(self["why"])

    @property
    def bound(self) -> str | None:
        bound = self["bound"]
        return bound if isinstance(bound, str) else None

    @property
    def size(self) -> int:
        return int(self["size"])

    @classmethod
    def past_max_bytes(cls, ident: int | str, size: int, most: int, *, whole: bool) -> UnreadableAnswer:
        """An answer bigger than a listing reads in all (`most`, its --max-bytes): `size` is its whole size
        when `whole` (known before reading), else what came before the refusal."""
        said, read = (
            (human_size(size), "not read") if whole else (f"over {human_size(most)}", "read no further")
        )
        return cls(
            f"the server's answer to request {shown_id(ident)} is {said}, more than a listing reads in all "
            f"({human_size(most)}, --max-bytes): it was {read}",
            bound="max_bytes",
            size=size,
        )


class UnreadableMessage(Exception):
    """A message a server sent that is JSON but not one the SDK reads (a request whose params are not an
    object, a log entry whose params are a string): the stdio reader hands it on in its place, as the HTTP
    transports hand on the SDK's validation error, so the connection can answer a request (a server waits
    for that) and say what was wrong (`connection.server_messages`). `data` is the message as parsed."""

    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__("a message that is not JSON-RPC")
        self.data = data


def sent_message(exc: BaseException) -> Any:
    """What the server sent, as far as a transport's error for it holds it: the parsed message of an
    `UnreadableMessage`; for the SDK's validation error of a message (the HTTP transports), the object or
    value it validated, or the text when that was not JSON. None when the error holds nothing of it."""
    if isinstance(exc, UnreadableMessage):
        return exc.data
    errors = getattr(exc, "errors", None)
    if type(exc).__name__ != "ValidationError" or not callable(errors):
        return None
    try:
        found = errors()
    except Exception:
        return None
    for error in found if isinstance(found, list) else []:
        where = error.get("loc", ()) if isinstance(error, dict) else ()
        if not where and error.get("type") == "json_invalid":  # not JSON: the text itself
            text = error.get("input")
            return text.decode("utf-8", errors="replace") if isinstance(text, bytes) else text
        if len(where) == 1 or (len(where) == 2 and error.get("type") == "missing"):
            return error.get("input")  # the message whole: one member of the union, or a missing field's
    return None


def quoted(sent: Any) -> str:
    """A message a server sent, as a problem quotes it: its text, or its JSON (cut to 200 characters)."""
    import json

    if isinstance(sent, str):
        return sent[:200]
    try:
        return json.dumps(sent, ensure_ascii=False, default=str)[:200]
    except (TypeError, ValueError, RecursionError):
        return type(sent).__name__


def shown_id(ident: int | str) -> str:
    """A request id as a fault shows it: a server's padded string id cut to a few characters."""
    text = repr(ident) if isinstance(ident, str) else str(ident)
    return text if len(text) <= 40 else f"{text[:32]}… [+{len(text) - 32:,} chars]"


class ServerFault(Exception):
    """A failure caused by a server (or reaching it): what the explorer shows, never raises further.

    A plain exception class, not a frozen dataclass: Python sets `__traceback__` on an exception that
    passes through a `@contextmanager` (`anyio.fail_after`, for one), and a frozen dataclass refuses that
    assignment with a TypeError that would replace the fault (found by fuzzing the transport).
    """

    def __init__(
        self, message: str, code: int | None = None, data: Any = None, *, local: bool = False
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.data = data
        # True when this side made the code (the SDK's "Connection closed", a request's timeout, its own
        # words for an HTTP answer it could not use), False for an error the server answered with: many
        # servers send -32000 and -32001 for errors of their own.
        self.local = local

    @property
    def connection_closed(self) -> bool:
        """The SDK saw the connection close (the server exited?), not a server's own error -32000."""
        return self.local and self.code == CONNECTION_CLOSED

    @property
    def request_timed_out(self) -> bool:
        """The SDK's request timeout ran out, not a server's own error -32001."""
        return self.local and self.code == REQUEST_TIMEOUT

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        local = ", local=True" if self.local else ""
        return f"ServerFault(message={self.message!r}, code={self.code!r}, data={self.data!r}{local})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ServerFault):
            return NotImplemented
        return (self.message, self.code, self.data) == (other.message, other.code, other.data)

    def __hash__(self) -> int:
        return hash((self.message, self.code))


WAIT_LONGER = "--timeout SECONDS waits longer"
"""How a message says that the explorer's own wait for an answer (`--timeout`, per request) ran out, and
how to wait longer: inside its parenthesis (`timed_out`). Never said of a server's own error -32001 (its
words, `_sdk_timeout`), nor of a listing's overall `--list-timeout`."""

IDLE_CHECK = "a ping (the idle check)"
"""What a `ping` is said as when it went unanswered: the explorer sends one only as the idle check of a
Streamable HTTP connection (`connection.liveness`), and the connection ending under it was no request of
the user's."""

CLOSED = "the server closed the connection (did it exit?)"
"""The SDK's "Connection closed" under a request, said when nothing tells why (`connection_ended`)."""
BROKE = "the connection to the server broke (did it exit?)"
"""The connection's streams closed under a request, said when nothing tells why (`connection_ended`)."""


def timed_out(why: str = "timeout") -> str:
    """`(timeout; --timeout SECONDS waits longer)`: the end of every message of a wait of `--timeout` that
    ran out, `why` saying which wait (the HTTP client's say what they waited for)."""
    return f"({why}; {WAIT_LONGER})"


def connection_ended(fault: ServerFault) -> bool:
    """Whether `fault` says only that the connection ended under the request (`CLOSED`, `BROKE`), with no
    reason: a connection that knows why it ended (`ServerConnection.loss_fault`) says that instead."""
    return fault.connection_closed or (fault.code is None and fault.message.endswith(f": {BROKE}"))


REFUSED_PREFIX = "the server's answer "
"""How each sentence of `http_limits` begins: `describe_exception` finds it inside the SDK's wording of
the request it failed, and shows it alone."""
ANSWERED_PREFIX = "the server answered HTTP "
"""How a sentence of `http_sessions` about an error status the SDK would word as a JSON-RPC error of its
own begins (a 404 with no session, a 431, an error status whose body is text it quotes): found and shown
alone as a refusal is."""
_SDK_WRAPPERS = ("Failed to parse JSON response: ", "SSE stream failed: ")
_OWN_SENTENCES = (REFUSED_PREFIX, ANSWERED_PREFIX)


class ServerSentence(Exception):
    """An error a transport raises with a whole sentence of what the server did (it begins "the server"):
    `describe_exception` shows it after the action as it is, never with the class's name."""


RedirectWhy = Callable[[str], "str | None"]
"""Why a redirect to a URL (as the SDK names it: no userinfo, query or fragment) was not followed, from
what the connection recorded of it (`transports.HttpAnswers.redirect_refusal`), or None when unknown."""


def redirect_refusal(method: str, url: str, status: int, location: str) -> str | None:
    """Why the MCP SDK does not follow a redirect of `method url` to `location` (absolute), in a few words,
    or None when it follows it (within its budget of redirects). Its rules (`next_request_within_origin`):
    the method must stay (httpx turns a POST into a GET on 301, 302 and 303), the origin too (or become
    HTTPS on the same host), and the location must bring no user name of its own."""
    sent, to = urlsplit(url), urlsplit(location)
    if sent.scheme == "https" and to.scheme == "http":
        return "it would downgrade HTTPS to plain HTTP"
    if _method_after(method, status) != method:
        return f"the {method} would become a GET"
    if _origin(sent) != _origin(to) and not _upgrade(sent, to):
        return "another origin"
    if to.username is not None and (to.username, to.password) != (sent.username, sent.password):
        return "it names a user of its own"
    return None


def redirect_loop(url: str, location: str) -> str:
    """Why a redirect the SDK would follow was not: its budget of redirects ran out."""
    return "it redirects to itself, a loop" if url == location else "too many redirects, a loop?"


def _method_after(method: str, status: int) -> str:
    """The method httpx sends a redirect's next request with (`AsyncClient._redirect_method`)."""
    if (status == 303 and method != "HEAD") or (status == 302 and method not in ("HEAD", "QUERY")):
        return "GET"
    return "GET" if status == 301 and method == "POST" else method


def _origin(parts: Any) -> tuple[str, str, int | None]:
    default = {"http": 80, "https": 443}.get(parts.scheme)
    port = parts.port if parts.port != default else None
    return parts.scheme, (parts.hostname or ""), port


def _upgrade(sent: Any, to: Any) -> bool:
    """http to https on the same host and the default ports: the one change of origin the SDK follows."""
    (scheme, host, port), (new_scheme, new_host, new_port) = _origin(sent), _origin(to)
    return (scheme, new_scheme, port, new_port) == ("http", "https", None, None) and host == new_host


def _sdk_sentence(code: int, text: str, redirects: RedirectWhy | None = None) -> str | None:
    """The SDK's own wording of an HTTP answer it could not use (it fails the request with an error it makes
    itself, which read as `the server answered error -32700: ...` and a pydantic dump of the answer): one
    sentence of what the server did, or None for an error the server sent. `redirects` tells why a
    redirect was not followed; the SDK says only when it is a downgrade."""
    first = text.split("\n", 1)[0]
    if code == PARSE_ERROR and first.startswith("Failed to parse JSON response: "):
        detail = first[len("Failed to parse JSON response: ") :]
        return f"the server's answer is not a JSON-RPC response ({_cut(detail)})"
    if code == PARSE_ERROR and first.startswith("Failed to parse SSE message: "):
        # The SDK fails the request for any event of its stream it cannot read (a request of the server's
        # with params that are not an object, too) and reads that stream no further.
        return (
            "the server's event stream for this request held a message that is not JSON-RPC, and it was "
            "read no further"
        )
    if code == INVALID_REQUEST and first.startswith("Unexpected content type: "):
        kind = first[len("Unexpected content type: ") :]
        sent = f"content type {_cut(kind)!r}" if kind else "no content type"
        return f"the server answered with {sent}, neither JSON nor an event stream"
    if code == INVALID_REQUEST and first.startswith("Redirect to ") and " not followed" in first:
        target = first[len("Redirect to ") :].split(" not followed")[0]
        if "downgrade" in first:
            why = "it would downgrade HTTPS to plain HTTP"
        else:
            why = (redirects(target) if redirects is not None else None) or "another origin"
        return f"the server redirected to {_cut(target)}: not followed ({why})"
    if code == CONNECTION_CLOSED and first.startswith("SSE stream failed: "):
        return f"the server's event stream failed: {_cut(first[len('SSE stream failed: ') :])}"
    if code == INTERNAL_ERROR and first == "Server returned an error response":
        return "the server answered with an HTTP error"  # the status is added where it is known
    return None


def _unfollowed(response: Any, following: Any) -> str:
    """A redirect the HTTP client handed back unfollowed (an `httpx2.Response` and the request that would
    follow it): its status, where it points (without user name, query and fragment, which may carry
    secrets), why it was not followed, and what to do. The legacy SSE client raises it as an error
    status, and said only "not followed"."""
    request, status = response.request, response.status_code
    url, location = str(request.url), str(following.url)
    shown = _cut(str(following.url.copy_with(userinfo=b"", query=None, fragment=None)))
    reason = f" {response.reason_phrase}" if response.reason_phrase else ""
    what = "the event stream" if request.method == "GET" else "the request"
    why = redirect_refusal(request.method, url, status, location)
    said = f"the server redirected {what} (HTTP {status}{reason}) to {shown}: not followed"
    if why is None:  # one the SDK follows, but not again and again
        return f"{said} ({redirect_loop(url, location)})"
    if why.startswith("it would downgrade"):
        return f"{said} ({why}); if plain HTTP is meant, connect to {shown} instead"
    return f"{said} ({why}); if that is the server, connect to {shown} instead"


def headers_too_large(sent: Iterable[tuple[bytes, bytes]], given: Collection[str]) -> str:
    """Why a request was answered HTTP 431: the size of the headers it `sent` (raw name and value pairs),
    and the headers the user gave (`given`, lower-case names: -H, a config's headers) as the likely cause,
    by name only (a value can be a secret) with their size; else the largest header it sent."""
    sizes = [(name.decode("latin-1"), len(name) + len(value) + 4) for name, value in sent]  # ": ", CRLF
    said = f"the request's headers were too large for the server ({human_size(sum(n for _, n in sizes))})"
    own = [(name, size) for name, size in sizes if name.lower() in given]
    if own:
        own.sort(key=lambda pair: -pair[1])
        names = ", ".join(_cut(name, 60) for name, _ in own[:8])
        names += f" and {len(own) - 8} more" if len(own) > 8 else ""
        return (
            f"{said}; the headers given with -H or in the config ({names}: "
            f"{human_size(sum(size for _, size in own))} in all) are the likely cause: shorten or remove them"
        )
    if not sizes:
        return said
    name, size = max(sizes, key=lambda pair: pair[1])
    return f"{said}, the largest being {_cut(name, 60)} ({human_size(size)}); no -H or config header was sent"


def _cut(text: str, most: int = 120) -> str:
    return text if len(text) <= most else f"{text[:most]}… [+{len(text) - most:,} chars]"


class BoundReached(ServerFault):
    """An answer refused unread because it alone went past a listing bound (`bound`, e.g. "max_bytes"):
    the listing stops there as at any bound, marked incomplete, with `size` bytes counted."""

    def __init__(self, message: str, bound: str, size: int) -> None:
        super().__init__(message)
        self.bound = bound
        self.size = size


def _leaves(exc: BaseException) -> list[BaseException]:
    """Flatten nested ExceptionGroups (anyio task groups wrap transport errors several levels deep)."""
    if isinstance(exc, BaseExceptionGroup):
        found: list[BaseException] = []
        for inner in exc.exceptions:
            found.extend(_leaves(inner))
        return found
    return [exc]


def describe_exception(
    exc: BaseException, *, action: str, timeout: float | None = None, redirects: RedirectWhy | None = None
) -> ServerFault:
    """Map an exception from a server call to a ServerFault with one sentence.

    `action` says what the explorer was doing ("connecting", "listing resources", "reading x");
    `redirects`, why a redirect the SDK names was not followed (else it is said to be another origin).
    """
    from mcp import MCPError  # local: keeps `import explorer.connection.errors` cheap

    leaves = _leaves(exc)
    # Prefer the most informative leaf: an MCPError over a generic cancellation or closed stream.
    chosen = next((e for e in leaves if isinstance(e, MCPError)), None) or next(
        (e for e in leaves if not _is_noise(e)), leaves[0]
    )
    if isinstance(chosen, ServerFault):
        return chosen
    if isinstance(chosen, MCPError):
        if isinstance(chosen.data, UnreadableAnswer):
            unread = chosen.data
            if unread.bound is not None:
                return BoundReached(f"{action}: {unread.why}", unread.bound, unread.size)
            return ServerFault(f"{action}: {unread.why}")
        code = chosen.code
        text = chosen.message or "(no message)"
        for wrapper in _SDK_WRAPPERS:  # the SDK's words around a refusal of `http_limits`: it says it all
            if text.startswith(wrapper) and text[len(wrapper) :].startswith(_OWN_SENTENCES):
                return ServerFault(f"{action}: {text[len(wrapper) :]}")
        said = _sdk_sentence(code, text, redirects)
        if said is not None:
            return ServerFault(f"{action}: {said}", code, chosen.data, local=True)
        if _sdk_timeout(chosen):
            limit = f" after {timeout:g} s" if timeout is not None else ""
            said = f"{action}: the server did not answer{limit} {timed_out()}"
            return ServerFault(said, code, local=True)
        if _sdk_closed(chosen):
            return ServerFault(f"{action}: {CLOSED}", code, local=True)
        return ServerFault(f"{action}: the server answered error {code}: {text}", code, chosen.data)
    if isinstance(chosen, ServerSentence):
        return ServerFault(f"{action}: {chosen}")
    if isinstance(chosen, FileNotFoundError):
        missing = chosen.filename or str(chosen)
        hint = ""
        if missing in ("demo", "demo-server", "mcp-url-explorer"):  # `-s demo`: not a command, nor a name
            import shlex
            import sys

            demo = shlex.join([sys.executable, "-m", "explorer", "demo-server"])  # whatever PATH holds
            hint = f" (the built-in demo server is -s {shlex.quote(demo)})"
        return ServerFault(f"{action}: command not found: {missing}{hint}")
    if isinstance(chosen, PermissionError):
        return ServerFault(f"{action}: permission denied: {chosen.filename or chosen}")
    if isinstance(chosen, TimeoutError) and str(chosen).startswith("the server"):  # says what it waited for
        return ServerFault(f"{action}: {chosen}")
    if isinstance(chosen, TimeoutError):
        limit = f" after {timeout:g} s" if timeout is not None else ""
        return ServerFault(f"{action}: the server did not answer{limit} {timed_out()}")
    name = type(chosen).__name__
    if name == "ValidationError":
        first = str(chosen).splitlines()
        detail = first[1].strip() if len(first) > 1 else first[0] if first else ""
        return ServerFault(f"{action}: the server sent a result that is not valid MCP ({detail})")
    if name in {"ConnectError", "ConnectTimeout"}:
        said = str(chosen)
        if said == "All connection attempts failed":  # the HTTP client's words for a refused connection
            said = "nothing accepted the connection (is the server running, at that host and port?)"
        return ServerFault(f"{action}: cannot connect: {said}")
    if name == "HTTPStatusError":
        response = getattr(chosen, "response", None)
        status = getattr(response, "status_code", None)
        if isinstance(status, int):
            reason = getattr(response, "reason_phrase", "") or ""
            following = getattr(response, "next_request", None)
            if 300 <= status < 400 and following is not None:  # the legacy SSE client follows none
                return ServerFault(f"{action}: {_unfollowed(response, following)}")
            said = f"{action}: the server answered HTTP {status}{' ' + reason if reason else ''}"
            headers = getattr(response, "headers", None) or {}
            target = str(headers.get("location", "")) if 300 <= status < 400 else ""
            if target:  # the legacy SSE client follows no redirect: say where it pointed
                said += f" to {_cut(target)} (not followed)"
            return ServerFault(said)
        return ServerFault(f"{action}: HTTP error: {str(chosen).splitlines()[0]}")
    if name in {"ClosedResourceError", "BrokenResourceError", "EndOfStream"}:
        return ServerFault(f"{action}: {BROKE}")
    if name == "RemoteProtocolError" and "Receive buffer too long" in str(chosen):
        return ServerFault(
            f"{action}: the server's answer headers are too large for the HTTP client (over 100 KiB)"
        )
    if name == "RuntimeError" and str(chosen).startswith(_UNSUPPORTED_VERSION):
        return ServerFault(f"{action}: {_version_sentence(str(chosen)[len(_UNSUPPORTED_VERSION) :])}")
    if name in _HTTP_WAITS:  # the HTTP client's own: it says only "ReadTimeout", or nothing at all
        limit = f" within {timeout:g} s" if timeout is not None else ""
        what = f" {IDLE_CHECK}" if _sent_method(chosen) == "ping" else ""
        said = f"{action}: the server did not answer{what}{limit} over HTTP {timed_out(_HTTP_WAITS[name])}"
        return ServerFault(said, REQUEST_TIMEOUT, local=True)  # our wait ran out: `request_timed_out`
    if name in _HTTP_BREAKS:
        detail = f": {_cut(str(chosen).splitlines()[0])}" if str(chosen) else ""
        return ServerFault(f"{action}: the HTTP connection broke off ({_HTTP_BREAKS[name]}{detail})")
    kinds = {kind.__name__ for kind in type(chosen).__mro__}
    text = str(chosen)
    if "SSEError" in kinds:  # the HTTP client's, and the refusals of `http_limits` on an event stream
        return ServerFault(f"{action}: {_events_sentence(text)}")
    if text.startswith(_OWN_SENTENCES):  # a refusal of `http_limits` that escaped the SDK: it says it all
        return ServerFault(f"{action}: {text}")
    if type(chosen).__module__ == "builtins":  # a plain Python error reached here: its name helps a report
        return ServerFault(f"{action}: {text or name} ({name})")
    # Another library's class, or the explorer's own: its name means nothing to a user (it read
    # "Expected response with content type ... (SSEError)").
    return ServerFault(f"{action}: {_cut(text.splitlines()[0]) if text else 'it failed, giving no reason'}")


def _sent_method(error: BaseException) -> str | None:
    """The JSON-RPC method of the HTTP request an HTTP client's error (`httpx2.RequestError`) was raised
    for, or None (none set, not a JSON-RPC message)."""
    try:
        request = getattr(error, "request", None)
    except RuntimeError:  # the HTTP client's error has no request set
        return None
    if request is None:
        return None
    from explorer.connection.http_limits import request_method  # imports the HTTP client: here only

    return request_method(request)


_NOT_EVENTS = re.compile(
    r"Expected response with content type 'text/event-stream', got (?:'([^'\n]*)'|\"([^\"\n]*)\")"
)
_EVENT_TOO_LARGE = re.compile(r"Server-sent event exceeded the (\d+) byte limit")
_STREAM_REFUSALS = ("broke off after ", "is over ", "cannot be read as ")  # said of the stream as a whole


def _events_sentence(text: str) -> str:
    """An event stream's error (`httpx2.SSEError`, or a refusal of `http_limits` on one, which escaped the
    SDK: the stream a client opens with GET, the legacy SSE transport's one stream) as a sentence: a
    refusal is said of the event stream, not of "the server's answer"."""
    if text.startswith(REFUSED_PREFIX):
        rest = text[len(REFUSED_PREFIX) :]
        if rest.startswith("broke off after "):
            size, _, why = rest[len("broke off after ") :].partition(": ")
            said = f"the server's event stream broke off after {size} (did the server exit?)"
            return f"{said}: {why}" if why else said
        return f"the server's event stream {rest}" if rest.startswith(_STREAM_REFUSALS) else text
    if text.startswith("the server"):
        return text
    wrong = _NOT_EVENTS.match(text)
    if wrong is not None:
        kind = wrong.group(1) if wrong.group(1) is not None else (wrong.group(2) or "")
        sent = f"it sent {_cut(kind, 80)}" if kind.strip() else "it sent no content type"
        return f"the URL did not answer with an event stream ({sent}): is it an SSE endpoint?"
    too_large = _EVENT_TOO_LARGE.match(text)
    if too_large is not None:
        limit = human_size(int(too_large.group(1)))
        return f"the server sent an event over {limit}, the most the explorer reads of one: not read on"
    first = text.splitlines()[0] if text else ""
    said = "the server's event stream could not be read"
    return f"{said}: {_cut(first)}" if first else said


_UNSUPPORTED_VERSION = "Unsupported protocol version from the server: "  # the SDK's words, then the version


def retry_hint(retry_after: str | None) -> str:
    """`; it asks to be retried after 3,600 s` from a `Retry-After` (seconds or an HTTP date), or ""."""
    if not retry_after:
        return ""
    value = retry_after.strip()
    when = f"{int(value):,} s" if value.isdigit() and len(value) <= 9 else _cut(value, 60)
    return f"; it asks to be retried after {when}"


def _version_sentence(version: str) -> str:
    """The server answered `initialize` with a protocol version the SDK does not speak: which it does."""
    from mcp.types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

    handshake = ", ".join(HANDSHAKE_PROTOCOL_VERSIONS)
    modern = ", ".join(MODERN_PROTOCOL_VERSIONS)
    return (
        f"the server answered initialize with protocol version {_cut(version, 60)}, which the explorer does "
        f"not speak (it speaks {handshake} by initialize, and {modern} by server/discover)"
    )


_HTTP_WAITS = {
    "ReadTimeout": "no answer came in time",
    "WriteTimeout": "the request could not be sent in time",
    "PoolTimeout": "no connection was free in time",
}
_HTTP_BREAKS = {
    "ReadError": "reading the answer failed",
    "WriteError": "sending the request failed",
    "RemoteProtocolError": "the server broke the HTTP protocol or closed the connection",
}

_SDK_TIMEOUTS = (
    re.compile(r"Request (?:'[^'\n]*'|\"[^\"\n]*\") timed out"),  # the JSON-RPC dispatcher's
    re.compile(r"Timed out after \S+s waiting for (?:'[^'\n]*'|\"[^\"\n]*\")"),  # the in-process one's
)


def _sdk_timeout(error: MCPError) -> bool:
    """The SDK's own timeout, told by its exact shape: a server's -32001 "Upstream API timed out" is the
    server's error, not a timeout of ours."""
    return (
        error.code == REQUEST_TIMEOUT
        and error.data is None
        and any(shape.fullmatch(error.message) for shape in _SDK_TIMEOUTS)
    )


def _sdk_closed(error: MCPError) -> bool:
    """The SDK's own "Connection closed" (the server went away), told by its exact shape: a server's
    -32000 "Connection to upstream database closed" is the server's error."""
    return error.code == CONNECTION_CLOSED and error.message == "Connection closed" and error.data is None


def _is_noise(exc: BaseException) -> bool:
    """Secondary errors that hide the real cause when a transport tears down."""
    return type(exc).__name__ in {
        "CancelledError",
        "ClosedResourceError",
        "BrokenResourceError",
        "GeneratorExit",
    }


class _Unread:
    """Notifications of one kind the SDK would refuse: how many, and why (the first reason; whether every
    one was unread for the same reason)."""

    __slots__ = ("alike", "count", "sample")

    def __init__(self) -> None:
        self.count = 0
        self.sample: str | None = None
        self.alike = True

    def add(self, why: str) -> None:
        self.count += 1
        if self.sample is None:
            self.sample = why[:120]
        elif why[:120] != self.sample:
            self.alike = False

    def said(self, one: str, many: str) -> list[str]:
        """`["3 log messages the explorer could not read (first: ...), which it ignored"]`, or `[]`."""
        if not self.count:
            return []
        counted = f"1 {one}" if self.count == 1 else f"{self.count:,} {many}"
        first = "" if self.alike else "first: "
        return [f"{counted} the explorer could not read ({first}{self.sample}), which it ignored"]


class ProtocolProblems:
    """What a server wrote that was not a usable message: counted, not raised, one sentence on demand.

    A broken line on stdout is no reason to drop a connection that otherwise works, but when a request
    then times out, the reason is usually here, so the connection appends `describe()` to its fault.
    """

    def __init__(self) -> None:
        self.not_json = 0
        self.oversized = 0
        self.limit = 0  # bytes: the message size limit that `oversized` messages went over
        self.sample: str | None = None
        self.dropped: dict[str, int] = {}  # notifications past the rate a connection takes, by method
        self.requests = 0  # requests of the server's the explorer could not read (answered with an error)
        self.request_sample: str | None = None
        self.logs = _Unread()  # log entries the explorer could not read
        self.progress = _Unread()  # progress notifications the explorer could not read
        self.strays = 0  # answers naming a request never sent, failing no request (`stray_answers`)
        self.stray_sample: str | None = None  # the first one's id, as `shown_id` shows it
        self.later_endpoints = 0  # legacy SSE endpoint events after the first, not used (`http_limits`)
        self.undeclared: dict[str, int] = {}  # requests for what the explorer does not declare, by method

    def dropped_notification(self, method: str) -> None:
        """A notification that came faster than `connection.flood.RATE` a second, not handed on."""
        key = method[:80]
        if key in self.dropped or len(self.dropped) < 16:
            self.dropped[key] = self.dropped.get(key, 0) + 1
        else:
            self.dropped["(others)"] = self.dropped.get("(others)", 0) + 1

    def bad_line(self, line: str) -> None:
        self.not_json += 1
        if self.sample is None:
            self.sample = line[:80]

    def oversized_message(self, limit: int) -> None:
        self.oversized += 1
        self.limit = limit

    def transport_error(self, exc: BaseException) -> None:
        """An error a transport delivered instead of a message (HTTP/SSE parse failures): the message
        the server sent is quoted when the error holds it (`sent_message`), not the validator's words."""
        sent = sent_message(exc)
        if sent is not None:
            self.bad_line(quoted(sent))
        else:
            self.bad_line(str(exc).splitlines()[0] if str(exc) else "a message that could not be read")

    def unreadable_request(self, what: str) -> None:
        """A request of the server's the explorer could not read (`what`: which, and why), answered with
        an error."""
        self.requests += 1
        if self.request_sample is None:
            self.request_sample = what[:120]

    def unreadable_log(self, why: str) -> None:
        """A `notifications/message` the SDK would refuse (`why`), not handed on to it."""
        self.logs.add(why)

    def unreadable_progress(self, why: str) -> None:
        """A `notifications/progress` the SDK would refuse (`why`), not handed on to it."""
        self.progress.add(why)

    def undeclared_request(self, method: str) -> None:
        """The server asked for sampling, elicitation or roots, which the explorer does not declare: the
        SDK refuses it with an error, and a server that needed it fails with words of its own."""
        self.undeclared[method] = self.undeclared.get(method, 0) + 1

    def stray_answer(self, shown: str) -> None:
        """An answer naming a request never sent (`shown`: its id as `shown_id` shows it) that fails no
        request (none waited, or the one it was meant for cannot be told): the session drops it."""
        self.strays += 1
        if self.stray_sample is None:
            self.stray_sample = shown

    def describe(self) -> str | None:
        """`sent 3 lines that are not JSON-RPC messages (first: 'oops'), which it ignored`, or None when all
        was well; each part says what the explorer did about it."""
        parts = []
        if self.not_json:
            lines = (
                "1 line that is not a JSON-RPC message"
                if self.not_json == 1
                else (f"{self.not_json} lines that are not JSON-RPC messages")
            )
            parts.append(lines + (f" (first: {self.sample!r})" if self.sample else "") + ", which it ignored")
        if self.oversized:
            many = "1 message" if self.oversized == 1 else f"{self.oversized} messages"
            parts.append(f"{many} over the {limit_text(self.limit)} limit, which the explorer dropped")
        if self.requests:
            many = "a request" if self.requests == 1 else f"{self.requests:,} requests"
            first = "" if self.requests == 1 else "first: "
            answered = "an error" if self.requests == 1 else "errors"
            parts.append(
                f"{many} the explorer could not read ({first}{self.request_sample}), answered with {answered}"
            )
        if self.strays:
            many = "an answer to a request" if self.strays == 1 else f"{self.strays:,} answers to requests"
            first = "" if self.strays == 1 else "first: "
            parts.append(f"{many} never sent ({first}id {self.stray_sample}), which it ignored")
        if self.later_endpoints:
            later = self.later_endpoints
            many = "another endpoint event" if later == 1 else f"{later:,} more endpoint events"
            parts.append(f"{many} after the first, which the explorer did not use (it posts to the first)")
        for method, count in self.undeclared.items():
            times = "once" if count == 1 else f"{count:,} times"
            parts.append(
                f"asked {times} for {method}, which the explorer does not offer (it declares no such "
                "capability): refused with an error"
            )
        parts += self.logs.said("log message", "log messages")
        parts += self.progress.said("progress notification", "progress notifications")
        if self.dropped:
            from explorer.connection.flood import RATE

            total = sum(self.dropped.values())
            most = max(self.dropped, key=self.dropped.__getitem__)
            parts.append(
                f"{total:,} notifications faster than {RATE:,.0f} a second (most of them {most!r}), "
                "which the explorer dropped"
            )
        return "sent " + ", and ".join(parts) if parts else None
