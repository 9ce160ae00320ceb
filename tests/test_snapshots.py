"""Snapshot tests of the main states (fixed size and theme, isolated config, no cursor blink).

Each main state is pinned at 80x24 (where panes and forms take their small-terminal layout) and at a
large size; the narrow-and-tall main screen (stacked panes) and every theme once. Nothing on screen may
depend on time: the demo's inbox never grows here, toasts (which expire) are cleared, no clock is read.

Regenerate after an intended change of the look: `pytest tests/test_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from explorer.config import ServerSpec
from explorer.connection.stdio import stop_leftover_servers
from explorer.screens.prompts import PromptFormScreen, PromptsScreen
from explorer.screens.template_form import TemplateFormScreen
from explorer.widgets.argument_form import ArgumentForm
from explorer.widgets.preview import ContentPreview
from tests.app_helpers import demo_spec, main_screen, make_app, wait_for, wait_settled

SIZE = (120, 34)
SMALL = (80, 24)
LARGE = (160, 48)
NARROW_TALL = (80, 48)
THEMES = ["explorer-dark", "explorer-light", "explorer-high-contrast", "explorer-dusk"]
LATEST = "metrics://{region}/{service}/latest"
PYTHON_FILE = "file:///workspace/tidewater/src/tidewater/harmonics/constituents/lunar.py"
pytestmark = [pytest.mark.xdist_group("snapshots"), pytest.mark.slow]


@pytest.fixture(autouse=True)
def _safety_net() -> Iterator[None]:
    """`snap_compare` runs the app with `app.run()`, as the command does, and the command runs the
    safety net after it: so does each test here. Without it the demo server outlives the snapshot (its
    clean-up is cut short when the harness ends the loop) and a later test in this worker meets it."""
    yield
    stop_leftover_servers()


def _size_id(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


def _demo() -> ServerSpec:
    # The inbox would grow a note every 30 s and change the tree under a slow run.
    return replace(demo_spec(), env={"EXPLORER_DEMO_CHANGE_SECONDS": "0"})


def _broken() -> ServerSpec:
    # A command that does not exist: its message holds no path of this machine.
    return ServerSpec(name="broken", transport="stdio", command="no-such-mcp-server", args=("--db", "x"))


def _app(*specs: ServerSpec, theme: str = "explorer-dark") -> Any:
    app = make_app(*specs)
    app.theme_on_mount = theme  # applied in run_before, after the themes are registered
    return app


async def _ready(pilot: Pilot[Any]) -> None:
    app = pilot.app
    app.theme = app.theme_on_mount
    await wait_settled(pilot, app)
    await _still(pilot)


async def _still(pilot: Pilot[Any]) -> None:
    """No blinking cursor and no toast (it expires after a few seconds, so a slow run would lose it)."""
    app = pilot.app
    app.clear_notifications()
    for widget in app.screen.query(Input):
        widget.cursor_blink = False
    for area in app.screen.query(TextArea):
        area.cursor_blink = False
    await pilot.pause(0.1)


async def _read(pilot: Pilot[Any], uri: str) -> None:
    """Put the cursor on `uri` and read it, as `enter` does; wait until the preview shows it."""
    screen = main_screen(pilot.app)
    assert screen.tree_widget.select_prefix(uri)
    await pilot.press("enter")
    preview = screen.query_one(ContentPreview)
    await wait_for(pilot, lambda: preview.uri == uri and preview.state == "contents" and preview.shown)
    await pilot.pause(0.5)  # markdown lays out after it is mounted


def test_tree_with_templates(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _ready(pilot)
        main_screen(pilot.app).tree_widget.select_prefix("docs://handbook/completions")
        await pilot.press("up", "up")

    assert snap_compare(_app(_demo()), terminal_size=SIZE, run_before=run_before)


def test_markdown_preview(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _ready(pilot)
        await _read(pilot, "docs://handbook/resource-templates")

    assert snap_compare(_app(_demo()), terminal_size=SIZE, run_before=run_before)


def test_error_dialog_with_a_failed_server(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _ready(pilot)
        await pilot.press("e")
        await pilot.pause(0.2)

    assert snap_compare(_app(_demo(), _broken()), terminal_size=SIZE, run_before=run_before)


def test_light_theme_go_to_box(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _ready(pilot)
        await pilot.press("g")
        await pilot.press(*"metrics://eu-west/checkout/latest")
        for _ in range(400):  # matching runs on a worker thread
            if getattr(pilot.app.screen, "resolution", None) is not None:
                break
            await pilot.pause(0.05)
        await pilot.pause(0.3)
        await _still(pilot)

    assert snap_compare(_app(_demo(), theme="explorer-light"), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("size", [SMALL, NARROW_TALL, LARGE], ids=_size_id)
def test_main_screen_with_a_preview(snap_compare: Any, size: tuple[int, int]) -> None:
    """The tree opened down to a source file, its details and its highlighted source.

    At 80x24 the panes stay side by side with fewer rows for the details; at 80x48 they stack."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await _ready(pilot)
        await _read(pilot, PYTHON_FILE)

    assert snap_compare(_app(_demo()), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=_size_id)
