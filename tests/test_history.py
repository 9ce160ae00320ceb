"""History of filled values: per (server, key), most recent first, capped, atomic, corrupt-tolerant."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from explorer import paths
from explorer.history import HISTORY_LIMIT, History, values_as_text


def test_default_file_is_the_history_file_in_the_isolated_home() -> None:
    history = History.load()
    assert history.path == paths.history_file()
    assert history.entries("template", "demo", "x://{a}") == []
    assert history.remember("template", "demo", "x://{a}", {"a": "1"})
    assert json.loads(paths.history_file().read_text())["template"]["demo"]["x://{a}"] == [{"a": "1"}]


def test_most_recent_first_without_duplicates_and_capped(tmp_path: Path) -> None:
    path = tmp_path / "h.json"
    history = History.load(path)
    for i in range(HISTORY_LIMIT + 5):
        history.remember("template", "s", "t", {"v": str(i)})
    history.remember("template", "s", "t", {"v": "7"})  # an old value moves to the front
    entries = History.load(path).entries("template", "s", "t")
    assert len(entries) == HISTORY_LIMIT
    assert entries[0] == {"v": "7"} and entries[1] == {"v": str(HISTORY_LIMIT + 4)}
    assert sum(1 for e in entries if e == {"v": "7"}) == 1


def test_keys_are_separate_per_server_and_kind(tmp_path: Path) -> None:
    path = tmp_path / "h.json"
    history = History.load(path)
    history.remember("template", "a", "t", {"x": "1"})
    history.remember("template", "b", "t", {"x": "2"})
    history.remember("prompt", "a", "t", {"x": "3"})
    again = History.load(path)
    assert again.entries("template", "a", "t") == [{"x": "1"}]
    assert again.entries("template", "b", "t") == [{"x": "2"}]
    assert again.entries("prompt", "a", "t") == [{"x": "3"}]
    assert again.field_values("template", "a", "t", "x") == ["1"]


def test_empty_values_are_not_remembered(tmp_path: Path) -> None:
    history = History.load(tmp_path / "h.json")
    assert not history.remember("template", "s", "t", {"a": "", "b": []})
    assert not (tmp_path / "h.json").exists()
    history.remember("template", "s", "t", {"a": "x", "b": ""})
    assert history.entries("template", "s", "t") == [{"a": "x"}]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "{}",
        '{"template": []}',
        '{"template": {"s": {"t": [1, {"a": 2}, {"b": ["x", 3]}]}}}',
    ],
)
def test_empty_or_odd_file_is_ignored(tmp_path: Path, text: str) -> None:
    path = tmp_path / "h.json"
    path.write_text(text)
    history = History.load(path)
    assert history.entries("template", "s", "t") == []
    assert history.remember("template", "s", "t", {"a": "1"})
    assert History.load(path).entries("template", "s", "t") == [{"a": "1"}]


@pytest.mark.parametrize(
    "text", ["not json {", '{"template": {}},\n', "[1, 2]", '"text"', '{"version": "x"}']
)
def test_a_file_that_cannot_be_read_is_never_written_over(tmp_path: Path, text: str) -> None:
    path = tmp_path / "h.json"
    path.write_text(text)
    history = History.load(path)
    assert history.entries("template", "s", "t") == []
    assert not history.remember("template", "s", "t", {"a": "1"})  # the form's save says it failed
    assert path.read_text() == text
    assert history.problem is not None and str(path) in history.problem
    assert "not saved" in history.problem


def test_a_newer_version_is_read_but_not_written_over(tmp_path: Path) -> None:
    path = tmp_path / "h.json"
    data = {
        "version": 2,
        "template": {"s": {"t": [{"a": "1", "new": {"kind": "object"}}]}},
        "pinned": {"s": ["x"]},
    }
    text = json.dumps(data)
    path.write_text(text)
    history = History.load(path)
    assert history.entries("template", "s", "t") == [{"a": "1"}]  # what this version understands
    assert not history.remember("template", "s", "t", {"a": "2"})
    assert path.read_text() == text
    assert history.problem is not None and "newer version" in history.problem


def test_good_entries_survive_next_to_bad_ones(tmp_path: Path) -> None:
    path = tmp_path / "h.json"
    data = {"template": {"s": {"t": ["bad", {"a": "1", "n": 5}, {"l": ["x", "y"]}]}}, "uris": ["kept"]}
    path.write_text(json.dumps(data))
    history = History.load(path)
    assert history.entries("template", "s", "t") == [{"a": "1"}, {"l": ["x", "y"]}]
    history.remember("prompt", "s", "p", {"q": "1"})
    assert json.loads(path.read_text())["uris"] == ["kept"]  # unknown sections are kept


def test_write_is_atomic_and_a_failed_write_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "h.json"
    history = History.load(path)
    history.remember("template", "s", "t", {"a": "1"})
    before = path.read_text()

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    assert not history.remember("template", "s", "t", {"a": "2"})
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["h.json"]  # no temporary file left behind


def test_values_as_text() -> None:
    assert values_as_text({"b": "2", "a": ["x", "y"], "c": ""}, ["a", "b", "c"]) == "a=x,y  b=2"
