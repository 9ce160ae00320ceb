"""A 401 or 403 to connecting, and a refusal of the Streamable HTTP POST that sends the connection to the
legacy SSE transport, quote what the server said in the body, as a 5xx to connecting does.

Before, a 401 said "connecting: HTTP 401 Unauthorized: the server wants credentials; pass a valid token
with -H ...", never the server's {"error": "invalid_token", "error_description": "token expired"} or
"missing X-API-Key header", which tell a developer which credentials the server wants; and a URL whose
POST was refused (400 {"error": "missing tenant header"}) then failed over legacy SSE too said "is the URL
right?" with the SSE GET's words but never the POST's, the real reason. The words of a 401 are read only
once the OAuth flow has decided: a 401 that starts a login goes to it as it came, and the login works.

And the wait for a legacy SSE stream's endpoint is `--timeout`: it ends saying how to wait longer.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any, ClassVar

import anyio
import pytest

from explorer.config import ServerSpec
from explorer.connection.errors import ServerFault
from explorer.connection.session import ServerConnection
from tests.helpers.cli import run_cli
from tests.helpers.loopback_http import NEVER, RUN_AT_MOST, JsonRpcHandler, served, tree_against
from tests.helpers.oauth_loopback import AuthServer, AuthState
from tests.test_hostile_http_answers import _serve as _serve_port
from tests.test_hostile_http_answers import _Silent
from tests.test_http_connect_words import _failing, initialize_answered
from tests.test_http_sse_failures import _serve

EXPIRED = b'{"error": "invalid_token", "error_description": "token expired"}'
CHALLENGE = ("WWW-Authenticate", 'Bearer error="invalid_token", error_description="token expired"')

# ----------------------------------------------------------------------------- a 401 or 403 to connecting


def test_a_401_to_connecting_quotes_the_servers_json() -> None:
    handler = _failing(401, EXPIRED, "application/json", CHALLENGE)
    _, result = tree_against(handler, "-H", "Authorization: Bearer t0ken-that-expired")
    assert result.code == 1, result
    said = (
        "connecting: HTTP 401 Unauthorized: "
        '\'{"error": "invalid_token", "error_description": "token expired"}\'; the credentials sent were '
        "not accepted (Bearer: error=invalid_token, error_description=token expired); pass a valid token "
        "with -H 'Authorization: Bearer <token>'"
    )
    assert said in result.stderr, result


def test_a_403_to_connecting_quotes_the_servers_text() -> None:
    handler = _failing(403, b"tenant x may not list resources\n", "text/plain; charset=utf-8")
    _, result = tree_against(handler, "-H", "Authorization: Bearer t")
    assert result.code == 1, result
    said = (
        "connecting: HTTP 403 Forbidden: 'tenant x may not list resources'; the credentials sent are not "
        "allowed to do this; use a token with the scopes"
    )
    assert said in result.stderr, result


def test_an_html_401_is_not_quoted() -> None:
    page = b"<html><body><h1>401 Authorization Required</h1></body></html>"
    _, result = tree_against(_failing(401, page, "text/html"), "-H", "Authorization: Bearer t")
    assert result.code == 1, result
    said = "connecting: HTTP 401 Unauthorized: the credentials sent were not accepted; pass a valid token"
    assert said in result.stderr, result
    assert "<html>" not in result.stderr and "<h1>" not in result.stderr


class _WantsApiKey(JsonRpcHandler):
    """A server that wants an API key, not OAuth: its endpoint answers every POST 401 with a line of text,
    and it has no OAuth metadata (a GET is 405, a POST elsewhere, a registration, 404)."""

    def do_POST(self) -> None:
        self.read_message()
        if self.path == "/mcp":
            self.send(401, b"missing X-API-Key header", "text/plain")
        else:
            self.send(404)


def test_a_401_that_a_login_could_not_answer_still_quotes_the_server() -> None:
    """No -H: the 401 starts an OAuth login (the HTTP client reads its body for the login), which fails
    on a server with no OAuth: the words of that first 401 are quoted with the login's failure."""
    _, result = tree_against(_WantsApiKey, "--auth-flow", "fetch")
    assert result.code == 1, result
    said = "connecting: HTTP 401 Unauthorized: 'missing X-API-Key header'; the server wants credentials; "
    assert said in result.stderr, result
    assert "logging in with OAuth failed: " in result.stderr, result


def test_the_words_are_masked_where_they_echo_a_secret() -> None:
    """A server may echo the key it refused: the connection's fault masks it (the TUI shows that fault)."""

    class Echoes(JsonRpcHandler):
        def do_POST(self) -> None:
            self.read_message()
            key = self.headers.get("X-API-Key", "")
            self.send(403, f"key {key} is revoked\x1b[2J".encode(), "text/plain")

    async def connect(url: str) -> ServerFault:
        spec = ServerSpec(name="echo", transport="http", url=url, headers={"X-API-Key": "k3y-s3cret-42"})
        with pytest.raises(ServerFault) as caught:
            async with ServerConnection(spec, protocol="legacy", timeout=float(NEVER)):
                pass
        return caught.value

    for url in served(Echoes):
        fault = anyio.run(connect, url)
        assert fault.message.startswith("connecting: HTTP 403 Forbidden: 'key *** is revoked\\x1b[2J'; "), (
            fault
        )
        assert "k3y-s3cret-42" not in fault.message and "\x1b" not in fault.message


