"""ServerSpec -> an MCP transport (an async context manager yielding the two message streams).

A stdio server's stderr goes to its own log file, never the terminal: under Textual the default
`sys.stderr` has no real file descriptor, so the child would write straight over the screen.
stdio itself is `stdio.py` (a linear, bounded reader; secrets masked on the way to the log).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from explorer.config import ServerSpec
from explorer.connection.errors import ProtocolProblems

if TYPE_CHECKING:
    from mcp.client._transport import TransportStreams

    from explorer.connection.stdio import StderrPump


@asynccontextmanager
async def open_transport(
    spec: ServerSpec,
    *,
    timeout: float,
    stderr_log: Path | None,
    problems: ProtocolProblems | None = None,
    pump_holder: list[StderrPump] | None = None,
) -> AsyncIterator[TransportStreams]:
    """Open the transport a spec describes; the caller builds an `mcp.Client` on the streams.

    `problems` collects what a stdio server wrote that was not a message; `pump_holder` receives the
    stderr pump when one masks secrets on the way to the log (so callers can wait for it to settle).
    """
    if spec.transport == "stdio":
        from explorer.connection.stdio import stdio_transport

        async with stdio_transport(
            spec,
            stderr_log=stderr_log,
            problems=problems if problems is not None else ProtocolProblems(),
            pump_holder=pump_holder,
        ) as streams:
            yield streams
    elif spec.transport == "sse":
        from mcp.client.sse import sse_client

        assert spec.url is not None
        async with sse_client(spec.url, headers=dict(spec.headers), timeout=timeout) as streams:
            yield streams
    else:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        assert spec.url is not None
        http = create_mcp_http_client(
            headers=dict(spec.headers), timeout=httpx2.Timeout(timeout, read=max(timeout, 300.0))
        )
        async with http, streamable_http_client(spec.url, http_client=http) as streams:
            yield streams


def tail(path: Path | None, max_bytes: int = 4096) -> str:
    """The end of a stderr log, for error dialogs and messages (decoding never fails)."""
    if path is None or not path.exists():
        return ""
    with path.open("rb") as handle:
        handle.seek(0, 2)
        size = handle.tell()
        handle.seek(max(0, size - max_bytes))
        return handle.read().decode("utf-8", errors="replace")
