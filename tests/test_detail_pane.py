"""The details pane follows the highlighted node: its height follows its content's, whatever came before.

It asks for a new layout only when the content needs more rows than the pane has (a layout repaints the
whole screen on every cursor key); shorter details keep the rows until the cursor rests, then the pane
shrinks. These tests check what the user sees in each case.
"""

from __future__ import annotations

import html
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Static

from explorer.model.entries import ResourceEntry, TemplateEntry
from explorer.model.uri_tree import UriNode, UriTree
from explorer.widgets import detail
from explorer.widgets.detail import SHRINK_AFTER, DetailPane
from tests.app_helpers import main_screen, raw_spec, settled_app, wait_for
from tests.helpers.layouts import record_layouts

pytestmark = pytest.mark.anyio

LONG = "A description long enough to wrap over several lines of a narrow pane. " * 4


def catalogue() -> UriTree:
    tree = UriTree()
    tree.add_resources(
        [
            ResourceEntry("s", "file:///a.txt", "a", {"uri": "file:///a.txt", "name": "a"}),
            ResourceEntry("s", "file:///b.txt", "b", {"uri": "file:///b.txt", "name": "b"}),
            ResourceEntry("s", "file:///c.txt", "c", dict(uri="file:///c.txt", name="c", description=LONG)),
        ]
    )
    return tree


class PaneApp(App[None]):
    def compose(self) -> ComposeResult:
        yield DetailPane()


def shown(app: App[None]) -> str:
    """The text on screen (the screenshot a user would take), spaces as spaces."""
    return html.unescape(app.export_screenshot()).replace("\xa0", " ")


@asynccontextmanager
async def pane_on_a() -> AsyncIterator[tuple[App[None], Pilot[None], UriTree, DetailPane, Static]]:
    """The pane alone (50x40), showing the details of `file:///a.txt`."""
    tree = catalogue()
    app = PaneApp()
    async with app.run_test(size=(50, 40)) as pilot:
        pane = app.query_one(DetailPane)
        pane.show_node(tree, tree.node_for("file:///a.txt"))
        await pilot.pause()
        yield app, pilot, tree, pane, pane.query_one("#detail-body", Static)


