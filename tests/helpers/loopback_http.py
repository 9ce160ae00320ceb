"""A test's HTTP server on a free loopback port, for as long as the test runs.

The hostile HTTP servers of the tests are `BaseHTTPRequestHandler`s that speak HTTP/1.1 and log nothing
(`QuietHandler`); `served` runs one in a thread and gives its URL.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["QuietHandler", "served"]


class QuietHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 (a session's connections are kept), and no log line per request on the test's stderr."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        return None


def served(
    handler: type[BaseHTTPRequestHandler], path: str = "/mcp", *, stopping: Callable[[], None] | None = None
) -> Iterator[str]:
    """`handler`'s server: yields its URL (`path` on it), then stops it (`stopping` first: what makes a
    handler that still waits give up)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{path}"
    finally:
        if stopping is not None:
            stopping()
        server.shutdown()
        server.server_close()
