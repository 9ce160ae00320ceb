"""A user theme never takes the app down, and a `[keymap]` key that Textual holds is refused.

A theme whose variables pass the value checks but break the app's stylesheet (`panel: initial` in
`border-bottom: solid $panel`) made Textual stop the app with "CSS parsing failed", on every start once
chosen in the palette. A keymap key that Textual binds at app level before any screen (ctrl+q, ctrl+p)
was accepted silently and the binding could never fire.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.widgets import Input, OptionList

from explorer import paths
from explorer.app import ExplorerApp
from explorer.config import Config
from explorer.theming import DEFAULT_THEME, load_theme_choice, save_theme_choice
from explorer.widgets.filter_box import FilterBox
from explorer.widgets.key_bar import KeyBar
from tests.app_helpers import wait_for

pytestmark = pytest.mark.anyio

# The hunt's three shapes: values the theme checks accept that Textual's stylesheet does not.
BROKEN = {
    "initial": ('  panel: "initial"\n  foreground: "initial"\n', ("panel", "foreground")),
    "auto": ('  surface: "auto 87%"\n  background: "auto 87%"\n', ("surface", "background")),
    "border": (
        '  footer-key-foreground: "red 50%"\n  border: "auto"\n  scrollbar: "initial"\n',
        ("border",),
    ),
}
NOT_USED = "Theme not used"


def write_theme(variables: str, *, name: str = "hunt", file: str = "h.yaml") -> Path:
    folder = paths.themes_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / file
    path.write_text(f"name: {name}\nprimary: red\nvariables:\n{variables}", encoding="utf-8")
    return path


def said(app: ExplorerApp, title: str) -> list[str]:
    return [str(note.message) for note in app._notifications if note.title == title]


async def still_running(app: ExplorerApp, pilot: Pilot[int]) -> None:
    """The app paints and takes keys: open and close the help panel."""
    await pilot.press("question_mark")
    await wait_for(pilot, lambda: bool(app.screen.query("HelpPanel")))
    await pilot.press("question_mark")
    await wait_for(pilot, lambda: not app.screen.query("HelpPanel"))
    assert app.is_running


@pytest.mark.parametrize("shape", sorted(BROKEN))
async def test_a_theme_that_breaks_the_stylesheet_is_refused_at_start_with_a_warning(shape: str) -> None:
    variables, culprits = BROKEN[shape]
    path = write_theme(variables)
    app = ExplorerApp([], config=Config(theme="hunt"), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: bool(said(app, NOT_USED)))
        await still_running(app, pilot)
        assert app.theme == DEFAULT_THEME
        [warning] = said(app, NOT_USED)
        assert str(path) in warning
        assert any(f'"{name}"' in warning for name in culprits), warning
        assert "hunt" not in app.available_themes, "a refused theme is not offered in the palette"


async def test_a_broken_user_theme_named_like_the_default_gives_the_built_in_one_back() -> None:
    path = write_theme(BROKEN["initial"][0], name=DEFAULT_THEME)
    app = ExplorerApp([], remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: bool(said(app, NOT_USED)))
        await still_running(app, pilot)
        assert app.theme == DEFAULT_THEME
        assert app.current_theme.variables.get("panel") != "initial", "the built-in theme is used"
        assert str(path) in said(app, NOT_USED)[0]


async def test_a_broken_theme_remembered_from_the_palette_is_refused_at_every_start() -> None:
    write_theme(BROKEN["initial"][0])
    save_theme_choice("hunt")  # what the palette wrote before the fix
    app = ExplorerApp([], remember_theme=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: bool(said(app, NOT_USED)))
        await still_running(app, pilot)
        assert app.theme == DEFAULT_THEME


async def test_a_user_theme_with_auto_where_textual_takes_it_is_used() -> None:
    """The check refuses what breaks the stylesheet, not every value other than a colour."""
    write_theme('  text: "auto 80%"\n  link-background: "initial"\n  footer-key-foreground: "red 50%"\n')
    app = ExplorerApp([], config=Config(theme="hunt"), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await still_running(app, pilot)
        assert app.theme == "hunt"
        assert said(app, NOT_USED) == []


def palette_options(app: ExplorerApp) -> list[str]:
    if not isinstance(app.screen, CommandPalette):
        return []
    options = app.screen.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def pick(app: ExplorerApp, pilot: Pilot[int], typed: str, wanted: str) -> None:
    """In the open palette: type `typed`, move to the hit that reads `wanted`, press enter."""
    await pilot.press(*typed)
    await wait_for(pilot, lambda: any(wanted == text.split("\n")[0] for text in palette_options(app)))
    index = next(i for i, text in enumerate(palette_options(app)) if wanted == text.split("\n")[0])
    app.screen.query_one(OptionList).highlighted = index
    await pilot.press("enter")


async def choose_theme_in_the_palette(app: ExplorerApp, pilot: Pilot[int], name: str) -> None:
    """ctrl+p, "Theme", enter, the theme's name, enter: what the hunt did."""
    await pilot.press("ctrl+p")
    await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
    await pick(app, pilot, "theme", "Theme")
    await wait_for(pilot, lambda: "Search for themes" in str(app.screen.query_one(Input).placeholder))
    await pick(app, pilot, name, name)
    await wait_for(pilot, lambda: not isinstance(app.screen, CommandPalette))


