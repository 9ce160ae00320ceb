"""`tools` asks for tools only: a server's endless resource listing costs it nothing (no bound reached,
no warning, exit 0), and the lists it never asked for are null in its JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.tiny_server import tiny_server

pytestmark = pytest.mark.slow

ENDLESS_RESOURCES = """
CAPABILITIES = {"resources": {}, "prompts": {}, "tools": {}}
def answer(method, params):
    if method == "resources/list":  # a page of 10 and another after it, for ever
        n = int(params.get("cursor") or 0)
        page = [{"uri": "r://%d" % (n + i), "name": "r%d" % (n + i)} for i in range(10)]
        return {"resources": page, "nextCursor": str(n + 10)}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    if method == "prompts/list":
        return {"prompts": [{"name": "p"}]}
    if method == "tools/list":
        return {"tools": [{"name": "lookup", "description": "Find a thing", "inputSchema": {
            "type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}]}
    return None
"""


def test_tools_lists_no_resources_and_no_bound_stops_it(tmp_path: Path) -> None:
    spec = tiny_server(tmp_path, ENDLESS_RESOURCES)
    result = run_cli("tools", "--max-items", "50", "-s", spec)
    assert result.code == 0, result
    assert result.stderr == ""
    assert result.stdout.startswith("lookup(q*)  - Find a thing")


def test_tools_json_has_null_for_the_lists_it_did_not_ask_for(tmp_path: Path) -> None:
    spec = tiny_server(tmp_path, ENDLESS_RESOURCES)
    result = run_cli("tools", "--json", "--max-items", "50", "-s", spec)
    assert result.code == 0, result
    data = json.loads(result.stdout)
    [server] = data["servers"]
    assert server["ok"] and server["complete"]
    assert server["tools"] == 1
    assert server["resources"] is None and server["templates"] is None and server["prompts"] is None
    assert server["lists"]["resources"]["asked"] is False and server["lists"]["resources"]["items"] is None
    assert [t["tool"]["name"] for t in data["tools"]] == ["lookup"]


def test_servers_still_lists_every_list(tmp_path: Path) -> None:
    """`servers` shows the health of each list: the endless one stops at the bound (exit 3)."""
    spec = tiny_server(tmp_path, ENDLESS_RESOURCES)
    result = run_cli("servers", "--json", "--max-items", "50", "-s", spec)
    assert result.code == 3, result
    [server] = json.loads(result.stdout)["servers"]
    assert server["tools"] == 1 and server["prompts"] == 1 and server["resources"] is not None
    [line] = result.stderr.splitlines()
    assert line.startswith("warning: server ") and line.endswith("stopped at the max-items bound")
