"""What a big change to the tree's rows leaves alive is kept away from the collector (frozen), so no
collection walks a million-entry result three times; a small tree is left to the collector as usual.
`BetweenFrames` leaves the interpreter its young collections and runs the older ones when asked."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from explorer.model.heap import (
    BIG_TREE,
    COLLECT_BEFORE_FREEZE,
    NEVER,
    BetweenFrames,
    big_change,
    keep_big_result,
    scan_without_collector,
)


@pytest.fixture(autouse=True)
def thawed() -> object:
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_a_big_change_freezes_what_it_made_and_runs_without_the_collector() -> None:
    seen: list[bool] = []
    with big_change(BIG_TREE + 1):
        seen.append(gc.isenabled())
        made = [[index] for index in range(1_000)]  # tracked containers, as a layout of rows is
    assert seen == [False] and gc.isenabled()
    assert gc.get_freeze_count() >= len(made)
    assert all(not gc.is_finalized(item) for item in made)  # frozen, still alive and usable
    del made  # freed by reference counting, frozen or not


def test_a_small_tree_is_left_to_the_collector() -> None:
    seen: list[bool] = []
    with big_change(BIG_TREE):
        seen.append(gc.isenabled())
        made = [[index] for index in range(1_000)]
    assert seen == [True] and gc.get_freeze_count() == 0 and len(made) == 1_000
    keep_big_result(BIG_TREE)
    assert gc.get_freeze_count() == 0
    keep_big_result(BIG_TREE + 1)
    assert gc.get_freeze_count() >= len(made)


def frozen_garbage() -> list[object]:
    """The `Cycle`s that were frozen although nothing reached them (found once thawed)."""
    gc.unfreeze()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        return [item for item in gc.garbage if isinstance(item, Cycle)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def test_a_big_change_or_result_does_not_freeze_garbage_for_good() -> None:
    """A freeze keeps what is not collected yet, unreachable cycles included: they would never be freed
    (the frames and widgets leave some at every keystroke). Both collect first (a scan, when it left
    little: see the next test)."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()  # the cycles below wait, as they do between two collections
    try:
        for _ in range(100):
            Cycle()
        gc.enable()
        with big_change(BIG_TREE + 1):
            kept = [[index] for index in range(100)]
        assert frozen_garbage() == []
        gc.disable()
        for _ in range(100):
            Cycle()
        keep_big_result(BIG_TREE + 1)  # in a scan's thread, with the collector off
        assert frozen_garbage() == []
    finally:
        if was_enabled:
            gc.enable()
    assert len(kept) == 100