async def test_choosing_a_broken_theme_in_the_palette_keeps_the_app_and_the_remembered_theme() -> None:
    path = write_theme(BROKEN["initial"][0])
    app = ExplorerApp([], remember_theme=True)
    async with app.run_test(size=(100, 30)) as pilot:
        assert "hunt" in app.available_themes, "a user theme is checked when it is chosen, not at start"
        await choose_theme_in_the_palette(app, pilot, "hunt")
        await wait_for(pilot, lambda: bool(said(app, NOT_USED)))
        await still_running(app, pilot)
        assert app.theme == DEFAULT_THEME
        assert str(path) in said(app, NOT_USED)[0]
        assert "hunt" not in app.available_themes
    assert load_theme_choice() is None, "the broken theme was never applied, so never remembered"


async def test_a_theme_that_fails_when_applied_falls_back_and_is_not_remembered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The last line, for whatever the check before applying a theme would miss."""
    monkeypatch.setattr("explorer.app.stylesheet_problem", lambda *args: None)
    path = write_theme(BROKEN["initial"][0])
    app = ExplorerApp([], remember_theme=True)
    async with app.run_test(size=(100, 30)) as pilot:
        save_theme_choice("explorer-dusk")
        app.theme = "explorer-dusk"
        await choose_theme_in_the_palette(app, pilot, "hunt")
        await wait_for(pilot, lambda: bool(said(app, NOT_USED)))
        await still_running(app, pilot)
        assert app.theme == "explorer-dusk", "the theme used before"
        [warning] = said(app, NOT_USED)
        assert "'hunt'" in warning and str(path) in warning and "border" in warning
    assert load_theme_choice() == "explorer-dusk"


@pytest.mark.parametrize(
    ("entry", "keys", "holder"),
    [("main.filter", "ctrl+q", "quit"), ("main.goto", "ctrl+p", "command palette")],
)
async def test_a_key_textual_holds_is_refused_and_the_default_key_still_works(
    entry: str, keys: str, holder: str
) -> None:
    app = ExplorerApp([], config=Config(keymap={entry: keys}), remember_theme=False)
    async with app.run_test(size=(160, 30)) as pilot:
        await wait_for(pilot, lambda: bool(said(app, "Keymap")))
        [warning] = said(app, "Keymap")
        assert entry in warning and repr(keys) in warning and holder in warning
        bar = str(app.screen.query_one(KeyBar).render())
        assert "/ Filter" in bar and "g Go to URI" in bar
        await pilot.press("slash")
        await wait_for(pilot, lambda: isinstance(app.focused, FilterBox))
        assert app.is_running
