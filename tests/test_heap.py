"""What a big change to the tree's rows leaves alive is kept away from the collector (frozen), so no
collection walks a million-entry result three times; a small tree is left to the collector as usual.
`BetweenFrames` leaves the interpreter its young collections and runs the older ones when asked."""

from __future__ import annotations

import gc

import pytest

from explorer.model.heap import BIG_TREE, BetweenFrames, big_change, freeze_if_big, scan_without_collector


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
    freeze_if_big(BIG_TREE)
    assert gc.get_freeze_count() == 0
    freeze_if_big(BIG_TREE + 1)
    assert gc.get_freeze_count() >= len(made)


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


def test_between_frames_leaves_young_collections_to_the_interpreter_and_asks_for_older_ones() -> None:
    asked: list[int] = []
    collector = BetweenFrames(lambda: asked.append(1))
    before = gc.get_threshold()
    older: list[int] = []

    def watch(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] > 0:
            older.append(info["generation"])

    gc.collect()
    collector.install()
    gc.callbacks.append(watch)
    try:
        assert gc.get_threshold()[0] == before[0]  # young collections as before
        young_collections_until_asked(asked)
        assert older == []  # the interpreter made none of the older ones itself
        assert gc.get_count()[1] >= before[1]
        for _ in range(2_000):  # more young collections meanwhile: asked once, not again
            Cycle()
        assert asked == [1]

        collector.run_due()  # "a frame was painted"
        assert older == [1]
        assert gc.get_count()[1] == 0
        for _ in range(before[2]):  # enough middle collections: the next one due is a full one
            asked.clear()
            young_collections_until_asked(asked)
            collector.run_due()
        assert older[-1] == 2
        assert gc.get_count()[2] == 0
    finally:
        gc.callbacks.remove(watch)
        collector.uninstall()
    assert gc.get_threshold() == before
    assert collector._on_collection not in gc.callbacks


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
