"""A Streamable HTTP server that never answers `server/discover`: the explorer connects with `initialize`
after --timeout, as the README says, and says so; one that answers nothing at all fails with one sentence.

Before, the HTTP client's read timeout ended the whole transport first, and the CLI said only
"ReadTimeout (ReadTimeout)"."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.loopback_http import QuietHandler, served

pytestmark = pytest.mark.slow


class _SilentOnDiscover(QuietHandler):
    """Handshake era over Streamable HTTP; `server/discover` is left unanswered until the test ends."""

    stop = threading.Event()

    def _json(self, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        method = message.get("method")
        if method == "server/discover":
            self.stop.wait(120)
            return
        if "id" not in message:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        results = {
            "initialize": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"resources": {}},
                "serverInfo": {"name": "no-discover", "version": "1"},
            },
            "resources/list": {"resources": [{"uri": "test://only/one", "name": "one"}]},
            "resources/templates/list": {"resourceTemplates": []},
        }
        self._json({"jsonrpc": "2.0", "id": message["id"], "result": results.get(method, {})})

    def do_DELETE(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture
def silent_on_discover() -> Iterator[str]:
    yield from served(_SilentOnDiscover, stopping=_SilentOnDiscover.stop.set)


@pytest.fixture
def black_hole() -> Iterator[str]:
    """A port that accepts connections and never answers a byte."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: list[socket.socket] = []
    done = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not done.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
    done.set()
    thread.join()
    for connection in held:
        connection.close()
    listener.close()


def test_a_server_silent_on_discover_is_connected_with_initialize(silent_on_discover: str) -> None:
    result = run_cli("tree", "--timeout", "2", "-s", silent_on_discover, timeout=60)
    assert result.code == 0, result
    assert "test://only" in result.stdout and "one" in result.stdout
    servers = run_cli("servers", "--json", "--timeout", "2", "-s", silent_on_discover, timeout=60)
    [server] = json.loads(servers.stdout)["servers"]
    assert any("did not answer server/discover within 2 s" in note for note in server["notes"]), server


def test_a_server_that_answers_nothing_fails_with_one_sentence(black_hole: str) -> None:
    result = run_cli("tree", "--timeout", "2", "-s", black_hole, timeout=60)
    assert result.code == 1, result
    assert (
        "connecting: the server answered neither server/discover nor initialize within 2 s" in result.stderr
    )
    assert "ReadTimeout" not in result.stderr
