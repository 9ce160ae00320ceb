"""Help on the dialogs: `?` (where no text input takes it) and `f1` (everywhere) show the help panel with
the focused widget's help and the dialog's, and each dialog's key bar shows the key.

Before, Textual's modal screens left the app's bindings out: `?` did nothing on the server overview, Copy
as and the error dialog, and on the dialogs with a text input it could only be typed (as it still is), so
no dialog's help was in reach.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input

from explorer.app import ExplorerApp
from explorer.config import Config
from explorer.screens.connect_dialog import ConnectDialog
from explorer.screens.copy_as import CopyAsDialog
from explorer.screens.error_dialog import ErrorDialog
from explorer.screens.goto import GoToDialog
from explorer.screens.prompts import PromptFormScreen
from explorer.screens.server_overview import ServerOverview
from explorer.screens.template_form import TemplateFormScreen
from explorer.widgets.argument_form import ArgumentForm
from explorer.widgets.key_bar import KeyBar
from tests.app_helpers import demo_spec, main_screen, settled_app, stdio_spec, wait_for, wait_settled
from tests.test_help_discoverability import painted
from tests.test_small_terminal import open_prompts

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SIZE = (160, 45)
LATEST = "metrics://{region}/{service}/latest"
FAILING = stdio_spec("broken", f'{sys.executable} -c "import sys; sys.exit(3)"')


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


Opener = Callable[[ExplorerApp, Pilot[Any]], Awaitable[None]]


async def open_overview(app: ExplorerApp, pilot: Pilot[Any]) -> None:
    await pilot.press("i")


async def open_copy_as(app: ExplorerApp, pilot: Pilot[Any]) -> None:
    assert main_screen(app).tree_widget.select_prefix("docs://glossary")
    await pilot.press("y")


async def open_error(app: ExplorerApp, pilot: Pilot[Any]) -> None:
    await pilot.press("e")


async def open_goto(app: ExplorerApp, pilot: Pilot[Any]) -> None:
    await pilot.press("g")


async def open_connect(app: ExplorerApp, pilot: Pilot[Any]) -> None:
    await pilot.press("n")


async def open_template_form(app: ExplorerApp, pilot: Pilot[Any]) -> None:
    assert main_screen(app).tree_widget.select_prefix(LATEST)
    await pilot.press("enter")


async def open_prompt_form(app: ExplorerApp, pilot: Pilot[Any]) -> None:
    await open_prompts(app, pilot)
    await pilot.press("enter")  # summarize-chapter: three arguments


def help_panel(screen: Screen[Any]) -> Any:
    found = screen.query("HelpPanel")
    return found.first() if found else None


def help_painted(app: ExplorerApp) -> str:
    panel = help_panel(app.screen)
    return painted(app, panel.query_one("#widget-help")) if panel is not None else ""


def help_end_painted(app: ExplorerApp) -> str:
    """What the help panel paints scrolled to its end (the screen's help comes after the widget's)."""
    panel = help_panel(app.screen)
    if panel is None:
        return ""
    text = panel.query_one("#widget-help")
    text.scroll_end(animate=False, immediate=True)
    return painted(app, text)


def bar(app: ExplorerApp) -> str:
    return str(app.screen.query_one(KeyBar).render())


async def opened(
    app: ExplorerApp, pilot: Pilot[Any], opener: Opener, dialog: type[Screen[Any]]
) -> Screen[Any]:
    await opener(app, pilot)
    await wait_for(pilot, lambda: isinstance(app.screen, dialog) and app.screen.is_mounted)
    await pilot.pause()
    return app.screen


@pytest.mark.parametrize(
    ("opener", "dialog", "words"),
    [
        (open_overview, ServerOverview, "What the server said about itself"),
        (open_copy_as, CopyAsDialog, "copies the highlighted form"),
        (open_error, ErrorDialog, "r reconnects"),
    ],
    ids=["overview", "copy-as", "error"],
)
async def test_question_mark_shows_the_help_of_a_dialog_without_a_text_input(
    opener: Opener, dialog: type[Screen[Any]], words: str
) -> None:
    async with settled_app(demo_spec(), FAILING, size=SIZE) as (app, pilot):
        screen = await opened(app, pilot, opener, dialog)
        assert not isinstance(screen.focused, Input)
        assert "? Help" in bar(app)  # as on the main screen
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: words in help_painted(app))
        assert app.screen is screen  # the dialog stays, the panel is on it
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: help_panel(screen) is None)
        await pilot.press("f1")
        await wait_for(pilot, lambda: words in help_painted(app))
        await pilot.press("f1")
        await wait_for(pilot, lambda: help_panel(screen) is None)
        assert app.screen is screen and app.is_running


@pytest.mark.parametrize(
    ("opener", "dialog", "words", "shows_key"),
    [
        (open_goto, GoToDialog, "Type or paste a URI", True),
        (open_connect, ConnectDialog, "An http(s):// URL", True),
        (open_template_form, TemplateFormScreen, "Type a value for each variable", True),
        # Its key bar is its own module's: `f1` works there through the app (`ExplorerApp.on_key`).
        (open_prompt_form, PromptFormScreen, "Fill the arguments", False),
    ],
    ids=["goto", "connect", "template-form", "prompt-form"],
)
async def test_f1_shows_the_help_of_a_dialog_whose_text_input_takes_the_question_mark(
    opener: Opener, dialog: type[Screen[Any]], words: str, shows_key: bool
) -> None:
    async with settled_app(demo_spec(), size=SIZE) as (app, pilot):
        screen = await opened(app, pilot, opener, dialog)
        await wait_for(pilot, lambda: isinstance(screen.focused, Input))
        field = screen.focused
        assert isinstance(field, Input)
        before = field.value
        if shows_key:
            await wait_for(pilot, lambda: "f1 Help" in bar(app))
            assert "? Help" not in bar(app)  # `?` is the field's here
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: field.value.endswith("?") and len(field.value) > len(before))
        assert help_panel(screen) is None
        await pilot.press("f1")
        if screen.query(ArgumentForm):  # the focused widget's help first, the form's after it
            await wait_for(pilot, lambda: "Filling a form" in help_painted(app))
        await wait_for(pilot, lambda: words in help_end_painted(app))
        assert app.screen is screen and screen.focused is field  # typing goes on in the field
        await pilot.press("f1")
        await wait_for(pilot, lambda: help_panel(screen) is None)
        assert app.screen is screen and app.is_running


async def test_f1_on_the_main_screen_and_in_its_filter_box() -> None:
    async with settled_app(demo_spec(), size=SIZE) as (app, pilot):
        screen = main_screen(app)
        assert "? Help" in bar(app)
        await pilot.press("f1")
        await wait_for(pilot, lambda: "URI tree" in help_painted(app))
        await pilot.press("f1")
        await wait_for(pilot, lambda: help_panel(screen) is None)
        await pilot.press("slash")
        await wait_for(pilot, lambda: isinstance(app.focused, Input))
        await wait_for(pilot, lambda: "f1 Help" in bar(app))
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.focused, Input) and app.focused.value == "?")
        assert help_panel(screen) is None
        await pilot.press("f1")
        await wait_for(pilot, lambda: help_panel(screen) is not None)


async def test_a_remapped_help_key_works_on_every_dialog_and_the_old_ones_do_not() -> None:
    app = ExplorerApp([demo_spec()], config=Config(keymap={"app.help": "f2"}), remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_settled(pilot, app)
        for opener, dialog in ((open_overview, ServerOverview), (open_prompt_form, PromptFormScreen)):
            screen = await opened(app, pilot, opener, dialog)
            if dialog is ServerOverview:
                assert "f2 Help" in bar(app) and "? Help" not in bar(app)
            await pilot.press("f1", "question_mark")
            await pilot.pause()
            assert help_panel(screen) is None
            await pilot.press("f2")
            await wait_for(pilot, lambda screen=screen: help_panel(screen) is not None)
            await pilot.press("escape")
            await wait_for(pilot, lambda screen=screen: app.screen is not screen)
            if dialog is PromptFormScreen:
                await pilot.press("escape")  # the prompts view


async def test_textuals_command_palette_gets_no_help_panel() -> None:
    async with settled_app(demo_spec(), size=SIZE) as (app, pilot):
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: app.screen.is_modal and app.screen is not main_screen(app))
        await pilot.press("f1")
        await pilot.pause()
        assert help_panel(app.screen) is None and app.is_running