class _WordyAuthServer(AuthServer):
    """The protected server of the OAuth tests, whose 401 says why in a JSON body."""

    def mcp(self, message: dict[str, Any]) -> None:
        if self.headers.get("Authorization", "").removeprefix("Bearer ") in self.state.access:
            super().mcp(message)
            return
        metadata = self.base + "/.well-known/oauth-protected-resource/mcp"
        words = {"error": "invalid_token", "error_description": "no token was sent"}
        self.send(401, words, WWW_Authenticate=f'Bearer resource_metadata="{metadata}"')


def test_a_401_with_words_that_starts_a_login_still_logs_in() -> None:
    state = AuthState()
    handler = type("WordyAuthServer", (_WordyAuthServer,), {"state": state})
    for url in served(handler, stopping=state.release.set):
        result = run_cli("tree", "-s", url, "--auth-flow", "fetch", "--timeout", "10", timeout=RUN_AT_MOST)
        assert result.code == 0 and "Traceback" not in result.stderr, result
        assert "notes://a" in result.stdout, result
        assert "no token was sent" not in result.stdout + result.stderr, result
        assert state.count("token") == 1


@pytest.fixture
def initialize_unauthorized() -> Iterator[str]:
    yield from _serve(initialize_answered(401, b"api key revoked"))


def test_a_401_to_the_legacy_initialize_post_quotes_the_server(initialize_unauthorized: str) -> None:
    result = run_cli(
        "tree", "--sse", "--timeout", NEVER, "-H", "Authorization: Bearer t", "-s", initialize_unauthorized,
        timeout=RUN_AT_MOST,
    )  # fmt: skip
    assert result.code == 1 and "Traceback" not in result.stderr, result
    said = "connecting: HTTP 401 Unauthorized: 'api key revoked'; the credentials sent were not accepted"
    assert said in result.stderr, result


# ------------------------------------------------------------- a refused POST, then the legacy SSE fallback


class _NeedsTenant(JsonRpcHandler):
    """Refuses every POST with HTTP 400 and `body` (JSON), and the legacy SSE GET 404 with text."""

    body: ClassVar[bytes] = b'{"error": "missing tenant header"}'

    def do_POST(self) -> None:
        self.read_message()
        self.send(400, self.body)

    def do_GET(self) -> None:
        self.send(404, b"no route for GET /mcp", "text/plain")


GET_404 = (
    "the legacy HTTP+SSE transport failed too (connecting: the server answered HTTP 404 Not Found to the "
    "event stream's GET: 'no route for GET /mcp'); is the URL right?"
)


@pytest.mark.parametrize("protocol", ["auto", "legacy", "2026-07-28"])
def test_the_sse_fallback_quotes_what_the_post_was_answered(protocol: str) -> None:
    _, result = tree_against(_NeedsTenant, "--protocol", protocol)
    assert result.code == 1, result
    said = (
        "connecting: the server answered HTTP 400 Bad Request to the Streamable HTTP request: "
        f'\'{{"error": "missing tenant header"}}\', and {GET_404}'
    )
    assert said in result.stderr, result


def test_the_sse_fallback_quotes_a_json_rpc_errors_message() -> None:
    class Handler(_NeedsTenant):
        body = b'{"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "no tenant given"}}'

    _, result = tree_against(Handler)
    assert result.code == 1, result
    said = (
        "connecting: the server answered HTTP 400 Bad Request to the Streamable HTTP request: "
        f"'no tenant given', and {GET_404}"
    )
    assert said in result.stderr, result


# ------------------------------------------------------------------ no endpoint within the legacy SSE wait


class _NoEndpoint(_Silent):
    stop = threading.Event()  # its own: the one of `_Silent` is set when that test's server stops


@pytest.fixture
def no_endpoint_port() -> Iterator[int]:
    yield from _serve_port(_NoEndpoint)


def test_an_sse_stream_without_an_endpoint_says_how_to_wait_longer(no_endpoint_port: int) -> None:
    url = f"http://127.0.0.1:{no_endpoint_port}/sse"
    result = run_cli("tree", "--sse", "--timeout", "1", "-s", url, timeout=RUN_AT_MOST)
    assert result.code == 1 and "Traceback" not in result.stderr, result
    said = (
        "connecting: the server's event stream gave no endpoint to post to within 1 s "
        "(timeout; --timeout SECONDS waits longer)"
    )
    assert said in result.stderr, result


class _RefusesEveryToken(_WordyAuthServer):
    """The login works, but the server then refuses its token for a reason of its own (403)."""

    def mcp(self, message: dict[str, Any]) -> None:
        if self.headers.get("Authorization", "").removeprefix("Bearer ") not in self.state.access:
            super().mcp(message)  # the 401 that starts the login
            return
        self.send(403, {"error": "forbidden", "error_description": "this account may not use notes"})


def test_a_refusal_after_a_login_quotes_that_refusal_not_the_one_before_it() -> None:
    """Before, the fault quoted the 401 that started the login ("no token was sent") with "the server
    refused the OAuth token": the first refusal, not the one that ended the connection."""
    state = AuthState()
    handler = type("RefusesEveryToken", (_RefusesEveryToken,), {"state": state})
    for url in served(handler, stopping=state.release.set):
        result = run_cli("tree", "-s", url, "--auth-flow", "fetch", "--timeout", "10", timeout=RUN_AT_MOST)
        assert result.code == 1, result
        assert state.count("token") >= 1, result  # logged in
        assert "connecting: HTTP 403 Forbidden: " in result.stderr, result
        assert "this account may not use notes" in result.stderr, result
        assert "no token was sent" not in result.stderr, result
