"""Tab and shift+tab in the template and prompt forms stay among the form's fields.

A user typed a value, pressed tab, typed on and pressed enter: the scrolling box around the fields took
the focus (it is focusable by default), so the keys after tab went nowhere and, in the template form,
enter did nothing. Tab past the last field now wraps to the first one (shift+tab the other way), so what
is typed lands in a field and enter submits it.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from explorer.app import ExplorerApp
from explorer.demo.templates import T_SEARCH, T_STATION
from explorer.screens.prompts import PromptsScreen
from explorer.screens.template_form import TemplateFormScreen
from explorer.widgets.argument_form import FieldInput
from tests.app_helpers import demo_spec, main_screen, preview_text, settled_app, wait_for
from tests.test_prompts_view import fill_prompt, open_prompts, prompts_screen

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

# Values no completion of the demo starts with: no suggestion is offered, so tab never accepts one.
FIRST, MORE = "zz", "top"


async def open_template_form(pilot: Pilot[Any], app: ExplorerApp, template: str) -> TemplateFormScreen:
    """Enter on the template's row, as a user opens its form."""
    screen = main_screen(app)
    assert screen.tree_widget.select_prefix(template)
    await pilot.pause()
    await pilot.press("enter")
    await wait_for(
        pilot, lambda: isinstance(app.screen, TemplateFormScreen) and bool(app.screen.query("#tf-status"))
    )
    form = app.screen
    assert isinstance(form, TemplateFormScreen)
    return form


def field_focused(app: ExplorerApp) -> bool:
    return isinstance(app.focused, FieldInput)


async def test_tab_past_the_only_template_field_keeps_typing_and_enter_reads() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        await open_template_form(pilot, app, T_STATION)
        await pilot.press(*FIRST, "tab")
        assert field_focused(app), app.focused
        await pilot.press(*MORE, "enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, TemplateFormScreen))
        await wait_for(pilot, lambda: f"stations/{FIRST}{MORE}.json" in preview_text(app))


async def test_tab_and_shift_tab_wrap_among_the_template_fields() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        await open_template_form(pilot, app, T_SEARCH)  # {?q,limit}: q is focused first
        await pilot.press(*FIRST, "shift+tab")  # from the first field back to the last one
        assert field_focused(app), app.focused
        await pilot.press("7", "tab")  # from the last field on to the first one
        assert field_focused(app), app.focused
        await pilot.press("end", *MORE, "enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, TemplateFormScreen))
        await wait_for(pilot, lambda: f"q={FIRST}{MORE}&limit=7" in preview_text(app))


async def test_tab_past_the_only_prompt_field_keeps_typing_and_enter_gets() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        await open_prompts(pilot, app)
        await fill_prompt(pilot, app, "describe-logo")  # one optional argument: style
        await pilot.press(*FIRST, "tab")
        assert field_focused(app), app.focused
        await pilot.press(*MORE, "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptsScreen))
        view = prompts_screen(app).result_view
        await wait_for(pilot, lambda: view.state == "error" and view.shown)
        # The server names the value it got: both parts, as typed.
        assert f"'{FIRST}{MORE}'" in view.text


async def test_shift_tab_wraps_among_the_prompt_fields() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        await open_prompts(pilot, app)
        await fill_prompt(pilot, app, "summarize-chapter")  # chapter, audience, length
        await pilot.press("shift+tab")  # from the first field back to the last one (length)
        assert field_focused(app), app.focused
        await pilot.press(*FIRST, "tab")  # from the last field on to the first one (chapter)
        assert field_focused(app), app.focused
        await pilot.press(*"pagination", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptsScreen))
        view = prompts_screen(app).result_view
        await wait_for(pilot, lambda: view.state == "error" and view.shown)
        assert f"'length': '{FIRST}'" in view.text  # the chapter was fine; the length is what was typed
