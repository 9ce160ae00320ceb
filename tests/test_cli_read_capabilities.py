"""`read` asks only a server that declares resources, and `read --watch --for` says why it exits 3.

A tools-only server (server-filesystem) was sent resources/read anyway and the user got "-32601 Method
not found"; README says only declared capabilities are asked for. Now the server is not asked and the
error says it offers no resources; with several servers, one that declares resources is asked instead.
`read --watch --for N` with no new version exited 3 with nothing on stderr to say why.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.tiny_server import tiny_server

pytestmark = pytest.mark.slow

TOOLS_ONLY = """
import pathlib
CAPABILITIES = {"tools": {}}
def answer(method, params):
    if method.startswith("resources/"):
        pathlib.Path(sys.argv[1]).write_text(method)  # it was asked what it never offered
        return None
    if method == "tools/list":
        return {"tools": []}
    return None
"""

RESOURCES = """
CAPABILITIES = {"resources": {"subscribe": True}}
def answer(method, params):
    if method == "resources/list":
        return {"resources": []}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    if method == "resources/read":
        return {"contents": [{"uri": params["uri"], "text": "the text of " + params["uri"]}]}
    if method in ("resources/subscribe", "resources/unsubscribe"):
        return {}
    return None
"""

NO_RESOURCES = "server tools.py offers no resources (it declares no resources capability)"


def test_a_tools_only_server_is_not_asked_to_read(tmp_path: Path) -> None:
    asked = tmp_path / "asked"
    tools = tiny_server(tmp_path, TOOLS_ONLY, str(asked), name="tools.py")
    result = run_cli("-s", tools, "read", "file:///etc/hosts")
    assert result.code == 1, result
    assert f"error: {NO_RESOURCES}" in result.stderr, result
    assert "-32601" not in result.stderr and not asked.exists(), result
    as_json = run_cli("-s", tools, "read", "--json", "file:///etc/hosts")
    error = json.loads(as_json.stdout)["error"]
    assert error == {"code": None, "message": NO_RESOURCES, "data": None, "origin": "explorer"}


def test_with_several_servers_the_one_with_resources_is_asked(tmp_path: Path) -> None:
    asked = tmp_path / "asked"
    tools = tiny_server(tmp_path, TOOLS_ONLY, str(asked), name="tools.py")
    resources = tiny_server(tmp_path, RESOURCES, name="res.py")
    result = run_cli("-s", tools, "-s", resources, "read", "res://unlisted")
    assert result.code == 0, result
    assert result.stdout == "the text of res://unlisted\n", result
    assert not asked.exists(), result


def test_watch_for_says_why_it_exits_3(tmp_path: Path) -> None:
    resources = tiny_server(tmp_path, RESOURCES, name="res.py")
    result = run_cli("-s", resources, "read", "--watch", "--for", "1", "res://a")
    assert result.code == 3, result
    assert "warning: server res.py: no new version of res://a came within 1 second (--for)" in result.stderr
