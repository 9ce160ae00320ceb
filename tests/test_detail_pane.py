"""The details pane follows the highlighted node: its height follows its content's, whatever came before.

It asks for a new layout only when the content's height changes (a layout repaints the whole screen on
every cursor key); these tests check what the user sees in both cases.
"""

from __future__ import annotations

import html

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from explorer.model.entries import ResourceEntry
from explorer.model.uri_tree import UriTree
from explorer.widgets.detail import DetailPane

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


async def test_the_pane_grows_and_shrinks_with_the_details() -> None:
    tree = catalogue()
    app = PaneApp()
    async with app.run_test(size=(50, 40)) as pilot:
        pane = app.query_one(DetailPane)
        body = pane.query_one("#detail-body", Static)
        pane.show_node(tree, tree.node_for("file:///a.txt"))
        await pilot.pause()
        short = pane.size.height
        assert "file:///a.txt" in shown(app)

        pane.show_node(tree, tree.node_for("file:///c.txt"))
        await pilot.pause()
        assert pane.size.height > short + 2  # the description's wrapped lines
        assert body.size.height == body.get_content_height(pane.size, app.size, body.size.width)
        assert "wrap over several" in shown(app)

        pane.show_node(tree, tree.node_for("file:///b.txt"))
        await pilot.pause()
        assert pane.size.height == short
        assert "wrap over several" not in shown(app)


async def test_details_of_the_same_height_replace_the_last_ones_on_screen() -> None:
    tree = catalogue()
    app = PaneApp()
    async with app.run_test(size=(50, 40)) as pilot:
        pane = app.query_one(DetailPane)
        pane.show_node(tree, tree.node_for("file:///a.txt"))
        await pilot.pause()
        height = pane.size.height
        pane.show_node(tree, tree.node_for("file:///b.txt"))
        await pilot.pause()
        assert pane.size.height == height
        assert "file:///b.txt" in shown(app) and "file:///a.txt" not in shown(app)
