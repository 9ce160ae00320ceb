"""What a big change to the tree's rows leaves alive is kept away from the collector (frozen), so no
collection walks a million-entry result three times; a small tree is left to the collector as usual."""

from __future__ import annotations

import gc

import pytest

from explorer.model.heap import BIG_TREE, big_change, freeze_if_big


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
