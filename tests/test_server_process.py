"""A stdio server is started without the MCP SDK, so it boots while the SDK imports.

A connection that begins before the SDK is imported starts its server first, then imports the SDK (in a
thread); these tests stand in for "the SDK is not imported yet" (pytest imported it long ago) and check
what a user would: the server was running while the import ran, it answers as usual, it is stopped when
the connection fails or is cancelled before it is used, and a server that cannot start says so as it
always did. Servers of other tests may still be registered in this worker: only this test's are looked at.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from pathlib import Path

import anyio
import anyio.lowlevel
import anyio.to_thread
import pytest

from explorer.config import ServerSpec
from explorer.connection import server_process, session, stdio
from explorer.connection.errors import ServerFault
from explorer.connection.session import ServerConnection
from explorer.connection.stdio import live_server_groups, settle_server_stops
from tests.helpers.paths import FIXTURES

pytestmark = pytest.mark.anyio

RAW = str(FIXTURES / "raw_server.py")


def raw_spec(name: str) -> ServerSpec:
    return ServerSpec(name=name, transport="stdio", command=sys.executable, args=(RAW, "--mode", "plain"))


def groups_of(name: str, groups: dict[int, str] | None = None) -> list[int]:
    """The live process groups of the stdio servers named `name`."""
    found = live_server_groups() if groups is None else groups
    return [group for group, server in found.items() if server == name]


class Starts:
    """The servers started by `start_server`, in order, by name."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.names: list[str] = []
        original = stdio.start_server

        async def counted(spec: ServerSpec, **options: object) -> stdio.StartedServer:
            self.names.append(spec.name)
            return await original(spec, **options)  # type: ignore[arg-type]

        monkeypatch.setattr(stdio, "start_server", counted)


@pytest.fixture
def sdk_not_imported(monkeypatch: pytest.MonkeyPatch) -> list[dict[int, str]]:
    """The SDK is not imported yet: the first connection "imports" it. Returns, for each import, the stdio
    servers that were running when it began."""
    running_at_import: list[dict[int, str]] = []
    imported = False

    def is_imported() -> bool:
        return imported

    def import_sdk() -> None:
        nonlocal imported
        running_at_import.append(live_server_groups())
        imported = True

    monkeypatch.setattr(session, "sdk_imported", is_imported)
    monkeypatch.setattr(session, "import_sdk", import_sdk)
    return running_at_import


def test_a_server_inherits_what_the_sdk_would_let_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp.client import stdio as sdk_stdio

    assert tuple(sdk_stdio.DEFAULT_INHERITED_ENV_VARS) == server_process.INHERITED_VARIABLES
    for name in server_process.INHERITED_VARIABLES:
        monkeypatch.setenv(name, f"value of {name}")
    monkeypatch.setenv("SHELL", "() { echo exported function; }")  # never passed on
    monkeypatch.setenv("MCP_EXPLORER_SECRET_TOKEN", "not for servers")
    ours = server_process.inherited_environment()
    assert ours == sdk_stdio.get_default_environment()
    assert ours["HOME"] == "value of HOME" and "SHELL" not in ours
    assert "MCP_EXPLORER_SECRET_TOKEN" not in ours
    monkeypatch.delenv("LOGNAME")
    assert "LOGNAME" not in server_process.inherited_environment()


async def test_the_server_boots_while_the_sdk_imports(
    sdk_not_imported: list[dict[int, str]], tmp_path: Path
) -> None:
    async with ServerConnection(raw_spec("booting"), stderr_log=tmp_path / "raw.log") as conn:
        assert conn.identity is not None and conn.identity.name == "raw-fixture"
        (running,) = sdk_not_imported
        (group,) = groups_of("booting", running)  # started before the import began
        assert os.getsid(group) == group  # in a session of its own: its whole group can be stopped
        result = await conn.request("resources/list", None, action="listing resources")
        assert result["resources"]
    assert groups_of("booting") == []  # stopped with the connection


