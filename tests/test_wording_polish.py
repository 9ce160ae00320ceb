"""Words a user walkthrough found wrong: the go-to dialog counts templates in plain English, the TUI's
advice after the SSE fallback names what skips the first attempt where the server was given (`--sse` for
`-s`, its transport for a config file's entry), and the connect
dialog's copy button says what it copies and is not offered for a command line, which never logs in."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from explorer.app import ExplorerApp
from explorer.config import ServerSpec
from explorer.config.spec import SpecOrigin
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


def fallback_toasts(app: object) -> list[str]:
    return [str(n.message) for n in app._notifications if "HTTP+SSE" in str(n.message)]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("origin", "advice"),
    [
        (None, "(pass --sse to skip the first attempt)"),
        ("config.toml", '(set transport = "sse" in its entry in config.toml to skip the first attempt)'),
        ("mcp.json", '(set "type": "sse" in its entry in mcp.json to skip the first attempt)'),
    ],
)
async def test_the_tui_advice_after_falling_back_to_sse_is_where_the_server_was_given(
    sse_only: str, tmp_path: Path, origin: str | None, advice: str
) -> None:
    """A server given with -s is skipped past Streamable HTTP by --sse (the TUI takes it too); one read
    from a config file, by its entry's transport there."""
    where = SpecOrigin(tmp_path / origin, "legacy") if origin is not None else None
    spec = ServerSpec(name="legacy", transport="http", url=sse_only, origin=where)
    async with settled_app(spec) as (app, pilot):
        await wait_for(pilot, lambda: bool(fallback_toasts(app)))
        [toast] = fallback_toasts(app)
        assert "HTTP 405" in toast and "connected with the legacy HTTP+SSE transport" in toast, toast
        assert toast.endswith(advice), toast


def test_the_cli_advises_sse_for_a_server_given_with_s(sse_only: str) -> None:
    result = run_cli("tree", "-s", sse_only, timeout=60)
    assert result.code == 0, result
    assert "connected with the legacy HTTP+SSE transport (pass --sse to skip the first attempt)" in (
        result.stderr
    ), result.stderr
    assert "config.toml" not in result.stderr, result.stderr


def test_the_cli_advises_the_config_entry_for_a_server_read_from_a_file(
    sse_only: str, tmp_path: Path
) -> None:
    config = tmp_path / "servers.toml"
    config.write_text(f'[servers.legacy]\nurl = "{sse_only}"\n', encoding="utf-8")
    result = run_cli("tree", "-c", str(config), timeout=60)
    assert result.code == 0, result
    assert 'set transport = "sse" in its entry in servers.toml to skip the first attempt' in result.stderr
    assert "--sse" not in result.stderr, result.stderr


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
