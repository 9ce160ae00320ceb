"""The filter box types and scrolls like Textual's `Input`, without asking for a layout per keystroke."""

from __future__ import annotations

import html

import pytest
from textual.app import App, ComposeResult

from explorer.widgets.filter_box import FilterBox
from tests.app_helpers import main_screen, raw_spec, settled_app
from tests.helpers.layouts import record_layouts

pytestmark = pytest.mark.anyio

LONG = "bench://host7/area3/group42/item5-and-a-tail-longer-than-the-box"


class BoxApp(App[None]):
    def compose(self) -> ComposeResult:
        yield FilterBox(placeholder="Filter", id="filter")


def screen_text(app: App[None]) -> str:
    return html.unescape(app.export_screenshot()).replace("\xa0", " ")


async def test_typing_past_the_edge_scrolls_to_the_cursor_without_a_layout() -> None:
    app = BoxApp()
    async with app.run_test(size=(30, 5)) as pilot:
        box = app.query_one(FilterBox)
        layouts = record_layouts(box)
        await pilot.press(*LONG)
        await pilot.pause()
        assert box.value == LONG and box.cursor_position == len(LONG)
        assert box.scroll_x > 0 and box.scroll_x == box.max_scroll_x  # the text's end is in view
        shown = screen_text(app)
        assert "longer-than-the-box" in shown and "bench://" not in shown
        assert layouts and not any(layouts)

        await pilot.press("home")
        await pilot.pause()
        assert box.scroll_x == 0 and "ench://host7" in screen_text(app)  # the cursor cell is styled apart
        await pilot.press("end", "ctrl+u")
        await pilot.pause()
        assert box.value == "" and box.scroll_x == 0


async def test_the_tree_is_filtered_in_the_call_that_changes_the_box() -> None:
    """No message stands between the box's text and the filter (`Input.Changed` reaches the screen after
    the box's own repaint, so the results came a frame after the echo)."""
    async with settled_app(raw_spec("plain")) as (app, pilot):
        screen = main_screen(app)
        tree = screen.tree_widget
        await pilot.press("slash")
        box = screen.query_one("#filter", FilterBox)
        assert box.has_focus
        for text in ("fixture://items/1", "fixture://items/2", "item 3"):
            box.value = text  # no await: nothing else runs in between
            shown = tree.rows.filter
            assert shown is not None and shown.text == text
            await pilot.pause()
        box.value = ""
        assert tree.rows.filter is None


async def test_deleting_to_the_right_of_the_cursor_keeps_the_text_in_view() -> None:
    """The view stays within the shorter text (a stock `Input` gets that from the layout it asks for)."""
    app = BoxApp()
    async with app.run_test(size=(30, 5)) as pilot:
        box = app.query_one(FilterBox)
        box.value = LONG
        await pilot.press("end", *["left"] * 10, "ctrl+k")
        await pilot.pause()
        assert box.value == LONG[:-10]
        assert box.scroll_x == box.max_scroll_x > 0
        assert "tail-longer-th" in screen_text(app)
