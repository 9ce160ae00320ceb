"""Live servers in the TUI, both eras: the previewed resource follows its changes and leaving it ends the
subscription (checked on the wire), the protocol log shows and exports frames, the server's log entries
reach its screen, and a killed server is shown failed and reconnects without a restart."""

from __future__ import annotations

import json
import os
import signal
from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import Log, TabbedContent

from explorer.screens.protocol_log import ProtocolLogScreen, parse_filter
from explorer.screens.server_overview import ServerOverview
from explorer.widgets.frame_list import FrameList
from explorer.widgets.preview import ContentPreview
from tests.app_helpers import (
    SIZE,
    demo_spec,
    main_screen,
    make_app,
    preview_text,
    settled_app,
    wait_for,
    wait_settled,
)

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

CLOCK = "metrics://live/clock"


def fast_demo() -> object:
    return replace(demo_spec(), env={"EXPLORER_DEMO_TICK_SECONDS": "0.3"})


def sent_uris(app: object, method: str) -> list[str]:
    wire = app.wire  # type: ignore[attr-defined]
    return [f.json()["params"]["uri"] for f in wire.frames if f.direction == "send" and f.method == method]


def listen_sets(app: object) -> list[list[str]]:
    wire = app.wire  # type: ignore[attr-defined]
    frames = [f.json() for f in wire.frames if f.direction == "send" and f.method == "subscriptions/listen"]
    return [f["params"]["notifications"].get("resourceSubscriptions", []) for f in frames]


@pytest.mark.parametrize("protocol", ["legacy", "auto"])
async def test_the_previewed_resource_follows_its_changes_then_stops(protocol: str) -> None:
    app = make_app(fast_demo())  # type: ignore[arg-type]
    app.protocol = "legacy" if protocol == "legacy" else "auto"
    async with app.run_test(size=SIZE) as pilot:
        await wait_settled(pilot, app)
        screen = main_screen(app)
        screen.read("demo", CLOCK)
        preview = screen.query_one(ContentPreview)
        await wait_for(pilot, lambda: preview.update_info is not None and preview.update_info.version >= 3)
        assert "updated" in str(preview.query_one("#preview-title").render())
        assert preview.update_info is not None and "line" in preview.update_info.summary
        if protocol == "legacy":
            assert sent_uris(app, "resources/subscribe") == [CLOCK]
        else:
            assert any(CLOCK in uris for uris in listen_sets(app))
        screen.read("demo", "docs://handbook/welcome")  # leaving the clock ends its subscription
        if protocol == "legacy":
            await wait_for(pilot, lambda: sent_uris(app, "resources/unsubscribe") == [CLOCK])
        else:
            await wait_for(pilot, lambda: CLOCK not in listen_sets(app)[-1])
        await wait_for(pilot, lambda: "Welcome" in preview_text(app))


async def test_the_protocol_log_shows_filters_and_exports_frames(isolated_home: Path) -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        await pilot.press("L")
        await wait_for(pilot, lambda: isinstance(app.screen, ProtocolLogScreen))
        log = app.screen
        assert isinstance(log, ProtocolLogScreen)
        frames = log.query_one(FrameList)
        methods = {f.method for f in frames.frames if f.method}
        assert {"server/discover", "resources/list", "resources/templates/list"} <= methods
        log.query_one("#log-filter").value = "method:templates"  # type: ignore[attr-defined]
        await pilot.pause(0.2)
        assert frames.frames and all(
            f.method == "resources/templates/list" or f.kind == "response" for f in frames.frames
        )
        await pilot.press("e")
        exported = sorted((isolated_home / "logs").glob("protocol-*.jsonl"))
        assert exported
        records = [json.loads(line) for line in exported[-1].read_text().splitlines()]
        assert len(records) == len(frames.frames) and {"t", "server", "dir", "frame"} <= set(records[0])
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ProtocolLogScreen))


def test_filter_words() -> None:
    assert parse_filter("server:demo method:read clock tick") == ("demo", "read", "clock tick")
    assert parse_filter("") == (None, None, None)


async def test_the_servers_log_entries_reach_its_screen() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        screen = main_screen(app)
        screen.read("demo", "docs://no/such/resource")  # the demo logs a warning about it
        await wait_for(
            pilot, lambda: any("demo.resources" in str(n.logger) for n in screen.supervisor.voice("demo"))
        )
        screen.show_overview("demo")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerOverview))
        await wait_for(pilot, lambda: bool(app.screen.query(TabbedContent)))
        app.screen.query_one(TabbedContent).active = "tab-log"

        def logged() -> bool:
            logs = list(app.screen.query("#voice").results(Log))
            lines = logs[0].lines if logs else []
            return any(
                "warning demo.resources" in line and "docs://no/such/resource" in line for line in lines
            )

        await wait_for(pilot, logged)


async def test_a_killed_server_is_failed_with_its_entries_kept_and_reconnects() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        screen = main_screen(app)
        status = screen.catalogue.servers["demo"]
        before = screen.catalogue.tree.root.resource_count
        conn = screen.supervisor.connection("demo")
        assert conn is not None
        from explorer.connection.stdio import live_server_groups

        group = next(pgid for pgid, name in live_server_groups().items() if "demo" in name)
        os.killpg(group, signal.SIGKILL)
        await wait_for(pilot, lambda: status.state == "failed")
        assert "closed the connection" in (status.error or "")
        assert screen.catalogue.tree.root.resource_count == before  # kept, marked by its state
        await pilot.press("R")
        await wait_for(pilot, lambda: status.state == "ready")
        assert screen.catalogue.tree.root.resource_count == before
        assert screen.supervisor.connection("demo") is not conn


