"""`tree` at scale: streamed JSON in the old layout, natural order, progress, prefix listing, Ctrl+C.

Most tests run the CLI as a user would, against `benchmarks/fixture_server.py` (pages of 1,000 by
default; `--delay` slows each page, `--no-prefix` makes it reject SEP-1269's parameter) or the demo server
(which honours `prefix`). No timing is asserted.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from typing import Any

import pytest

from explorer.cli.output import encode_json
from explorer.cli.tree_render import write_document
from explorer.model.entries import ResourceEntry
from explorer.model.uri_tree import UriTree
from explorer.sanitize import json_escape_unsafe
from tests.helpers.cli import demo_server, run_cli
from tests.helpers.paths import ROOT

pytestmark = pytest.mark.slow

FIXTURE = ROOT / "benchmarks" / "fixture_server.py"


def fixture(count: int, *extra: str) -> str:
    return shlex.join([sys.executable, str(FIXTURE), "--count", str(count), *extra])


def old_layout(data: Any) -> str:
    """What the explorer wrote before the output was streamed: json.dumps(indent=2), escaped."""
    return json_escape_unsafe(json.dumps(data, indent=2, ensure_ascii=False)) + "\n"


def test_tree_json_is_laid_out_exactly_as_before_against_the_demo() -> None:
    result = run_cli("tree", "--json", "-s", demo_server())

    assert result.code in (0, 3), result
    data = json.loads(result.stdout)
    assert data["resources"] and data["templates"] and data["tree"]["children"]
    assert result.stdout == old_layout(data)


def test_tree_json_of_a_fixture_listing_keeps_every_field_and_the_layout() -> None:
    result = run_cli("tree", "--json", "-s", fixture(40, "--page", "7"))

    assert result.code == 0, result
    data = json.loads(result.stdout)
    assert result.stdout == old_layout(data)
    first, tenth = data["resources"][0], data["resources"][10]
    assert first == {
        "server": "fixture_server.py",
        "uri": "bench://host0/area0/group0/item0.json",
        "name": "item 0",
        "description": "resource number 0 of the benchmark",
        "mimeType": "application/json",
        "size": 0,
    }
    assert tenth["description"] == "resource number 10 of the benchmark" and tenth["size"] == 70
    assert data["resources"][1] == {
        "server": "fixture_server.py",
        "uri": "bench://host0/area0/group0/item1.json",
        "name": "item 1",
        "mimeType": "application/json",
    }


def test_streamed_json_escapes_what_the_terminal_would_act_on_and_takes_any_integer() -> None:
    tree = UriTree()
    raw = {"uri": "x://h/\x1b[2J", "name": "del\x7f rlo\u202e zw\u200b", "size": 2**70}
    entry = ResourceEntry("s", raw["uri"], raw["name"], raw)
    tree.add_resources([entry])
    chunks: list[bytes] = []

    write_document([], [{"server": "s", **raw}], [], tree, chunks.append)

    text = b"".join(chunks).decode()
    assert "\x1b" not in text and "\x7f" not in text and "\u202e" not in text and "\u200b" not in text
    assert "\\u001b[2J" in text and "\\u007f" in text and "\\u202e" in text and "\\u200b" in text
    data = json.loads(text)
    assert data["resources"][0]["size"] == 2**70 and data["resources"][0]["name"] == raw["name"]
    assert text == old_layout(data)
    assert encode_json({"n": 2**70}) == b'{\n  "n": 1180591620717411303424\n}'


def test_a_big_document_is_written_in_pieces_never_whole() -> None:
    tree = UriTree()
    entries = [ResourceEntry("s", f"x://h/d{i // 100}/r{i}", f"r{i}") for i in range(30_000)]
    tree.add_resources(entries)
    chunks: list[bytes] = []

    write_document(
        [], ({"server": "s", "uri": e.uri, "name": e.name} for e in entries), [], tree, chunks.append
    )

    total = sum(map(len, chunks))
    assert total > 8 * 2**20
    assert max(map(len, chunks)) < 2**20  # pieces of a few hundred kilobytes, handed on as made
    data = json.loads(b"".join(chunks))
    assert len(data["resources"]) == 30_000 and data["tree"]["count"] == 30_000


def test_text_rows_are_in_natural_order() -> None:
    result = run_cli("tree", "--max-items", "5000", "--max-pages", "50", "-s", fixture(1200))

    assert result.code == 0, result
    labels = [line.strip().split("  ")[0] for line in result.stdout.splitlines()]
    rows = [label for label in labels if label.startswith("item")]
    groups = [label for label in labels if label.startswith("group")]
    assert groups[:12] == [f"group{g}" for g in range(12)]  # group2 before group10
    assert rows[:11] == [f"item{i}.json" for i in range(11)]  # item9 before item10


def test_children_listed_in_a_scrambled_order_are_printed_in_natural_order() -> None:
    # 3,000 under one node: more than the sort takes one key at a time, listed by the fixture as
    # item0, item2919, item1838, ... (a server that lists by hash or date).
    result = run_cli("tree", "--max-pages", "50", "-s", fixture(3000, "--flat", "--shuffled"))

    assert result.code == 0, result
    labels = [line.strip().split("  ")[0] for line in result.stdout.splitlines()]
    listed = [label for label in labels if label.startswith("item") and "{" not in label]  # not the template
    assert listed == [f"item{i}.json" for i in range(3000)]


def test_progress_goes_to_stderr_when_asked_and_never_to_stdout() -> None:
    args = ("tree", "--json", "-s", fixture(3000, "--delay", "0.6"))

    asked = run_cli(*args[:1], "--progress", *args[1:])
    quiet = run_cli(*args)

    assert asked.code == quiet.code == 0, asked
    assert asked.stdout == quiet.stdout
    lines = [line for line in asked.stderr.splitlines() if "/s" in line]
    assert lines, asked
    assert "fixture_server.py: resources, " in lines[-1] and " items · " in lines[-1]
    assert "stops at 100,000 items or 1,000 pages per list, 64 MB or 60 s per server" in lines[-1]
    assert "/s" not in quiet.stderr  # not a terminal and not asked: nothing


def test_ctrl_c_prints_what_arrived_marked_incomplete_and_exits_130() -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "explorer",
            "tree",
            "--json",
            "--progress",
            "-s",
            fixture(100_000, "--delay", "0.1"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ},
    )
    assert proc.stderr is not None
    # Wait until resources have arrived (the progress line, once a second, says so), then Ctrl+C once.
    deadline = time.monotonic() + 60
    seen = ""
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        seen += line
        counted = re.search(r"resources, [\d,]+ pages? · ([\d,]+) items", line)
        if counted is not None and int(counted.group(1).replace(",", "")) >= 1000:  # a page of resources
            break
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    stderr = seen + stderr

    assert proc.returncode == 130, stderr
    data = json.loads(stdout)
    [server] = data["servers"]
    assert 0 < len(data["resources"]) < 100_000
    assert not server["complete"] and server["stoppedBy"] == "interrupted"
    assert "stopped early by the user" in stderr and "Traceback" not in stderr


def test_prefix_is_listed_by_the_demo_server_and_matches_filtering_everything() -> None:
    everything = json.loads(run_cli("tree", "--json", "-s", demo_server()).stdout)
    prefix = "docs://handbook/"

    result = run_cli("tree", "--json", "--prefix", prefix, "-s", demo_server())

    assert result.code in (0, 3), result
    data = json.loads(result.stdout)
    expected = [r["uri"] for r in everything["resources"] if r["uri"].startswith(prefix)]
    assert expected and [r["uri"] for r in data["resources"]] == expected
    assert "prefix" not in result.stderr  # the demo honours it: nothing to say


def test_a_server_that_rejects_prefix_is_listed_whole_and_filtered_here_with_a_note() -> None:
    prefix = "bench://host0/area0/group3/"

    result = run_cli("tree", "--json", "--prefix", prefix, "-s", fixture(900, "--no-prefix"))

    assert result.code == 0, result
    uris = [r["uri"] for r in json.loads(result.stdout)["resources"]]
    assert uris == [f"{prefix}item{i}.json" for i in range(100)]
    assert "does not take the prefix parameter" in result.stderr
