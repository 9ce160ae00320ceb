"""Snapshot tests of the main states (fixed size and theme, isolated config, no cursor blink).

Regenerate after an intended change of the look: `pytest tests/test_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from explorer.config import ServerSpec
from tests.app_helpers import demo_spec, main_screen, make_app, wait_for, wait_settled

SIZE = (120, 34)
pytestmark = pytest.mark.xdist_group("snapshots")


def _app(*specs: ServerSpec, theme: str = "explorer-dark") -> Any:
    app = make_app(*specs)
    app.theme_on_mount = theme  # applied in run_before, after the themes are registered
    return app


async def _ready(pilot: Pilot[Any]) -> None:
    app = pilot.app
    app.theme = app.theme_on_mount
    await wait_settled(pilot, app)
    for input_widget in app.query("Input"):
        input_widget.cursor_blink = False


def test_tree_with_templates(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _ready(pilot)
        main_screen(pilot.app).tree_widget.select_prefix("docs://handbook/completions")
        await pilot.press("up", "up")

    assert snap_compare(_app(demo_spec()), terminal_size=SIZE, run_before=run_before)


def test_markdown_preview(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _ready(pilot)
        screen = main_screen(pilot.app)
        screen.tree_widget.select_prefix("docs://handbook/resource-templates")
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.query("Markdown") and True)
        await pilot.pause(0.5)

    assert snap_compare(_app(demo_spec()), terminal_size=SIZE, run_before=run_before)


def test_error_dialog_with_a_failed_server(snap_compare: Any) -> None:
    # A command that does not exist: its message holds no path of this machine.
    broken = ServerSpec(name="broken", transport="stdio", command="no-such-mcp-server", args=("--db", "x"))

    async def run_before(pilot: Pilot[Any]) -> None:
        await _ready(pilot)
        await pilot.press("e")
        await pilot.pause(0.2)

    assert snap_compare(_app(demo_spec(), broken), terminal_size=SIZE, run_before=run_before)


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
        for input_widget in pilot.app.screen.query("Input"):
            input_widget.cursor_blink = False

    assert snap_compare(_app(demo_spec(), theme="explorer-light"), terminal_size=SIZE, run_before=run_before)
