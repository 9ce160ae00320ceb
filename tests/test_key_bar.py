"""The key bar: the keys that work now on one line, as a user reads and clicks them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.pilot import Pilot
from textual.widgets import Input

from explorer.widgets.key_bar import ELLIPSIS, KeyBar, Spot
from tests.app_helpers import wait_for

pytestmark = pytest.mark.anyio


class Keyed(App[None]):
    """Three app keys (one disabled), one hidden, and an input with a key of its own."""

    AUTO_FOCUS = None  # nothing focused: the app's keys are the active ones
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "note('a')", "Alpha"),
        Binding("b", "note('b')", "Bravo"),
        Binding("d", "dead", "Disabled key", tooltip="Never works here"),
        Binding("h", "note('h')", "Hidden", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.notes: list[str] = []

    def compose(self) -> ComposeResult:
        yield Input(id="field")
        yield KeyBar()

    def action_note(self, what: str) -> None:
        self.notes.append(what)

    def action_dead(self) -> None:
        self.notes.append("dead ran")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "dead" else True  # None: shown, but disabled


def line(app: App[None]) -> str:
    return str(app.query_one(KeyBar).render())


@asynccontextmanager
async def painted_bar() -> AsyncIterator[tuple[Keyed, Pilot[None], KeyBar]]:
    """`Keyed` at 100 columns, with its bar once the keys are painted (`spots` set)."""
    app = Keyed()
    async with app.run_test(size=(100, 5)) as pilot:
        bar = app.query_one(KeyBar)
        await wait_for(pilot, lambda: bool(bar.spots))
        yield app, pilot, bar


def spot_of(bar: KeyBar, key: str) -> Spot:
    return next(spot for spot in bar.spots if spot.key.key == key)


async def test_the_keys_are_shown_with_the_footers_padding_and_the_palette_key_on_the_right() -> None:
    app = Keyed()
    async with app.run_test(size=(100, 5)) as pilot:
        bar = app.query_one(KeyBar)
        await wait_for(pilot, lambda: len(bar.keys) == 3)
        painted = line(app)
        assert painted.startswith(" a Alpha  b Bravo  d Disabled key ")
        assert "Hidden" not in painted
        assert painted.rstrip().endswith("▏^p palette")
        assert len(painted) == 100  # the whole line, the palette's key flush right
        assert bar.cut == 0


async def test_a_narrow_bar_packs_the_keys_then_cuts_the_last_ones_with_an_ellipsis() -> None:
    app = Keyed()
    async with app.run_test(size=(44, 5)) as pilot:
        bar = app.query_one(KeyBar)
        await wait_for(pilot, lambda: len(bar.keys) == 3)
        assert line(app).startswith("a Alpha b Bravo d Disabled key ")  # packed, all there
        assert bar.cut == 0
        await pilot.resize_terminal(26, 5)
        await wait_for(pilot, lambda: bar.size.width == 26)
        painted = line(app)
        assert painted.startswith(f"a Alpha {ELLIPSIS}")
        assert bar.cut == 2
        assert painted.rstrip().endswith("▏^p palette")


async def test_clicking_a_key_presses_it_and_a_disabled_key_does_nothing() -> None:
    async with painted_bar() as (app, pilot, bar):
        bravo = spot_of(bar, "b")
        await pilot.mouse_down(KeyBar, offset=(bravo.start + 3, 0))
        await wait_for(pilot, lambda: app.notes == ["b"])
        dead = spot_of(bar, "d")
        assert not dead.key.enabled
        await pilot.mouse_down(KeyBar, offset=(dead.start + 1, 0))
        await pilot.pause()
        assert app.notes == ["b"]
        await pilot.mouse_down(KeyBar, offset=(bravo.end + 30, 0))  # between the keys and the palette's
        await pilot.pause()
        assert app.notes == ["b"]


async def test_hovering_a_key_shows_its_tooltip() -> None:
    async with painted_bar() as (_, pilot, bar):
        dead = spot_of(bar, "d")
        await pilot.hover(KeyBar, offset=(dead.start + 1, 0))
        await wait_for(pilot, lambda: bar.tooltip == "Never works here")
        alpha = bar.spots[0]
        await pilot.hover(KeyBar, offset=(alpha.start + 1, 0))
        await wait_for(pilot, lambda: bar.tooltip is None)  # a key without a tooltip of its own


async def test_the_bar_follows_the_focus_and_new_bindings() -> None:
    app = Keyed()
    async with app.run_test(size=(100, 5)) as pilot:
        bar = app.query_one(KeyBar)
        await wait_for(pilot, lambda: len(bar.keys) == 3)
        app.query_one("#field", Input).focus()  # a text field takes printable keys: theirs are gone
        await wait_for(pilot, lambda: not bar.keys)
        assert "Alpha" not in line(app)
        app.set_focus(None)
        await wait_for(pilot, lambda: len(bar.keys) == 3)
        app.bind("x", "note('x')", description="Extra")
        app.refresh_bindings()
        await wait_for(pilot, lambda: "x Extra" in line(app))
