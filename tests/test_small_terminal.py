"""At 80x24 every screen keeps what a user needs in sight: the forms' URI preview and key hints, the
dialogs' buttons, the field and the suggestions being filled in; the main panes stack only when there
are rows for it.

"In sight" is checked as a user sees it: the widget drawn at the first and the last cell of the
widget's place on the screen is the widget itself (not clipped away, not covered).
"""

from __future__ import annotations

import sys
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Button, Static

from explorer.app import ExplorerApp
from explorer.screens.connect_dialog import ConnectDialog
from explorer.screens.error_dialog import ErrorDialog
from explorer.screens.prompts import PromptFormScreen, PromptsScreen
from explorer.screens.template_form import TemplateFormScreen
from explorer.widgets.argument_form import ArgumentForm
from explorer.widgets.key_bar import KeyBar
from explorer.widgets.preview import ContentPreview
from explorer.widgets.resource_tree import ResourceTree
from tests.app_helpers import (
    demo_spec,
    main_screen,
    settled_app,
    stdio_spec,
    wait_for,
)

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SMALL = (80, 24)
LATEST = "metrics://{region}/{service}/latest"


def in_sight(app: ExplorerApp, widget: Widget) -> bool:
    """Whether `widget` is drawn whole where it stands (its first and last cells show it)."""
    region = widget.region
    if not region:
        return False
    corners = [(region.x, region.y), (region.right - 1, region.bottom - 1)]
    width, height = app.size
    if any(not (0 <= x < width and 0 <= y < height) for x, y in corners):
        return False
    for x, y in corners:
        shown, _ = app.screen.get_widget_at(x, y)
        if shown is not widget and widget not in shown.ancestors:
            return False
    return True


async def test_template_form_keeps_its_uri_preview_hints_and_suggestions_in_sight() -> None:
    async with settled_app(demo_spec(), size=SMALL) as (app, pilot):
        assert main_screen(app).tree_widget.select_prefix(LATEST)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TemplateFormScreen) and app.screen.is_mounted)
        screen = app.screen
        assert isinstance(screen, TemplateFormScreen)
        form = screen.query_one(ArgumentForm)
        form.set_text("region", "eu-west")
        form.focus_field("service")
        await wait_for(pilot, lambda: len(form.suggestion_values) > 2)  # every service of eu-west
        preview = screen.query_one("#tf-preview", Static)
        status = screen.query_one("#tf-status", Static)
        suggestions = screen.query_one("#suggestions")
        wanted = (preview, status, form.input_for("service"), suggestions)
        # The suggestions' layout lands a frame or two after their values (later on a busy machine):
        # wait for it rather than for a fixed time.
        await wait_for(pilot, lambda: all(in_sight(app, widget) for widget in wanted))
        assert "metrics://eu-west//latest" in str(preview.render())


async def open_prompts(app: ExplorerApp, pilot: Pilot[Any]) -> PromptsScreen:
    """`p`, then wait until the prompts are listed."""
    await pilot.press("p")
    await wait_for(pilot, lambda: isinstance(app.screen, PromptsScreen) and app.screen.is_mounted)
    prompts = app.screen
    assert isinstance(prompts, PromptsScreen)
    await wait_for(pilot, lambda: any(s.state == "ready" for s in prompts.listings.values()))
    return prompts


async def test_prompt_form_keeps_its_hints_in_sight_and_scrolls_to_the_focused_field() -> None:
    async with settled_app(demo_spec(), size=SMALL) as (app, pilot):
        await open_prompts(app, pilot)
        await pilot.press("enter")  # summarize-chapter: three arguments, each with a description
        await wait_for(pilot, lambda: isinstance(app.screen, PromptFormScreen) and app.screen.is_mounted)
        form = app.screen.query_one(ArgumentForm)
        status = app.screen.query_one("#pf-status", Static)
        assert "ctrl+s" in str(status.render())
        for name in ("chapter", "audience", "length"):
            form.focus_field(name)
            # The scroll to the focused field lands a frame or more later (more on a busy machine).
            await wait_for(
                pilot, lambda name=name: in_sight(app, form.input_for(name)) and in_sight(app, status)
            )


async def test_every_key_of_the_footer_is_in_sight_on_the_prompts_view_with_a_result() -> None:
    async with settled_app(demo_spec(), size=SMALL) as (app, pilot):
        prompts = await open_prompts(app, pilot)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptFormScreen) and app.screen.is_mounted)
        app.screen.query_one(ArgumentForm).set_text("chapter", "pagination")
        await pilot.press("ctrl+s")
        await wait_for(
            pilot,
            lambda: (
                app.screen is prompts and prompts.result_view.state == "result" and prompts.result_view.shown
            ),
        )
        bar = prompts.query_one(KeyBar)
        # esc, t, r, y, q, ? and the palette's, each painted whole on the bottom line, none cut
        await wait_for(pilot, lambda: len(bar.keys) >= 6 and bar.palette_key is not None and bar.spots)
        await wait_for(pilot, lambda: bar.cut == 0 and len(bar.spots) == len(bar.keys) + 1)
        await wait_for(pilot, lambda: in_sight(app, bar))
        line = app.screen.get_widget_at(0, SMALL[1] - 1)[0]
        assert line is bar
        painted = str(bar.render())
        for spot in bar.spots:
            assert painted[spot.start : spot.end].strip().startswith(spot.key.display), spot


async def test_connect_dialog_keeps_its_buttons_in_sight() -> None:
    async with settled_app(demo_spec(), size=SMALL) as (app, pilot):
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, ConnectDialog) and app.screen.is_mounted)
        dialog = app.screen
        wanted = [*dialog.query(Button), dialog.query_one("#target")]
        assert len(wanted) >= 3
        await wait_for(pilot, lambda: all(in_sight(app, widget) for widget in wanted))


async def test_error_dialog_with_a_long_stderr_keeps_its_buttons_in_sight() -> None:
    loud = stdio_spec(
        "loud",
        f"{sys.executable} -c \"import sys; [print(f'line {{i}} of the log', file=sys.stderr)"
        ' for i in range(80)]; sys.exit(3)"',
    )
    async with settled_app(demo_spec(), loud, size=SMALL) as (app, pilot):
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ErrorDialog) and app.screen.is_mounted)
        dialog = app.screen
        assert isinstance(dialog, ErrorDialog) and "line 79 of the log" in dialog.report
        buttons = list(dialog.query(Button))
        assert buttons
        await wait_for(pilot, lambda: all(in_sight(app, button) for button in buttons))


@pytest.mark.parametrize(("size", "stacked"), [((80, 24), False), ((80, 48), True), ((160, 48), False)])
async def test_main_panes_stack_only_when_narrow_and_tall(size: tuple[int, int], stacked: bool) -> None:
    async with settled_app(demo_spec(), size=size) as (app, _pilot):
        screen = main_screen(app)
        tree = screen.query_one(ResourceTree).region
        preview = screen.query_one(ContentPreview).region
        if stacked:
            assert tree.bottom <= preview.y and tree.width >= size[0] - 2
        else:
            assert tree.right <= preview.x and tree.height > preview.height
        assert in_sight(app, screen.query_one(ResourceTree))
