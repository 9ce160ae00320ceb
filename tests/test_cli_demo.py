"""The headless commands against the built-in demo server over stdio, in both protocol eras."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.helpers.cli import demo_server, run_cli

pytestmark = pytest.mark.slow

ERAS = pytest.mark.parametrize(("protocol", "version"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")])


@ERAS
def test_tree_json_lists_everything_with_the_negotiated_era(protocol: str, version: str) -> None:
    result = run_cli("tree", "--json", "-s", demo_server(), "--protocol", protocol)
    assert result.code == 0, result
    data = json.loads(result.stdout)
    [server] = data["servers"]
    assert server["ok"] and server["complete"] and server["protocolVersion"] == version
    assert server["resources"] == len(data["resources"]) >= 2000
    assert server["pages"] >= 21  # 100 resources a page, plus the templates page
    schemes = {r["uri"].split(":", 1)[0] for r in data["resources"]}
    assert {"docs", "file", "metrics"} <= schemes
    templates = {t["uriTemplate"] for t in data["templates"]}
    assert "file:///{+path}" in templates and "docs://search{?q,limit}" in templates
    assert data["tree"]["count"] == len(data["resources"]) + len(data["templates"])
    handbook = next(r for r in data["resources"] if r["uri"] == "docs://handbook")
    assert handbook["mimeType"] == "text/markdown" and "annotations" in handbook


def test_no_server_and_no_config_uses_the_built_in_demo() -> None:
    result = run_cli("tree", "--depth", "1")
    assert result.code == 0, result
    assert result.stdout.startswith("# demo: mcp-url-explorer-demo")
    assert "docs://" in result.stdout and "metrics://" in result.stdout


def test_tree_prefix_keeps_matching_resources_and_covering_templates() -> None:
    result = run_cli("tree", "--json", "--prefix", "docs://handbook/")
    data = json.loads(result.stdout)
    assert result.code == 0
    assert data["resources"] and all(r["uri"].startswith("docs://handbook/") for r in data["resources"])
    templates = {t["uriTemplate"] for t in data["templates"]}
    assert "docs://handbook/{chapter}" in templates
    assert "metrics://{region}/{service}/latest" not in templates


def test_text_tree_marks_templates_and_shows_counts() -> None:
    result = run_cli("tree", "--depth", "2")
    assert result.code == 0
    assert "{+path}  [template]" in result.stdout
    assert "metrics://  (" in result.stdout


def test_options_work_after_and_before_the_command() -> None:
    before = run_cli("--protocol", "legacy", "-s", demo_server(), "tree", "--json", "--max-pages", "2")
    after = run_cli("tree", "--json", "--max-pages", "2", "-s", demo_server(), "--protocol", "legacy")
    for result in (before, after):
        assert result.code == 3, result  # stopped at the page bound
        [server] = json.loads(result.stdout)["servers"]
        assert server["protocolVersion"] == "2025-11-25" and server["stoppedBy"] == "max_pages"
        assert "incomplete" in result.stderr and "max-pages" in result.stderr


@ERAS
def test_read_markdown_and_templated_uri(protocol: str, version: str) -> None:
    result = run_cli("read", "docs://handbook", "--protocol", protocol)
    assert result.code == 0 and result.stdout.startswith("# The handbook")
    templated = run_cli("read", "metrics://eu-west/checkout/latest", "--protocol", protocol)
    assert templated.code == 0, templated
    assert "checkout" in templated.stdout


def test_read_image_is_summarized_and_json_keeps_the_blob() -> None:
    uri = "file:///workspace/tidewater/assets/logo.png"
    listed = json.loads(run_cli("tree", "--json", "--prefix", "file:///workspace/tidewater/assets").stdout)
    assert uri in {r["uri"] for r in listed["resources"]}
    text = run_cli("read", uri)
    assert text.code == 0 and text.stdout.startswith("[blob: image/png, ")
    raw = json.loads(run_cli("read", uri, "--json").stdout)
    blob = raw["result"]["contents"][0]["blob"]
    assert raw["ok"] and blob.startswith("iVBORw0KGgo")  # base64 of the PNG signature


def test_read_unknown_uri_fails_with_the_servers_error() -> None:
    result = run_cli("read", "docs://handbook/no-such-chapter-at-all")
    assert result.code == 1
    assert result.stderr.startswith("error: server demo: reading docs://handbook/no-such-chapter-at-all")
    assert "Traceback" not in result.stderr


def test_expand_encodes_by_operator() -> None:
    assert (
        run_cli("expand", "docs://handbook/{chapter}", "chapter=a/b c").stdout
        == "docs://handbook/a%2Fb%20c\n"
    )
    assert run_cli("expand", "file:///{+path}", "path=src/app.py").stdout == "file:///src/app.py\n"
    assert (
        run_cli("expand", "metrics://rollup{/segments*}", "segments=eu/web").stdout
        == "metrics://rollup/eu/web\n"
    )
    assert run_cli("expand", "docs://search{?q,limit}", "q=tide tables", "limit=5").stdout == (
        "docs://search?q=tide%20tables&limit=5\n"
    )


def test_expand_errors_are_usage_errors() -> None:
    unknown = run_cli("expand", "x://{a}", "b=1")
    assert unknown.code == 2 and "no variable b" in unknown.stderr
    broken = run_cli("expand", "x://{a", "a=1")
    assert broken.code == 2 and broken.stderr.startswith("error: ")
    bad_pair = run_cli("expand", "x://{a}", "a")
    assert bad_pair.code == 2 and "NAME=VALUE" in bad_pair.stderr


@ERAS
def test_match_gives_the_values(protocol: str, version: str) -> None:
    result = run_cli("match", "metrics://eu-west/checkout/latest", "--json", "--protocol", protocol)
    assert result.code == 0, result
    data = json.loads(result.stdout)
    found = {m["uriTemplate"]: m["values"] for m in data["matches"]}
    assert found["metrics://{region}/{service}/latest"] == {"region": "eu-west", "service": "checkout"}


def test_match_explains_a_near_miss_and_names_the_nearest_prefix() -> None:
    result = run_cli("match", "docs://handbook/a/b", "--json")
    assert result.code == 1
    data = json.loads(result.stdout)
    assert data["matches"] == [] and data["nearestPrefix"] == "docs://handbook"
    miss = next(m for m in data["nearMisses"] if m["uriTemplate"] == "docs://handbook/{chapter}")
    assert any("%2F" in problem for problem in miss["problems"])
    assert "nearest prefix that exists is docs://handbook" in result.stderr


def test_match_nothing_is_a_failure_with_a_message() -> None:
    result = run_cli("match", "nope://nothing/here")
    assert result.code == 1 and "no template matches" in result.stderr


@ERAS
def test_prompts_and_prompt_with_embedded_resource(protocol: str, version: str) -> None:
    listed = run_cli("prompts", "--json", "--protocol", protocol)
    names = {p["prompt"]["name"] for p in json.loads(listed.stdout)["prompts"]}
    assert {"summarize-chapter", "describe-logo"} <= names
    got = run_cli("prompt", "summarize-chapter", "chapter=welcome", "--protocol", protocol)
    assert got.code == 0, got
    assert "[resource docs://handbook/welcome" in got.stdout
    image = run_cli("prompt", "describe-logo", "--protocol", protocol)
    assert image.code == 0 and "[image: image/png, " in image.stdout


def test_prompt_unknown_name_fails() -> None:
    result = run_cli("prompt", "no-such-prompt")
    assert result.code == 1 and "no server has a prompt named 'no-such-prompt'" in result.stderr
    assert "did you mean" not in result.stderr  # nothing near it


def test_a_misspelt_prompt_or_argument_gets_a_did_you_mean() -> None:
    """A typo in the prompt's name failed with no hint, and one in an argument's name was sent silently."""
    result = run_cli("prompt", "summarise-chapter", "chapter=welcome")
    assert result.code == 1
    assert (
        "no server has a prompt named 'summarise-chapter'; did you mean 'summarize-chapter'?" in result.stderr
    )
    typo = run_cli("prompt", "summarize-chapter", "chapter=welcome", "chaptr=x")
    said = "'chaptr' is not one of its arguments (chapter, audience, length), sent anyway"
    assert said in typo.stderr and "did you mean 'chapter'?" in typo.stderr
    assert typo.code == 1 and "unknown argument(s)" in typo.stderr  # the demo refuses it, as it may


def test_config_file_servers_and_name_selection(tmp_path: Path) -> None:
    config = tmp_path / "servers.json"
    config.write_text(
        json.dumps(
            {"mcpServers": {"demo-a": {"command": "python", "args": ["-m", "explorer", "demo-server"]}}}
        )
    )
    result = run_cli("tree", "--json", "--max-pages", "1", "-c", str(config))
    assert [s["name"] for s in json.loads(result.stdout)["servers"]] == ["demo-a"]
    named = run_cli("tree", "--json", "--max-pages", "1", "-c", str(config), "-s", "demo-a")
    assert [s["name"] for s in json.loads(named.stdout)["servers"]] == ["demo-a"]
    unknown = run_cli("tree", "-c", str(config), "-s", "nosuchname")
    assert unknown.code == 2 and "unknown server name 'nosuchname'" in unknown.stderr


def test_config_errors_exit_2_with_one_line(tmp_path: Path) -> None:
    missing = run_cli("tree", "-c", str(tmp_path / "nope.json"))
    assert missing.code == 2 and missing.stderr.count("\n") == 1 and "nope.json" in missing.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    assert run_cli("tree", "-c", str(bad)).code == 2
    toml = tmp_path / "bad.toml"
    toml.write_text("[servers.x\ncommand = 1")
    assert run_cli("tree", "-c", str(toml)).code == 2
    nothing = tmp_path / "empty.toml"
    nothing.write_text(
        textwrap.dedent("""
        [servers.x]
        args = ["a"]
    """)
    )
    result = run_cli("tree", "-c", str(nothing))
    assert result.code == 2 and "neither" in result.stderr and "Traceback" not in result.stderr


def test_usage_errors_exit_2() -> None:
    assert run_cli("tree", "--protocol", "bogus").code == 2
    assert run_cli("nonsense").code == 2
    assert run_cli("tree", "-H", "no-colon-here").code == 2


def test_help_and_locate_answer_without_a_server() -> None:
    result = run_cli("--help")
    assert result.code == 0 and "tree" in result.stdout and "demo-server" in result.stdout
    themes = run_cli("locate", "themes")
    assert themes.code == 0 and themes.stdout.strip().endswith("themes")
