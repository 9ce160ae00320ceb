"""A Streamable HTTP server that gives no session id and answers a later request HTTP 404 is said to have
answered HTTP 404 to that request (its endpoint is gone, or the URL is wrong), not "-32601: Not Found",
the error the SDK makes up for it (as if the method did not exist). A 404 to `resources/templates/list`
is that failure too, never "no templates"; a JSON-RPC -32601 answer still means the server has none.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import ClassVar

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.loopback_http import QuietHandler, served

NEVER = "60"  # a request that waits for its timeout fails the run (`RUN_AT_MOST`), not just its text
RUN_AT_MOST = 45.0


class _NoSession(QuietHandler):
    """Streamable HTTP in the handshake era, no session id; a request `gone` says is answered 404 (with
    an HTML page), one `unknown` says with a JSON-RPC -32601 (in a 200)."""

    gone: ClassVar[Callable[[str], bool]]
    unknown: ClassVar[Callable[[str], bool]] = staticmethod(lambda method: False)
    unknown_status: ClassVar[int] = 200

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        method = str(message.get("method"))
        if "id" not in message:
            self.send(202, b"")
        elif type(self).gone(method):
            self.send(404, b"<html><body>Not Found</body></html>", "text/html")
        elif method == "server/discover" or type(self).unknown(method):
            error = {"code": -32601, "message": "Method not found"}
            answer = json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error}).encode()
            self.send(200 if method == "server/discover" else self.unknown_status, answer)
        else:
            result = {
                "initialize": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"resources": {}},
                    "serverInfo": {"name": "no-session", "version": "1"},
                },
                "resources/templates/list": {"resourceTemplates": []},
                "resources/list": {"resources": [{"uri": "x://a/1", "name": "one"}]},
            }.get(method, {})
            self.send(200, json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode())

    def do_GET(self) -> None:
        self.send(405, b"")

    def send(self, status: int, body: bytes, kind: str = "application/json") -> None:
        self.send_response(status)
        if body:
            self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _tree(
    gone: Callable[[str], bool],
    unknown: Callable[[str], bool] = lambda method: False,
    unknown_status: int = 200,
) -> tuple[int, str, str, str]:
    """The exit code, stdout, stderr of `tree`, and the URL, against a server 404ing what `gone` says."""

    class Handler(_NoSession):
        pass

    Handler.gone = staticmethod(gone)
    Handler.unknown = staticmethod(unknown)
    Handler.unknown_status = unknown_status
    for url in served(Handler):
        result = run_cli("tree", "--timeout", NEVER, "-s", url, timeout=RUN_AT_MOST)
        assert "Traceback" not in result.stderr, result
        return result.code, result.stdout, result.stderr, url
    raise AssertionError("not served")


def test_a_404_to_a_later_request_says_the_server_answered_404() -> None:
    code, _, said, url = _tree(lambda method: method == "resources/list")
    assert code == 1
    assert (
        f"listing resources: the server answered HTTP 404 Not Found to resources/list: there is no MCP "
        f"endpoint at {url} (any more), or the URL is wrong; check the URL, then reconnect"
    ) in said, said
    assert "-32601" not in said and "error" not in said.split("listing resources:")[1]


def test_a_404_to_the_templates_listing_is_a_failure_not_no_templates() -> None:
    code, _, said, url = _tree(lambda method: method == "resources/templates/list")
    assert code == 1
    assert (
        "listing templates: the server answered HTTP 404 Not Found to resources/templates/list: there is no "
        f"MCP endpoint at {url} (any more)"
    ) in said, said


@pytest.mark.parametrize("status", [200, 404])
def test_a_json_rpc_method_not_found_to_the_templates_listing_still_means_no_templates(status: int) -> None:
    """A JSON-RPC -32601 error naming the request, in a 200 or as the body of a 404 (some servers say it
    so), is the server's answer: it has no templates."""
    code, out, said, _ = _tree(
        lambda method: False, lambda method: method == "resources/templates/list", status
    )
    assert code == 0, said
    assert "x://a/1" in out
