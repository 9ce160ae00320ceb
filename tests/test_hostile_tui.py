"""Hostile and broken servers against the terminal UI (issue 5), driven with Pilot over real stdio.

What holds on screen, whatever a server does: the app keeps running and answers keys; every server
string is shown through the sanitizer (tree rows, details, preview, server bar, notifications, error
dialog, screenshots carry no raw control character) and markup in it is literal text that never runs;
what was listed stays when a server dies or a refresh fails; one server never disturbs another; a huge
read is capped with "load all" offered; a notification storm is coalesced; tokens are masked.
"""

from __future__ import annotations

import gc
import json
import resource
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from explorer.app import ExplorerApp
from explorer.config import ListingBounds, ServerSpec
from explorer.screens.error_dialog import ErrorDialog
from explorer.widgets.detail import DetailPane
from explorer.widgets.preview import ContentPreview, TextView
from explorer.widgets.resource_tree import ResourceTree
from explorer.widgets.server_bar import ServerBar
from tests.app_helpers import (
    SIZE,
    main_screen,
    make_app,
    preview_text,
    raw_spec,
    settled_app,
    tree_lines,
    wait_for,
    wait_settled,
)
from tests.helpers.paths import FIXTURES

pytestmark = pytest.mark.anyio

HOSTILE = (
    "[@click=app.quit]x[/] [/b] \x1b[2J\x1b]0;pwned\x07 \x1b]8;;http://evil.test\x1b\\link\x1b]8;;\x1b\\ "
    "\x9b31m c1 \u202eevil\u202c zero\u200bwidth nul\x00"
)
RAW_CONTROLS = ("\x1b", "\x9b", "\u202e", "\u202c", "\u200b", "\x00", "\x07")
MARKUP = "[@click=app.quit]x[/] [/b]"


def assert_clean(text: str, where: str) -> None:
    found = [repr(c) for c in RAW_CONTROLS if c in text]
    assert not found, f"raw control characters {found} in the {where}: {text[:300]!r}"


def detail_text(app: ExplorerApp) -> str:
    return str(main_screen(app).query_one(DetailPane).query_one("#detail-body", Static).render())


def bar_text(app: ExplorerApp) -> str:
    return str(main_screen(app).query_one(ServerBar).render())


def notifications(app: ExplorerApp) -> list[str]:
    return [n.message for n in app._notifications]


def screen_text(app: ExplorerApp) -> str:
    """Everything a user could read: tree, details, preview, status bar, notifications, screenshot."""
    return "\n".join(
        [
            *tree_lines(app),
            detail_text(app),
            preview_text(app),
            bar_text(app),
            *notifications(app),
            app.export_screenshot(),
        ]
    )


