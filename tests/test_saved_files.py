"""Saved files the user owns: a broken or newer file is never written over, symlinks and modes are kept,
and our logs never fail a server (a read-only home runs the server without its log, and says so)."""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path

import pytest

from explorer import paths, theming
from explorer.bookmarks import Bookmarks
from explorer.config import ServerSpec
from explorer.connection import stderr_log
from explorer.connection.sdk_logs import CappedLog
from explorer.connection.stderr_log import begin_run, stderr_log_for, take_log_warnings
from explorer.history import History
from explorer.storage import write_json_atomically
from tests.helpers.cli import raw_server, run_cli

# ------------------------------------------------------------------------------------------- bookmarks


@pytest.mark.parametrize(
    "text",
    [
        '{"version": 1, "servers": {"demo": ["demo://a", "demo://b"],}}\n',  # a trailing comma
        "[]",
        '{"version": "one", "servers": {}}',
    ],
)
def test_a_bookmarks_file_that_cannot_be_read_is_not_written_over(tmp_path: Path, text: str) -> None:
    path = tmp_path / "bookmarks.json"
    path.write_text(text)
    bookmarks = Bookmarks(path)
    assert bookmarks.all() == []
    assert bookmarks.problem is not None and str(path) in bookmarks.problem
    bookmarks.toggle("demo", "demo://c")
    assert not bookmarks.save()  # the screen says "could not save the bookmarks file" (and `problem`)
    assert path.read_text() == text
    assert [p.name for p in tmp_path.iterdir()] == ["bookmarks.json"]


def test_a_newer_bookmarks_file_is_read_but_not_written_over(tmp_path: Path) -> None:
    path = tmp_path / "bookmarks.json"
    text = json.dumps(
        {"version": 2, "servers": {"demo": ["demo://a", {"uri": "demo://b", "note": "n"}]}, "folders": ["x"]}
    )
    path.write_text(text)
    bookmarks = Bookmarks(path)
    assert bookmarks.all() == [("demo", "demo://a")]
    bookmarks.toggle("demo", "demo://c")
    assert not bookmarks.save()
    assert path.read_text() == text
    assert bookmarks.problem is not None and "newer version" in bookmarks.problem


def test_bookmarks_keep_top_level_keys_they_do_not_know(tmp_path: Path) -> None:
    path = tmp_path / "bookmarks.json"
    path.write_text(json.dumps({"version": 1, "servers": {"demo": ["demo://a"]}, "folders": ["x"]}))
    bookmarks = Bookmarks(path)
    assert bookmarks.problem is None
    bookmarks.toggle("demo", "demo://b")
    assert bookmarks.save()
    saved = json.loads(path.read_text())
    assert saved == {"version": 1, "servers": {"demo": ["demo://b", "demo://a"]}, "folders": ["x"]}


def test_a_missing_or_empty_bookmarks_file_is_simply_written(tmp_path: Path) -> None:
    for text in (None, ""):
        path = tmp_path / "bookmarks.json"
        if text is not None:
            path.write_text(text)
        bookmarks = Bookmarks(path)
        assert bookmarks.problem is None
        bookmarks.toggle("demo", "demo://a")
        assert bookmarks.save()
        assert Bookmarks(path).all() == [("demo", "demo://a")]
        path.unlink()


# --------------------------------------------------------------------------------- symlinks and modes


def _dotfile(tmp_path: Path, name: str, text: str) -> tuple[Path, Path]:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir(exist_ok=True)
    target = dotfiles / name
    target.write_text(text)
    target.chmod(0o644)
    data = paths.data_dir(create=True)
    link = data / name
    link.symlink_to(target)
    return link, target


def test_a_symlinked_bookmarks_file_stays_a_symlink_with_its_mode(tmp_path: Path) -> None:
    link, target = _dotfile(tmp_path, "bookmarks.json", json.dumps({"version": 1, "servers": {}}))
    bookmarks = Bookmarks()
    bookmarks.toggle("demo", "demo://a")
    assert bookmarks.save()
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert Bookmarks().all() == [("demo", "demo://a")]
    assert json.loads(target.read_text())["servers"] == {"demo": ["demo://a"]}
    assert sorted(p.name for p in target.parent.iterdir()) == ["bookmarks.json"]  # no temporary left


def test_the_theme_choice_written_through_a_symlink_keeps_it_and_its_mode(tmp_path: Path) -> None:
    link, target = _dotfile(tmp_path, "theme.json", json.dumps({"theme": "nord"}))
    theming.save_theme_choice("gruvbox")
    assert link.is_symlink()
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert theming.load_theme_choice() == "gruvbox"


