"""ServerSpec -> an MCP transport (an async context manager yielding the two message streams).

A stdio server's stderr goes to its own log file, never the terminal: under Textual the default
`sys.stderr` has no real file descriptor, so the child would write straight over the screen.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from explorer.config import ServerSpec

if TYPE_CHECKING:
    from mcp.client._transport import TransportStreams


@asynccontextmanager
async def open_transport(
    spec: ServerSpec, *, timeout: float, stderr_log: Path | None
) -> AsyncIterator[TransportStreams]:
    """Open the transport a spec describes; the caller builds an `mcp.Client` on the streams."""
    if spec.transport == "stdio":
        async with _stdio(spec, stderr_log) as streams:
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


@asynccontextmanager
async def _stdio(spec: ServerSpec, stderr_log: Path | None) -> AsyncIterator[TransportStreams]:
    from mcp import StdioServerParameters
    from mcp.client.stdio import stdio_client

    assert spec.command is not None
    params = StdioServerParameters(
        command=spec.command,
        args=list(spec.args),
        env=dict(spec.env) or None,
        cwd=spec.cwd,
        # A hostile or broken server may write bytes that are not UTF-8: show them, do not die.
        encoding_error_handler="replace",
    )
    log_path = stderr_log if stderr_log is not None else Path("/dev/null")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("a", encoding="utf-8", errors="replace") as errlog:
        async with stdio_client(params, errlog=errlog) as streams:
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