def test_a_scan_that_left_much_or_is_dropped_is_frozen_without_a_collection_first() -> None:
    """Pages merged while a scan ran (the collector off) are many young objects: collecting them first
    held the interpreter lock for 64 ms at 10^6. Frozen as they are, garbage and all. A dropped scan's
    little is left to the collector, its much frozen as it is."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    collections: list[int] = []

    def watch(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.callbacks.append(watch)
    try:
        merged = [[index] for index in range(COLLECT_BEFORE_FREEZE + 1)]
        keep_big_result(BIG_TREE + 1)
        assert collections == []
        assert gc.get_freeze_count() >= len(merged)
        collections.clear()
        frozen = gc.get_freeze_count()
        few = [[index] for index in range(100)]
        keep_big_result(BIG_TREE + 1, used=False)  # a stale scan's, that left little: the collector's
        assert collections == [] and gc.get_freeze_count() == frozen
        more = [[index] for index in range(100)]
        keep_big_result(BIG_TREE + 1)
        assert collections == [2] and gc.get_freeze_count() >= frozen + len(few) + len(more)
        collections.clear()
        much = [[index] for index in range(COLLECT_BEFORE_FREEZE + 1)]
        keep_big_result(BIG_TREE + 1, used=False)  # a stale scan's, that left much: frozen as it is
        assert collections == [] and gc.get_freeze_count() >= frozen + len(much)
    finally:
        gc.callbacks.remove(watch)
        if was_enabled:
            gc.enable()


def test_the_collector_comes_back_when_the_change_fails() -> None:
    with pytest.raises(RuntimeError), big_change(BIG_TREE + 1):
        raise RuntimeError("the row model failed")
    assert gc.isenabled()


class Cycle:
    """Garbage only the cyclic collector frees."""

    def __init__(self) -> None:
        self.me = self


def young_collections_until_asked(asked: list[int], limit: int = 100_000) -> None:
    for _ in range(limit):
        Cycle()
        if asked:
            return
    raise AssertionError("no older collection was ever asked for")


@contextmanager
def installed() -> Iterator[tuple[BetweenFrames, list[int], list[int]]]:
    """A `BetweenFrames` installed from clean counts: (it, what it asked for, the older collections'
    generations as they start)."""
    asked: list[int] = []
    collector = BetweenFrames(lambda: asked.append(1))
    older: list[int] = []

    def watch(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] > 0:
            older.append(info["generation"])

    gc.collect()
    collector.install()
    gc.callbacks.append(watch)
    try:
        yield collector, asked, older
    finally:
        gc.callbacks.remove(watch)
        collector.uninstall()


def test_between_frames_leaves_young_collections_to_the_interpreter_and_asks_for_older_ones() -> None:
    before = gc.get_threshold()
    kept: list[Cycle] = []
    with installed() as (collector, asked, older):
        assert gc.get_threshold()[0] == before[0]  # young collections as before
        young_collections_until_asked(asked)
        assert older == []  # the interpreter made none of the older ones itself
        assert gc.get_count()[1] > before[1]
        for _ in range(2_000):  # more young collections meanwhile: asked once, not again
            Cycle()
        assert asked == [1]

        collector.run_due()  # "a frame was painted"
        assert older == [1]
        assert gc.get_count()[1] == 0
        # Live objects reach the oldest generation (a quarter more than it held), and enough middle
        # collections pass: the next one due is a full one.
        kept.extend(Cycle() for _ in range(len(gc.get_objects(2)) // 4 + 10_000))
        collector.run_due()  # what that asked for
        while older[-1] != 2 and len(older) < 3 * before[2]:
            asked.clear()
            young_collections_until_asked(asked)
            collector.run_due()
        assert older[-1] == 2 and older.count(1) >= before[2]  # a full one after as many middle ones
        assert gc.get_count()[2] == 0
    assert gc.get_threshold() == before
    assert collector._on_collection not in gc.callbacks


def test_a_full_collection_waits_until_a_quarter_more_reached_the_oldest_generation() -> None:
    """CPython's rule against quadratic full collections, kept: garbage that never reaches the oldest
    generation makes middle collections only, however many."""
    before = gc.get_threshold()
    with installed() as (collector, asked, older):
        for _ in range(3 * before[2]):
            asked.clear()
            young_collections_until_asked(asked)
            collector.run_due()
        assert older and set(older) == {1}


@pytest.mark.parametrize("order", ["nested", "crossed"])
def test_several_installed_at_once_give_the_thresholds_back_when_the_last_goes(order: str) -> None:
    before = gc.get_threshold()
    first, second = BetweenFrames(lambda: None), BetweenFrames(lambda: None)
    first.install()
    second.install()
    (second if order == "nested" else first).uninstall()
    assert gc.get_threshold()[1:] == (NEVER, NEVER)  # one is still installed
    (first if order == "nested" else second).uninstall()
    assert gc.get_threshold() == before
    third = BetweenFrames(lambda: None)
    third.install()
    third.uninstall()
    assert gc.get_threshold() == before


def test_nothing_changes_where_the_collector_is_incremental(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(BetweenFrames, "SUPPORTED", False)  # Python 3.14 and later
    before = gc.get_threshold()
    collector = BetweenFrames(lambda: None)
    collector.install()
    assert not collector.installed and gc.get_threshold() == before
    collector.uninstall()
    assert gc.get_threshold() == before


def test_between_frames_runs_nothing_while_the_collector_is_off() -> None:
    """A substring scan turns the collector off so that nothing walks its big young containers: a frame
    painted meanwhile must not walk them either."""
    asked: list[int] = []
    collector = BetweenFrames(lambda: asked.append(1))
    collector.install()
    older: list[int] = []

    def watch(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            older.append(info["generation"])

    try:
        young_collections_until_asked(asked)
        gc.callbacks.append(watch)
        with scan_without_collector():
            collector.run_due()
        assert older == []
        asked.clear()
        young_collections_until_asked(asked)  # asked again once the collector is back
        collector.run_due()
        assert older[-1] >= 1
    finally:
        if watch in gc.callbacks:
            gc.callbacks.remove(watch)
        collector.uninstall()


def cycles_waiting(count: int) -> None:
    """`count` unreachable cycles, as between two collections: made after one, with the collector on but
    too few allocations since to start another."""
    gc.collect()
    for _ in range(count):
        Cycle()


def test_a_page_of_a_short_run_is_frozen_without_a_collection_and_a_long_runs_after_one() -> None:
    """The CLI's `tree` ends with its listing: a page's cycles are frozen as they are, kept until exit
    (no collection per page); the TUI runs for hours and collects them first."""
    from explorer.model.heap import after_ingest, after_ingest_briefly

    assert gc.isenabled()
    cycles_waiting(10)
    before = gc.get_freeze_count()
    after_ingest_briefly()
    assert gc.get_freeze_count() > before
    assert len(frozen_garbage()) == 10  # kept by the freeze; `frozen_garbage` thaws and frees them
    cycles_waiting(10)
    after_ingest()
    assert frozen_garbage() == []
