"""Start and stop a stdio server's process without the MCP SDK (POSIX).

Why not the SDK's helpers, as before: reaching them imports the whole SDK, about a second, and the
server could not start before that was over. Started here, a server whose connection begins before the
SDK is imported (every server the TUI starts with) boots while the SDK imports, in a thread: the
built-in demo server, itself a Python program that imports the SDK, showed its first rows 0.8 s sooner
(`benchmarks/bench_startup.py`). What the SDK's helpers did is small and is done the same way here: the
server runs in a session (and process group) of its own, so the whole group can be stopped, with only a
safe part of our environment (`inherited_environment`; `tests/test_server_process.py` checks it against
the SDK's), and no wait for the pipes to close when waiting for it to exit.

Windows keeps the SDK's own transport (`stdio.stdio_transport`), which has its job objects.
"""

from __future__ import annotations

import os
from contextlib import suppress
from typing import IO, Any

import anyio
import anyio.abc

from explorer.connection.errors import ServerSentence

__all__ = [
    "INHERITED_VARIABLES",
    "NotAProgram",
    "close_pipe",
    "close_transport",
    "inherited_environment",
    "open_server",
    "wait_for_exit",
]

INHERITED_VARIABLES = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")
"""The variables of our environment a server inherits (the rest of its environment is its spec's)."""

_EXIT_POLL = 0.01


def inherited_environment() -> dict[str, str]:
    """`INHERITED_VARIABLES` that are set, except exported shell functions (a value starting "()")."""
    environment: dict[str, str] = {}
    for name in INHERITED_VARIABLES:
        value = os.environ.get(name)
        if value is not None and not value.startswith("()"):
            environment[name] = value
    return environment


async def open_server(
    command: str, args: list[str], env: dict[str, str], errlog: IO[Any], cwd: str | None
) -> anyio.abc.Process:
    """Start the server in a session of its own (its pid is its process group's id); `errlog` gets its
    stderr (only its file descriptor is used)."""
    try:
        return await anyio.open_process(
            [command, *args], env=env, stderr=errlog, cwd=cwd, start_new_session=True
        )
    except PermissionError as exc:
        # The OS says EACCES for a folder too: "permission denied: /tmp" sent the user to chmod.
        if _names_a_directory(command, cwd):
            raise NotAProgram(f"the command {command} is a directory, not a program") from exc
        raise


def _names_a_directory(command: str, cwd: str | None) -> bool:
    """A command with a slash is a path (from the server's cwd); one that is a directory cannot run.
    Only after the start failed: a quick stat, never on the way of a start that works."""
    return "/" in command and os.path.isdir(os.path.join(cwd or "", command))


class NotAProgram(ServerSentence):
    """The command names a directory: said as such, not as the OS's "permission denied"."""


async def close_pipe(pipe: Any) -> None:
    """Close one of the process's pipes, whether it is open, closed, broken or in use."""
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await pipe.aclose()


async def wait_for_exit(process: Any, seconds: float) -> bool:
    """Whether the process exited within `seconds` (it is not killed here).

    By its return code, not `process.wait()`: on asyncio that also waits for its pipes to close, and a
    child that inherited them makes a server that exited look hung.
    """
    deadline = anyio.current_time() + seconds
    while process.returncode is None:
        if anyio.current_time() >= deadline:
            return False
        await anyio.sleep(_EXIT_POLL)
    return True


def close_transport(process: Any) -> None:
    """Close asyncio's transport of the process, which else stays open (and warns when collected) while a
    surviving child holds a pipe; nothing public reaches it. Nothing to do on other event loops."""
    transport = getattr(getattr(process, "_process", None), "_transport", None)
    close = getattr(transport, "close", None)  # uvloop's transport is not an asyncio one: duck-typed
    if callable(close):
        with suppress(PermissionError):  # re-killing a setuid child, on Python 3.12 and before
            close()
