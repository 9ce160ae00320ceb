"""A server that answers 429 Too Many Requests with `Retry-After`: the error says when to try again."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.loopback_http import QuietHandler, served

pytestmark = pytest.mark.slow


class _TooMany(QuietHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        body = b"<html>Too Many Requests</html>"
        self.send_response(429)
        self.send_header("Content-Type", "text/html")
        self.send_header("Retry-After", "3600")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture
def too_many() -> Iterator[str]:
    yield from served(_TooMany)


def test_a_429_says_when_to_retry(too_many: str) -> None:
    result = run_cli("tree", "--timeout", "10", "-s", too_many)
    assert result.code == 1, result
    assert "(HTTP 429 Too Many Requests); it asks to be retried after 3,600 s" in result.stderr