def test_template_form(snap_compare: Any, size: tuple[int, int]) -> None:
    """Two variables, one filled, the other typed into with the server's suggestions open; the URI
    preview and the key hints stay in sight at 80x24 (the form scrolls above them)."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await _ready(pilot)
        app = pilot.app
        assert main_screen(app).tree_widget.select_prefix(LATEST)
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TemplateFormScreen) and app.screen.is_mounted)
        screen = app.screen
        form = screen.query_one(ArgumentForm)
        form.set_text("region", "eu-west")
        form.focus_field("service")
        await pilot.press("c")
        await wait_for(pilot, lambda: form.suggestion_values == ["catalog", "checkout"])
        await wait_for(pilot, lambda: not screen.checking)
        await _still(pilot)

    assert snap_compare(_app(_demo()), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=_size_id)
def test_prompts_view_with_a_result(snap_compare: Any, size: tuple[int, int]) -> None:
    """Every prompt listed, one got with its argument: its messages, with the embedded chapter."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await _ready(pilot)
        app = pilot.app
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptsScreen) and app.screen.is_mounted)
        prompts = app.screen
        assert isinstance(prompts, PromptsScreen)
        await wait_for(
            pilot,
            lambda: bool(prompts.listings) and all(s.state != "listing" for s in prompts.listings.values()),
        )
        await pilot.press("enter")  # the first prompt: summarize-chapter
        await wait_for(pilot, lambda: isinstance(app.screen, PromptFormScreen) and app.screen.is_mounted)
        app.screen.query_one(ArgumentForm).set_text("chapter", "pagination")
        await pilot.press("ctrl+s")
        await wait_for(
            pilot,
            lambda: (
                app.screen is prompts and prompts.result_view.state == "result" and prompts.result_view.shown
            ),
        )
        await pilot.pause(0.3)
        await _still(pilot)

    assert snap_compare(_app(_demo()), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=_size_id)
def test_error_dialog(snap_compare: Any, size: tuple[int, int]) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _ready(pilot)
        await pilot.press("e")
        await pilot.pause(0.2)

    assert snap_compare(_app(_demo(), _broken()), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("theme", THEMES)
def test_main_screen_in_each_theme(snap_compare: Any, theme: str) -> None:
    """A failed server's row, the tree with template and pattern rows, details and a JSON preview."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await _ready(pilot)
        await _read(pilot, "docs://about")
        main_screen(pilot.app).tree_widget.select_prefix("docs://search{?q,limit}")
        await pilot.pause(0.2)

    assert snap_compare(_app(_demo(), _broken(), theme=theme), terminal_size=SIZE, run_before=run_before)
