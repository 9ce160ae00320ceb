"""A request refused with HTTP 431 (Request Header Fields Too Large) says that its headers were too large
for the server, and names the headers the user gave (`-H`, a config's headers) by name, never their values
(they can be secrets), with their total size: they are the likely cause.

Before: "the server answered with an HTTP error (HTTP 431 Request Header Fields Too Large)", or, when the
first request was refused, that the legacy HTTP+SSE transport failed too and "is the URL right?".
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import ClassVar

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.loopback_http import QuietHandler, served

NEVER = "60"  # a request that waits for its timeout fails the run (`RUN_AT_MOST`), not just its text
RUN_AT_MOST = 45.0
MOST_HEADERS = 8 * 1024  # what the server takes of a request's headers
SECRET = "s3cr3t-" + "x" * 12_000


class _SmallHeaders(QuietHandler):
    """Streamable HTTP in the handshake era, no session; a request whose headers pass `MOST_HEADERS`
    bytes is answered 431, but only from `refused_from` on (0: every request)."""

    refused_from: ClassVar[str] = ""

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        method = str(message.get("method"))
        size = sum(len(name) + len(value) + 4 for name, value in self.headers.items())
        if size > MOST_HEADERS and (not self.refused_from or method == self.refused_from):
            self.send(431, b"<html><body>Request Header Fields Too Large</body></html>", "text/html")
            return
        if "id" not in message:
            self.send(202, b"")
            return
        result = {
            "initialize": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"resources": {}},
                "serverInfo": {"name": "small-headers", "version": "1"},
            },
            "resources/templates/list": {"resourceTemplates": []},
            "resources/list": {"resources": [{"uri": "x://a/1", "name": "one"}]},
        }.get(method)
        answer = (
            {"result": result}
            if result is not None
            else {"error": {"code": -32601, "message": "Method not found"}}
        )
        self.send(200, json.dumps({"jsonrpc": "2.0", "id": message["id"], **answer}).encode())

    def do_GET(self) -> None:
        size = sum(len(name) + len(value) + 4 for name, value in self.headers.items())
        self.send(431 if size > MOST_HEADERS else 405, b"")

    def send(self, status: int, body: bytes, kind: str = "application/json") -> None:
        self.send_response(status)
        if body:
            self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def refuses_every_request() -> Iterator[str]:
    class Handler(_SmallHeaders):
        refused_from = ""

    yield from served(Handler)


@pytest.fixture
def refuses_listing() -> Iterator[str]:
    class Handler(_SmallHeaders):
        refused_from = "resources/list"

    yield from served(Handler)


def _tree(url: str, *more: str) -> tuple[int, str]:
    result = run_cli(
        "tree", "--timeout", NEVER, "-s", url, "-H", f"X-Api-Token: {SECRET}", *more, timeout=RUN_AT_MOST
    )
    assert "Traceback" not in result.stderr, result
    assert SECRET[:20] not in result.stderr and SECRET[:20] not in result.stdout  # a value is never shown
    return result.code, result.stderr


def test_a_431_to_connecting_names_the_users_headers(refuses_every_request: str) -> None:
    code, said = _tree(refuses_every_request, "-H", "X-Team: blue")
    assert code == 1
    assert "the server answered HTTP 431 Request Header Fields Too Large" in said, said
    assert "the request's headers were too large for the server" in said, said
    assert "the headers given with -H or in the config (X-Api-Token, X-Team: 12.0 kB in all) are the" in said
    assert "legacy HTTP+SSE" not in said, said  # headers too large are no reason to try another transport


def test_a_431_to_a_later_request_names_the_users_headers(refuses_listing: str) -> None:
    code, said = _tree(refuses_listing)
    assert code == 1
    assert "listing resources: the server answered HTTP 431 Request Header Fields Too Large" in said, said
    assert "the request's headers were too large for the server" in said, said
    assert (
        "the headers given with -H or in the config (X-Api-Token: 12.0 kB in all) are the likely" in said
    ), said
    assert "answered with an HTTP error" not in said


def test_a_431_to_the_legacy_event_streams_get_names_the_users_headers(refuses_every_request: str) -> None:
    code, said = _tree(refuses_every_request, "--sse")
    assert code == 1
    assert (
        "connecting: the server answered HTTP 431 Request Header Fields Too Large to the event stream's GET: "
        "the request's headers were too large for the server"
    ) in said, said
    assert "the headers given with -H or in the config (X-Api-Token: 12.0 kB in all) are the likely" in said
    assert "without --sse" not in said, said
