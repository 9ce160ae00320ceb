"""The tree's vertical scroll bar paints what Textual's own bar does.

`TreeScrollBar` paints its rows from a few cached strips: the checks compare them with a fresh paint
through Textual's own path, over scroll positions, tree sizes, view heights, hover, a change of theme,
NO_COLOR's filter, and rows that come and go.
"""

from __future__ import annotations

import random

import pytest
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.scrollbar import ScrollBar
from textual.strip import Strip

from explorer.model.uri_tree import UriTree
from explorer.theming import theme_variable_defaults
from explorer.widgets.resource_tree import ResourceTree
from explorer.widgets.resource_tree.scroll_bar import TreeScrollBar
from tests.factories import res

pytestmark = pytest.mark.anyio


def flat_tree(count: int) -> UriTree:
    tree = UriTree()
    tree.add_resources([res("s", f"bar://items/item-{index}") for index in range(count)])
    return tree


class TreeApp(App[None]):
    def __init__(self, tree: UriTree) -> None:
        super().__init__()
        self.uri_model = tree

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults()

    def compose(self) -> ComposeResult:
        yield ResourceTree(self.uri_model)

    def on_mount(self) -> None:
        self.query_one(ResourceTree).focus()


def shown(bar: ScrollBar) -> list[Strip]:
    """The bar's rows as the screen gets them when it paints them."""
    return bar.render_lines(Region(0, 0, *bar.size))


painting_anew = False  # set while `painted_by_textual` calls Textual's path on purpose


def painted_by_textual(bar: ScrollBar) -> list[Strip]:
    """The bar's rows painted anew through Textual's own path, from its state now."""
    global painting_anew
    bar.refresh()
    painting_anew = True
    try:
        return ScrollBar.render_lines(bar, Region(0, 0, *bar.size))
    finally:
        painting_anew = False


async def expanded(app: TreeApp) -> ResourceTree:
    tree = app.query_one(ResourceTree)
    node = tree.rows.tree.node_for("bar://items")
    assert node is not None
    tree.expand_node(node)
    return tree


@pytest.mark.parametrize(
    ("count", "height", "no_color"), [(300, 12, False), (5_000, 30, True), (50, 45, False)]
)
async def test_the_bar_shows_what_textual_paints_at_every_position(
    count: int, height: int, no_color: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")  # Textual adds a line filter that makes every line grey
    app = TreeApp(flat_tree(count))
    async with app.run_test(size=(70, height)) as pilot:
        tree = await expanded(app)
        await pilot.pause()
        bar = tree.vertical_scrollbar
        assert isinstance(bar, TreeScrollBar)
        fallbacks: list[int] = []
        pipeline = ScrollBar.render_lines

        def counted(self: ScrollBar, crop: Region) -> list[Strip]:
            if self is bar and not painting_anew:
                fallbacks.append(1)
            return pipeline(self, crop)

        monkeypatch.setattr(ScrollBar, "render_lines", counted)
        rng = random.Random(count)
        positions = [0, 1, 2, 3, tree.max_scroll_y, tree.max_scroll_y - 1, 0]
        positions += [rng.randrange(0, max(1, int(tree.max_scroll_y) + 1)) for _ in range(25)]
        for step, position in enumerate(positions):
            tree.scroll_to(y=position, animate=False)
            await pilot.pause()
            if step == 10:
                await pilot.hover(ResourceTree, offset=(69, 2))  # over the bar: its hover colours
            if step == 20:
                app.theme = "textual-light"
            await pilot.pause()
            assert shown(bar) == painted_by_textual(bar), (count, height, position)
        assert fallbacks == []  # every paint above was the bar's own


async def test_rows_that_come_and_go_repaint_the_bar_as_textual_does() -> None:
    app = TreeApp(flat_tree(2_000))
    async with app.run_test(size=(70, 20)) as pilot:
        tree = await expanded(app)
        await pilot.pause()
        tree.scroll_to(y=900, animate=False)
        await pilot.pause()
        bar = tree.vertical_scrollbar
        node = tree.rows.tree.node_for("bar://items")
        assert node is not None
        tree.collapse_node(node)  # the bar goes: one row
        await pilot.pause()
        tree.expand_node(node)
        await pilot.pause()
        for position in (0, 500, 1_990):
            tree.scroll_to(y=position, animate=False)
            await pilot.pause()
            assert shown(bar) == painted_by_textual(bar)
