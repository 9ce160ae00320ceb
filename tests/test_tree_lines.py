"""The tree hands the screen the lines Textual's styles pipeline would make, without going through it.

`ResourceTree.render_lines` skips the pipeline when the widget's styles cannot change a line (no padding,
border, tint, opacity or hatch). These checks compare its lines, for the whole view and for parts of it,
with the pipeline's over cursor moves, scrolling both ways, a filter, focus, badges and themes; and check
that CSS which does change the lines still gets them through the pipeline.
"""

from __future__ import annotations

import random

import pytest
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Input

from explorer.model.uri_tree import UriTree
from explorer.theming import theme_variable_defaults
from explorer.widgets.resource_tree import ResourceTree
from tests.factories import res, tpl

pytestmark = pytest.mark.anyio


def mixed_tree() -> UriTree:
    tree = UriTree()
    entries = [
        res("alpha", f"lines://docs/group-{g}/item-{i}.md", f"Item {i}") for g in range(6) for i in range(40)
    ]
    entries += [res("beta", "lines://docs/group-1/item-3.md", "Item 3")]
    entries += [res("alpha", "lines://wide/" + "very-long-segment-" * 12 + "end")]
    tree.add_resources(entries)
    tree.add_templates([tpl("alpha", "lines://docs/{id}", "Doc by id")])
    return tree


class LinesApp(App[None]):
    def __init__(self, css: str = "") -> None:
        super().__init__()
        self.extra_css = css

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults()

    def compose(self) -> ComposeResult:
        yield Input(id="other")
        yield ResourceTree(mixed_tree())

    def on_mount(self) -> None:
        if self.extra_css:
            self.stylesheet.add_source(self.extra_css, read_from=("test", ""))
            self.stylesheet.update(self)
            self.refresh_css()
        self.query_one(ResourceTree).focus()


def through_pipeline(tree: ResourceTree, crop: Region) -> list[Strip]:
    tree.refresh()  # drops the pipeline's cached lines: these are painted anew
    return ScrollView.render_lines(tree, crop)


def crops(tree: ResourceTree, rng: random.Random) -> list[Region]:
    width, height = tree.size
    x = rng.randrange(0, width - 1)
    y = rng.randrange(0, height - 1)
    return [
        Region(0, 0, width, height),
        Region(x, y, rng.randrange(1, width - x + 1), rng.randrange(1, height - y + 1)),
    ]


async def check_states(app: LinesApp, pilot: object, *, steps: int = 40, seed: int = 7) -> int:
    """Random keys and scrolls; after each, the tree's lines against the pipeline's. Returns how many
    states went the tree's own way."""
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    tree = app.query_one(ResourceTree)
    rng = random.Random(seed)
    own = 0
    original = ScrollView.render_lines
    for step in range(steps):
        action = rng.choice(["down", "down", "up", "right", "left", "pagedown", "scroll_x", "filter", "blur"])
        if action == "scroll_x":
            tree.scroll_to(x=rng.randrange(0, max(1, int(tree.max_scroll_x) + 1)), animate=False)
        elif action == "filter":
            tree.set_filter(rng.choice(["item-1", "", "group-2", "lines://docs/group-3"]))
        elif action == "blur":
            if tree.has_focus:
                app.query_one("#other").focus()
            else:
                tree.focus()
        else:
            await pilot.press(action)
        if step == steps // 2:
            app.theme = "textual-light"
        if step == steps // 3:
            tree.show_servers = not tree.show_servers
        await pilot.pause()
        for crop in crops(tree, rng):
            calls: list[int] = []

            def counted(self: ScrollView, crop: Region, calls: list[int] = calls) -> list[Strip]:
                calls.append(1)
                return original(self, crop)

            ScrollView.render_lines = counted  # type: ignore[method-assign]
            try:
                mine = tree.render_lines(crop)
            finally:
                ScrollView.render_lines = original  # type: ignore[method-assign]
            own += not calls
            assert mine == through_pipeline(tree, crop), (step, action, crop)
    return own


@pytest.mark.parametrize("no_color", [False, True])
async def test_the_tree_lines_are_the_pipelines_lines(
    no_color: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")  # Textual adds a line filter that makes every line grey
    app = LinesApp()
    async with app.run_test(size=(60, 20)) as pilot:
        assert await check_states(app, pilot) == 80  # every state took the tree's own way


@pytest.mark.parametrize(
    "css",
    [
        "ResourceTree { padding: 1 2; }",
        "ResourceTree { border: round red; }",
        "ResourceTree { tint: red 30%; }",
        "ResourceTree { text-opacity: 60%; }",
        "ResourceTree { outline: solid red; }",
        "ResourceTree { opacity: 50%; }",
        "ResourceTree { hatch: cross red; }",
    ],
)
async def test_styles_that_change_the_lines_go_through_the_pipeline(css: str) -> None:
    app = LinesApp(css)
    async with app.run_test(size=(60, 20)) as pilot:
        assert await check_states(app, pilot, steps=12) == 0


async def test_an_outline_on_focus_goes_through_the_pipeline_while_focused() -> None:
    """The lines are the pipeline's either way; only the focused states take it."""
    app = LinesApp("ResourceTree:focus { outline-left: heavy $accent; }")
    async with app.run_test(size=(60, 20)) as pilot:
        own = await check_states(app, pilot, steps=30)
        assert 0 < own < 60
