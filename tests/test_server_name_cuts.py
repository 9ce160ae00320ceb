"""A server name shown alone is cut in the middle, so two long names that share a head still read apart.

Cut at the end, `company-internal-search-…-production` and `…-staging` read the same in a notification, the
prompts view and the connect dialog: the tail that tells them apart was the part cut off.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.widgets import Input, OptionList

from explorer.app import ExplorerApp
from explorer.screens.connect_dialog import ConnectDialog
from explorer.screens.prompts import PromptsScreen
from explorer.widgets.server_labels import middle_cut
from tests.app_helpers import SIZE, demo_spec, raw_spec, settled_app, wait_for, wait_settled

HEAD = "company-internal-search-cluster-europe-west-1-replica-set-a-"  # 60 characters both share
PRODUCTION = HEAD + "production"
STAGING = HEAD + "staging"


def test_a_long_name_keeps_its_head_and_its_tail() -> None:
    production, staging = middle_cut(PRODUCTION, 40), middle_cut(STAGING, 40)
    assert production.startswith("company-internal") and production.endswith("-production")
    assert staging.startswith("company-internal") and staging.endswith("-staging")
    assert "…" in production and cell_len(production) <= 40 and cell_len(staging) <= 40
    assert middle_cut("demo", 40) == "demo"  # a name that fits is whole


def test_a_hostile_or_huge_name_is_sanitized_and_fits() -> None:
    hostile = middle_cut("evil\x1b]0;title\x07" + "x" * 80 + "\u202e-staging", 40)
    assert "\x1b" not in hostile and "\u202e" not in hostile and "\\x1b" in hostile
    assert hostile.endswith("\\u202e-staging") and cell_len(hostile) <= 40
    wide = middle_cut("検索" * 40 + "-staging", 21)
    assert cell_len(wide) <= 21 and wide.endswith("-staging")
    huge = middle_cut("a" * 1_000_000 + "-staging", 40)
    assert cell_len(huge) <= 40 and huge.endswith("-staging")


@pytest.mark.anyio
@pytest.mark.slow
async def test_notifications_and_the_prompts_view_show_each_servers_tail() -> None:
    async with settled_app(demo_spec(PRODUCTION), raw_spec(STAGING, "exit-at-start")) as (app, pilot):
        await wait_for(pilot, lambda: any("R to reconnect" in str(n.message) for n in app._notifications))
        failed = [str(n.message) for n in app._notifications if "R to reconnect" in str(n.message)]
        assert failed[0].startswith(middle_cut(STAGING, 40) + ": ")
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptsScreen))
        screen = app.screen
        assert isinstance(screen, PromptsScreen)
        await wait_for(pilot, lambda: all(s.state != "listing" for s in screen.listings.values()))
        options = screen.query_one("#prompt-list", OptionList)
        shown = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert any(line.startswith(middle_cut(PRODUCTION, 60) + "  4 prompts") for line in shown)
        assert any(line.startswith(middle_cut(STAGING, 60) + "  ✗ error") for line in shown)
        assert middle_cut(PRODUCTION, 60).endswith("-production")


@pytest.mark.anyio
@pytest.mark.slow
async def test_the_connect_dialog_shows_the_new_servers_tail(tmp_path: Path) -> None:
    script = tmp_path / (STAGING + ".py")
    script.write_text("import sys\nsys.exit(1)\n")  # fails at once: the dialog says so, naming it
    app = ExplorerApp([demo_spec()], remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_settled(pilot, app)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, ConnectDialog))
        dialog = app.screen
        assert isinstance(dialog, ConnectDialog)
        dialog.query_one("#target", Input).value = f"{sys.executable} {script}"
        await pilot.press("ctrl+s")

        def status() -> str:
            return str(dialog.query_one("#connect-status").render())

        await wait_for(pilot, lambda: ": failed:" in status(), timeout=30)
        assert status().startswith(middle_cut(STAGING + ".py", 60) + ": failed:")
        assert "-staging.py: failed:" in status()
