"""Two explorers on one bookmarks (or history) file keep each other's changes, and a save drops nothing
the user put in the file: entries of a shape this version cannot read, and any number of bookmarks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer import storage
from explorer.bookmarks import Bookmarks
from explorer.history import History
from tests.app_helpers import demo_spec, main_screen, settled_app, wait_for


def _file(path: Path) -> dict[str, object]:
    data = json.loads(path.read_text())
    assert isinstance(data, dict)
    return data


def test_two_instances_adding_keep_both_bookmarks(tmp_path: Path) -> None:
    path = tmp_path / "bookmarks.json"
    a, b = Bookmarks(path), Bookmarks(path)  # both started before either saved
    assert a.toggle("demo", "docs://") and a.save()
    assert b.toggle("demo", "file://") and b.save()
    assert _file(path)["servers"] == {"demo": ["file://", "docs://"]}
    assert Bookmarks(path).all() == [("demo", "file://"), ("demo", "docs://")]
    assert a.all() == [("demo", "file://"), ("demo", "docs://")]  # A sees B's once B saved


def test_a_removal_is_not_undone_by_the_other_instance_saving(tmp_path: Path) -> None:
    path = tmp_path / "bookmarks.json"
    path.write_text(json.dumps({"version": 1, "servers": {"demo": ["docs://a", "docs://b"]}}))
    a, b = Bookmarks(path), Bookmarks(path)
    assert a.toggle("demo", "docs://a") is False and a.save()  # A removes a bookmark B still shows
    assert b.toggle("other", "file:///x") and b.save()  # B saves a change of its own
    assert _file(path)["servers"] == {"demo": ["docs://b"], "other": ["file:///x"]}
    assert not Bookmarks(path).has("demo", "docs://a")


def test_entries_the_loader_cannot_read_survive_a_save(tmp_path: Path) -> None:
    path = tmp_path / "bookmarks.json"
    servers = {"demo": "docs://handbook/", "other": {"uri": "file:///x"}, "third": ["t://1", 3, None]}
    path.write_text(json.dumps({"version": 1, "servers": servers}))
    marks = Bookmarks(path)
    assert marks.toggle("demo", "docs://") and marks.save()
    assert _file(path)["servers"] == {
        "demo": ["docs://", "docs://handbook/"],  # a lone URI string is one bookmark
        "other": {"uri": "file:///x"},
        "third": ["t://1", 3, None],
    }
    assert marks.problem is None


def test_a_bookmark_for_a_server_whose_entry_cannot_be_read_is_not_saved_over_it(tmp_path: Path) -> None:
    path = tmp_path / "bookmarks.json"
    path.write_text(json.dumps({"version": 1, "servers": {"other": {"uri": "file:///x"}}}))
    marks = Bookmarks(path)
    assert marks.toggle("other", "file:///y")
    assert not marks.save()  # the screen says "could not save the bookmarks file: <problem>"
    assert marks.problem is not None and str(path) in marks.problem and "'other'" in marks.problem
    assert _file(path)["servers"] == {"other": {"uri": "file:///x"}}
    path.write_text(json.dumps({"version": 1, "servers": {"other": ["file:///x"]}}))  # the user fixes it
    assert marks.toggle("demo", "docs://") and marks.save()  # the kept bookmark is saved with the next one
    assert _file(path)["servers"] == {"other": ["file:///y", "file:///x"], "demo": ["docs://"]}


def test_a_file_whose_servers_are_not_an_object_is_not_written_over(tmp_path: Path) -> None:
    path = tmp_path / "bookmarks.json"
    text = json.dumps({"version": 1, "servers": [["demo", "docs://"]]})
    path.write_text(text)
    marks = Bookmarks(path)
    assert marks.problem is not None and str(path) in marks.problem
    assert marks.toggle("demo", "file://")
    assert not marks.save()
    assert path.read_text() == text


def test_250_bookmarks_of_one_server_survive_one_add(tmp_path: Path) -> None:
    path = tmp_path / "bookmarks.json"
    uris = [f"docs://page/{i}" for i in range(250)]
    path.write_text(json.dumps({"version": 1, "servers": {"demo": uris}}))
    marks = Bookmarks(path)
    assert len(marks.all()) == 250
    assert marks.toggle("demo", "docs://new") and marks.save()
    assert _file(path)["servers"] == {"demo": ["docs://new", *uris]}


def test_a_save_waits_for_the_lock_and_keeps_its_change_when_it_cannot_have_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "bookmarks.json"
    monkeypatch.setattr(storage, "LOCK_WAIT", 0.05)
    marks = Bookmarks(path)
    assert marks.toggle("demo", "docs://")
    with storage.update_lock(path) as busy:  # another explorer in the middle of its save
        assert busy is None
        assert not marks.save()
        assert marks.problem is not None and "locked" in marks.problem
        assert not path.exists()
    assert marks.toggle("demo", "file://") and marks.save()
    assert _file(path)["servers"] == {"demo": ["file://", "docs://"]}
    assert [p.name for p in tmp_path.iterdir()] == ["bookmarks.json"]  # the lock leaves no file behind


@pytest.mark.anyio
@pytest.mark.slow
async def test_the_tui_keeps_the_other_explorers_bookmark_and_lists_it(isolated_home: Path) -> None:
    path = isolated_home / "data" / "bookmarks.json"
    async with settled_app(demo_spec()) as (app, pilot):
        other = Bookmarks(path)  # another explorer on the same home, saving after this one started
        assert other.toggle("demo", "metrics://live/clock") and other.save()
        screen = main_screen(app)
        screen.tree_widget.select_prefix("docs://handbook/welcome")
        await pilot.press("b")
        await wait_for(pilot, lambda: any("Bookmarked" in str(n.message) for n in app._notifications))
        [note] = [str(n.message) for n in app._notifications if "Bookmarked" in str(n.message)]
        assert note == "Bookmarked docs://handbook/welcome"
        await wait_for(pilot, lambda: "docs://handbook/welcome" in path.read_text())  # saved in a thread
        assert _file(path)["servers"] == {"demo": ["docs://handbook/welcome", "metrics://live/clock"]}
        assert ("demo", "metrics://live/clock") in screen.places.bookmarks.all()  # the palette lists it


# --------------------------------------------------------------------------------------------- history


def test_two_histories_keep_each_others_values(tmp_path: Path) -> None:
    path = tmp_path / "history"
    a, b = History.load(path), History.load(path)
    assert a.remember("template", "demo", "t://{x}", {"x": "one"})
    assert b.remember("template", "demo", "t://{x}", {"x": "two"})
    assert b.remember("prompt", "demo", "p", {"q": "1"})
    again = History.load(path)
    assert again.entries("template", "demo", "t://{x}") == [{"x": "two"}, {"x": "one"}]
    assert again.entries("prompt", "demo", "p") == [{"q": "1"}]


def test_a_forgotten_key_stays_forgotten_when_the_other_history_saves(tmp_path: Path) -> None:
    path = tmp_path / "history"
    History.load(path).remember("template", "demo", "t://{x}", {"x": "old"})
    a, b = History.load(path), History.load(path)
    a.forget("template", "demo", "t://{x}")
    assert a.save()
    assert b.remember("prompt", "demo", "p", {"q": "1"})
    again = History.load(path)
    assert again.entries("template", "demo", "t://{x}") == []
    assert again.entries("prompt", "demo", "p") == [{"q": "1"}]


def test_a_toggle_made_while_a_save_runs_is_kept_for_the_next_save(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "bookmarks.json"
    marks = Bookmarks(path)
    assert marks.toggle("demo", "docs://a")
    write = storage.write_json_atomically

    def toggling_meanwhile(target: Path, data: dict[str, object]) -> bool:
        marks.toggle("demo", "docs://b")  # the user marks another while the first save writes
        return write(target, data)

    monkeypatch.setattr("explorer.bookmarks.write_json_atomically", toggling_meanwhile)
    assert marks.save()
    assert _file(path)["servers"] == {"demo": ["docs://a"]}  # the save wrote what it started with
    assert marks.unsaved and marks.has("demo", "docs://b") and marks.has("demo", "docs://a")
    monkeypatch.setattr("explorer.bookmarks.write_json_atomically", write)
    assert marks.save() and not marks.unsaved
    assert _file(path)["servers"] == {"demo": ["docs://b", "docs://a"]}


@pytest.mark.anyio
@pytest.mark.slow
async def test_keys_go_on_while_a_bookmark_save_waits_for_another_explorers_lock(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = isolated_home / "data" / "bookmarks.json"
    # The save waits for the lock as long as the test holds it; a save on the UI thread would hold the
    # keys up that long, then fail (and the exact note below would not be shown).
    monkeypatch.setattr(storage, "LOCK_WAIT", 60.0)
    async with settled_app(demo_spec()) as (app, pilot):
        screen = main_screen(app)
        screen.tree_widget.select_prefix("docs://handbook/welcome")
        with storage.update_lock(path) as busy:  # another explorer in the middle of its save
            assert busy is None
            await pilot.press("b")
            await pilot.press("down")
            await pilot.pause()
            assert any(str(n.message) == "Bookmarked docs://handbook/welcome" for n in app._notifications)
            assert screen.highlighted_uri() != "docs://handbook/welcome"
            second = screen.highlighted_uri()
            await pilot.press("b")  # more toggles while the first save waits: one more save after it
            await pilot.press("b")
            await pilot.press("b")
            await pilot.pause()
            savers = [w for w in app.workers if w.group == "bookmark-save" and w.is_running]
            assert len(savers) == 1  # not a thread (and a wait) per key
            assert not path.exists()
        await wait_for(pilot, lambda: path.exists() and str(second) in path.read_text())
        assert _file(path)["servers"] == {"demo": [second, "docs://handbook/welcome"]}


@pytest.mark.anyio
@pytest.mark.slow
async def test_a_bookmark_the_lock_kept_from_the_file_is_saved_at_quit(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = isolated_home / "data" / "bookmarks.json"
    monkeypatch.setattr(storage, "LOCK_WAIT", 0.05)
    async with settled_app(demo_spec()) as (app, pilot):
        screen = main_screen(app)
        screen.tree_widget.select_prefix("docs://handbook/welcome")
        with storage.update_lock(path):
            await pilot.press("b")
            await wait_for(pilot, lambda: any("Could not save" in str(n.message) for n in app._notifications))
        [note] = [str(n.message) for n in app._notifications if "Could not save" in str(n.message)]
        assert "locked" in note
        assert note.endswith(
            "(the change is kept: tried again with the next bookmark, and as the app closes)"
        )
        assert not path.exists()
    assert _file(path)["servers"] == {"demo": ["docs://handbook/welcome"]}  # written as the app closed
    assert app.exit_notes == []


@pytest.mark.anyio
@pytest.mark.slow
async def test_a_bookmark_still_not_saved_at_quit_is_said_after_the_app(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = isolated_home / "data" / "bookmarks.json"
    monkeypatch.setattr(storage, "LOCK_WAIT", 0.05)
    with storage.update_lock(path):  # another explorer holds the folder for the whole run
        async with settled_app(demo_spec()) as (app, pilot):
            main_screen(app).tree_widget.select_prefix("docs://handbook/welcome")
            await pilot.press("b")
            await wait_for(pilot, lambda: any("Could not save" in str(n.message) for n in app._notifications))
    [note] = app.exit_notes
    assert note.startswith(f"bookmarks made in this run were not saved to {path}: another explorer kept")
    assert not path.exists()


def test_a_toggle_racing_the_end_of_a_save_stays_shown(tmp_path: Path) -> None:
    path = tmp_path / "bookmarks.json"
    marks = Bookmarks(path)
    assert marks.toggle("demo", "docs://a")
    state = marks._state

    class SaveEndsFirst:
        """The lock `toggle` takes, with a save in another thread ending just before it is taken (the
        save puts in place what it wrote)."""

        armed = True

        def __enter__(self) -> None:
            if SaveEndsFirst.armed:
                SaveEndsFirst.armed = False
                assert marks.save()
            state.__enter__()

        def __exit__(self, *exc: object) -> None:
            state.__exit__(None, None, None)

    marks._state = SaveEndsFirst()  # type: ignore[assignment]
    assert marks.toggle("demo", "docs://b")
    assert not SaveEndsFirst.armed
    assert marks.has("demo", "docs://b") and marks.unsaved
    assert marks.all() == [("demo", "docs://b"), ("demo", "docs://a")]
    assert marks.save() and _file(path)["servers"] == {"demo": ["docs://b", "docs://a"]}


def test_the_file_is_not_read_again_while_a_save_of_this_run_runs(tmp_path: Path) -> None:
    # A read between a save's read and its end could show the file from before the save with the save's
    # changes already forgotten (the bookmark written, but hidden until the file changed again).
    path = tmp_path / "bookmarks.json"
    marks = Bookmarks(path)
    assert marks.toggle("demo", "docs://a")
    other = Bookmarks(path)  # another explorer saves meanwhile
    assert other.toggle("demo", "docs://other") and other.save()
    with marks._saving:  # a save of this run, in its thread
        assert not marks.has("demo", "docs://other")  # read once that save ends, not in its middle
        assert marks.has("demo", "docs://a")
    assert marks.has("demo", "docs://other") and marks.has("demo", "docs://a")


def test_a_lone_surrogate_in_the_file_is_written_back_as_its_escape(tmp_path: Path) -> None:
    """A hand-edited `\\ud800` is no UTF-8: the write raised UnicodeEncodeError (not an OSError), which
    escaped the save, left a temporary file each time, and no bookmark was ever saved again."""
    path = tmp_path / "bookmarks.json"
    path.write_text('{"version": 1, "servers": {"env": ["t://odd/\\ud800x"]}}')
    marks = Bookmarks(path)
    assert marks.toggle("demo", "docs://") and marks.save()
    assert _file(path)["servers"] == {"env": ["t://odd/\ud800x"], "demo": ["docs://"]}
    assert [p.name for p in tmp_path.iterdir()] == ["bookmarks.json"]


@pytest.mark.anyio
@pytest.mark.slow
async def test_a_save_that_raises_is_said_and_the_next_toggle_saves_again(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = isolated_home / "data" / "bookmarks.json"
    async with settled_app(demo_spec()) as (app, pilot):
        screen = main_screen(app)
        marks = screen.places.bookmarks
        save_saying = marks.save_saying

        def fails_once(*, wait: float | None = None) -> tuple[bool, str | None]:
            monkeypatch.setattr(marks, "save_saying", save_saying)
            raise RuntimeError("disk on fire")

        monkeypatch.setattr(marks, "save_saying", fails_once)
        screen.tree_widget.select_prefix("docs://handbook/welcome")
        await pilot.press("b")
        await wait_for(pilot, lambda: any("disk on fire" in str(n.message) for n in app._notifications))
        await pilot.press("down", "b")  # the saver is not left marked as running: this one is written
        await wait_for(
            pilot, lambda: path.exists() and len(_file(path).get("servers", {}).get("demo", [])) == 2
        )
