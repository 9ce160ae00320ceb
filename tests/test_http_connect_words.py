"""An HTTP error status to connecting quotes what the server said in its body, as one after connecting does.

Before, an error status to `initialize` or `server/discover` (Streamable HTTP, before there is a session)
and to the legacy HTTP+SSE transport's GET or POST said the status alone: "connecting: the server answered
with an HTTP error (HTTP 500 Internal Server Error)", never the server's {"error": "database migration
pending"} or "tenant x is suspended", which a developer debugging the server needs. Now a JSON or text body
is quoted (one line, cut, escaped); an HTML page is not. The statuses the connection reads to decide
(a 401 or 403 for its credentials advice and OAuth, a 4xx for the legacy SSE fallback or the era advice)
are read as before.

And a body that broke off with an HTTP client's error that says nothing (a reset connection) said the
client's class name ("broke off after 25 B: ReadError"); now a sentence.
"""

from __future__ import annotations

import socket
import struct
import time
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.loopback_http import NEVER, RUN_AT_MOST, JsonRpcHandler, served, tree_against
from tests.test_error_wording_classes import CLASS_NAMES
from tests.test_http_sse_failures import _Legacy, _serve, _tree

ERROR_JSON = b'{"error": "database migration pending"}'
QUOTED_JSON = '\'{"error": "database migration pending"}\''


class _Fails(JsonRpcHandler):
    """A Streamable HTTP server that answers every connecting request (`initialize`, `server/discover`)
    with `status` and `body` of type `kind` (and `headers`)."""

    status: ClassVar[int] = 500
    body: ClassVar[bytes] = ERROR_JSON
    kind: ClassVar[str] = "application/json"
    headers_sent: ClassVar[tuple[tuple[str, str], ...]] = ()

    def answer(self, method: str, message: dict[str, Any]) -> None:
        if method in ("initialize", "server/discover"):
            self.send(self.status, self.body, self.kind, headers=self.headers_sent)
        else:
            super().answer(method, message)


def _failing(status: int, body: bytes, kind: str, *headers: tuple[str, str]) -> type[_Fails]:
    class Handler(_Fails):
        pass

    Handler.status, Handler.body, Handler.kind, Handler.headers_sent = status, body, kind, headers
    return Handler


# The request whose error ends connecting: `auto` goes on to `initialize` after its discover failed.
ASKED = {"auto": "initialize", "legacy": "initialize", "2026-07-28": "server/discover"}


@pytest.mark.parametrize("protocol", list(ASKED))
def test_a_5xx_to_connecting_quotes_the_servers_json(protocol: str) -> None:
    _, result = tree_against(_failing(500, ERROR_JSON, "application/json"), "--protocol", protocol)
    assert result.code == 1, result
    said = (
        f"connecting: the server answered HTTP 500 Internal Server Error to {ASKED[protocol]}: {QUOTED_JSON}"
    )
    assert said in result.stderr, result


def test_a_503_to_connecting_quotes_its_text_and_says_when_to_retry() -> None:
    handler = _failing(503, b"tenant x is suspended\n", "text/plain; charset=utf-8", ("Retry-After", "30"))
    _, result = tree_against(handler, "--protocol", "legacy")
    assert result.code == 1, result
    said = (
        "connecting: the server answered HTTP 503 Service Unavailable to initialize: 'tenant x is suspended'"
        "; it asks to be retried after 30 s"
    )
    assert said in result.stderr, result


def test_an_html_page_to_connecting_is_not_quoted() -> None:
    page = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
    _, result = tree_against(_failing(502, page, "text/html"), "--protocol", "legacy")
    assert result.code == 1, result
    assert "connecting: the server answered with an HTTP error (HTTP 502 Bad Gateway)" in result.stderr, (
        result
    )
    assert "<html>" not in result.stderr and "<h1>" not in result.stderr


def test_the_words_are_one_line_cut_and_escaped() -> None:
    words = "line one\n\x1b[2J\u202eline two " + "x" * 400
    _, result = tree_against(_failing(500, words.encode(), "text/plain"), "--protocol", "legacy")
    assert result.code == 1, result
    assert "\x1b" not in result.stderr and "\u202e" not in result.stderr, result
    # The cut falls inside the run of x: all of it is left out (a secret there would show half).
    assert "to initialize: 'line one \\x1b[2J\\u202eline two… [+" in result.stderr, result
    assert "… [+" in result.stderr and "x" * 400 not in result.stderr, result


# ---------------------------------------------------------------------------------- the legacy SSE GET


class _GetRefused(_Legacy):
    """A legacy HTTP+SSE URL whose event stream's GET is answered `status` with `body` of type `kind`."""

    status: ClassVar[int]
    body: ClassVar[bytes]
    kind: ClassVar[str]

    def do_GET(self) -> None:
        self._status(self.status, self.body, ("Content-Type", self.kind))


def _get_refused(status: int, body: bytes, kind: str) -> Iterator[str]:
    class Handler(_GetRefused):
        pass

    Handler.status, Handler.body, Handler.kind = status, body, kind
    yield from _serve(Handler)


