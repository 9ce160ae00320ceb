"""Capabilities decide what is asked: a tools-only or prompts-only server is connected, not failed.

Against the raw fixture server over real stdio, declaring what `--caps` says. The fixture answers every
list it is asked for, so a list the explorer should not have asked would show up in the counts.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.helpers.cli import raw_server, run_cli

pytestmark = pytest.mark.slow


def tree_json(*args: str) -> tuple[int, dict[str, Any], str]:
    result = run_cli("tree", "--json", *args)
    return result.code, json.loads(result.stdout), result.stderr


def test_a_tools_only_server_is_connected_and_tree_exits_0() -> None:
    code, data, stderr = tree_json("-s", raw_server(caps="tools", tools=5))
    assert code == 0, stderr
    [server] = data["servers"]
    assert server["ok"] and server["complete"] and server["error"] is None
    assert server["offered"]["resources"] is False and server["offered"]["tools"] is True
    assert server["resources"] == 0 and server["tools"] == 5 and server["prompts"] == 0
    assert server["lists"]["resources"] == {**server["lists"]["resources"], "offered": False, "asked": False}
    assert server["lists"]["tools"]["complete"] is True
    assert "Traceback" not in stderr and "error" not in stderr


def test_text_tree_of_a_tools_only_server_says_what_it_offers() -> None:
    result = run_cli("tree", "-s", raw_server(caps="tools", tools=12))
    assert result.code == 0, result
    assert "no resources · 12 tools" in result.stdout
    assert "failed" not in result.stdout + result.stderr


def test_prompts_only_and_everything_servers_side_by_side() -> None:
    code, data, _ = tree_json(
        "-s", raw_server(caps="prompts"), "-s", raw_server(caps="resources,prompts,tools", resources=20)
    )
    assert code == 0
    prompts_only, everything = data["servers"]
    assert prompts_only["ok"] and prompts_only["offered"]["resources"] is False
    assert prompts_only["prompts"] == 1 and prompts_only["tools"] == 0
    assert everything["resources"] == 20 and everything["templates"] == 2
    assert everything["prompts"] == 1 and everything["tools"] == 3
    assert len(data["resources"]) == 20  # only the server that offers resources put any in the tree


def test_a_declared_list_that_fails_is_an_error_and_the_other_lists_stay() -> None:
    # A server that declares tools and then cannot list them is a real failure (unlike templates/list
    # answering -32601, which older servers do: "no templates").
    result = run_cli("tree", "--json", "-s", raw_server("tools-list-error", caps="resources,tools"))
    assert result.code == 1, result
    [server] = json.loads(result.stdout)["servers"]
    assert not server["ok"] and "tools exploded" in server["error"]
    assert server["lists"]["tools"]["error"] and server["lists"]["resources"]["complete"]
    assert server["resources"] == 250  # the other lists were still listed


def test_servers_command_shows_the_overview() -> None:
    result = run_cli("servers", "-s", raw_server(caps="tools,prompts", tools=2))
    assert result.code == 0, result
    out = result.stdout
    assert "Server:       raw-fixture 1.0" in out
    assert "Protocol:     2025-11-25 (handshake era) over stdio" in out
    assert "Offers:       prompts, tools" in out
    assert "Resources:    not offered" in out and "Tools:        2 in 1 page" in out
    assert "Instructions:" in out and "A fixture." in out


def test_tools_command_lists_names_arguments_and_descriptions() -> None:
    result = run_cli("tools", "-s", raw_server(caps="tools", tools=2))
    assert result.code == 0, result
    assert result.stdout.splitlines() == [
        "tool-0(x*)  Tool 0  - Does thing 0 (fixture)",
        "tool-1(x*)  Tool 1  - Does thing 1 (fixture)",
    ]
    data = json.loads(run_cli("tools", "--json", "-s", raw_server(caps="tools", tools=2)).stdout)
    assert data["tools"][0]["tool"]["inputSchema"]["required"] == ["x"]


@pytest.mark.parametrize("kind", ["tools", "prompts"])
def test_a_tools_or_prompts_listing_cut_by_a_bound_is_reported_with_exit_3(kind: str) -> None:
    options: dict[str, object] = {"caps": f"resources,{kind}", "page_size": 10, "resources": 5}
    options[kind] = 35
    result = run_cli("tree", "--json", "--max-pages", "2", "-s", raw_server(**options))
    assert result.code == 3, result
    [server] = json.loads(result.stdout)["servers"]
    assert server["ok"] and not server["complete"]
    assert server[kind] == 20 and server["lists"][kind]["stoppedBy"] == "max_pages"
    assert f"incomplete ({kind}): stopped at the max-pages bound" in result.stderr


def test_the_item_bound_is_exact_inside_a_page() -> None:
    code, data, _ = tree_json("--max-items", "35", "-s", raw_server(resources=250, page_size=100))
    assert code == 3
    assert len(data["resources"]) == 35  # not the 100 of the whole first page
    [server] = data["servers"]
    assert server["stoppedBy"] == "max_items" and server["lists"]["resources"]["items"] == 35


def test_templates_are_kept_when_resources_stop_at_a_bound() -> None:
    code, data, _ = tree_json("--max-items", "10", "-s", raw_server(resources=250))
    assert code == 3
    assert len(data["resources"]) == 10
    assert [t["uriTemplate"] for t in data["templates"]] == [
        "fixture://items/{group}/item-{n}",
        "fixture://search{?q,limit}",
    ]


def test_max_bytes_is_a_bound_flag() -> None:
    code, data, _ = tree_json("--max-bytes", "2000", "-s", raw_server(resources=250))
    assert code == 3
    [server] = data["servers"]
    assert server["stoppedBy"] == "max_bytes" and len(data["resources"]) < 250


def test_the_prompts_command_reports_a_bound_with_exit_3() -> None:
    result = run_cli("prompts", "--json", "--max-pages", "2", "-s", raw_server(prompts=250, page_size=100))
    assert result.code == 3, result
    data = json.loads(result.stdout)
    assert len(data["prompts"]) == 200
    assert data["servers"][0]["complete"] is False and data["servers"][0]["stoppedBy"] == "max_pages"
    assert "incomplete: stopped at the max-pages bound" in result.stderr
