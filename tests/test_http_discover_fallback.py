"""A Streamable HTTP server that never answers `server/discover`: the explorer connects with `initialize`
after --timeout, as the README says, and says so; one that answers nothing at all fails with one sentence.

Before, the HTTP client's read timeout ended the whole transport first, and the CLI said only
"ReadTimeout (ReadTimeout)"."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.loopback_http import JsonRpcHandler, served

pytestmark = pytest.mark.slow


class _SilentOnDiscover(JsonRpcHandler):
    """`server/discover` is left unanswered until the test ends."""

    server_name = "no-discover"
    stop = threading.Event()

    def answer(self, method: str, message: dict[str, Any]) -> None:
        if method == "server/discover":
            self.stop.wait(120)
        else:
            super().answer(method, message)

    def results(self) -> dict[str, object]:
        return {
            **super().results(),
            "resources/list": {"resources": [{"uri": "test://only/one", "name": "one"}]},
        }


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
        "connecting: the server answered neither server/discover nor initialize "
        "(waited 2 s for each, 4 s in all; --timeout SECONDS waits longer)" in result.stderr
    )
    assert "ReadTimeout" not in result.stderr
