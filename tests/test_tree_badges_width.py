"""Server badges grow with the tree's width (`render.badge_cells`): cut to 12 cells in a narrow tree, whole
in a wide one when the name fits in 28.

A badge cut to 12 cells whatever the width showed `filesystem-…` at 220 columns, where the whole
`filesystem-production-eu` had room.
"""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from explorer.model.uri_tree import UriTree
from explorer.sanitize import is_clean
from explorer.widgets.resource_tree import ResourceTree
from explorer.widgets.resource_tree.render import BADGE_CELLS, WIDE_BADGE_CELLS, badge_cells
from tests.app_helpers import demo_spec, main_screen, settled_app, tree_lines, wait_for
from tests.factories import res
from tests.test_resource_tree import TreeApp, screen_lines

pytestmark = pytest.mark.anyio

LONG = "filesystem-production-eu"  # 24 cells
HOSTILE = "evil\x1b]8;;http://x\x07-server-with-a-long-name-eu"


def badges_tree() -> UriTree:
    tree = UriTree()
    tree.add_resources([res(LONG, "fs://data/report.txt"), res("demo", "fs://data/report.txt")])
    tree.add_resources([res(HOSTILE, "fs://data/evil.txt")])
    return tree


def row(view: ResourceTree, text: str) -> str:
    return next(line for line in screen_lines(view) if text in line)


def test_the_badge_width_rule() -> None:
    assert [badge_cells(width) for width in (0, 40, 60, 61, 62, 80, 92, 200)] == [
        12,
        12,
        12,
        12,
        13,
        22,
        28,
        28,
    ]
    assert all(BADGE_CELLS <= badge_cells(width) <= WIDE_BADGE_CELLS for width in range(-5, 500))


async def test_a_long_server_name_is_cut_in_a_narrow_tree_and_whole_in_a_wide_one() -> None:
    """One app resized: narrow, wide, narrow again (no badge cut to the old width stays on screen)."""
    app = TreeApp(badges_tree(), show_servers=True)
    async with app.run_test(size=(60, 12)) as pilot:
        view = app.query_one(ResourceTree)
        data = view.uri_tree.node_for("fs://data")
        assert data is not None
        view.expand_node(data)
        await pilot.pause()
        narrow = row(view, "report.txt")
        assert narrow.endswith(" demo   filesystem-…"), narrow
        await pilot.resize_terminal(120, 12)
        await wait_for(pilot, lambda: LONG in row(view, "report.txt"))
        wide = row(view, "report.txt")
        assert wide.endswith(f" demo   {LONG}"), wide
        evil = row(view, "evil.txt")  # cut to 28 cells, and sanitized
        badge = evil.split("  ")[-1].strip()
        assert badge.endswith("…") and BADGE_CELLS < cell_len(badge) <= WIDE_BADGE_CELLS, evil
        assert is_clean(evil, multiline=False) and "\\x1b" in evil, evil
        await pilot.resize_terminal(60, 12)
        await wait_for(pilot, lambda: LONG not in row(view, "report.txt"))
        assert "filesystem-…" in row(view, "report.txt")


@pytest.mark.slow
async def test_the_main_screen_shows_the_whole_name_at_220_columns_and_cuts_it_at_100() -> None:
    """The app itself, its tree 45% of the terminal: two servers, so the rows carry badges."""
    async with settled_app(demo_spec(LONG), demo_spec("demo"), size=(100, 30)) as (app, pilot):
        tree = main_screen(app).tree_widget
        await wait_for(pilot, lambda: tree.show_servers)
        tree.focus()
        await pilot.press("l")  # open the first prefix: its rows are served by both servers
        await wait_for(pilot, lambda: any("filesystem-…" in line for line in tree_lines(app)))
        assert not any(LONG in line for line in tree_lines(app)), tree_lines(app)
        await pilot.resize_terminal(220, 30)
        await wait_for(pilot, lambda: any(line.endswith(f" {LONG}") for line in tree_lines(app)))
        assert not any("filesystem-…" in line for line in tree_lines(app)), tree_lines(app)


FOUR = (
    "filesystem-production-eu",
    "filesystem-production-us",
    "github-enterprise-cloud",
    "postgres-analytics",
)


def four_servers_tree() -> UriTree:
    """Four servers with long names, one resource each, all under `fs://data`."""
    tree = UriTree()
    for name in FOUR:
        tree.add_resources([res(name, f"fs://data/{name[-2:]}.txt")])
    return tree


def cut_forms(line: str) -> dict[str, str]:
    """The cut badges of `line` (`filesy…on-eu`), each by the one of `FOUR` it reads as."""
    found: dict[str, str] = {}
    for word in line.split():
        head, cut, tail = word.partition("…")
        if cut and (head or tail):
            readers = [name for name in FOUR if name.startswith(head) and name.endswith(tail)]
            if len(readers) == 1:
                found[readers[0]] = word
    return found


async def test_a_row_with_many_badges_keeps_them_narrow_to_fit_and_a_leaf_row_widens() -> None:
    """At 100 columns a badge may be 28 cells: the prefix row's four badges would then need 124 columns,
    so they stay at 12 cells (the row fits, no horizontal scrollbar); a leaf row's one badge shows the whole
    name. Wide enough, the prefix row shows whole names too, and back at 100 cut ones again."""
    app = TreeApp(four_servers_tree(), show_servers=True)
    async with app.run_test(size=(100, 12)) as pilot:
        view = app.query_one(ResourceTree)
        data = view.uri_tree.node_for("fs://data")
        assert data is not None
        view.expand_node(data)
        await pilot.pause()
        await pilot.pause()
        prefix = row(view, "fs://data")
        assert sorted(cut_forms(prefix)) == sorted(FOUR), prefix
        assert all(cell_len(word) <= BADGE_CELLS for word in cut_forms(prefix).values()), prefix
        assert not view.horizontal_scrollbar.display, screen_lines(view)
        assert row(view, "eu.txt").endswith(f" {FOUR[0]}"), row(view, "eu.txt")
        await pilot.resize_terminal(200, 12)
        await wait_for(pilot, lambda: all(name in row(view, "fs://data") for name in FOUR))
        assert not cut_forms(row(view, "fs://data")), row(view, "fs://data")
        await pilot.resize_terminal(100, 12)
        await wait_for(pilot, lambda: sorted(cut_forms(row(view, "fs://data"))) == sorted(FOUR))
        await pilot.pause()
        assert not view.horizontal_scrollbar.display, screen_lines(view)
        assert row(view, "eu.txt").endswith(f" {FOUR[0]}"), row(view, "eu.txt")
