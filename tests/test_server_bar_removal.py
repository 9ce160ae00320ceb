"""Removing a server keeps the server bar's cursor on a row that exists.

The cursor was an index kept across a list that shrank: with it on the last row, the palette's
"Disconnect and remove" of that server (or of one above it) left it past the end, and the bar's next paint
raised IndexError; the screen froze and the app ended with a traceback. Now it stays on its server, or
on the row that took the removed one's place.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from textual.command import CommandPalette
from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import OptionList

from explorer.app import ExplorerApp
from explorer.config import ServerSpec
from explorer.screens.server_overview import ServerOverview
from explorer.widgets.server_bar import ServerBar
from tests.app_helpers import main_screen, settled_app, wait_for
from tests.helpers.tiny_server import tiny_server

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

LISTS = """
def answer(method, params):
    if method == "resources/list":
        return {"resources": [{"uri": "tiny://one", "name": "one"}]}
    return {"resourceTemplates": []}
"""
NAMES = ("alpha", "beta", "gamma")


def specs(folder: Path) -> list[ServerSpec]:
    words = shlex.split(tiny_server(folder, LISTS))
    return [
        ServerSpec(name=name, transport="stdio", command=sys.executable, args=(words[1],)) for name in NAMES
    ]


def rows(bar: ServerBar) -> list[Content]:
    return bar.render().split("\n")


def row_under_cursor(bar: ServerBar) -> str:
    """The text of the one row painted reversed (the cursor's, while the bar has the focus)."""
    marked = [row.plain for row in rows(bar) if any("reverse" in str(span.style) for span in row.spans)]
    assert len(marked) == 1, marked
    return marked[0]


async def cursor_on_last_row(app: ExplorerApp, pilot: Pilot[int]) -> ServerBar:
    bar = main_screen(app).query_one(ServerBar)
    bar.focus()
    await pilot.press("down", "down")
    await pilot.pause()
    assert " gamma " in row_under_cursor(bar) + " "
    return bar


async def remove_in_palette(app: ExplorerApp, pilot: Pilot[int], name: str) -> None:
    """What the user does: ctrl+p, "Disconnect and remove: NAME", enter."""
    label = f"Disconnect and remove: {name}"
    await pilot.press("ctrl+p")
    await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
    await pilot.press(*label)
    await wait_for(pilot, lambda: palette_text(app).startswith(label))
    await pilot.press("enter")
    await wait_for(pilot, lambda: name not in main_screen(app).catalogue.servers)
    await wait_for(pilot, lambda: not isinstance(app.screen, CommandPalette))
    bar = main_screen(app).query_one(ServerBar)
    await wait_for(pilot, lambda: all(row.plain.split()[1] != name for row in rows(bar)))  # repainted


def palette_text(app: ExplorerApp) -> str:
    if not isinstance(app.screen, CommandPalette):
        return ""
    options = app.screen.query_one(OptionList)
    return "\n".join(str(options.get_option_at_index(i).prompt) for i in range(options.option_count))


async def test_removing_the_server_under_the_cursor_on_the_last_row(tmp_path: Path) -> None:
    async with settled_app(*specs(tmp_path)) as (app, pilot):
        bar = await cursor_on_last_row(app, pilot)
        await remove_in_palette(app, pilot, "gamma")
        assert app.is_running and app.screen is main_screen(app)
        assert bar.has_focus
        assert [row.plain.split()[1] for row in rows(bar)] == ["alpha", "beta"]
        assert " beta " in row_under_cursor(bar) + " "  # the row that is now last
        await pilot.press("enter")  # the cursor's server is one that exists
        await wait_for(pilot, lambda: isinstance(app.screen, ServerOverview))
        await pilot.press("escape")
        await pilot.press("up")
        assert " alpha " in row_under_cursor(bar) + " "  # keys still work


async def test_removing_a_server_above_the_cursor_keeps_the_cursor_on_its_server(tmp_path: Path) -> None:
    async with settled_app(*specs(tmp_path)) as (app, pilot):
        bar = await cursor_on_last_row(app, pilot)
        await remove_in_palette(app, pilot, "alpha")
        assert app.is_running and app.screen is main_screen(app)
        assert [row.plain.split()[1] for row in rows(bar)] == ["beta", "gamma"]
        assert " gamma " in row_under_cursor(bar) + " "
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerOverview))
        assert "gamma" in str(app.screen.query_one("#overview-title").render())
