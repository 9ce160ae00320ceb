"""Back/forward over visited places, and bookmarks kept per server between runs."""

from __future__ import annotations

from pathlib import Path

from explorer.bookmarks import Bookmarks
from explorer.model.navigation import Navigation, Place


def test_back_and_forward_move_like_a_browser() -> None:
    nav = Navigation()
    a, b, c, d = (Place(f"test://{x}") for x in "abcd")
    for place in (a, b, b, c):
        nav.visit(place)
    assert nav.places == [a, b, c]  # the same place twice in a row is one entry
    assert nav.back() == b and nav.back() == a and nav.back() is None
    assert nav.forward() == b
    nav.visit(d)  # a new place after going back drops what was ahead
    assert nav.places == [a, b, d] and nav.forward() is None and nav.current == d


def test_the_history_is_capped() -> None:
    nav = Navigation(cap=3)
    for index in range(10):
        nav.visit(Place(f"test://{index}"))
    assert [p.uri for p in nav.places] == ["test://7", "test://8", "test://9"]


def test_bookmarks_are_kept_per_server_between_runs(tmp_path: Path) -> None:
    path = tmp_path / "bookmarks.json"
    marks = Bookmarks(path)
    assert marks.toggle("demo", "docs://handbook/welcome") is True
    assert marks.toggle("other", "file:///x") is True
    assert marks.save()
    again = Bookmarks(path)
    assert again.has("demo", "docs://handbook/welcome") and not again.has("other", "docs://handbook/welcome")
    assert again.all() == [("demo", "docs://handbook/welcome"), ("other", "file:///x")]
    assert again.toggle("demo", "docs://handbook/welcome") is False and "demo" not in again.servers


def test_a_broken_bookmarks_file_is_read_as_empty(tmp_path: Path) -> None:
    path = tmp_path / "bookmarks.json"
    path.write_text("{not json")
    assert Bookmarks(path).all() == []
    path.write_text('{"servers": {"demo": ["ok", 3, null]}, "version": 1}')
    assert Bookmarks(path).all() == [("demo", "ok")]
