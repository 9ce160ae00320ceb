"""The servers people really run, pinned from npm: a tools-only server and one with a single resource.

`@modelcontextprotocol/server-filesystem` declares only tools; `@modelcontextprotocol/server-memory`
declares resources (one knowledge-graph resource) and tools. Both must show as connected, exit 0.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers.cli import run_cli

pytestmark = pytest.mark.interop


def test_filesystem_server_is_connected_with_its_tools(
    npm_server: Callable[..., str], tmp_path: Path
) -> None:
    spec = npm_server("server-filesystem", str(tmp_path))
    result = run_cli("tree", "--json", "-s", spec)
    assert result.code == 0, result
    [server] = json.loads(result.stdout)["servers"]
    assert server["ok"] and server["complete"] and server["offered"]["resources"] is False
    assert server["serverInfo"]["name"] == "secure-filesystem-server"
    assert server["tools"] >= 10
    tools = run_cli("tools", "-s", spec)
    assert tools.code == 0 and any(
        line.startswith("read_text_file(path*") for line in tools.stdout.splitlines()
    )
    text = run_cli("tree", "-s", spec)
    assert text.code == 0 and "no resources · " in text.stdout and " tools in 1 page" in text.stdout


def test_memory_server_lists_its_resource_and_tools(npm_server: Callable[..., str]) -> None:
    spec = npm_server("server-memory")
    result = run_cli("tree", "--json", "-s", spec)
    assert result.code == 0, result
    data = json.loads(result.stdout)
    [server] = data["servers"]
    assert server["ok"] and server["complete"] and server["tools"] >= 5
    assert [r["uri"] for r in data["resources"]] == ["memory://knowledge-graph"]
