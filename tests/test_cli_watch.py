"""`read --watch` and `--wire-log`: a changing resource printed version by version in both eras, its
subscription ended on the wire before exit, and every frame written as JSON Lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.cli import demo_server, raw_server, run_cli

pytestmark = pytest.mark.slow

CLOCK = "metrics://live/clock"
FAST = ("-e", "EXPLORER_DEMO_TICK_SECONDS=0.2")


def frames(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def sent(records: list[dict[str, Any]], method: str) -> list[dict[str, Any]]:
    return [r["frame"] for r in records if r["dir"] == "send" and r["frame"].get("method") == method]


@pytest.mark.parametrize("protocol", ["legacy", "auto"])
def test_watch_prints_new_versions_and_ends_the_subscription(protocol: str, tmp_path: Path) -> None:
    log = tmp_path / "wire.jsonl"
    result = run_cli(
        "read", CLOCK, "--watch", "--count", "2", "-s", demo_server(), *FAST,
        "--protocol", protocol, "--wire-log", str(log),
    )  # fmt: skip
    assert result.code == 0, result
    headers = [line for line in result.stdout.splitlines() if line.startswith("--- ")]
    assert [h.split(" · ")[1] for h in headers] == ["version 1", "version 2", "version 3"]
    ticks = [line for line in result.stdout.splitlines() if line.startswith("tick")]
    assert len(set(ticks)) == 3  # three different versions of the clock
    records = frames(log)
    assert {"t", "server", "dir", "frame"} <= set(records[0])
    if protocol == "legacy":
        assert [f["params"]["uri"] for f in sent(records, "resources/subscribe")] == [CLOCK]
        assert [f["params"]["uri"] for f in sent(records, "resources/unsubscribe")] == [CLOCK]
    else:
        listens = sent(records, "subscriptions/listen")
        subscribed = [f["params"]["notifications"].get("resourceSubscriptions", []) for f in listens]
        assert any(CLOCK in uris for uris in subscribed)
        assert sent(records, "notifications/cancelled")  # the stream with the clock was closed


def test_watch_json_prints_one_envelope_per_version() -> None:
    result = run_cli("read", CLOCK, "--watch", "--count", "1", "--json", "-s", demo_server(), *FAST)
    assert result.code == 0, result
    decoder = json.JSONDecoder()
    text, objects = result.stdout.strip(), []
    while text:
        obj, end = decoder.raw_decode(text)
        objects.append(obj)
        text = text[end:].strip()
    assert [o["version"] for o in objects] == [1, 2]
    assert all(o["ok"] and "contents" in o["result"] for o in objects)
    assert len({o["server"] for o in objects}) == 1


def test_watch_for_with_no_change_exits_3() -> None:
    result = run_cli("read", "docs://handbook/welcome", "--watch", "--for", "1", "-s", demo_server())
    assert result.code == 3, result
    assert result.stdout.count("--- docs://handbook/welcome") == 1


def test_watch_on_a_server_without_subscriptions_says_so() -> None:
    result = run_cli("read", "fixture://items/0/item-0", "--watch", "--for", "1", "-s", raw_server())
    assert result.code == 1
    assert "cannot follow fixture://items/0/item-0" in result.stderr
    assert "does not offer resource subscriptions" in result.stderr


def test_count_without_watch_is_a_usage_error() -> None:
    result = run_cli("read", CLOCK, "--count", "2")
    assert result.code == 2 and "--count and --for go with --watch" in result.stderr


def test_wire_log_records_any_command(tmp_path: Path) -> None:
    log = tmp_path / "tree.jsonl"
    result = run_cli("tree", "--depth", "1", "--wire-log", str(log), "-s", raw_server(resources=120))
    assert result.code == 0, result
    methods = [r["frame"].get("method") for r in frames(log) if r["dir"] == "send"]
    assert "initialize" in methods and methods.count("resources/list") == 2
    answers = [r for r in frames(log) if r["dir"] == "recv" and "ms" in r]
    assert answers and all(r["ms"] >= 0 for r in answers)


def test_wire_log_masks_a_configured_secret(tmp_path: Path) -> None:
    log = tmp_path / "secret.jsonl"
    secret = "tok-55aa66bb77cc"
    result = run_cli(
        "read", "err://-32603", "--wire-log", str(log), "-e", f"TOKEN={secret}",
        "-s", raw_server("echo-secrets", "read-errors"),
    )  # fmt: skip
    assert result.code == 1
    text = log.read_text()
    assert secret not in text and "***" in text