@pytest.fixture
def get_404_text() -> Iterator[str]:
    yield from _get_refused(404, b"no MCP here: the event stream moved to /v2/sse", "text/plain")


@pytest.fixture
def get_500_json() -> Iterator[str]:
    yield from _get_refused(500, ERROR_JSON, "application/json")


@pytest.fixture
def get_404_html() -> Iterator[str]:
    yield from _get_refused(404, b"<html><body>Cannot GET /sse</body></html>", "text/html")


@pytest.fixture
def get_401_text() -> Iterator[str]:
    yield from _get_refused(401, b"invalid token for tenant x", "text/plain")


def test_a_refused_event_stream_quotes_the_server(get_404_text: str) -> None:
    said = _tree(get_404_text)
    assert (
        "connecting: the server answered HTTP 404 Not Found to the event stream's GET: 'no MCP here: the "
        "event stream moved to /v2/sse'; the legacy HTTP+SSE transport opens its stream with GET"
    ) in said, said


def test_a_failed_event_stream_quotes_the_servers_json(get_500_json: str) -> None:
    said = _tree(get_500_json)
    status = "the server answered HTTP 500 Internal Server Error"
    assert f"connecting: {status} to the event stream's GET: {QUOTED_JSON}" in said, said


def test_a_refused_event_stream_with_an_html_page_says_the_status_alone(get_404_html: str) -> None:
    said = _tree(get_404_html)
    assert "connecting: the server answered HTTP 404 Not Found; the legacy HTTP+SSE" in said, said
    assert "<html>" not in said


def test_credentials_refused_on_the_event_stream_still_get_the_advice(get_401_text: str) -> None:
    result = run_cli(
        "tree", "--sse", "--timeout", NEVER, "-H", "Authorization: Bearer t", "-s", get_401_text,
        timeout=RUN_AT_MOST,
    )  # fmt: skip
    assert result.code == 1 and "Traceback" not in result.stderr, result
    said = (
        "connecting: HTTP 401 Unauthorized: 'invalid token for tenant x'; the credentials sent were not "
        "accepted; pass a valid token"
    )
    assert said in result.stderr, result


def test_the_sse_fallback_quotes_what_the_event_stream_was_answered() -> None:
    """A URL with no MCP endpoint at all: the Streamable HTTP POST and the SSE GET both 404, with text."""

    class Handler(JsonRpcHandler):
        def do_POST(self) -> None:
            self.read_message()
            self.send(404, b"no route for /mcp", "text/plain")

        def do_GET(self) -> None:
            self.send(404, b"no route for /mcp", "text/plain")

    _, result = tree_against(Handler)
    assert result.code == 1, result
    said = (
        "the legacy HTTP+SSE transport failed too (connecting: the server answered HTTP 404 Not Found to the "
        "event stream's GET: 'no route for /mcp'); is the URL right?"
    )
    assert said in result.stderr, result


# -------------------------------------------------------------------------------- the legacy SSE POST


def initialize_answered(status: int, text: bytes) -> type[_Legacy]:
    """A legacy HTTP+SSE server whose stream opens, and whose `initialize` POST is answered `status` with
    a line of text."""

    class _InitializeAnswered(_Legacy):
        def refused(self, message: dict[str, object]) -> bool:
            if message.get("method") != "initialize":
                return False
            self._status(status, text, ("Content-Type", "text/plain"))
            return True

    return _InitializeAnswered


@pytest.fixture
def initialize_fails() -> Iterator[str]:
    yield from _serve(initialize_answered(500, b"tenant x is suspended"))


def test_a_failed_initialize_post_quotes_the_server(initialize_fails: str) -> None:
    said = _tree(initialize_fails)
    status = "the server answered HTTP 500 Internal Server Error"
    assert f"connecting: {status} to the request: 'tenant x is suspended'" in said, said


# ------------------------------------------------------------------------- a body that broke off unsaid


class _ResetsARead(JsonRpcHandler):
    """Answers `resources/read` with the start of a JSON body, then resets the connection (RST): the HTTP
    client's error for it holds no text."""

    def answer(self, method: str, message: dict[str, Any]) -> None:
        if method != "resources/read":
            super().answer(method, message)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "500")
        self.end_headers()
        self.wfile.write(b'{"jsonrpc": "2.0", "id": ')
        self.wfile.flush()
        time.sleep(0.3)  # the client reads what came before the reset (a reset drops what it had not read)
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()  # no FIN: a reset


@pytest.fixture
def resets_a_read() -> Iterator[str]:
    yield from served(_ResetsARead)


def test_a_body_reset_mid_way_is_said_without_a_class_name(resets_a_read: str) -> None:
    result = run_cli("read", "--timeout", NEVER, "-s", resets_a_read, "x://a", timeout=RUN_AT_MOST)
    assert result.code == 1 and "Traceback" not in result.stderr, result
    said = "reading x://a: the server's answer broke off after 25 B: the connection was reset or closed"
    assert said in result.stderr, result
    assert CLASS_NAMES.search(result.stderr) is None and "ReadError" not in result.stderr, result
