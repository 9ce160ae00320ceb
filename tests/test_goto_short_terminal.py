"""The go-to box at 80x24 shows as many choices as the terminal holds, and stays inside it.

Found in a walkthrough: under 32 rows the choices were capped at 40% of the screen (9 rows at 24) while
the rows below the box stayed blank; a URI that many templates produce showed 9 of its choices.
"""

from __future__ import annotations

import pytest
from textual.containers import Vertical
from textual.widgets import Input, OptionList

from explorer.model.entries import TemplateEntry
from explorer.model.uri_tree import UriTree
from explorer.screens.goto import GoToDialog
from tests.app_helpers import demo_spec, settled_app, wait_for

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

URI = "x://t/abc"


def _many_templates() -> UriTree:
    """30 templates that each produce URI (their queries are optional)."""
    tree = UriTree()
    tree.add_templates(TemplateEntry("s", f"x://t/{{a}}{{?q{n}}}", f"t{n}") for n in range(30))
    return tree


@pytest.mark.parametrize("size", [(80, 24), (100, 31)])
async def test_the_choices_use_the_rows_of_a_short_terminal(size: tuple[int, int]) -> None:
    async with settled_app(demo_spec(), size=size) as (app, pilot):
        dialog = GoToDialog(_many_templates())
        app.push_screen(dialog)
        await wait_for(pilot, lambda: app.screen is dialog and bool(dialog.query("#goto-summary")))
        await pilot.pause()
        dialog.query_one(Input).value = URI
        await wait_for(pilot, lambda: dialog.resolution is not None and dialog.resolution.uri == URI)
        options = dialog.query_one(OptionList)
        await wait_for(pilot, lambda: options.option_count >= 30)
        await pilot.pause()
        box = dialog.query_one(Vertical).region
        _width, height = size
        assert box.bottom <= height - 1, (box, height)  # above the key bar, nothing cut
        # Every row but the box's own (margin, borders, the URI field, the summary) and the key bar.
        assert options.region.height >= height - 11, (options.region, height)