def test_a_saved_file_keeps_its_mode_and_a_new_one_gets_the_usual(tmp_path: Path) -> None:
    path = tmp_path / "h.json"
    assert write_json_atomically(path, {"a": 1})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.chmod(0o640)
    assert write_json_atomically(path, {"a": 2})
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert json.loads(path.read_text()) == {"a": 2}


def test_a_dangling_symlink_gets_its_target_written(tmp_path: Path) -> None:
    link = tmp_path / "h.json"
    target = tmp_path / "elsewhere" / "h.json"
    target.parent.mkdir()
    link.symlink_to(target)
    assert write_json_atomically(link, {"a": 1})
    assert link.is_symlink() and json.loads(target.read_text()) == {"a": 1}


# ------------------------------------------------------------------------------------------------ logs


def _stdio(name: str = "demo") -> ServerSpec:
    return ServerSpec(name=name, transport="stdio", command="true")


@pytest.fixture(autouse=True)
def _no_old_log_warnings() -> None:
    take_log_warnings()
    stderr_log._told.clear()


def test_a_log_folder_that_cannot_be_made_means_no_log_and_one_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_mkdir = Path.mkdir

    def mkdir(self: Path, *args: object, **kwargs: object) -> None:
        if self.name == "logs":
            raise PermissionError(13, "Permission denied", str(self))
        real_mkdir(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "mkdir", mkdir)
    assert stderr_log_for(_stdio()) is None
    assert stderr_log_for(_stdio()) is None  # a reconnect: said once
    warnings = take_log_warnings()
    assert len(warnings) == 1
    assert "server demo" in warnings[0] and "permission denied" in warnings[0]
    assert str(paths.log_dir()) in warnings[0]


def test_a_log_file_that_cannot_be_opened_means_no_log_and_one_warning() -> None:
    (paths.log_dir(create=True) / "demo.log").mkdir()  # not a file: opening it fails, even as root
    assert stderr_log_for(_stdio()) is None
    [warning] = take_log_warnings()
    assert "demo.log" in warning and "stderr log" in warning


def test_begin_run_never_raises(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert begin_run(blocker / "demo.log") == 0
    assert len(take_log_warnings()) == 1


def test_the_sdk_log_that_cannot_be_opened_drops_its_records_and_says_so_once(tmp_path: Path) -> None:
    blocker = tmp_path / "logs"
    blocker.write_text("a file where the folder should be")
    handler = CappedLog(blocker / "sdk.log")
    for _ in range(3):
        handler.emit(logging.makeLogRecord({"name": "mcp", "levelno": logging.WARNING, "msg": "bad line"}))
    handler.close()
    [warning] = take_log_warnings()
    assert "SDK" in warning and str(blocker) in warning


@pytest.mark.slow
@pytest.mark.parametrize("blocked", ["folder", "file"])
def test_a_server_runs_when_its_log_cannot_be_written(blocked: str) -> None:
    home = Path(os.environ[paths.HOME_ENV])
    home.mkdir(parents=True, exist_ok=True)
    if blocked == "folder":
        (home / "logs").write_text("not a folder")  # the log folder cannot be made
    else:
        (home / "logs" / "raw_server.py.log").mkdir(parents=True)  # the log file cannot be opened
    result = run_cli("tree", "-s", raw_server())
    assert result.code == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "failed" not in result.stdout
    [warning] = [line for line in result.stderr.splitlines() if "log" in line]  # said once, as a warning
    assert warning.startswith("warning: ") and "running without its stderr log" in warning, result.stderr


def test_history_in_a_home_where_its_folder_cannot_be_made_is_empty_and_never_raises() -> None:
    home = Path(os.environ[paths.HOME_ENV])
    home.mkdir(parents=True, exist_ok=True)
    (home / "data").write_text("not a folder")
    history = History.load()
    assert history.entries("template", "s", "t") == []
    assert not history.remember("template", "s", "t", {"a": "1"})


def _block_the_log_folder() -> None:
    home = Path(os.environ[paths.HOME_ENV])
    home.mkdir(parents=True, exist_ok=True)
    (home / "logs").write_text("not a folder")  # the log folder cannot be made


@pytest.mark.slow
@pytest.mark.anyio
async def test_the_tui_says_once_that_a_server_runs_without_its_stderr_log() -> None:
    """The TUI's path of the same warning: a notification beside the server's name, and the server lists."""
    from tests.app_helpers import raw_spec, settled_app

    _block_the_log_folder()
    async with settled_app(raw_spec("raw")) as (app, _pilot):
        status = app.screen.catalogue.servers["raw"]  # type: ignore[attr-defined]
        assert status.error is None and status.listing is not None and status.listing.complete
        told = [
            str(n.message) for n in app._notifications if "running without its stderr log" in str(n.message)
        ]  # type: ignore[attr-defined]
    assert len(told) == 1, told
    assert told[0].startswith("raw: ") and "could not write" in told[0], told
