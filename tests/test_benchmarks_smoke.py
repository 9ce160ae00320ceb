"""The benchmark scripts still run (no timing is asserted: speed claims come from the scripts themselves).

Each script runs once, small, as a user would; the test checks that it finished and printed every figure
it promises, so a script that rots is noticed here rather than when someone needs the numbers.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT

BENCH = ROOT / "benchmarks"


def run(script: str, *args: str, timeout: float = 300) -> str:
    proc = subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    return proc.stdout


def test_template_match_benchmark_quick_prints_a_row_per_size() -> None:
    lines = run("bench_template_match.py", "--quick").splitlines()
    assert lines[0].split()[:3] == ["vars", "match", "ms"]
    sizes = [int(line.split()[0]) for line in lines[1:]]
    assert sizes == [10, 50, 100, 200, 256]
    assert all(len(line.split()) == 8 for line in lines[1:])  # every figure of every row


def test_goto_benchmark_quick_prints_a_row_per_shape() -> None:
    lines = run("bench_goto_templates.py", "--quick").splitlines()
    assert lines[1].split()[:3] == ["shape", "matched", "shared"]
    rows = [line.split() for line in lines[2:]]
    assert [row[0] for row in rows] == ["{+p}", "{x}/{+rest}", "{/p*}"]
    assert [row[1] for row in rows] == ["100", "100", "0"]  # what each shape matched: all, all, none
    assert all(len(row) == 6 for row in rows)  # every figure of every row


@pytest.mark.slow
def test_listing_benchmark_quick_compares_every_contender_with_the_sdk_loop(tmp_path: Path) -> None:
    rows_file = tmp_path / "rows.json"
    out = run("bench_listing.py", "--quick", "--json", str(rows_file))
    rows = json.loads(rows_file.read_text())
    assert [(r["server"], r["contender"]) for r in rows] == [
        ("fixture", "SDK list_resources loop"),
        ("fixture", "tree --json"),
        ("fixture", "tree"),
        ("fixture", "tree --depth 1"),
        ("fixture", "bare orjson client"),
        ("sdk", "SDK list_resources loop"),
        ("sdk", "tree --json"),
        ("flat", "SDK list_resources loop"),
        ("flat", "tree --json"),
        ("flat", "tree"),
        ("shuffled", "SDK list_resources loop"),
        ("shuffled", "tree --json"),
        ("shuffled", "tree"),
    ]
    assert all(r["seconds"] > 0 and r["peak_mb"] > 0 and r["command"] for r in rows)
    assert all(r["gc_max_ms"] is not None for r in rows if r["contender"].startswith("tree"))
    assert rows[0]["vs_sdk"] == 1.0 and "x SDK" in out


@pytest.mark.slow
def test_tui_benchmark_measures_every_phase_against_its_baselines() -> None:
    out = run(
        "bench_tui.py",
        "--count",
        "3000",
        "--presses",
        "6",
        "--thaw-worth",
        "1",
        "--thaw-quiet",
        "0.5",
        "--rounds",
        "1",
        "--stream-seconds",
        "3",
        "--json",
    )
    result = json.loads(out)
    assert result["state"] == "ready" and result["resources"] == 3000
    assert result["fan_out"] == 3000  # the wide phase expanded one node of every resource
    for key in (
        "listing_s",
        "peak_rss_mb",
        "gc_max_listing_ms",
        "gc_max_browsing_ms",
        "frozen_garbage_wide",
        "cli_tree_s",
        "sdk_list_s",
        "start_listing_s",
        "start_first_rows_s",
    ):
        assert result[key] >= 0, key
    assert len(result["listing_rounds"]) == 1  # one TUI start, one CLI run
    for key in ("floor_press", "press", "press_streaming", "press_wide", "filter_prefix", "filter_substring"):
        assert result[key]["n"] > 0 and result[key]["p99"] >= result[key]["p50"] >= 0, key
    for key in ("expand_first_ms", "collapse_ms", "expand_again_ms", "end_ms"):
        assert result[key] >= 0, key
    assert result["thaw_ms"] is not None and result["thaw_freed"] is not None  # away: the app thawed
    for key in ("press", "press_streaming", "press_wide"):  # the details' frame is timed too (presence)
        assert result[f"{key}_details"]["n"] == result[key]["n"], key
    for phase in ("floor", "listing", "streaming", "wide", "wide-streaming"):  # the loop's longest stall
        assert result[f"stall_max_ms_{phase}"] > 0, phase


@pytest.mark.slow
def test_browse_benchmark_lists_each_prefix_beyond_the_bounded_listing() -> None:
    result = json.loads(run("bench_browse.py", "--quick", "--json"))
    assert result["state"] == "incomplete"  # the bound stopped the first listing
    prefixes = [key for key in result if key.startswith("bench://")]
    assert len(prefixes) == 3
    for prefix in prefixes:
        row = result[prefix]
        assert row["resources"] > 0 and row["seconds"] >= 0 and row["cli_tree_prefix_s"] > 0, prefix
    assert result["tree_resources"] > result["bound"]  # what the prefixes brought was merged


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="the first frame is read from a pseudo-terminal")
def test_startup_benchmark_times_help_expand_and_the_first_frame() -> None:
    out = run("bench_startup.py", "--rounds", "1")
    for label in ("--help", "expand", "minimal Textual app: first frame", "mcp-url-explorer: first frame"):
        assert label in out, out


def test_prefix_benchmark_prints_a_row_per_size() -> None:
    lines = run("bench_prefix.py", "--max-power", "4").splitlines()
    assert lines[-1].split()[0] == "10,000" and len(lines[-1].split()) == 7


def test_json_benchmark_measures_the_sdk_parse_and_the_standard_library() -> None:
    out = run("bench_json.py", "--items", "50")
    assert "pydantic validate_json" in out and "json.dumps(indent=2)" in out and "orjson" in out


@pytest.mark.slow
def test_uri_tree_benchmark_small() -> None:
    out = run("bench_uri_tree.py", "--scale", "0.02")
    assert "memory per stored resource" in out and "insert all" in out


@pytest.mark.slow
def test_sanitize_benchmark_small() -> None:
    assert run("bench_sanitize.py", "--size", "20000").strip()


@pytest.mark.slow
def test_resource_tree_benchmark_small() -> None:
    out = run("bench_resource_tree.py", "--scale", "0.01", "--presses", "3", "--no-stock-50k")
    assert out.strip()


@pytest.mark.slow
def test_blob_benchmark_small() -> None:
    out = run("bench_blob.py", "--megabytes", "2")
    for label in ("whole blob (baseline)", "decode_prefix, one line", "decode_prefix, 76-character lines"):
        assert label in out, out


@pytest.mark.slow
def test_pathological_template_benchmark_small() -> None:
    lines = run("bench_template_pathological.py", "--length", "200").splitlines()
    assert [line.split()[0] for line in lines[1:6]] == [
        "adjacent",
        "list-items",
        "dashes",
        "reserved",
        "dicts",
    ]
    assert all(line.endswith("x") for line in lines[1:6])


@pytest.mark.slow
def test_preview_benchmark_one_round() -> None:
    out = run("bench_preview.py", "--rounds", "1")
    assert all(name in out for name in ("1 KB", "1 MB", "200k-char line")), out


def test_http_text_benchmark_prints_every_kind_of_page() -> None:
    lines = run("bench_http_text.py", "--size", "20000").splitlines()
    assert lines[0].split()[:2] == ["page", "MB"] and len(lines) == 10
    assert all(line.endswith("x") for line in lines[1:-1])  # a ratio on every row


def test_markdown_benchmark_prints_rendered_against_source_for_each_size() -> None:
    lines = run("bench_markdown.py", "--blocks", "50", "--rounds", "1").splitlines()
    assert lines[0].split()[:4] == ["blocks", "chars", "first", "frame:"], lines
    assert lines[1].split()[0] == "50" and lines[1].count("x") == 2  # both ratios against the source
    assert lines[3].split()[:3] == ["blocks", "pagedown,", "first:"], lines
    assert lines[4].split()[0] == "50"
    assert "the same document shown as source" in lines[5] and "shown again" in lines[6]
