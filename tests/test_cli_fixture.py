"""The headless commands against the raw fixture server over real stdio: listing rules and faults."""

from __future__ import annotations

import json

import pytest

from tests.helpers.cli import raw_server, run_cli

pytestmark = [pytest.mark.parametrize("protocol", ["auto", "legacy"]), pytest.mark.slow]


def tree_json(*args: str) -> tuple[int, dict[str, object], str]:
    result = run_cli("tree", "--json", *args)
    return result.code, json.loads(result.stdout), result.stderr


def test_follows_every_page_in_server_order(protocol: str) -> None:
    code, data, _ = tree_json("-s", raw_server(resources=250), "--protocol", protocol)
    assert code == 0
    [server] = data["servers"]  # type: ignore[misc]
    assert (
        server["ok"] and server["complete"] and server["pages"] == 3 + 1 + 1
    )  # resources, templates, prompts
    uris = [r["uri"] for r in data["resources"]]  # type: ignore[attr-defined]
    assert uris == [f"fixture://items/{i // 50}/item-{i}" for i in range(250)]
    assert server["protocolVersion"] == "2025-11-25"


def test_empty_string_cursor_is_followed_to_the_real_end(protocol: str) -> None:
    code, data, _ = tree_json("-s", raw_server("empty-cursor", resources=150), "--protocol", protocol)
    assert code == 0
    assert len(data["resources"]) == 150  # type: ignore[arg-type]


def test_repeated_cursor_stops_with_an_error_naming_it(protocol: str) -> None:
    result = run_cli("tree", "--json", "-s", raw_server("repeat-cursor"), "--protocol", protocol)
    assert result.code == 1, result
    data = json.loads(result.stdout)
    [server] = data["servers"]
    assert not server["ok"] and not server["complete"]
    assert "repeated cursor 'again'" in server["error"]
    assert len(data["resources"]) == 100  # what came before the loop is kept
    assert "repeated cursor" in result.stderr and "Traceback" not in result.stderr


def test_endless_cursors_stop_at_the_page_bound_with_exit_3(protocol: str) -> None:
    result = run_cli(
        "tree", "--json", "--max-pages", "5", "-s", raw_server("endless"), "--protocol", protocol
    )
    assert result.code == 3, result
    [server] = json.loads(result.stdout)["servers"]
    assert server["ok"] and not server["complete"] and server["stoppedBy"] == "max_pages"
    assert (
        server["lists"]["resources"]["pages"] == 5
        and server["lists"]["resources"]["stoppedBy"] == "max_pages"
    )


def test_endless_cursors_stop_at_the_item_bound(protocol: str) -> None:
    result = run_cli(
        "tree", "--json", "--max-items", "250", "-s", raw_server("endless"), "--protocol", protocol
    )
    assert result.code == 3, result
    data = json.loads(result.stdout)
    assert data["servers"][0]["stoppedBy"] == "max_items"
    assert 250 <= len(data["resources"]) < 400


def test_wall_time_bound_stops_a_slow_server(protocol: str) -> None:
    spec = raw_server("slow-list", "endless", delay=0.4)
    result = run_cli("tree", "--json", "--list-timeout", "1.5", "-s", spec, "--protocol", protocol)
    assert result.code == 3, result
    assert json.loads(result.stdout)["servers"][0]["stoppedBy"] == "max_seconds"


def test_malformed_items_are_skipped_and_counted_not_the_page(protocol: str) -> None:
    code, data, stderr = tree_json("-s", raw_server("malformed", resources=150), "--protocol", protocol)
    assert code == 0, stderr
    server = data["servers"][0]  # type: ignore[index]
    assert server["skipped"] == 4
    assert len(data["resources"]) == 150  # type: ignore[arg-type]


def test_duplicates_are_one_entry_and_counted(protocol: str) -> None:
    code, data, _ = tree_json("-s", raw_server("duplicates", resources=150), "--protocol", protocol)
    assert code == 0
    uris = [r["uri"] for r in data["resources"]]  # type: ignore[attr-defined]
    assert len(uris) == len(set(uris)) == 150
    assert data["servers"][0]["duplicates"] == 3  # type: ignore[index]


