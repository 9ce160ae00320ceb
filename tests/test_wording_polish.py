"""Words a user walkthrough found wrong: the go-to dialog counts templates in plain English, the TUI's
advice after the SSE fallback is what a TUI user can do (the CLI's still names `--sse`), and the connect
dialog's copy button says what it copies and is not offered for a command line, which never logs in."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from explorer.app import ExplorerApp
from explorer.config import ServerSpec
from explorer.screens.connect_dialog import ConnectDialog
from explorer.screens.goto import GoToDialog
from tests.app_helpers import demo_spec, settled_app, wait_for
from tests.helpers.cli import run_cli
from tests.test_http_sse_failures import _Legacy, _serve

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


# ------------------------------------------------------------------------------ go to: how many templates


def summary_for(dialog: GoToDialog) -> str:
    return str(dialog.query_one("#goto-summary", Static).render())


async def goto_summary(app: ExplorerApp, pilot: Pilot[Any], uri: str) -> str:
    await pilot.press("g")
    await wait_for(pilot, lambda: isinstance(app.screen, GoToDialog) and app.screen.is_mounted)
    dialog = app.screen
    assert isinstance(dialog, GoToDialog)
    dialog.query_one(Input).value = uri
    await wait_for(pilot, lambda: dialog.resolution is not None and dialog.resolution.uri == uri)
    await wait_for(pilot, lambda: "Not listed" in summary_for(dialog))
    return summary_for(dialog)


async def test_go_to_says_one_template_produces_it() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        summary = await goto_summary(app, pilot, "metrics://eu-west/no-such-service/latest")
        assert "Not listed; 1 template produces it" in summary, summary
        assert "(s)" not in summary


async def test_go_to_says_two_templates_produce_it() -> None:
    async with settled_app(demo_spec("one"), demo_spec("two")) as (app, pilot):
        summary = await goto_summary(app, pilot, "metrics://eu-west/no-such-service/latest")
        assert "Not listed; 2 templates produce it" in summary, summary
        assert "(s)" not in summary


# ------------------------------------------------------------------------ the SSE fallback's advice


class _SseOnly(_Legacy):
    """A legacy HTTP+SSE server that refuses a Streamable HTTP POST (to its /sse URL) with 405, as legacy
    servers do: the explorer falls back to SSE on the same URL and says so."""

    def refused(self, message: dict[str, object]) -> bool:
        if self.path.startswith("/messages"):
            return False
        self._status(405, b"Method Not Allowed")
        return True


@pytest.fixture
def sse_only() -> Iterator[str]:
    yield from _serve(_SseOnly)


async def test_the_tui_advises_the_config_key_after_falling_back_to_sse(sse_only: str) -> None:
    spec = ServerSpec(name="legacy", transport="http", url=sse_only)
    async with settled_app(spec) as (app, pilot):

        def fallback_toasts() -> list[str]:
            return [str(n.message) for n in app._notifications if "HTTP+SSE" in str(n.message)]

        await wait_for(pilot, lambda: bool(fallback_toasts()))
        [toast] = fallback_toasts()
        assert "HTTP 405" in toast and "connected with the legacy HTTP+SSE transport" in toast, toast
        assert 'set transport = "sse" in its config.toml entry to skip the first attempt' in toast, toast
        assert "--sse" not in toast, toast


def test_the_cli_still_advises_sse_after_falling_back(sse_only: str) -> None:
    result = run_cli("tree", "-s", sse_only, timeout=60)
    assert result.code == 0, result
    assert "connected with the legacy HTTP+SSE transport (pass --sse to skip the first attempt)" in (
        result.stderr
    ), result.stderr
    assert "config.toml" not in result.stderr, result.stderr


# ---------------------------------------------------------------------- the connect dialog's copy button


def shown_buttons(dialog: ConnectDialog) -> list[str]:
    return [str(button.label) for button in dialog.query(Button) if button.display]


async def test_the_copy_button_names_the_login_url_and_is_not_offered_for_a_command_line() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, ConnectDialog) and app.screen.is_mounted)
        dialog = app.screen
        assert isinstance(dialog, ConnectDialog)
        assert shown_buttons(dialog) == ["Connect", "Copy login URL", "Close"]
        target = dialog.query_one("#target", Input)
        target.value = shlex.join([sys.executable, "-m", "explorer", "demo-server"])
        await wait_for(pilot, lambda: shown_buttons(dialog) == ["Connect", "Close"])
        await pilot.press("ctrl+s")  # connected, a stdio server still has no login to copy
        status = dialog.query_one("#connect-status", Static)
        await wait_for(pilot, lambda: "connected:" in str(status.render()), timeout=30)
        assert shown_buttons(dialog) == ["Connect", "Close"]
        target.value = "https://example.test/mcp"  # a URL may ask for a login: the button is back
        await wait_for(pilot, lambda: shown_buttons(dialog) == ["Connect", "Copy login URL", "Close"])
