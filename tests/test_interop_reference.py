"""Interop with the npm reference server @modelcontextprotocol/server-everything (pinned)."""

from __future__ import annotations

import json

import pytest

from tests.helpers.cli import demo_server, run_cli

pytestmark = pytest.mark.interop


def test_tree_lists_its_seven_resources_and_two_templates(reference_server: str) -> None:
    result = run_cli("tree", "--json", "-s", reference_server)
    assert result.code == 0, result
    data = json.loads(result.stdout)
    [server] = data["servers"]
    assert server["ok"] and server["complete"] and server["protocolVersion"] == "2025-11-25"
    assert len(data["resources"]) == 7
    assert all(r["uri"].startswith("demo://resource/static/document/") for r in data["resources"])
    assert {t["uriTemplate"] for t in data["templates"]} == {
        "demo://resource/dynamic/text/{resourceId}",
        "demo://resource/dynamic/blob/{resourceId}",
    }


def test_read_a_static_document_prints_its_text(reference_server: str) -> None:
    result = run_cli("read", "demo://resource/static/document/architecture.md", "-s", reference_server)
    assert result.code == 0, result
    assert "Architecture" in result.stdout.splitlines()[0]


def test_match_gives_resource_id(reference_server: str) -> None:
    result = run_cli("match", "demo://resource/dynamic/text/7", "--json", "-s", reference_server)
    assert result.code == 0, result
    matches = json.loads(result.stdout)["matches"]
    assert matches[0]["uriTemplate"] == "demo://resource/dynamic/text/{resourceId}"
    assert matches[0]["values"] == {"resourceId": "7"}


def test_reading_a_templated_uri_uses_the_matching_server(reference_server: str) -> None:
    result = run_cli("read", "demo://resource/dynamic/text/7", "-s", demo_server(), "-s", reference_server)
    assert result.code == 0, result
    assert "7" in result.stdout


def test_reference_and_demo_merge_into_one_tree(reference_server: str) -> None:
    result = run_cli("tree", "--json", "-s", reference_server, "-s", demo_server())
    assert result.code == 0, result
    data = json.loads(result.stdout)
    assert [s["ok"] for s in data["servers"]] == [True, True]
    servers = {r["server"] for r in data["resources"]}
    assert len(servers) == 2
    segments = {child["segment"] for child in data["tree"]["children"]}
    assert {"demo://", "docs://", "metrics://"} <= segments


def test_prompt_with_arguments(reference_server: str) -> None:
    result = run_cli("prompt", "args-prompt", "city=Lisbon", "-s", reference_server)
    assert result.code == 0, result
    assert "Lisbon" in result.stdout