def rss_bytes() -> int:
    """The resident set size now (Linux), to see what a read left behind."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize()


async def read_stats(app: ExplorerApp, server: str) -> dict[str, int]:
    """How many requests of each method the fixture got (it answers stats://calls)."""
    conn = main_screen(app).connections[server]
    raw = await conn.read_resource("stats://calls")
    return json.loads(raw["contents"][0]["text"])  # type: ignore[no-any-return]


# --------------------------------------------------------------------------------------------- hostile


@pytest.mark.slow
async def test_hostile_strings_are_escaped_everywhere_and_markup_never_runs() -> None:
    async with settled_app(raw_spec("evil", "hostile", resources=21)) as (app, pilot):
        screen = main_screen(app)
        assert screen.catalogue.servers["evil"].state == "ready"
        uri = f"fixture://hostile/10/{HOSTILE}"
        assert screen.tree_widget.select_prefix(uri)
        await pilot.pause()
        lines = tree_lines(app)
        assert_clean("\n".join(lines), "tree")
        row = next(y for y, line in enumerate(lines) if "10/[@click=app.quit]x[/]" in line)
        details = detail_text(app)
        assert_clean(details, "detail pane")
        assert MARKUP in details and "\\x1b[2J" in details and "\\u202e" in details
        assert len(details) < 20_000  # the 200,000-character description is capped
        assert_clean(bar_text(app), "server bar")
        assert "raw-fixture " + MARKUP in bar_text(app)
        # Clicking the row whose label is `[@click=app.quit]x[/]` selects it; nothing quits.
        x = lines[row].index("[@click") + 2
        await pilot.click(ResourceTree, offset=(x, row))
        await pilot.pause()
        assert app.is_running
        await pilot.press("enter")
        await wait_for(pilot, lambda: "contents of fixture://hostile/10/" in preview_text(app))
        assert_clean(preview_text(app), "preview")
        assert MARKUP in preview_text(app) and "\\x1b]8;;http://evil.test" in preview_text(app)
        # The template with a hostile literal and name.
        assert screen.tree_widget.select_prefix("fixture://evil/" + HOSTILE + "/{x}")
        await pilot.pause()
        assert_clean(detail_text(app), "template details")
        assert MARKUP in detail_text(app)
        # A hostile read error, in the preview.
        screen.read("evil", "err://-32603")
        await wait_for(pilot, lambda: "-32603" in preview_text(app))
        assert_clean(preview_text(app), "read error")
        assert MARKUP in preview_text(app)
        assert_clean(screen_text(app), "screen")
        await pilot.press("down", "up")
        assert app.is_running


async def test_hostile_listing_error_in_notification_status_and_error_dialog() -> None:
    async with settled_app(raw_spec("evil", "hostile", "templates-error", resources=5)) as (app, pilot):
        status = main_screen(app).catalogue.servers["evil"]
        assert status.state == "failed" and "listing templates" in (status.error or "")
        assert any("listing templates: the server answered error -32603" in n for n in notifications(app))
        assert main_screen(app).catalogue.tree.root.resource_count == 5  # resources listed before stay
        await pilot.press("e")
        assert isinstance(app.screen, ErrorDialog)
        report = str(app.screen.query_one("#error-report", Static).render())
        assert_clean(report, "error dialog")
        assert MARKUP in report and "-32603" in report
        assert_clean(screen_text(app), "screen with the error dialog")
        await pilot.press("escape")
        assert app.is_running


# ------------------------------------------------------------------------------------------ pagination


async def test_repeated_cursor_error_names_it_and_keeps_the_first_page() -> None:
    async with settled_app(raw_spec("loop", "repeat-cursor")) as (app, _pilot):
        screen = main_screen(app)
        status = screen.catalogue.servers["loop"]
        assert status.state == "failed" and "repeated cursor 'again'" in (status.error or "")
        assert "repeated cursor 'again'" in bar_text(app)
        assert screen.catalogue.tree.root.resource_count == 100
        assert "incomplete" in tree_lines(app)[0]


async def test_endless_listing_stops_at_the_bound_marked_and_keys_still_work() -> None:
    async with settled_app(
        raw_spec("endless", "endless", page_size=50), bounds=ListingBounds(max_items=300)
    ) as (app, pilot):
        screen = main_screen(app)
        status = screen.catalogue.servers["endless"]
        assert status.state == "incomplete" and status.listing is not None
        assert status.listing.stopped_by == "max_items" and screen.catalogue.tree.root.resource_count == 300
        assert "incomplete (max-items bound)" in bar_text(app)
        assert "⚠ incomplete: endless" in tree_lines(app)[0]
        assert any("press m for more" in n for n in notifications(app))
        await pilot.press("m")  # continue: another 300, and it stops again
        await wait_for(pilot, lambda: screen.catalogue.tree.root.resource_count == 600)
        await wait_settled(pilot, app)
        assert status.state == "incomplete"


async def test_empty_cursor_malformed_and_duplicates_on_screen() -> None:
    app = make_app(
        raw_spec("cursor", "empty-cursor", resources=150),
        raw_spec("junk", "malformed", "duplicates", resources=150),
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_settled(pilot, app)
        screen = main_screen(app)
        assert screen.catalogue.servers["cursor"].state == "ready"
        junk = screen.catalogue.servers["junk"]
        assert junk.state == "ready" and junk.listing is not None
        assert len(junk.listing.resources) == 150 and junk.listing.duplicates == 3
        assert "4 skipped" in bar_text(app)
        assert screen.catalogue.tree.root.resource_count == 150  # both list the same URIs: one node each
        assert screen.catalogue.tree.node_for("fixture://items/2/item-100") is not None


# ----------------------------------------------------------------------------------------- process faults


async def test_crash_mid_listing_keeps_items_marked_and_flooded_stderr_is_bounded() -> None:
    async with settled_app(raw_spec("dies", "exit-mid-list", "stderr-flood")) as (app, pilot):
        screen = main_screen(app)
        status = screen.catalogue.servers["dies"]
        assert status.state == "failed" and screen.catalogue.tree.root.resource_count == 100
        assert "closed the connection" in (status.error or "")
        assert "panic: index out of range" in (status.error or "")
        assert "⚠ incomplete: dies" in tree_lines(app)[0]
        assert "failed (kept what was listed)" in bar_text(app)
        await pilot.press("e")
        assert isinstance(app.screen, ErrorDialog)
        report = str(app.screen.query_one("#error-report", Static).render())
        assert "panic: index out of range" in report and len(report) < 20_000  # 5 MB of stderr, a tail shown
        await pilot.press("escape")
        assert app.is_running


async def test_failed_refresh_keeps_the_last_good_listing() -> None:
    async with settled_app(raw_spec("flaky", "fail-refresh", resources=50)) as (app, pilot):
        screen = main_screen(app)
        assert screen.catalogue.tree.root.resource_count == 50
        await pilot.press("r")
        await wait_settled(pilot, app)
        status = screen.catalogue.servers["flaky"]
        assert screen.catalogue.tree.root.resource_count == 50
        assert status.listing is not None and len(status.listing.resources) == 50
        assert "refresh failed (showing the last good listing)" in bar_text(app)
        assert any("kept the last good listing" in n for n in notifications(app))
        assert any("fixture://" in line for line in tree_lines(app))


@pytest.mark.slow
async def test_late_answer_is_a_timeout_then_the_connection_still_works() -> None:
    async with settled_app(raw_spec("late", "late-answer", resources=20, delay=2.0), timeout=1.0) as (
        app,
        pilot,
    ):
        screen = main_screen(app)
        status = screen.catalogue.servers["late"]
        assert status.state == "failed" and (
            "did not answer after 1 s (timeout; --timeout SECONDS waits longer)" in (status.error or "")
        )
        await pilot.pause(1.5)  # the late answer arrives, for a request nobody waits for any more
        await pilot.press("r")
        await wait_for(pilot, lambda: status.state == "ready")
        assert screen.catalogue.tree.root.resource_count == 20
        assert app.is_running


@pytest.mark.slow
async def test_a_hanging_server_does_not_disturb_the_other() -> None:
    app = make_app(raw_spec("good", resources=30), raw_spec("stuck", "hang-list"), timeout=3.0)
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        good = screen.catalogue.servers["good"]
        stuck = screen.catalogue.servers["stuck"]
        await wait_for(pilot, lambda: good.state == "ready")
        assert stuck.busy  # still waiting for its listing
        screen.read("good", "fixture://items/0/item-3")
        await wait_for(pilot, lambda: "contents of fixture://items/0/item-3" in preview_text(app))
        await wait_settled(pilot, app)
        assert stuck.state == "failed" and "did not answer after 3 s" in (stuck.error or "")
        assert good.state == "ready" and screen.catalogue.tree.root.resource_count == 30


async def test_junk_on_stdout_and_unknown_ids_are_ignored_with_a_warning() -> None:
    app = make_app(
        raw_spec("garbage", "garbage-stdout", resources=20),
        raw_spec("random", "random-stdout", resources=20, garbage_bytes=2000),
        raw_spec("unknown", "unknown-id", resources=20),
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_settled(pilot, app)
        screen = main_screen(app)
        for name in ("garbage", "random", "unknown"):
            assert screen.catalogue.servers[name].state == "ready", name
        assert screen.catalogue.tree.root.resource_count == 20  # the same 20 URIs from three servers
        for name in ("garbage", "random", "unknown"):
            listing = screen.catalogue.servers[name].listing
            assert listing is not None and len(listing.resources) == 20, name
        warned = [n for n in notifications(app) if "not JSON-RPC" in n]
        assert any(n.startswith("garbage") for n in warned) and any(n.startswith("random") for n in warned)
        assert not any(n.startswith("unknown") for n in warned)
        assert_clean(screen_text(app), "screen")


# ---------------------------------------------------------------------------------------- protocol quirks


@pytest.mark.slow
async def test_read_errors_and_invalid_base64_in_the_preview() -> None:
    async with settled_app(raw_spec("fx", "read-errors", "bad-base64", resources=5)) as (app, pilot):
        screen = main_screen(app)
        for code in (-32602, -32002, -32603, 0):
            screen.read("fx", f"err://{code}")
            await wait_for(pilot, lambda code=code: f"read failed with code {code}" in preview_text(app))  # type: ignore[misc]
            assert f"({code})" in preview_text(app)
        screen.read("fx", "bin://bad")
        await wait_for(pilot, lambda: "base64" in preview_text(app).lower())
        assert app.is_running


@pytest.mark.slow
async def test_a_50_mb_read_is_capped_with_load_all_and_memory_is_bounded() -> None:
    async with settled_app(raw_spec("big", "big-read", resources=5)) as (app, pilot):
        # As after any earlier big message in this process (other tests, or the user's earlier reads):
        # glibc then serves blocks of up to 32 MB from its heap and keeps up to 64 MB of it free.
        earlier = b"e" * (31 * 1024 * 1024)
        del earlier
        gc.collect()
        before = rss_bytes()
        peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        main_screen(app).read("big", "big://text")
        preview = main_screen(app).query_one(ContentPreview)
        await wait_for(pilot, lambda: preview.state == "contents" and preview.shown, timeout=60)
        await pilot.pause()
        text = preview_text(app)
        assert "load all" in text.lower() and preview.can_load_all
        assert len(text) < 2_000_000  # a cap on screen, not 50 MB of rows
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - peak_before

        def given_back() -> bool:
            gc.collect()
            return rss_bytes() - before < 16 * 1024 * 1024

        # The SDK drops its references a moment after the preview shows: the memory goes back then.
        try:
            await wait_for(pilot, given_back, timeout=30)
        except AssertionError:
            raise AssertionError(f"the read left {(rss_bytes() - before) / 2**20:.0f} MB behind") from None
        assert peak < 400 * 1024 * 1024, f"the read peaked {peak / 2**20:.0f} MB above the earlier peak"
        # "Load all" is explicit, and then it is all there.
        preview.action_load_all()
        await wait_for(
            pilot,
            lambda: preview.state == "contents" and preview.shown and not preview.can_load_all,
            timeout=60,
        )
        assert sum(len(view.text) for view in preview.query(TextView)) == 50 * 1024 * 1024
        await pilot.press("down")
        assert app.is_running


@pytest.mark.slow
async def test_a_notification_storm_is_coalesced_and_keys_stay_responsive() -> None:
    async with settled_app(raw_spec("storm", "storm-on-read", resources=20, storm=5000)) as (app, pilot):
        screen = main_screen(app)
        # The screen's work for the server's news: counted, so the test says how much the UI did per
        # notification (nothing), rather than how long the keys took (which depends on the machine).
        ui_calls = {"statuses_changed": 0, "tree_changed": 0, "list_changed": 0}

        def counting(name: str, real: Any) -> Any:
            def counted(*args: object) -> object:
                ui_calls[name] += 1
                return real(*args)

            return counted

        listener = screen.events  # what the supervisor tells the screen goes through its listener
        for name in ui_calls:
            setattr(listener, name, counting(name, getattr(listener, name)))
        screen.read("storm", "storm://now")  # the server answers, then sends 5,000 list_changed
        await wait_for(pilot, lambda: "storm!" in preview_text(app))
        tree = screen.query_one(ResourceTree)
        await pilot.press("slash")
        await pilot.press("i", "t", "e", "m")
        await wait_for(pilot, lambda: tree.filter_result is not None and not tree.filter_pending)
        assert any("item" in line for line in tree_lines(app))  # the keys reached the filter
        await pilot.press("escape")
        await pilot.pause(2.0)
        await wait_settled(pilot, app)
        stats = await read_stats(app, "storm")
        # One listing at connect, and the storm coalesced into a handful of refreshes, not thousands.
        assert 2 <= stats["resources/list"] <= 6, stats
        # Each refresh updates the screen a few times; 5,000 notifications cause no UI work of their own.
        assert sum(ui_calls.values()) <= 10 * stats["resources/list"], ui_calls
        assert screen.catalogue.tree.root.resource_count == 20
        assert screen.catalogue.servers["storm"].state == "ready"


# --------------------------------------------------------------------------------------------- secrets

SECRET = "SECRET456"


@pytest.mark.slow
async def test_env_token_is_masked_on_screen_in_dialogs_screenshots_and_logs(isolated_home: Path) -> None:
    args = (str(FIXTURES / "raw_server.py"), "--mode", "echo-secrets", "--mode", "templates-error")
    leaky = ServerSpec(
        name="leaky",
        transport="stdio",
        command=sys.executable,
        args=(*args, "--resources", "5"),
        env={"TOKEN": SECRET},
    )
    dead = ServerSpec(
        name="dead",
        transport="stdio",
        command=sys.executable,
        args=(str(FIXTURES / "raw_server.py"), "--mode", "echo-secrets", "--mode", "exit-at-start"),
        env={"TOKEN": SECRET},
    )
    async with settled_app(leaky, dead) as (app, pilot):
        screen = main_screen(app)
        assert "credentials *** rejected" in (screen.catalogue.servers["leaky"].error or "")
        shown = [screen_text(app)]
        for name in ("leaky", "dead"):
            screen.action_show_error(name)
            await pilot.pause()
            assert isinstance(app.screen, ErrorDialog)
            shown.append(app.screen.report)
            shown.append(app.export_screenshot())
            await pilot.press("escape")
        assert "TOKEN=*** (fixture)" in "\n".join(shown)  # the dead server's stderr tail, masked
        screen.read("leaky", "err://-32603")
        await wait_for(pilot, lambda: "-32603" in preview_text(app))
        shown.append(preview_text(app))
    for text in shown:
        assert SECRET not in text
    assert_logs_clean(isolated_home, SECRET)


def assert_logs_clean(home: Path, secret: str) -> None:
    logs = list(home.rglob("*.log"))
    assert logs
    for log in logs:
        assert secret not in log.read_text(errors="replace"), log


async def test_palette_shows_hostile_names_literally() -> None:
    """The command palette parses hit help as markup; server names must reach it escaped."""
    from textual.content import Content

    from explorer.screens.palette import ExplorerCommands, UriJumpCommands
    from tests.app_helpers import main_screen, make_app, raw_spec, wait_settled

    app = make_app(
        raw_spec("evil", "hostile", resources=30), raw_spec("[@click=app.quit]x[/]", "exit-at-start")
    )
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_settled(pilot, app)
        screen = main_screen(app)
        hits = [hit async for hit in UriJumpCommands(screen).search("fixture://hostile")]
        assert hits
        for hit in hits:
            help_text = Content.from_markup(hit.help or "").plain  # as the palette renders it
            assert "[@click=app.quit]x[/]" in help_text or not hit.help
        verbs = [hit async for hit in ExplorerCommands(screen).search("Show error")]
        assert any("[@click=app.quit]x[/]" in str(hit.match_display) for hit in verbs)
        assert app.is_running
