"""Hostile servers, round two (issue 9), against the terminal UI: invisible characters and mark runs on
screen, the clipboard, malformed prompt data, secrets in their encodings. Pilot over real stdio, with
`tests/fixtures/hostile_server.py`; the app keeps running through all of it.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pytest
from textual.widgets import OptionList

from explorer.app import ExplorerApp
from explorer.config import ServerSpec
from explorer.screens.copy_as import CopyAsDialog
from explorer.screens.prompts import PromptsScreen
from explorer.widgets.server_bar import ServerBar
from tests.app_helpers import (
    main_screen,
    preview_text,
    settled_app,
    tree_lines,
    wait_for,
)
from tests.fixtures.raw_server import HOSTILE
from tests.hostile_helpers import HOSTILE_SERVER, hostile_spec, invisible_or_control, longest_mark_run

pytestmark = pytest.mark.anyio

SECRET = 'tok"en\\wörd+/=42'


def bar_text(app: ExplorerApp) -> str:
    return str(main_screen(app).query_one(ServerBar).render())


async def test_invisible_characters_in_a_server_name_are_escaped_and_the_status_stays_on_the_bar() -> None:
    async with settled_app(hostile_spec("inv", "invisible", resources=3)) as (app, pilot):
        bar = bar_text(app)
        assert not invisible_or_control(bar), bar
        assert "inv\\u115f\\u1160\\u3164\\uffa0" in bar
        assert "3 resources" in bar
        assert not invisible_or_control("\n".join(tree_lines(app)))
        screen = main_screen(app)
        assert screen.tree_widget.select_prefix("fixture://items/0/item-1")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "contents of fixture://items/0/item-1" in preview_text(app))
        shown = preview_text(app)
        assert not invisible_or_control(shown) and "\\ufe0f" in shown and "\\U000e0068" in shown
        assert not invisible_or_control(app.export_screenshot())
        assert app.is_running


async def test_a_run_of_combining_marks_is_capped_on_screen() -> None:
    async with settled_app(hostile_spec("zalgo", "zalgo", resources=3)) as (app, pilot):
        assert longest_mark_run(bar_text(app)) <= 8 and "[+4992 combining marks]" in bar_text(app)
        screen = main_screen(app)
        screen.read("zalgo", "fixture://items/0/item-1")
        await wait_for(pilot, lambda: "after" in preview_text(app))
        assert longest_mark_run(preview_text(app)) <= 8
        assert "[+4992 combining marks] after" in preview_text(app)
        assert longest_mark_run("\n".join(tree_lines(app))) <= 8
        assert app.is_running


@pytest.mark.slow
async def test_copying_a_uri_with_control_characters_percent_encodes_them_and_says_so() -> None:
    async with settled_app(hostile_spec("evil", "hostile", resources=11)) as (app, pilot):
        screen = main_screen(app)
        uri = f"fixture://hostile/10/{HOSTILE}"
        assert screen.tree_widget.select_prefix(uri)
        await pilot.pause()
        await pilot.press("c")
        await wait_for(pilot, lambda: bool(app.clipboard))
        copied = app.clipboard
        assert all(ord(c) >= 0x20 and c not in "\x7f\x9b\u202e\u200b" for c in copied), repr(copied)
        assert "%1B%5B2J" not in copied and "%1B[2J" in copied and "%00" in copied
        messages = [n.message for n in app._notifications]
        assert any("percent-encoded" in m for m in messages), messages
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, CopyAsDialog))
        dialog = app.screen
        assert isinstance(dialog, CopyAsDialog)
        forms = dict(dialog.forms)
        assert forms["URI"] == copied and "\x1b" not in forms["Command line"]
        assert (
            "\x1b" not in forms["JSON-RPC request"]
            and json.loads(forms["JSON-RPC request"])["params"]["uri"] == uri
        )
        dialog.query_one(OptionList).highlighted = 2
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.clipboard.startswith("mcp-url-explorer read"))
        assert all(ord(c) >= 0x20 for c in app.clipboard)


@pytest.mark.slow
async def test_malformed_prompt_data_is_shown_with_what_is_wrong() -> None:
    async with settled_app(hostile_spec("bad", "bad-prompts")) as (app, pilot):
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptsScreen))
        screen = app.screen
        assert isinstance(screen, PromptsScreen)
        await wait_for(pilot, lambda: bool(screen.listings) and screen.listings["bad"].state == "ready")
        names = [p.name for p in screen.prompts]
        assert {"args-string", "args-number", "args-object", "args-items", "shapes"} <= set(names)
        items = next(p for p in screen.prompts if p.name == "args-items")
        assert [f.name for f in items.fields] == ["ok"] and len(items.problems) == 4
        details = str(screen._details(next(p for p in screen.prompts if p.name == "args-number")))
        assert "its 'arguments' is a number, not a list: ignored" in details
        shapes = next(p for p in screen.prompts if p.name == "shapes")
        screen.get_prompt(shapes, {})
        view = screen.result_view
        await wait_for(pilot, lambda: view.state == "result" and view.shown)
        text = view.text
        for shown in (
            "an embedded resource whose 'resource' is a string, not an object",
            "just a string, not an object",
            "narrator (unknown role)",
            "(no role: its role is a number, not a string)",
            "a content block of unknown type hologram",
            "it is a string, not an object",
        ):
            assert shown in text, shown
        assert app.is_running


async def test_a_secrets_encodings_are_masked_in_the_preview_and_the_server_bar(tmp_path: Path) -> None:
    args = (str(HOSTILE_SERVER), "--mode", "echo-encoded", "--mode", "echo-info", "--resources", "3")
    spec = ServerSpec(
        name="leaky", transport="stdio", command=sys.executable, args=args, env={"TOKEN": SECRET}
    )
    async with settled_app(spec) as (app, pilot):
        assert "leaky-*** 1.0+***" in bar_text(app)
        main_screen(app).read("leaky", "err://-32603")
        await wait_for(pilot, lambda: "rejected" in preview_text(app))
        shown = preview_text(app) + app.export_screenshot()
        data = SECRET.encode()
        for form in (
            SECRET,
            json.dumps(SECRET)[1:-1],
            base64.b64encode(data).decode().rstrip("="),
            base64.urlsafe_b64encode(data).decode().rstrip("="),
        ):
            assert form not in shown, form
        assert 'rejected {"token": "***"}' in preview_text(app)