async def test_the_pane_grows_at_once_and_keeps_its_rows_for_shorter_details(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(detail, "SHRINK_AFTER", 3600.0)  # the cursor never rests in this test
    async with pane_on_a() as (app, pilot, tree, pane, body):
        short = pane.size.height
        assert "file:///a.txt" in shown(app)

        pane.show_node(tree, tree.node_for("file:///c.txt"))
        await pilot.pause()
        tall = pane.size.height
        assert tall > short + 2  # the description's wrapped lines
        assert body.size.height == body.get_content_height(pane.size, app.size, body.size.width)
        assert "wrap over several" in shown(app)

        layouts = record_layouts(body)
        pane.show_node(tree, tree.node_for("file:///b.txt"))
        await pilot.pause()
        assert pane.size.height == tall and not any(layouts)  # the rows stay while the cursor moves
        assert "file:///b.txt" in shown(app)
        assert "wrap over several" not in shown(app) and "file:///c.txt" not in shown(app)


async def test_the_pane_shrinks_when_the_cursor_rests() -> None:
    async with pane_on_a() as (app, pilot, tree, pane, _body):
        short = pane.size.height
        pane.show_node(tree, tree.node_for("file:///c.txt"))
        await pilot.pause()
        pane.show_node(tree, tree.node_for("file:///b.txt"))
        await wait_for(pilot, lambda: pane.size.height == short)
        assert "file:///b.txt" in shown(app) and "wrap over several" not in shown(app)


async def test_shorter_details_in_a_scrolled_pane_are_shown_at_once() -> None:
    """A long description the user scrolled down in: the next node's details come into view, not blank
    rows below them."""
    tree = catalogue()
    tree.add_resources(
        [ResourceEntry("s", "file:///d.txt", "d", dict(uri="file:///d.txt", name="d", description=LONG * 3))]
    )
    app = PaneApp()
    async with app.run_test(size=(50, 16)) as pilot:
        pane = app.query_one(DetailPane)
        pane.show_node(tree, tree.node_for("file:///d.txt"))
        await pilot.pause()
        assert pane.max_scroll_y > 0  # taller than the pane may grow: it scrolls
        pane.scroll_end(animate=False)
        await pilot.pause()
        pane.show_node(tree, tree.node_for("file:///b.txt"))
        await pilot.pause()
        assert "file:///b.txt" in shown(app)
        assert pane.scroll_y == 0


async def test_a_move_before_the_rest_keeps_the_rows_and_shows_the_latest_node() -> None:
    """A pending shrink is dropped when the cursor moves on: the pane shows the latest node, never the
    content of the one it was about to shrink to."""
    async with pane_on_a() as (app, pilot, tree, pane, _body):
        pane.show_node(tree, tree.node_for("file:///c.txt"))
        await pilot.pause()
        tall = pane.size.height
        pane.show_node(tree, tree.node_for("file:///b.txt"))  # shorter: a shrink is pending
        await pilot.pause()
        pane.show_node(tree, tree.node_for("file:///c.txt"))  # the tall one again, before the rest
        await pilot.pause(SHRINK_AFTER + 0.2)
        await pilot.pause()
        assert pane.size.height == tall
        assert "wrap over several" in shown(app) and "file:///b.txt" not in shown(app)


async def test_details_of_the_same_height_replace_the_last_ones_on_screen() -> None:
    async with pane_on_a() as (app, pilot, tree, pane, body):
        height = pane.size.height
        layouts = record_layouts(body)
        pane.show_node(tree, tree.node_for("file:///b.txt"))
        await pilot.pause()
        assert pane.size.height == height
        assert layouts and not any(layouts)  # a repaint: a layout would repaint the whole screen
        assert "file:///b.txt" in shown(app) and "file:///a.txt" not in shown(app)
        pane.show_node(tree, tree.node_for("file:///c.txt"))  # taller: this one asks for a layout
        assert layouts[-1]


async def test_the_details_follow_the_cursor_in_the_frame_that_moves_it() -> None:
    """No message stands between the cursor's move and the details (a message reaches the screen after
    the tree's repaint, and the details would come in a frame of their own that the next key waits for):
    they change before the app handles anything else."""
    async with settled_app(raw_spec("plain")) as (app, pilot):
        screen = main_screen(app)
        tree = screen.tree_widget
        body = screen.query_one(DetailPane).query_one("#detail-body", Static)
        assert tree.select_prefix("fixture://items/0")
        await pilot.press("right")
        checked = 0
        for _ in range(8):
            before = str(body.render())
            tree.action_cursor_down()  # no await: nothing else runs in between
            after = str(body.render())
            assert after != before
            node = tree.cursor_node
            if isinstance(node, UriNode):
                assert node.prefix in after
                checked += 1
            await pilot.pause()
        assert checked >= 3


async def test_the_details_follow_pages_that_change_the_highlighted_node() -> None:
    """The cursor starts on the root before any page came: the pages that follow change what the root
    holds, and its details say so without a key."""
    async with settled_app(raw_spec("plain")) as (app, pilot):
        screen = main_screen(app)
        body = screen.query_one(DetailPane).query_one("#detail-body", Static)
        await pilot.pause()
        assert screen.tree_widget.cursor == 0
        root = screen.catalogue.tree.root
        assert f"Below        {root.items_below:,} (" in str(body.render())
        layouts = record_layouts(body)
        screen.refresh_details()  # nothing changed since: the pane is left alone
        assert layouts == []


async def test_counts_below_a_prefix_read_as_english() -> None:
    tree = UriTree()
    tree.add_resources([ResourceEntry("s", "s://x/one", "one", {"uri": "s://x/one", "name": "one"})])
    app = PaneApp()
    async with app.run_test(size=(80, 20)) as pilot:
        pane = app.query_one(DetailPane)
        pane.show_node(tree, tree.node_for("s://x"))
        await pilot.pause()
        assert "1 (1 resource · 0 templates) · 1 child" in shown(app)


async def test_a_template_below_a_prefix_is_counted_as_a_child() -> None:
    """The tree shows a template as a row under its prefix (`⟨T⟩ ...`): the details count that row."""
    tree = UriTree()
    tree.add_templates([TemplateEntry("s", "search://files{?q,limit}", "search")])
    tree.add_templates([TemplateEntry("s", "docs://handbook/{chapter}", "chapter")])
    tree.add_resources(
        [ResourceEntry("s", "docs://handbook/a", "a", {"uri": "docs://handbook/a", "name": "a"})]
    )
    app = PaneApp()
    async with app.run_test(size=(80, 20)) as pilot:
        pane = app.query_one(DetailPane)
        pane.show_node(tree, tree.node_for("search://"))
        await pilot.pause()
        assert "1 (0 resources · 1 template) · 1 child (a template)" in shown(app)
        pane.show_node(tree, tree.node_for("docs://handbook"))
        await pilot.pause()
        assert "2 (1 resource · 1 template) · 2 children (1 template)" in shown(app)
        pane.show_node(tree, tree.root)
        await pilot.pause()
        assert "3 (1 resource · 2 templates) · 2 children" in shown(app)
