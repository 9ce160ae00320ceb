"""Rows that leave the lines are freed by reference counting, never left to the cyclic collector.

Why it matters: a change to a big tree freezes what is alive at its end (`heap.big_change`), and a
reference cycle nobody reaches any more is frozen with it for good. Open rows and their blocks point at
each other, so every drop site must release them (`rows.release`); these tests find any that does not.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.stateful import invariant

from explorer.model.entries import ResourceEntry
from explorer.model.tree_filter import compute_filter
from explorer.model.tree_view import TreeRows
from explorer.model.tree_view.rows import Block, Row, release
from explorer.model.uri_tree import UriTree
from tests.factories import res, tpl
from tests.test_tree_rows import TreeRowsMachine, lines, rebuilt


def rows_left_to_the_collector() -> list[object]:
    """Rows and blocks that only a cyclic collection would free (found by one, and kept to be looked at)."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        return [item for item in gc.garbage if isinstance(item, Row | Block)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


@pytest.fixture
def young_heap() -> Iterator[None]:
    """Everything alive before the test is frozen, so each collection walks only what the test made."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def nested_tree(width: int) -> UriTree:
    tree = UriTree()
    tree.add_resources([res("s", f"x://a/b{i % 3}/c{i % 5}/item{i}") for i in range(width)])
    return tree


def expand_all(rows: TreeRows, cursor: int) -> int:
    line = 0
    while line < len(rows):
        cursor = rows.expand(line, cursor).cursor
        line += 1
    return cursor


@pytest.mark.usefixtures("young_heap")
def test_filters_collapses_and_pages_leave_no_row_cycles() -> None:
    tree = nested_tree(60)
    rows = TreeRows(tree)
    cursor = expand_all(rows, 0)  # open rows with open kids, four levels deep
    assert sum(1 for row in rows if row.block is not None) == 1 + 1 + 3 + 15
    assert rows_left_to_the_collector() == []

    steps = [
        lambda: rows.apply_filter(compute_filter(tree, "x://a/b1"), cursor),
        lambda: rows.apply_filter(compute_filter(tree, "item2"), cursor),
        lambda: rows.clear_filter(cursor),
        lambda: rows.rebuild(cursor),
        lambda: rows.collapse(1, cursor),
        lambda: rows.expand(1, cursor),
        lambda: rows.expand_children(2, cursor),
        lambda: rows.collapse_all(cursor),
    ]
    for step in steps:
        cursor = step().cursor
        assert rows_left_to_the_collector() == [], step

    cursor = expand_all(rows, cursor)
    tree.remove_server("s")  # every open node goes: their rows leave the lines
    tree.add_resources([res("s", "x://a/b9/c1/fresh")])
    cursor = rows.model_changed(cursor).cursor
    assert rows_left_to_the_collector() == []


def test_a_filter_keystroke_in_a_big_tree_does_not_freeze_its_old_rows() -> None:
    """The leak this guards against: each keystroke froze the old rows with their list of shown
    children (1.2 MB at 300,000 children), so memory grew with every character typed."""
    gc.unfreeze()  # what earlier tests in this process froze (a big change does) is not this test's:
    gc.collect()  # the garbage among it is freed now, not found below as if this test had left it
    tree = UriTree()
    tree.add_resources([ResourceEntry("s", f"bench://flat/item{i}", f"item{i}") for i in range(2_000)])
    rows = TreeRows(tree)
    cursor = rows.expand(1, 0).cursor
    gc.collect()
    try:
        for text in ["it", "b", "it", "b"]:
            cursor = rows.apply_filter(compute_filter(tree, text), cursor).cursor
            gc.freeze()  # what `heap.big_change` does at the end of a change to a big tree
    finally:
        gc.unfreeze()  # what was frozen can be collected again: a cycle among it is found below
    assert rows_left_to_the_collector() == []


class ReleasedRowsMachine(TreeRowsMachine):
    """The row model's random walk (pages, refreshes, filters, expansions, drills), checking after every
    step that nothing it dropped waits for the cyclic collector.

    Each example collects what the one before left (its rows were never released) and freezes the rest,
    so its checks find only what it dropped itself. The heap the test found stays frozen through all the
    examples (`TestReleasedRowsMachine`): unfrozen after each, every example's first collection walked
    the whole worker's heap again (46 s in a suite's run, 3 s alone).
    """

    def __init__(self) -> None:
        gc.collect()
        gc.freeze()
        super().__init__()

    @invariant()
    def incremental_lines_equal_a_rebuild(self) -> None:
        """As the base class checks, releasing the reference view it makes (it is dropped too)."""
        reference = rebuilt(self.rows)
        try:
            assert lines(self.rows) == lines(reference)
        finally:
            release(reference.root)

    @invariant()
    def no_dropped_row_waits_for_the_collector(self) -> None:
        assert rows_left_to_the_collector() == []


@pytest.mark.slow
class TestReleasedRowsMachine(ReleasedRowsMachine.TestCase):
    settings = settings(
        max_examples=60, stateful_step_count=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )

    def setUp(self) -> None:
        gc.collect()
        gc.freeze()

    def tearDown(self) -> None:
        gc.unfreeze()


@pytest.mark.usefixtures("young_heap")
def test_an_answer_again_releases_the_candidates_opened_below_the_old_one() -> None:
    tree = UriTree()
    tree.add_templates([tpl("s", "demo://docs/{id}/{v}/{w}")])
    rows = TreeRows(tree)
    pattern = tree.pattern_for("demo://docs/{id}/{v}/{w}")
    assert pattern is not None
    at = rows.reveal(pattern, 0).cursor
    ((_, drill),) = rows.open_drill(at, at).drills
    assert rows.answer_drill(drill, ["one", "two"], None, at) is not None
    line = at
    for _ in range(2):  # a candidate opened, and one of its own: open rows with an open row below
        line += 1
        ((_, deeper),) = rows.open_drill(line, line).drills
        assert rows.answer_drill(deeper, ["x"], None, line) is not None
    assert rows.row(line + 1).label == "{w} = x"
    assert rows_left_to_the_collector() == []
    assert rows.answer_drill(drill, ["one", "three"], None, at) is not None  # the same position again
    assert rows_left_to_the_collector() == []