async def test_a_failed_import_stops_the_server_it_started(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    running: list[dict[int, str]] = []

    def broken_import() -> None:
        running.append(live_server_groups())
        raise ImportError("the SDK is broken")

    graces: list[float] = []
    wait_for_exit = server_process.wait_for_exit

    async def watched_wait(process: object, seconds: float) -> bool:
        graces.append(seconds)
        return await wait_for_exit(process, seconds)

    monkeypatch.setattr(session, "sdk_imported", lambda: False)
    monkeypatch.setattr(session, "import_sdk", broken_import)
    monkeypatch.setattr(server_process, "wait_for_exit", watched_wait)
    with pytest.raises(ImportError):
        async with ServerConnection(raw_spec("doomed"), stderr_log=tmp_path / "raw.log"):
            pass
    assert len(groups_of("doomed", running[0])) == 1
    assert groups_of("doomed") == []
    # Never spoken to, maybe still booting: no grace for it to exit on stdin's end (a quit waits for it).
    assert graces[0] == 0.0


async def test_a_connection_cancelled_while_the_sdk_imports_stops_its_server(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The TUI cancels its workers with native `task.cancel()`, more than once when the user quits."""
    importing = threading.Event()
    release = threading.Event()

    def slow_import() -> None:
        importing.set()
        release.wait(10)

    monkeypatch.setattr(session, "sdk_imported", lambda: False)
    monkeypatch.setattr(session, "import_sdk", slow_import)

    async def connect() -> None:
        async with ServerConnection(raw_spec("quitting"), stderr_log=tmp_path / "raw.log"):
            pass

    task = asyncio.get_running_loop().create_task(connect())
    try:
        assert await anyio.to_thread.run_sync(importing.wait, 10)
        assert len(groups_of("quitting")) == 1
        task.cancel()
        await anyio.lowlevel.checkpoint()
        task.cancel()
    finally:
        release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    await settle_server_stops()
    assert groups_of("quitting") == []


async def test_a_server_that_cannot_start_says_so_as_before(
    sdk_not_imported: list[dict[int, str]], tmp_path: Path
) -> None:
    spec = ServerSpec(name="ghost", transport="stdio", command="mcp-url-explorer-no-such-command-42")
    with pytest.raises(ServerFault) as info:
        async with ServerConnection(spec, stderr_log=tmp_path / "ghost.log"):
            pass
    assert "command not found" in info.value.message
    assert groups_of("ghost", sdk_not_imported[0]) == []  # it never ran


async def test_once_the_sdk_is_imported_a_server_starts_as_it_connects(
    sdk_not_imported: list[dict[int, str]], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Nothing to overlap: the server is started by its transport, not ahead of it."""
    starts = Starts(monkeypatch)
    early: list[str] = []
    original = ServerConnection._start_early

    async def watched(self: ServerConnection) -> stdio.StartedServer | None:
        started = await original(self)
        if started is not None:
            early.append(self.name)
        return started

    monkeypatch.setattr(ServerConnection, "_start_early", watched)
    async with ServerConnection(raw_spec("first"), stderr_log=tmp_path / "first.log"):
        pass
    async with ServerConnection(raw_spec("second"), stderr_log=tmp_path / "second.log") as conn:
        assert conn.identity is not None
    assert early == ["first"]
    assert starts.names == [
        "first",
        "second",
    ]  # each started once: the first ahead, the second by its transport


async def test_closing_the_transport_of_a_server_is_found_and_done() -> None:
    """`close_transport` reaches asyncio's transport through anyio's process object (private names of
    the pinned versions): if they move, this fails instead of transports staying open."""
    process = await server_process.open_server(
        sys.executable,
        ["-c", "import time; time.sleep(30)"],
        server_process.inherited_environment(),
        sys.stderr,
        None,
    )
    try:
        transport = process._process._transport  # type: ignore[attr-defined]
        assert not transport.is_closing()
        server_process.close_transport(process)
        assert transport.is_closing()  # closing it also ends the process
        assert await server_process.wait_for_exit(process, 10)
    finally:
        if process.returncode is None:
            process.kill()
        await process.aclose()
