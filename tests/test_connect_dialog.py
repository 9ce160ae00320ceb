"""Connecting and removing servers at runtime in the TUI, an OAuth login shown on the server's row."""

from __future__ import annotations

import json
import shlex
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
from textual.widgets import Checkbox, Input, Select, Static, TextArea

from explorer.app import ExplorerApp
from explorer.auth.options import AuthOptions
from explorer.screens.connect_dialog import ConnectDialog
from explorer.widgets.server_bar import ServerBar
from tests.app_helpers import SIZE, demo_spec, main_screen, wait_for, wait_settled
from tests.test_oauth import Protected, start_protected

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


@pytest.fixture
def protected(tmp_path: Path) -> Iterator[Protected]:
    yield from start_protected(tmp_path)


def dialog_status(app: ExplorerApp) -> str:
    dialog = app.screen
    assert isinstance(dialog, ConnectDialog)
    return str(dialog.query_one("#connect-status", Static).render())


async def open_dialog(pilot: object, app: ExplorerApp) -> ConnectDialog:
    await pilot.press("n")  # type: ignore[attr-defined]
    await wait_for(pilot, lambda: isinstance(app.screen, ConnectDialog))  # type: ignore[arg-type]
    dialog = app.screen
    assert isinstance(dialog, ConnectDialog)
    return dialog


async def test_connect_a_command_line_then_remove_it_and_keep_the_other(isolated_home: Path) -> None:
    app = ExplorerApp([demo_spec("first")], remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_settled(pilot, app)
        screen = main_screen(app)
        dialog = await open_dialog(pilot, app)
        dialog.query_one("#target", Input).value = shlex.join(
            [sys.executable, "-m", "explorer", "demo-server"]
        )
        dialog.query_one("#save", Checkbox).value = True
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "resources" in dialog_status(app), timeout=30)
        assert "connected:" in dialog_status(app) and "(saved to config.toml)" in dialog_status(app)
        names = list(screen.catalogue.servers)
        assert len(names) == 2 and names[0] == "first"
        added = names[1]
        saved = tomllib.loads((isolated_home / "config" / "config.toml").read_text())
        assert saved["servers"][added]["command"] == sys.executable
        await pilot.press("escape")
        await wait_settled(pilot, app)
        assert _servers_in_tree(app) == {"first", added}
        screen.adder.remove_server(added)
        await wait_for(pilot, lambda: _servers_in_tree(app) == {"first"})
        assert list(screen.catalogue.servers) == ["first"]
        assert _servers_in_tree(app) == {"first"}  # its nodes gone, the other server's all there


async def test_a_failed_attempt_is_not_saved_however_often_it_is_retried(isolated_home: Path) -> None:
    """Before, each attempt with "Save" ticked appended a table: `127.0.0.1:9`, then `127.0.0.1:9-2`."""
    config = isolated_home / "config" / "config.toml"
    app = ExplorerApp([demo_spec()], remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_settled(pilot, app)
        dialog = await open_dialog(pilot, app)
        dialog.query_one("#target", Input).value = "http://127.0.0.1:9/mcp"
        dialog.query_one("#save", Checkbox).value = True
        for _attempt in range(2):
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: "failed:" in dialog_status(app), timeout=30)
            assert "(not saved: it did not connect)" in dialog_status(app)
        assert not config.exists()
        await pilot.press("escape")
    assert not config.exists()


async def test_the_dialog_says_why_an_inline_servers_table_was_not_saved_to(isolated_home: Path) -> None:
    config = isolated_home / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    text = "servers = { }\n"
    config.write_text(text, encoding="utf-8")
    app = ExplorerApp([demo_spec("first")], remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_settled(pilot, app)
        dialog = await open_dialog(pilot, app)
        dialog.query_one("#target", Input).value = shlex.join(
            [sys.executable, "-m", "explorer", "demo-server"]
        )
        dialog.query_one("#save", Checkbox).value = True
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "resources" in dialog_status(app), timeout=30)
        status = dialog_status(app)
        assert "connected:" in status and "(not saved: " in status and "declares servers inline" in status
        await pilot.press("escape")
    assert config.read_text(encoding="utf-8") == text


def _servers_in_tree(app: ExplorerApp) -> set[str]:
    return {entry.server for entry in main_screen(app).catalogue.tree.resources_under("")}


async def test_a_wrong_field_is_said_in_the_dialog_and_nothing_is_added() -> None:
    app = ExplorerApp([demo_spec()], remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_settled(pilot, app)
        dialog = await open_dialog(pilot, app)
        dialog.query_one("#target", Input).value = "https://example.test/mcp"
        dialog.query_one("#headers", TextArea).text = "Authorization Bearer nocolon"
        await pilot.press("ctrl+s")
        await pilot.pause(0.1)
        assert "has no colon; expected 'Name: value'" in dialog_status(app)
        assert list(main_screen(app).catalogue.servers) == ["demo"]


async def test_the_save_box_is_blank_until_checked_not_only_another_colour() -> None:
    app = ExplorerApp([demo_spec()], remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_settled(pilot, app)
        dialog = await open_dialog(pilot, app)
        save = dialog.query_one("#save", Checkbox)
        for theme in ("explorer-dark", "explorer-light"):
            app.theme = theme
            save.value = False
            await pilot.pause()
            assert save.render().plain.startswith("▐ ▌ Save to the explorer's config.toml")
            save.focus()
            await pilot.press("space")
            assert save.value and save.render().plain.startswith("▐X▌ Save to the explorer's config.toml")


async def test_an_oauth_login_waits_on_the_server_row_with_its_url(protected: Protected) -> None:
    """--auth-flow print in the TUI: the row shows the URL; opening it (as a browser would) connects."""
    app = ExplorerApp([demo_spec()], remember_theme=False, auth=AuthOptions(flow="print"))
    async with app.run_test(size=(200, 36)) as pilot:
        await wait_settled(pilot, app)
        dialog = await open_dialog(pilot, app)
        dialog.query_one("#target", Input).value = protected.url
        await pilot.press("ctrl+s")
        screen = main_screen(app)
        await wait_for(pilot, lambda: any(s.login is not None for s in screen.catalogue.servers.values()), 30)
        status = next(s for s in screen.catalogue.servers.values() if s.login is not None)
        url = status.login.url if status.login is not None else ""
        assert "code_challenge_method=S256" in url
        await wait_for(pilot, lambda: "log in" in dialog_status(app) and url[:60] in dialog_status(app))
        bar = str(screen.query_one(ServerBar).render())
        assert "log in: open in a browser:" in bar and url[:60] in bar

        async def browser() -> None:
            async with httpx2.AsyncClient(follow_redirects=True, timeout=30) as client:
                await client.get(url)

        async with anyio.create_task_group() as group:
            group.start_soon(browser)
            await wait_for(pilot, lambda: "2 resources" in dialog_status(app), 30)
        assert status.login is None
        assert protected.count("token", grant="authorization_code") == 1
        wire = json.dumps([frame.record() for frame in app.wire.select()])  # the protocol log
        assert "notes://welcome" in wire
        for token in protected.tokens():
            assert token not in dialog_status(app) and token not in str(screen.query_one(ServerBar).render())
            assert token not in wire


async def test_the_dialog_flow_choice_applies_to_that_server(protected: Protected) -> None:
    app = ExplorerApp([demo_spec()], remember_theme=False, auth=AuthOptions(flow="print"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_settled(pilot, app)
        dialog = await open_dialog(pilot, app)
        dialog.query_one("#target", Input).value = protected.url
        dialog.query_one("#flow", Select).value = "fetch"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "2 resources" in dialog_status(app), 30)
