"""A server that dies while the prompts screen is open: its prompts stay listed, marked failed.

Before, the screen went on showing the dead server's prompts as if it were alive; `r` then replaced them
with "error: not connected" (the main screen keeps its tree); and the toast's "press e for details, R to
reconnect" named keys that did nothing there. Now the server's header says it failed (the supervisor's
sanitized sentence), its prompts stay under it through `r`, `e` opens its error (with reconnect) and `R`
reconnects it, after which its prompts are listed again.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from textual.binding import Binding
from textual.widgets import OptionList, Static

from explorer.app import ExplorerApp
from explorer.screens.error_dialog import ErrorDialog
from explorer.screens.prompts import PromptsScreen
from explorer.widgets.prompt_result import PromptResultView
from tests.app_helpers import main_screen, settled_app, stdio_spec, wait_for
from tests.helpers.tiny_server import tiny_server

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SERVER = """
CAPABILITIES = {"resources": {}, "prompts": {}}
NAME = sys.argv[1]
def answer(method, params):
    if method in ("resources/list", "resources/templates/list"):
        return {"resources": [], "resourceTemplates": []}
    if method == "prompts/list":
        return {"prompts": [{"name": f"{NAME}-{n}", "description": n} for n in ("one", "two")]}
    return None
"""


def list_lines(screen: PromptsScreen) -> list[str]:
    options = screen.query_one("#prompt-list", OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


def block_of(screen: PromptsScreen, server: str) -> list[str]:
    """The header line of `server` and the prompt lines under it, as shown."""
    lines = list_lines(screen)
    start = next(i for i, line in enumerate(lines) if line.startswith(server + "  "))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith("  ")), len(lines))
    return lines[start:end]


def kill_server(name: str) -> None:
    from explorer.connection.stdio import live_server_groups

    group = next(pgid for pgid, server in live_server_groups().items() if server == name)
    os.killpg(group, signal.SIGKILL)


def settled(screen: PromptsScreen) -> bool:
    return bool(screen.listings) and all(s.state != "listing" for s in screen.listings.values())


async def open_prompts(app: ExplorerApp, pilot: object) -> PromptsScreen:
    await pilot.press("p")  # type: ignore[attr-defined]
    await wait_for(
        pilot,  # type: ignore[arg-type]
        lambda: isinstance(app.screen, PromptsScreen) and bool(app.screen.query(PromptResultView)),
    )
    screen = app.screen
    assert isinstance(screen, PromptsScreen)
    await wait_for(pilot, lambda: settled(screen))  # type: ignore[arg-type]
    return screen


def marked_failed(screen: PromptsScreen, server: str) -> bool:
    header = block_of(screen, server)[0]
    return "failed" in header and "closed the connection" in header


async def test_a_lost_servers_prompts_stay_listed_and_marked_failed_through_a_refresh(tmp_path: Path) -> None:
    command = tiny_server(tmp_path, SERVER)
    specs = (stdio_spec("doomed", f"{command} doomed"), stdio_spec("alive", f"{command} alive"))
    async with settled_app(*specs, size=(140, 40)) as (app, pilot):
        status = main_screen(app).catalogue.servers["doomed"]
        screen = await open_prompts(app, pilot)
        before = block_of(screen, "doomed")
        assert any("doomed-one" in line for line in before) and any("doomed-two" in line for line in before)
        assert "failed" not in before[0]

        kill_server("doomed")
        await wait_for(pilot, lambda: status.state == "failed")
        await wait_for(pilot, lambda: marked_failed(screen, "doomed"))
        shown = block_of(screen, "doomed")
        assert shown[1:] == before[1:], "what the screen showed is kept"
        assert "error: not connected" not in "\n".join(list_lines(screen))
        details = str(screen.query_one("#prompt-detail-body", Static).render())
        assert "doomed-one" in details and "doomed failed: the server closed the connection" in details
        assert "e shows its error, R reconnects" in details

        await pilot.press("r")  # relists the live server; the failed one keeps what it showed, marked
        await wait_for(pilot, lambda: settled(screen))
        await pilot.pause(0.1)
        assert block_of(screen, "doomed")[1:] == before[1:]
        assert marked_failed(screen, "doomed")
        assert "error: not connected" not in "\n".join(list_lines(screen))
        assert any("alive-one" in line for line in block_of(screen, "alive"))
        assert "failed" not in block_of(screen, "alive")[0]


async def test_the_keys_the_toast_names_work_on_the_prompts_screen(tmp_path: Path) -> None:
    command = tiny_server(tmp_path, SERVER)
    specs = (stdio_spec("doomed", f"{command} doomed"), stdio_spec("alive", f"{command} alive"))
    async with settled_app(*specs, size=(140, 40)) as (app, pilot):
        main = main_screen(app)
        status = main.catalogue.servers["doomed"]
        screen = await open_prompts(app, pilot)
        kill_server("doomed")
        await wait_for(pilot, lambda: marked_failed(screen, "doomed"))
        toasts = [str(n.message) for n in app._notifications]
        assert any("doomed" in t and "press e for details, R to reconnect" in t for t in toasts)

        await pilot.press("e")  # the failed server's error, with its reconnect
        await wait_for(pilot, lambda: isinstance(app.screen, ErrorDialog))
        dialog = app.screen
        assert isinstance(dialog, ErrorDialog) and dialog.status.name == "doomed"
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)

        conn = main.supervisor.connection("alive")
        await pilot.press("R")  # reconnects every failed server: here the one that died
        await wait_for(pilot, lambda: status.state == "ready", timeout=30)
        await wait_for(pilot, lambda: screen.listings["doomed"].state == "ready", timeout=30)
        block = block_of(screen, "doomed")
        assert "failed" not in block[0] and "error" not in block[0]
        assert any("doomed-one" in line for line in block) and any("doomed-two" in line for line in block)
        assert main.supervisor.connection("alive") is conn, "a live server is not reconnected"
        assert app.screen is screen

        kill_server("doomed")  # dies again: `e` then the dialog's reconnect lists its prompts again
        await wait_for(pilot, lambda: marked_failed(screen, "doomed"))
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ErrorDialog))
        await pilot.press("r")
        await wait_for(pilot, lambda: app.screen is screen)
        await wait_for(pilot, lambda: status.state == "ready", timeout=30)
        await wait_for(pilot, lambda: screen.listings["doomed"].state == "ready", timeout=30)
        assert "failed" not in block_of(screen, "doomed")[0]


async def test_the_toast_names_the_keys_the_keymap_binds(tmp_path: Path) -> None:
    command = tiny_server(tmp_path, SERVER)
    async with settled_app(stdio_spec("doomed", f"{command} doomed"), size=(140, 40)) as (app, pilot):
        app.set_keymap({"main.show_error": "x", "main.reconnect": "ctrl+r"})
        status = main_screen(app).catalogue.servers["doomed"]
        kill_server("doomed")
        await wait_for(pilot, lambda: status.state == "failed")
        await pilot.pause()
        toasts = [str(n.message) for n in app._notifications]
        shown = app.get_key_display(Binding("ctrl+r", "main.reconnect"))
        assert any(f"press x for details, {shown} to reconnect" in t for t in toasts), toasts
