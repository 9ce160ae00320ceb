"""A listing that comes in one big message over HTTP: a server that cannot paginate lists everything at once.

The SDK's HTTP clients read a server-sent event of at most 1 MiB by default; a server built with its own
`MCPServer` that lists 20,000 resources sends one of about 2 MB, and the whole listing used to fail
("Server-sent event exceeded the 1048576 byte limit"). The explorer takes messages as big over HTTP as
over stdio (`connection.sizes.MAX_MESSAGE_BYTES`).
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.paths import ROOT

pytestmark = pytest.mark.slow

COUNT = 20_000  # one message of about 2 MB


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _serve(transport: str) -> Iterator[int]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fixtures.one_page_server", str(COUNT), transport, str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"the one-page server did not listen: {proc.stderr}") from None
                time.sleep(0.1)
        yield port
    finally:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def streamable_port() -> Iterator[int]:
    yield from _serve("streamable-http")


@pytest.fixture(scope="module")
def sse_port() -> Iterator[int]:
    yield from _serve("sse")


def _listed(*args: str) -> tuple[dict[str, object], list[dict[str, object]]]:
    result = run_cli("tree", "--json", *args)
    assert "Traceback" not in result.stderr
    data = json.loads(result.stdout)
    [server] = data["servers"]
    return server, data["resources"]


def test_streamable_http_takes_one_big_page(streamable_port: int) -> None:
    """The handshake era, where the server answers with an event stream (the modern era's plain JSON
    answer was never limited)."""
    server, resources = _listed("--protocol", "legacy", "-s", f"http://127.0.0.1:{streamable_port}/mcp")
    assert server["ok"] and server["complete"], server
    assert len(resources) == COUNT
    last = f"bench://host9/item{COUNT - 1}.json"
    assert {r["uri"] for r in resources} >= {"bench://host0/item0.json", last}


def test_legacy_sse_takes_one_big_page(sse_port: int) -> None:
    server, resources = _listed("--sse", "--protocol", "legacy", "-s", f"http://127.0.0.1:{sse_port}/sse")
    assert server["ok"] and server["complete"], server
    assert len(resources) == COUNT
