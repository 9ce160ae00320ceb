"""The dialogs on small terminals: the connect dialog shows its own keys with every field in sight, and at
40x12 every field and button of the connect dialog, the template form and the error dialog is reached
with `tab` and is in sight when focused (before, the template form's suggestions pushed the field being
typed into out of the box, and the error dialog's buttons were below the screen's edge and past its
right side)."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Select, Static, TextArea

from explorer.app import ExplorerApp
from explorer.screens.connect_dialog import ConnectDialog
from explorer.screens.error_dialog import ErrorDialog
from explorer.screens.prompts import PromptFormScreen
from explorer.screens.template_form import TemplateFormScreen
from explorer.widgets.argument_form import ArgumentForm
from explorer.widgets.key_bar import KeyBar
from tests.app_helpers import demo_spec, main_screen, settled_app, stdio_spec, wait_for
from tests.test_small_terminal import in_sight, open_prompts

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

TINY = (40, 12)
LATEST = "metrics://{region}/{service}/latest"


async def open_connect_dialog(app: ExplorerApp, pilot: Pilot[Any]) -> ConnectDialog:
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, ConnectDialog) and app.screen.is_mounted)
    dialog = app.screen
    assert isinstance(dialog, ConnectDialog)
    return dialog


async def tab_through(app: ExplorerApp, pilot: Pilot[Any], wanted: list[Widget], presses: int) -> None:
    """Press tab `presses` times; each widget of `wanted` must be focused once, and in sight then."""
    unseen = list(wanted)
    for _ in range(presses):
        await pilot.press("tab")
        focused = app.screen.focused
        if focused in unseen:
            # the scroll to the focused widget lands a frame or two later (more on a busy machine)
            await wait_for(pilot, lambda focused=focused: in_sight(app, focused))
            unseen.remove(focused)
    assert not unseen, f"never focused: {unseen}"


def rows_in_sight(app: ExplorerApp, widget: Widget) -> int:
    """How many rows of `widget` are drawn on the screen (not scrolled away, not covered)."""
    region = widget.region
    rows = range(max(0, region.y), min(app.size[1], region.bottom))
    return sum(1 for y in rows if app.screen.get_widget_at(region.x + 2, y)[0] is widget)


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_the_connect_dialog_shows_its_own_keys_with_every_field_in_sight(size: tuple[int, int]) -> None:
    async with settled_app(demo_spec(), size=size) as (app, pilot):
        dialog = await open_connect_dialog(app, pilot)
        bar = dialog.query_one(KeyBar)
        await wait_for(pilot, lambda: bool(bar.spots))
        assert app.screen.get_widget_at(0, size[1] - 1)[0] is bar  # the bottom line is the dialog's
        shown = str(bar.render())
        assert "esc Close" in shown and "^s Connect" in shown and "Filter" not in shown
        fields: list[Widget] = [
            dialog.query_one("#connect-title", Static),
            dialog.query_one("#target", Input),
            *dialog.query(TextArea),
            dialog.query_one("#flow", Select),
            dialog.query_one("#save", Checkbox),
            *dialog.query(Button),
        ]
        assert len(fields) == 9
        # all at once, without scrolling
        await wait_for(pilot, lambda: all(in_sight(app, widget) for widget in fields))


async def test_at_40x12_every_field_and_button_of_the_connect_dialog_is_in_sight_when_focused() -> None:
    async with settled_app(demo_spec(), size=TINY) as (app, pilot):
        dialog = await open_connect_dialog(app, pilot)
        target = dialog.query_one("#target", Input)
        await wait_for(pilot, lambda: in_sight(app, target))
        wanted: list[Widget] = [
            *dialog.query(TextArea),
            dialog.query_one("#flow", Select),
            dialog.query_one("#save", Checkbox),
            *dialog.query(Button),
        ]
        await tab_through(app, pilot, wanted, presses=len(wanted))


async def test_at_40x12_every_button_of_the_error_dialog_is_in_sight_when_focused() -> None:
    loud = stdio_spec(
        "loud",
        f"{sys.executable} -c \"import sys; [print(f'line {{i}} of the log', file=sys.stderr)"
        ' for i in range(80)]; sys.exit(3)"',
    )
    async with settled_app(demo_spec(), loud, size=TINY) as (app, pilot):
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ErrorDialog) and app.screen.is_mounted)
        dialog = app.screen
        buttons: list[Widget] = list(dialog.query(Button))
        assert [str(button.label) for button in buttons] == ["Copy", "Reconnect", "Close"]
        await tab_through(app, pilot, buttons, presses=4)


async def test_at_40x12_every_field_of_the_template_form_is_in_sight_with_its_suggestions() -> None:
    async with settled_app(demo_spec(), size=TINY) as (app, pilot):
        assert main_screen(app).tree_widget.select_prefix(LATEST)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TemplateFormScreen) and app.screen.is_mounted)
        form = app.screen.query_one(ArgumentForm)
        for name in ("region", "service"):
            field = form.input_for(name)
            await wait_for(pilot, lambda field=field: app.screen.focused is field)
            # the suggestions open under the field; the field stays in sight, and so do some of them
            await wait_for(pilot, lambda: form.suggestions_shown)
            suggestions = app.screen.query_one("#suggestions")
            await wait_for(
                pilot,
                lambda field=field, suggestions=suggestions: (
                    in_sight(app, field) and rows_in_sight(app, suggestions) >= 3
                ),  # its top border and two suggestions
            )
            await pilot.press("tab")


async def test_at_40x12_the_prompts_view_stacks_and_its_form_keeps_each_field_in_sight() -> None:
    """Side by side, the prompt list's 30 columns left the result 8; the form's suggestions hid the field."""
    async with settled_app(demo_spec(), size=TINY) as (app, pilot):
        prompts = await open_prompts(app, pilot)
        result = prompts.query_one("#prompt-right")
        await wait_for(pilot, lambda: result.region.width >= TINY[0] - 2)
        await pilot.press("enter")  # summarize-chapter: three arguments, each with completions
        await wait_for(pilot, lambda: isinstance(app.screen, PromptFormScreen) and app.screen.is_mounted)
        form = app.screen.query_one(ArgumentForm)
        for name in ("chapter", "audience", "length"):
            form.focus_field(name)
            field = form.input_for(name)
            await wait_for(pilot, lambda field=field: app.screen.focused is field and in_sight(app, field))
