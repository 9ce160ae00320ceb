"""A stdio server is started without the MCP SDK, so it boots while the SDK imports.

The first connection of a run starts its server first, then imports the SDK (in a thread); these tests
stand in for "the SDK is not imported yet" (pytest has imported it long ago) and check what a user would:
the server was running while the import ran, it answers as usual, it is stopped when anything fails,
and a server that cannot start says so as it always did.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from explorer.config import ServerSpec
from explorer.connection import server_process, session
from explorer.connection.errors import ServerFault
from explorer.connection.session import ServerConnection
from explorer.connection.stdio import live_server_groups
from tests.helpers.paths import FIXTURES

pytestmark = pytest.mark.anyio

RAW = str(FIXTURES / "raw_server.py")


def raw_spec(name: str = "raw") -> ServerSpec:
    return ServerSpec(name=name, transport="stdio", command=sys.executable, args=(RAW, "--mode", "plain"))


@pytest.fixture
def sdk_not_imported(monkeypatch: pytest.MonkeyPatch) -> list[dict[int, str]]:
    """The first connection of a run: the SDK is "imported" by the connection. Returns, for each import,
    the stdio servers that were running when it began."""
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
    from mcp.client.stdio import get_default_environment

    monkeypatch.setenv("HOME", "/home/someone")
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("SHELL", "() { echo exported function; }")  # never passed on
    monkeypatch.delenv("LOGNAME", raising=False)
    monkeypatch.setenv("MCP_EXPLORER_SECRET_TOKEN", "not for servers")
    ours = server_process.inherited_environment()
    assert ours == get_default_environment()
    assert ours["HOME"] == "/home/someone" and "SHELL" not in ours and "LOGNAME" not in ours
    assert "MCP_EXPLORER_SECRET_TOKEN" not in ours


async def test_the_server_boots_while_the_sdk_imports(
    sdk_not_imported: list[dict[int, str]], tmp_path: Path
) -> None:
    async with ServerConnection(raw_spec(), stderr_log=tmp_path / "raw.log") as conn:
        assert conn.identity is not None and conn.identity.name == "raw-fixture"
        (running,) = sdk_not_imported
        assert list(running.values()) == ["raw"]  # started before the import began
        (group,) = running
        assert os.getsid(group) == group  # in a session of its own: its whole group can be stopped
        result = await conn.request("resources/list", None, action="listing resources")
        assert result["resources"]
    assert group not in live_server_groups()  # stopped with the connection


async def test_a_failed_import_stops_the_server_it_started(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    started: list[dict[int, str]] = []

    def broken_import() -> None:
        started.append(live_server_groups())
        raise ImportError("the SDK is broken")

    monkeypatch.setattr(session, "sdk_imported", lambda: False)
    monkeypatch.setattr(session, "import_sdk", broken_import)
    with pytest.raises(ImportError):
        async with ServerConnection(raw_spec("doomed"), stderr_log=tmp_path / "raw.log"):
            pass
    ((group, name),) = started[0].items()
    assert name == "doomed"
    assert group not in live_server_groups()


async def test_a_server_that_cannot_start_says_so_as_before(
    sdk_not_imported: list[dict[int, str]], tmp_path: Path
) -> None:
    spec = ServerSpec(name="ghost", transport="stdio", command="mcp-url-explorer-no-such-command-42")
    with pytest.raises(ServerFault) as info:
        async with ServerConnection(spec, stderr_log=tmp_path / "ghost.log"):
            pass
    assert "command not found" in info.value.message
    assert sdk_not_imported == [{}]  # nothing was running when the SDK imported: no start succeeded


async def test_only_the_first_connection_starts_early(
    sdk_not_imported: list[dict[int, str]], tmp_path: Path
) -> None:
    """Once the SDK is imported, a connection starts its server as it connects (nothing to overlap)."""
    async with ServerConnection(raw_spec("first"), stderr_log=tmp_path / "first.log"):
        pass
    async with ServerConnection(raw_spec("second"), stderr_log=tmp_path / "second.log") as conn:
        assert conn.identity is not None
    assert len(sdk_not_imported) == 1
