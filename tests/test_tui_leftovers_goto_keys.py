"""The go-to box moves as a command palette does: `down` in the URI goes to the first choice, `up` on
the first choice goes back to the URI, and `enter` acts on the choice highlighted, not the first one."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList

from explorer.app import ExplorerApp
from explorer.screens.goto import GoToDialog
from tests.app_helpers import demo_spec, main_screen, preview_text, settled_app, wait_for

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

URI = "metrics://eu-west/checkout/latest"


def resolved(dialog: object, uri: str) -> bool:
    return isinstance(dialog, GoToDialog) and dialog.resolution is not None and dialog.resolution.uri == uri


async def choices_for(app: ExplorerApp, pilot: Pilot[int], uri: str, at_least: int) -> list[str]:
    """Open the go-to box, type `uri`, and the prompts of its choices once there are `at_least`."""
    await pilot.press("g")
    await wait_for(pilot, lambda: isinstance(app.screen, GoToDialog) and app.screen.is_mounted)
    dialog = app.screen
    assert isinstance(dialog, GoToDialog)
    choices = dialog.query_one("#goto-options", OptionList)
    await pilot.press(*uri)
    await wait_for(pilot, lambda: resolved(dialog, uri) and choices.option_count >= at_least)
    return [str(choices.get_option_at_index(i).prompt) for i in range(choices.option_count)]


async def test_down_moves_into_the_choices_and_up_from_the_first_goes_back_to_the_uri() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        await pilot.press("g")
        await wait_for(pilot, lambda: isinstance(app.screen, GoToDialog) and app.screen.is_mounted)
        dialog = app.screen
        assert isinstance(dialog, GoToDialog)
        field = dialog.query_one("#goto-input", Input)
        choices = dialog.query_one("#goto-options", OptionList)
        await pilot.press(*URI)
        await wait_for(pilot, lambda: resolved(dialog, URI) and choices.option_count >= 2)
        assert dialog.focused is field
        await pilot.press("down")
        await wait_for(pilot, lambda: dialog.focused is choices)
        assert choices.highlighted == 0
        await pilot.press("down")
        assert choices.highlighted == 1
        await pilot.press("up")
        assert dialog.focused is choices and choices.highlighted == 0
        await pilot.press("up")
        await wait_for(pilot, lambda: dialog.focused is field)
        assert field.value == URI  # what was typed is still there, and typing goes on from it
        await pilot.press("x")
        assert field.value == URI + "x"


async def test_enter_on_a_highlighted_choice_acts_on_that_choice() -> None:
    """The second choice of a URI a template produces is its other reading (an `or` line): enter there
    reads the URI with that reading's values, not the first choice's."""
    async with settled_app(demo_spec()) as (app, pilot):
        uri = "docs://nothing/here/at/all"
        prompts = await choices_for(app, pilot, uri, 2)
        assert prompts[0].startswith("nearest") and prompts[1].startswith("read anyway"), prompts
        await pilot.press("down", "down", "enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, GoToDialog))
        preview = main_screen(app).query_one("ContentPreview")
        # "read anyway" asks the server for the URI: its answer is in the preview (the first choice,
        # "nearest", would only have moved the tree's cursor to docs://)
        await wait_for(pilot, lambda: getattr(preview, "uri", None) == uri)
        await wait_for(pilot, lambda: "Resource not found" in preview_text(app))


async def test_two_long_server_names_sharing_a_head_read_apart_in_the_choices() -> None:
    """A go-to choice names its server in a badge: names longer than it are cut in the middle, so two
    names that differ only at the end still tell the user which server each choice asks."""
    head = "team-platform-staging-resources-server-"
    names = (head + "alpha-eu", head + "beta-us")
    async with settled_app(demo_spec(names[0]), demo_spec(names[1])) as (app, pilot):
        prompts = await choices_for(app, pilot, "docs://nothing/here/at/all", 3)
        anyway = [p for p in prompts if p.startswith("read anyway")]
        assert len(anyway) == 2, prompts
        assert any("…" in a and "alpha-eu]" in a for a in anyway), anyway
        assert any("…" in a and "beta-us]" in a for a in anyway), anyway