async def test_back_forward_and_bookmarks(isolated_home: Path) -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        screen = main_screen(app)
        screen.read("demo", "docs://handbook/welcome")
        await wait_for(pilot, lambda: "Welcome" in preview_text(app))
        screen.jump_to("file:///")
        screen.read("demo", "metrics://live/clock")
        await wait_for(pilot, lambda: "tick" in preview_text(app))
        await pilot.press("left_square_bracket")  # back to file:/// (a place, not a read)
        await pilot.press("left_square_bracket")  # back to the welcome page: read again
        preview = screen.query_one(ContentPreview)
        await wait_for(
            pilot,
            lambda: (
                preview.uri == "docs://handbook/welcome" and preview.state == "contents" and preview.shown
            ),
        )
        assert screen.tree_widget.cursor_node.prefix == "docs://handbook/welcome"  # type: ignore[union-attr]
        await pilot.press("right_square_bracket", "right_square_bracket")
        await wait_for(
            pilot,
            lambda: preview.uri == "metrics://live/clock" and preview.state == "contents" and preview.shown,
        )
        screen.tree_widget.select_prefix("docs://handbook/welcome")
        await pilot.press("b")
        saved = json.loads((isolated_home / "data" / "bookmarks.json").read_text())
        assert saved["servers"] == {"demo": ["docs://handbook/welcome"]}
        assert screen.places.bookmarks.has("demo", "docs://handbook/welcome")


@pytest.mark.interop
async def test_the_reference_servers_updates_reach_the_preview(reference_server: str) -> None:
    from tests.app_helpers import stdio_spec

    async with settled_app(stdio_spec("everything", reference_server)) as (app, pilot):
        screen = main_screen(app)
        uri = "demo://resource/static/document/architecture.md"
        screen.read("everything", uri)
        preview = screen.query_one(ContentPreview)
        await wait_for(pilot, lambda: preview.uri == uri and preview.state == "contents" and preview.shown)
        await wait_for(pilot, lambda: sent_uris(app, "resources/subscribe") == [uri])
        conn = screen.supervisor.connection("everything")
        assert conn is not None
        await conn.request(
            "tools/call", {"name": "toggle-subscriber-updates", "arguments": {}}, action="calling the tool"
        )
        await wait_for(pilot, lambda: preview.update_info is not None, timeout=40)
        assert preview.update_info is not None and preview.update_info.version >= 2


@pytest.mark.parametrize("protocol", ["legacy", "auto"])
async def test_a_changed_prompt_list_refreshes_the_prompts_view(protocol: str) -> None:
    from explorer.screens.prompts import PromptsScreen

    changing = replace(demo_spec(), env={"EXPLORER_DEMO_CHANGE_SECONDS": "2"})
    app = make_app(changing)
    app.protocol = "legacy" if protocol == "legacy" else "auto"
    async with app.run_test(size=SIZE) as pilot:
        await wait_settled(pilot, app)
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptsScreen))
        prompts = app.screen
        assert isinstance(prompts, PromptsScreen)
        # The first inbox note brings the "triage-inbox" prompt; the server announces the change.
        await wait_for(pilot, lambda: "triage-inbox" in [p.name for p in prompts.prompts], timeout=30)
        wire = app.wire
        announced = [f.seq for f in wire.frames if f.method == "notifications/prompts/list_changed"]
        if protocol == "legacy":
            assert announced  # a plain notification in the handshake era
            lists_after = [f for f in wire.frames if f.method == "prompts/list" and f.seq > announced[0]]
            assert lists_after  # listed again because of it
        status = main_screen(app).catalogue.servers["demo"]
        await wait_for(pilot, lambda: status.listing is not None and len(status.listing.prompts) == 5)


async def test_a_followed_resources_update_keeps_the_tab_the_user_is_on() -> None:
    """Every change rebuilt the preview: the Changes tab went back to Now, and the focus and the scroll
    went with it, at every tick."""
    from textual.widgets import TabbedContent

    app = make_app(fast_demo())  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await wait_settled(pilot, app)
        screen = main_screen(app)
        screen.read("demo", CLOCK)
        preview = screen.query_one(ContentPreview)
        await wait_for(pilot, lambda: preview.update_info is not None and preview.update_info.version >= 2)
        await wait_for(pilot, lambda: bool(preview.query(TabbedContent)) and screen.preview_settled)
        # what the user does: on the preview as it is now (not one a re-read is replacing)
        tabs = preview.query(TabbedContent).first()
        changes = [pane.id for pane in tabs.query("TabPane")][-1]
        assert changes is not None
        tabs.active = changes
        version = preview.update_info.version  # type: ignore[union-attr]
        await wait_for(
            pilot, lambda: preview.update_info is not None and preview.update_info.version > version + 1
        )
        await pilot.pause()
        assert preview.query(TabbedContent).first().active == changes


async def test_a_resource_read_but_not_highlighted_can_be_followed_and_unfollowed() -> None:
    """`s` needed a highlighted tree row: a URI read through a template (not listed), or one the server
    dropped from its list while followed, could never be unfollowed."""
    async with settled_app(demo_spec()) as (app, pilot):
        screen = main_screen(app)
        uri = "metrics://eu-west/checkout/latest"  # made by a template, listed nowhere
        screen.read("demo", uri)
        preview = screen.query_one(ContentPreview)
        await wait_for(pilot, lambda: preview.uri == uri and preview.state == "contents" and preview.shown)
        assert screen.highlighted_resource() is None  # the cursor is on the root
        await pilot.press("s")
        await wait_for(pilot, lambda: ("demo", uri) in screen.supervisor.pinned)
        await pilot.press("s")
        await wait_for(pilot, lambda: ("demo", uri) not in screen.supervisor.pinned)
