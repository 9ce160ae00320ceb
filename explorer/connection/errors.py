"""Turn whatever a failing server or transport raised into one clear sentence.

Users meet these messages in the CLI (one line on stderr) and in the TUI's error dialog, so every
branch names what the server did wrong, never a Python traceback. Server text inside a message is
kept raw here; callers sanitize before printing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# JSON-RPC / MCP codes people meet when exploring servers (see ../shared/notes/mcp-sdk.md).
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
LEGACY_NOT_FOUND = -32002
REQUEST_TIMEOUT = -32001
CONNECTION_CLOSED = -32000


@dataclass(frozen=True, slots=True)
class ServerFault(Exception):
    """A failure caused by a server (or reaching it): what the explorer shows, never raises further."""

    message: str
    code: int | None = None
    data: Any = None

    def __str__(self) -> str:
        return self.message


def _leaves(exc: BaseException) -> list[BaseException]:
    """Flatten nested ExceptionGroups (anyio task groups wrap transport errors several levels deep)."""
    if isinstance(exc, BaseExceptionGroup):
        found: list[BaseException] = []
        for inner in exc.exceptions:
            found.extend(_leaves(inner))
        return found
    return [exc]


def describe_exception(exc: BaseException, *, action: str, timeout: float | None = None) -> ServerFault:
    """Map an exception from a server call to a ServerFault with one sentence.

    `action` says what the explorer was doing ("connecting", "listing resources", "reading x").
    """
    from mcp import MCPError  # local: keeps `import explorer.connection.errors` cheap

    leaves = _leaves(exc)
    # Prefer the most informative leaf: an MCPError over a generic cancellation or closed stream.
    chosen = next((e for e in leaves if isinstance(e, MCPError)), None) or next(
        (e for e in leaves if not _is_noise(e)), leaves[0]
    )
    if isinstance(chosen, ServerFault):
        return chosen
    if isinstance(chosen, MCPError):
        code = chosen.code
        text = chosen.message or "(no message)"
        if code == REQUEST_TIMEOUT or "timed out" in text.lower():
            limit = f" after {timeout:g} s" if timeout is not None else ""
            return ServerFault(f"{action}: the server did not answer{limit} (timeout)", code, chosen.data)
        if code == CONNECTION_CLOSED and "closed" in text.lower():
            return ServerFault(
                f"{action}: the server closed the connection (did it exit?)", code, chosen.data
            )
        return ServerFault(f"{action}: the server answered error {code}: {text}", code, chosen.data)
    if isinstance(chosen, FileNotFoundError):
        missing = chosen.filename or str(chosen)
        return ServerFault(f"{action}: command not found: {missing}")
    if isinstance(chosen, PermissionError):
        return ServerFault(f"{action}: permission denied: {chosen.filename or chosen}")
    if isinstance(chosen, TimeoutError):
        limit = f" after {timeout:g} s" if timeout is not None else ""
        return ServerFault(f"{action}: the server did not answer{limit} (timeout)")
    name = type(chosen).__name__
    if name == "ValidationError":
        first = str(chosen).splitlines()
        detail = first[1].strip() if len(first) > 1 else first[0] if first else ""
        return ServerFault(f"{action}: the server sent a result that is not valid MCP ({detail})")
    if name in {"ConnectError", "ConnectTimeout"}:
        return ServerFault(f"{action}: cannot connect: {chosen}")
    if name in {"HTTPStatusError"}:
        return ServerFault(f"{action}: HTTP error: {chosen}")
    if name in {"ClosedResourceError", "BrokenResourceError", "EndOfStream"}:
        return ServerFault(f"{action}: the connection to the server broke (did it exit?)")
    text = str(chosen) or name
    return ServerFault(f"{action}: {text} ({name})")


def _is_noise(exc: BaseException) -> bool:
    """Secondary errors that hide the real cause when a transport tears down."""
    return type(exc).__name__ in {
        "CancelledError",
        "ClosedResourceError",
        "BrokenResourceError",
        "GeneratorExit",
    }
