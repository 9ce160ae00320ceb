"""The key bar shows the preview's keys while the focus is in the preview, each only where it acts, and
the tree's bar stays as it was. Before, `w` (wrap), `s` (follow, or the source of rendered markdown) and
`a` (load all) worked in the preview but the bar never named them: a user could not find them."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from explorer.app import ExplorerApp
from explorer.widgets.preview import ContentPreview
from tests.app_helpers import demo_spec, key_bar_text, main_screen, settled_app, wait_for

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def read(pilot: Pilot[Any], app: ExplorerApp, uri: str, cap: int | None = None) -> ContentPreview:
    screen = main_screen(app)
    preview = screen.query_one(ContentPreview)
    if cap is None:
        screen.read("demo", uri)
    else:
        screen.read("demo", uri, cap=cap)
    await wait_for(pilot, lambda: preview.uri == uri and preview.state == "contents" and preview.shown)
    return preview


async def test_the_preview_keys_are_in_the_bar_while_the_preview_has_the_focus() -> None:
    async with settled_app(demo_spec(), size=(160, 36)) as (app, pilot):
        screen = main_screen(app)
        tree_bar = key_bar_text(app)
        for hidden in ("Wrap", "Follow", "Source", "Load all"):
            assert hidden not in tree_bar, tree_bar

        preview = await read(pilot, app, "docs://glossary")  # plain text, all of it read
        screen.tree_widget.focus()
        await pilot.pause()
        assert key_bar_text(app) == tree_bar  # the tree's bar is no noisier after a read
        preview.focus_contents()
        await wait_for(pilot, lambda: "w Wrap" in key_bar_text(app))
        text = key_bar_text(app)
        assert "s Follow" in text and "/ Filter" in text, text  # the screen's keys stay
        assert text.index("w Wrap") < text.index("s Follow") < text.index("/ Filter"), text  # pane's first
        assert "Load all" not in text and "Source" not in text, text  # nothing more to load; not markdown

        screen.tree_widget.focus()
        await wait_for(pilot, lambda: key_bar_text(app) == tree_bar)

        await read(pilot, app, "docs://handbook/welcome", cap=10)  # markdown, cut at 10 bytes
        preview.focus_contents()
        await wait_for(pilot, lambda: "a Load all" in key_bar_text(app))
        text = key_bar_text(app)
        assert "w Wrap" in text, text  # shown as source: it is cut, so it cannot be rendered
        await read(pilot, app, "docs://handbook/welcome")  # rendered whole: `s` shows its source
        preview.focus_contents()
        await wait_for(pilot, lambda: "s Source" in key_bar_text(app))
        text = key_bar_text(app)
        assert "Follow" not in text and "Load all" not in text, text

        screen.tree_widget.focus()
        await wait_for(pilot, lambda: key_bar_text(app) == tree_bar)


async def test_w_on_rendered_markdown_is_not_offered_and_does_nothing() -> None:
    """`w` on a rendered markdown document stopped the app (AttributeError: 'Static' object has no
    attribute 'wrap'): with no text view shown, the query for them returned every other widget."""
    async with settled_app(demo_spec(), size=(160, 36)) as (app, pilot):
        preview = await read(pilot, app, "docs://faq")  # markdown, rendered: no text view at all
        preview.focus_contents()
        await wait_for(pilot, lambda: "s Source" in key_bar_text(app))
        assert "Wrap" not in key_bar_text(app), key_bar_text(app)
        await pilot.press("w")
        await pilot.pause()
        assert app.is_running and preview.state == "contents"
        await pilot.press("s")  # its source: a text view, which `w` wraps
        await wait_for(pilot, lambda: "w Wrap" in key_bar_text(app))
        await pilot.press("w")
        await pilot.pause()
        assert app.is_running
