"""The TUI side of "capabilities decide what is asked": rows that say what a server offers, and the
server overview (identity, capabilities, instructions, counts, health, tools), opened from the bar."""

from __future__ import annotations

import pytest
from textual.widgets import OptionList, Static, TabbedContent

from explorer.screens.server_overview import ServerOverview
from explorer.widgets.server_bar import ServerBar
from tests.app_helpers import (
    demo_spec,
    main_screen,
    raw_spec,
    settled_app,
    wait_for,
)

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


def bar_lines(app: object) -> list[str]:
    return str(main_screen(app).query_one(ServerBar).render()).splitlines()  # type: ignore[arg-type]


async def test_a_tools_only_server_is_connected_and_its_row_says_what_it_offers() -> None:
    async with settled_app(raw_spec("files", caps="tools", tools=12), demo_spec()) as (app, _pilot):
        screen = main_screen(app)
        status = screen.catalogue.servers["files"]
        assert status.state == "ready" and status.error is None
        files_row = next(line for line in bar_lines(app) if "files" in line)
        assert "no resources · 12 tools · complete" in files_row
        assert "failed" not in files_row


async def test_selecting_a_server_row_opens_its_overview_with_tools() -> None:
    async with settled_app(raw_spec("files", caps="tools,prompts", tools=3)) as (app, pilot):
        screen = main_screen(app)
        screen.query_one(ServerBar).focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerOverview))
        overview = app.screen
        facts = str(overview.query_one("#overview-text", Static).render())
        assert facts.startswith("Server: files (serverInfo: raw-fixture 1.0)\nSpec: stdio: ")
        assert facts.count("Server:") == 1  # the explorer's name and the server's own, on one line
        assert "Protocol: 2025-11-25 (handshake era) over stdio" in facts
        assert "Resources: not offered" in facts and "Tools: 3 in 1 page" in facts
        assert "Instructions:" in facts and "A fixture." in facts
        tools = overview.query_one("#tool-list", OptionList)
        assert tools.option_count == 3
        overview.query_one("#server-tabs", TabbedContent).active = "tab-tools"
        tools.focus()
        await pilot.press("down")
        detail = str(overview.query_one("#tool-text", Static).render())
        assert detail.startswith("tool-1") and "Arguments: x* (* required)" in detail
        assert '"required": [' in detail
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ServerOverview))


async def test_i_opens_the_overview_of_the_highlighted_nodes_server() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerOverview))
        facts = str(app.screen.query_one("#overview-text", Static).render())
        assert "Server: demo (serverInfo: mcp-url-explorer-demo " in facts
        assert "Offers: resources, prompts, completions" in facts and facts.count("Server:") == 1
