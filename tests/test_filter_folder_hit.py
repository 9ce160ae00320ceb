"""A `/` filter whose text names a folder shows what is under it: the matched folder opens one level (as a
file picker lists the files under a matched folder), when that fits on the screen with the other matches;
otherwise the matched folders stay closed, each with its count. The opening is the filter's own (gone
with it) and bounded by the view, never a folder of 10^6 children opened by a keystroke."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from explorer.app import ExplorerApp
from explorer.model.entries import ResourceEntry
from explorer.model.tree_filter import compute_filter
from explorer.model.tree_view import TreeRows
from explorer.model.uri_tree import UriNode, UriTree
from explorer.widgets.resource_tree import ResourceTree
from tests.app_helpers import demo_spec, main_screen, settled_app, tree_lines, wait_for

DOCS = "file:///workspace/tidewater/docs"


async def _type_filter(pilot: Pilot[int], app: ExplorerApp, text: str) -> ResourceTree:
    tree = main_screen(app).query_one(ResourceTree)
    await pilot.press("slash", *text)
    await wait_for(pilot, lambda: tree.filter_result is not None and tree.filter_result.text == text)
    await pilot.pause()
    return tree


def _shown(app: ExplorerApp) -> list[str]:
    return tree_lines(app)


@pytest.mark.anyio
@pytest.mark.slow
async def test_a_folder_the_filter_names_is_shown_open() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        tree = await _type_filter(pilot, app, "/docs")
        shown = _shown(app)
        assert "    └╴▾ docs  4" in shown, shown  # open, not `▸ docs  4`
        at = shown.index("    └╴▾ docs  4")
        assert shown[at + 1 : at + 4] == ["      ├╴▸ api  2", "      ├╴  index.md", "      └╴  quickstart.md"]
        cursor = tree.cursor_node
        assert isinstance(cursor, UriNode) and cursor.prefix == DOCS  # on the folder, its contents below
        await pilot.press("escape")  # the filter's opening goes with it
        await wait_for(pilot, lambda: tree.filter_result is None)
        folder = tree.cursor_node
        assert isinstance(folder, UriNode) and folder.prefix == DOCS and not tree.is_expanded(folder)


@pytest.mark.anyio
@pytest.mark.slow
async def test_matched_folders_stay_closed_when_their_contents_would_push_matches_off_screen() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        await _type_filter(pilot, app, "/stations")  # a folder of 315, then two files further down
        shown = _shown(app)
        assert "    │ └╴▸ stations  315" in shown, shown
        assert "      └╴  stations.py" in shown  # the last match is still on screen


@pytest.mark.anyio
@pytest.mark.slow
async def test_a_text_ending_in_a_slash_shows_the_folder_contents_closed() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        await _type_filter(pilot, app, "/docs/")  # the contents of docs: docs is open, api listed closed
        shown = _shown(app)
        assert "    └╴▾ docs  4" in shown and "      ├╴▸ api  2" in shown, shown


def _tree(wide: int) -> UriTree:
    tree = UriTree()
    raw: dict[str, object] = {}
    tree.add_resources(ResourceEntry("s", f"x://h/small/f{i}", f"f{i}", raw) for i in range(3))
    tree.add_resources(ResourceEntry("s", f"x://h/wide/w{i}", f"w{i}", raw) for i in range(wide))
    return tree


def _labels(rows: TreeRows) -> list[tuple[int, str, bool]]:
    return [(row.depth, row.label, row.block is not None) for row in rows]


def test_the_opening_is_bounded_by_the_view_and_kept_as_the_filter_s_own() -> None:
    tree = _tree(200_000)
    rows = TreeRows(tree)
    rows.filter_room = 40
    change = rows.apply_filter(compute_filter(tree, "/small"), 0)
    small = tree.node_for("x://h/small")
    wide = tree.node_for("x://h/wide")
    assert small is not None and wide is not None
    assert rows.is_expanded(small) and len(rows) == 6  # root, x://h, small and its 3 files
    assert change.expanded == []  # not the user's expand: no listing by prefix follows
    assert _labels(rows) == _labels(TreeRows(tree, expansions=rows.expansions, filter_result=rows.filter))
    tree.add_resources([ResourceEntry("s", "x://h/small/f9", "f9", {})])  # a page while filtered
    cursor = rows.model_changed(change.cursor).cursor
    assert rows.is_expanded(small) and len(rows) == 7
    assert rows.row(cursor).node is small
    rows.clear_filter(cursor)  # the filter's opening goes with it; the cursor's folder stays in sight
    assert rows.find(small).node is small and not rows.is_expanded(small)
    rows.apply_filter(compute_filter(tree, "/wide"), 0)  # 200,000 children: far past the view
    assert rows.find(wide).node is wide and not rows.is_expanded(wide) and len(rows) == 3


@pytest.mark.parametrize("room", [0, 40])
def test_clearing_the_filter_on_a_folder_chain_leaves_it_closed(room: int) -> None:
    """A chain row (`src/pkg`, one line for two nodes) the cursor is on when the filter is cleared stays
    closed, as any other folder does: its inner node is no ancestor to keep open (that opened it)."""
    tree = UriTree()
    tree.add_resources(ResourceEntry("s", f"x://h/src/pkg/f{i}", f"f{i}", {}) for i in range(3))
    tree.add_resources([ResourceEntry("s", "x://h/other", "other", {})])
    rows = TreeRows(tree)
    rows.filter_room = room
    change = rows.apply_filter(compute_filter(tree, "/src"), 0)
    pkg = tree.node_for("x://h/src/pkg")
    assert pkg is not None and rows.row(change.cursor).node is pkg
    assert rows.is_expanded(pkg) == bool(room)  # opened by the filter when the view has room
    change = rows.clear_filter(change.cursor)
    assert [row.label for row in rows] == ["", "x://h", "other", "src/pkg"]
    assert rows.row(change.cursor).node is pkg and not rows.is_expanded(pkg)
