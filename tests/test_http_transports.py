"""Streamable HTTP and legacy SSE, against the reference server on loopback; headers on the wire."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.npm import REFERENCE_ENTRY
from tests.helpers.paths import LOOPBACK_PRELOAD

pytestmark = pytest.mark.interop


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_reference(mode: str) -> tuple[subprocess.Popen[str], int]:
    port = free_port()
    proc = subprocess.Popen(
        ["node", "--require", str(LOOPBACK_PRELOAD), str(REFERENCE_ENTRY), mode],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc, port
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError(f"reference server ({mode}) did not listen on {port}")


@pytest.fixture
def reference_http(reference_server: str) -> Iterator[str]:
    proc, port = start_reference("streamableHttp")
    yield f"http://127.0.0.1:{port}/mcp"
    proc.kill()
    proc.wait()


@pytest.fixture
def reference_sse(reference_server: str) -> Iterator[str]:
    proc, port = start_reference("sse")
    yield f"http://127.0.0.1:{port}/sse"
    proc.kill()
    proc.wait()


def test_streamable_http_lists_and_reads(reference_http: str) -> None:
    result = run_cli("tree", "--json", "-s", reference_http)
    assert result.code == 0, result
    data = json.loads(result.stdout)
    assert data["servers"][0]["ok"] and len(data["resources"]) == 7 and len(data["templates"]) == 2
    read = run_cli("read", "demo://resource/static/document/features.md", "-s", reference_http)
    assert read.code == 0 and read.stdout.strip()


def test_legacy_sse_lists(reference_sse: str) -> None:
    result = run_cli("tree", "--json", "--sse", "-s", reference_sse)
    assert result.code == 0, result
    assert len(json.loads(result.stdout)["resources"]) == 7


class _Recorder(BaseHTTPRequestHandler):
    seen: ClassVar[list[dict[str, str]]] = []

    def do_POST(self) -> None:
        type(self).seen.append({k.lower(): v for k, v in self.headers.items()})
        self.send_response(503)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        self.do_POST()

    def do_DELETE(self) -> None:
        self.do_POST()

    def log_message(self, format: str, *args: object) -> None:
        return None


def test_headers_are_sent_and_an_http_error_is_one_line() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/mcp"
        result = run_cli(
            "tree", "-s", url, "-H", "Authorization: Bearer SECRET-TOKEN-42", "-H", "X-Team: tools"
        )
    finally:
        server.shutdown()
    assert any(
        h.get("authorization") == "Bearer SECRET-TOKEN-42" and h.get("x-team") == "tools"
        for h in _Recorder.seen
    )
    assert result.code == 1
    assert result.stderr.startswith("error: server 127.0.0.1:") and "Traceback" not in result.stderr
    assert "SECRET-TOKEN-42" not in result.stderr + result.stdout


def test_connection_refused_is_a_clear_failure() -> None:
    result = run_cli("tree", "--json", "-s", f"http://127.0.0.1:{free_port()}/mcp")
    assert result.code == 1
    server = json.loads(result.stdout)["servers"][0]
    assert not server["ok"] and "cannot connect" in server["error"]


def test_an_sse_url_without_sse_falls_back_and_says_so(reference_sse: str) -> None:
    result = run_cli("tree", "--json", "-s", reference_sse)
    assert result.code == 0, result
    [server] = json.loads(result.stdout)["servers"]
    assert server["transport"] == "sse" and len(json.loads(result.stdout)["resources"]) == 7
    assert any("legacy HTTP+SSE" in note for note in server["notes"])
    assert "connected with the legacy HTTP+SSE transport" in result.stderr and "--sse" in result.stderr


def test_sse_on_a_streamable_http_url_says_to_drop_sse(reference_http: str) -> None:
    """It said only "the server answered HTTP 405 Method Not Allowed" (the reference server, like many, has
    no GET stream): the likeliest cause, and its cure, were left to guess."""
    result = run_cli("tree", "--sse", "--timeout", "10", "-s", reference_http)
    assert result.code == 1, result
    assert "the legacy HTTP+SSE transport opens its stream with GET, which this URL refused" in result.stderr
    assert "if it is a Streamable HTTP endpoint, connect without --sse" in result.stderr


def test_a_wrong_path_reports_both_attempts(reference_sse: str) -> None:
    wrong = reference_sse.rsplit("/", 1)[0] + "/no-such-endpoint"
    result = run_cli("tree", "-s", wrong)
    assert result.code == 1
    line = result.stderr.strip()
    assert "HTTP 404" in line and "legacy HTTP+SSE transport failed too" in line
    assert "is the URL right?" in line and "\n" not in line and "Traceback" not in line
