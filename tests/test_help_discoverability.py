"""`?` shows the focused widget's help and the screen's after it, and every line of both can be reached.

Before, Textual's help panel showed only the help of the nearest focused widget that has one: with the
tree focused (as at start), the main screen's help (`b` bookmarks listed in the palette, `p` prompts,
`i` server info, `L` protocol log, `n` connect, `[`/`]`) never appeared; and the help text was cut at
half the panel's height with no way to scroll to the rest.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widget import Widget

from explorer.app import ExplorerApp
from explorer.widgets.preview import ContentPreview
from tests.app_helpers import demo_spec, main_screen, settled_app, wait_for

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def painted(app: ExplorerApp, widget: Widget) -> str:
    """The words painted on screen inside `widget`'s region."""
    region = widget.region
    strips = app.screen._compositor.render_strips()  # what the driver paints from
    rows = []
    for strip in strips[region.y : region.bottom]:
        text = "".join(segment.text for segment in strip)
        rows.append(text[region.x : region.right])
    return " ".join(" ".join(rows).split())  # words wrap anywhere at a narrow width: one line of words


async def open_help(pilot: Pilot[Any], app: ExplorerApp) -> Widget:
    await pilot.press("question_mark")
    await wait_for(pilot, lambda: bool(app.screen.query("HelpPanel")))
    help_text = app.screen.query_one("HelpPanel #widget-help")
    await wait_for(pilot, lambda: "URI tree" in painted(app, help_text))
    return help_text


@pytest.mark.parametrize("size", [(120, 36), (220, 50)])
async def test_help_on_the_tree_has_the_screens_help_and_reaches_its_last_line(size: tuple[int, int]) -> None:
    async with settled_app(demo_spec(), size=size) as (app, pilot):
        assert main_screen(app).tree_widget.has_focus
        help_text = await open_help(pilot, app)
        top = painted(app, help_text)
        assert "URI tree" in top and "Move the cursor" in top, top  # the tree's own help first

        # Every line can be reached: scroll to the end, and the screen's help is there to its last line.
        help_text.focus()  # `tab` gets there too; the help stays the tree's and the screen's
        await pilot.press("end")
        await wait_for(pilot, lambda: "q quits" in painted(app, help_text))
        seen = top
        await pilot.press("home")
        await wait_for(pilot, lambda: "URI tree" in painted(app, help_text))
        for _ in range(200):  # half a page at a time, gathering what is painted
            help_text.scroll_relative(y=max(1, help_text.size.height // 2), animate=False, immediate=True)
            await pilot.pause()
            seen += " " + painted(app, help_text)
            if "q quits" in painted(app, help_text):
                break
        for words in ("b bookmarks the highlighted node", "listed in the palette", "L shows the protocol"):
            assert words in seen, words

        # The key list scrolls too: the screen's keys past the tree's (`b Bookmark` was cut off).
        keys = app.screen.query_one("HelpPanel #keys-help")
        keys.focus()
        await pilot.press("end")
        await wait_for(pilot, lambda: "Bookmark" in painted(app, keys))

        await pilot.press("question_mark")
        await wait_for(pilot, lambda: not app.screen.query("HelpPanel"))


async def test_help_follows_the_focus_to_the_preview_and_keeps_the_screens() -> None:
    async with settled_app(demo_spec(), size=(220, 50)) as (app, pilot):
        screen = main_screen(app)
        preview = screen.query_one(ContentPreview)
        screen.read("demo", "docs://glossary")
        await wait_for(
            pilot, lambda: preview.uri == "docs://glossary" and preview.state == "contents" and preview.shown
        )
        help_text = await open_help(pilot, app)
        preview.focus_contents()
        await wait_for(pilot, lambda: "Preview" in painted(app, help_text))
        assert "URI tree" not in painted(app, help_text)
        help_text.focus()
        await pilot.press("end")
        await wait_for(pilot, lambda: "q quits" in painted(app, help_text))