def test_templates_method_not_found_means_no_templates(protocol: str) -> None:
    code, data, _ = tree_json("-s", raw_server("no-templates", resources=10), "--protocol", protocol)
    assert code == 0
    assert data["templates"] == [] and data["servers"][0]["complete"]  # type: ignore[index]


def test_other_templates_error_is_that_servers_error(protocol: str) -> None:
    result = run_cli(
        "tree", "--json", "-s", raw_server("templates-error", resources=10), "--protocol", protocol
    )
    assert result.code == 1
    data = json.loads(result.stdout)
    assert "-32603" in data["servers"][0]["error"] and len(data["resources"]) == 10


def test_server_that_exits_mid_listing_keeps_what_was_listed(protocol: str) -> None:
    result = run_cli("tree", "--json", "-s", raw_server("exit-mid-list"), "--protocol", protocol)
    assert result.code == 1, result
    data = json.loads(result.stdout)
    server = data["servers"][0]
    assert not server["ok"] and len(data["resources"]) == 100
    assert "closed the connection" in server["error"] or "broke" in server["error"]
    assert "Traceback" not in result.stderr


def test_server_that_never_answers_times_out(protocol: str) -> None:
    result = run_cli("tree", "--timeout", "1", "-s", raw_server("hang-list"), "--protocol", protocol)
    assert result.code == 1, result
    assert "did not answer after 1 s" in result.stderr
    assert result.stderr.count("\n") <= 2 and "Traceback" not in result.stderr


def test_failing_server_does_not_take_the_other_down(protocol: str) -> None:
    result = run_cli(
        "tree",
        "--json",
        "-s",
        raw_server(resources=20),
        "-s",
        "no-such-command-xyz --flag",
        "--protocol",
        protocol,
    )
    assert result.code == 1
    data = json.loads(result.stdout)
    good, bad = data["servers"]
    assert good["ok"] and good["resources"] == 20
    assert not bad["ok"] and "command not found: no-such-command-xyz" in bad["error"]
    assert len(data["resources"]) == 20


def test_server_exiting_at_start_shows_its_stderr(protocol: str) -> None:
    result = run_cli("tree", "-s", raw_server("exit-at-start"), "--protocol", protocol)
    assert result.code == 1
    assert "could not open the database" in result.stderr
    assert "Traceback" not in result.stderr


def test_read_prints_text_and_unknown_uri_fails_clearly(protocol: str) -> None:
    spec = raw_server(resources=10)
    result = run_cli("read", "fixture://items/0/item-3", "-s", spec, "--protocol", protocol)
    assert result.code == 0 and "contents of fixture://items/0/item-3" in result.stdout
    missing = run_cli("read", "fixture://nope", "-s", spec, "--protocol", protocol)
    assert missing.code == 1
    assert "-32002" in missing.stderr and "Resource not found" in missing.stderr


def test_read_json_reports_the_error(protocol: str) -> None:
    result = run_cli("read", "err://-32603", "--json", "-s", raw_server(), "--protocol", protocol)
    assert result.code == 1
    data = json.loads(result.stdout)
    assert data["ok"] is False and data["error"]["code"] == -32603


def test_read_blob_is_summarized(protocol: str) -> None:
    result = run_cli("read", "bin://good", "-s", raw_server(), "--protocol", protocol)
    assert result.code == 0 and "[blob: application/octet-stream, 256 bytes]" in result.stdout


def test_prompts_and_prompt(protocol: str) -> None:
    spec = raw_server()
    listed = run_cli("prompts", "-s", spec, "--protocol", protocol)
    assert listed.code == 0 and "greet(who*)" in listed.stdout
    got = run_cli("prompt", "greet", "who=Ada", "-s", spec, "--protocol", protocol)
    assert got.code == 0 and "Hello Ada" in got.stdout
    missing = run_cli("prompt", "greet", "-s", spec, "--protocol", protocol)
    assert missing.code == 2 and "missing required argument" in missing.stderr
