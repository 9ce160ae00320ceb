"""A toggle's key in the bar says what it will do now. Before, the bar kept its first words: after `s`
showed a markdown document's source it still said `s Source`, and while the resource was followed it
still said `s Follow`."""

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


async def read_and_focus(pilot: Pilot[Any], app: ExplorerApp, uri: str) -> ContentPreview:
    screen = main_screen(app)
    preview = screen.query_one(ContentPreview)
    screen.read("demo", uri)
    await wait_for(pilot, lambda: preview.uri == uri and preview.state == "contents" and preview.shown)
    preview.focus_contents()
    return preview


async def test_s_says_rendered_while_the_markdown_source_is_shown() -> None:
    async with settled_app(demo_spec(), size=(160, 36)) as (app, pilot):
        await read_and_focus(pilot, app, "docs://handbook/welcome")
        await wait_for(pilot, lambda: "s Source" in key_bar_text(app))
        await pilot.press("s")
        await wait_for(pilot, lambda: "s Rendered" in key_bar_text(app))
        assert "Source" not in key_bar_text(app), key_bar_text(app)
        await pilot.press("s")
        await wait_for(pilot, lambda: "s Source" in key_bar_text(app))
        assert "Rendered" not in key_bar_text(app), key_bar_text(app)


async def test_s_says_unfollow_while_the_resource_is_followed() -> None:
    async with settled_app(demo_spec(), size=(160, 36)) as (app, pilot):
        await read_and_focus(pilot, app, "docs://glossary")
        await wait_for(pilot, lambda: "s Follow" in key_bar_text(app))
        await pilot.press("s")
        await wait_for(pilot, lambda: "s Unfollow" in key_bar_text(app))
        await pilot.press("s")
        await wait_for(pilot, lambda: "s Follow" in key_bar_text(app))
        assert "Unfollow" not in key_bar_text(app), key_bar_text(app)
