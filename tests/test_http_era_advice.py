"""`--protocol 2026-07-28` (the modern era only) against a Streamable HTTP server of the handshake era: the
user is told the era the server speaks and to use `--protocol auto` or `--protocol legacy`, as over stdio.

Before, the server's HTTP 400 to `server/discover` ("Server not initialized": it wants `initialize` first)
sent the explorer to the legacy HTTP+SSE transport, and the error ended "the legacy HTTP+SSE transport
failed too (...); is the URL right?" when the URL was right. The same came of a bare 404 or 405 to
`server/discover` alone (a server routing by method). The SSE fallback stays for what it is for: every
POST refused without a JSON-RPC error, as a legacy HTTP+SSE server answers (`initialize` too).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.loopback_http import JsonRpcHandler, tree_against
from tests.test_http_transports import start_reference

ERA_ADVICE = (
    "connecting: this server speaks only 2025-11-25 (the handshake era); "
    "use --protocol auto or --protocol legacy"
)


@pytest.fixture
def handshake_http(reference_server: str) -> Iterator[str]:
    proc, port = start_reference("streamableHttp")
    yield f"http://127.0.0.1:{port}/mcp"
    proc.kill()
    proc.wait()


@pytest.mark.interop
def test_the_reference_http_server_gets_the_era_advice(handshake_http: str) -> None:
    result = run_cli("tree", "--protocol", "2026-07-28", "--timeout", "10", "-s", handshake_http)
    assert result.code == 1, result
    assert ERA_ADVICE in result.stderr, result.stderr
    assert "HTTP+SSE" not in result.stderr and "is the URL right" not in result.stderr, result.stderr
    auto = run_cli("tree", "--json", "--protocol", "auto", "--timeout", "10", "-s", handshake_http)
    assert auto.code == 0, auto
    assert len(json.loads(auto.stdout)["resources"]) == 7


class _Refusing(JsonRpcHandler):
    """A handshake-era server that refuses `server/discover` with `status`, `body` (of type `kind`; the
    text `{id}` is the request's id)."""

    server_name = "handshake-only"
    status: ClassVar[int]
    body: ClassVar[str]
    kind: ClassVar[str] = "application/json"

    def answer(self, method: str, message: dict[str, Any]) -> None:
        if method == "server/discover":
            body = self.body.replace("{id}", json.dumps(message.get("id")))
            self.send(self.status, body.encode(), self.kind)
        else:
            super().answer(method, message)

    def results(self) -> dict[str, object]:
        return {**super().results(), "resources/list": {"resources": [{"uri": "x://a/1", "name": "one"}]}}


def _error(code: int, message: str, ident: str = "null") -> str:
    return json.dumps({"jsonrpc": "2.0", "id": "ID", "error": {"code": code, "message": message}}).replace(
        '"ID"', ident
    )


REFUSALS = {
    "400, not initialized (server-everything)": (400, _error(-32000, "Bad Request: Server not initialized")),
    "400, no session (TypeScript SDK)": (400, _error(-32000, "Bad Request: No valid session ID provided")),
    "404, -32601 of its own": (404, _error(-32601, "Method not found", "{id}")),
    "400, -32601": (400, _error(-32601, "Method not found", "{id}")),
    "400, plain text": (400, "Bad Request: Mcp-Session-Id header is required"),
    # Only the discover POST refused, with no JSON-RPC error: a wrong URL or a legacy HTTP+SSE server
    # would refuse `initialize` the same way, this one accepts it (the handshake era, routed by method).
    "404, plain text": (404, "Not Found"),
    "405, plain text": (405, "Method Not Allowed"),
}


def _refusing(status: int, body: str) -> type[_Refusing]:
    class Handler(_Refusing):
        pass

    Handler.status, Handler.body = status, body
    Handler.kind = "application/json" if body.startswith("{") else "text/plain"
    return Handler


@pytest.mark.parametrize("refusal", REFUSALS, ids=list(REFUSALS))
def test_a_refused_discover_gets_the_era_advice_not_the_sse_fallback(refusal: str) -> None:
    handler = _refusing(*REFUSALS[refusal])
    _, result = tree_against(handler, "--protocol", "2026-07-28")
    assert result.code == 1, result
    assert ERA_ADVICE in result.stderr, result.stderr
    assert "HTTP+SSE" not in result.stderr and "is the URL right" not in result.stderr, result.stderr
    _, auto = tree_against(handler, "--protocol", "auto")
    assert auto.code == 0 and "x://a" in auto.stdout, auto


class _InitializeFails(_Refusing):
    """Refuses `server/discover` as not initialized, and fails `initialize` too: the era cannot be
    learned, but the refusal's words still say which one the server wants."""

    status, body = REFUSALS["400, not initialized (server-everything)"]

    def answer(self, method: str, message: dict[str, Any]) -> None:
        if method == "initialize":
            self.reply(message["id"], error={"code": -32603, "message": "database down"}, status=500)
        else:
            super().answer(method, message)


def test_the_refusal_says_the_era_when_initialize_fails_too() -> None:
    _, result = tree_against(_InitializeFails, "--protocol", "2026-07-28")
    assert result.code == 1, result
    assert (
        "connecting: the server refused server/discover with HTTP 400 Bad Request (error -32000: Bad "
        "Request: Server not initialized): it expects initialize first, as servers of the handshake era "
        "do; use --protocol auto or --protocol legacy"
    ) in result.stderr, result.stderr
    assert "HTTP+SSE" not in result.stderr, result.stderr


class _NoStreamableHttp(JsonRpcHandler):
    """No Streamable HTTP at this URL: every POST answered `status` with an HTML page (as a legacy HTTP+SSE
    server's web framework answers), the GET 405."""

    status: ClassVar[int]

    def do_POST(self) -> None:
        self.read_message()
        self.send(self.status, b"<html><body>Cannot POST /mcp</body></html>", "text/html")


@pytest.mark.parametrize("status", [400, 404, 405])
def test_a_post_refused_without_a_json_rpc_error_still_tries_legacy_sse(status: int) -> None:
    class Handler(_NoStreamableHttp):
        pass

    Handler.status = status
    _, result = tree_against(Handler, "--protocol", "2026-07-28")
    assert result.code == 1, result
    assert f"the server answered HTTP {status} " in result.stderr, result.stderr
    assert "the legacy HTTP+SSE transport failed too" in result.stderr, result.stderr
    assert "--protocol" not in result.stderr, result.stderr
