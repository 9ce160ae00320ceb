"""Hostile live servers: a flood of updates for the previewed resource, an update announced on every
read, and a list that "changes" after every listing. The explorer must stay responsive, read a bounded
number of times, and say when a server keeps changing instead of refreshing forever."""

from __future__ import annotations

import json

import pytest

from explorer.app import ExplorerApp
from explorer.widgets.preview import ContentPreview
from tests.app_helpers import SIZE, main_screen, make_app, raw_spec, settled_app, wait_for, wait_settled

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


async def calls(app: ExplorerApp, server: str) -> dict[str, int]:
    """How many requests of each method the fixture got (it answers stats://calls)."""
    conn = main_screen(app).supervisor.connection(server)
    assert conn is not None
    raw = await conn.read_resource("stats://calls")
    return json.loads(raw["contents"][0]["text"])  # type: ignore[no-any-return]


def received(app: ExplorerApp, method: str) -> int:
    return sum(1 for f in app.wire.frames if f.direction == "recv" and f.method == method)


async def test_a_flood_of_updates_costs_a_few_reads_and_the_ui_stays_responsive() -> None:
    spec = raw_spec("flood", "updated-storm", caps="resources,subscribe", storm=20_000)
    app = make_app(spec)
    app.wire.max_frames = 50_000
    async with app.run_test(size=SIZE) as pilot:
        await wait_settled(pilot, app)
        screen = main_screen(app)
        screen.read("flood", "storm://updates")
        await wait_for(pilot, lambda: received(app, "notifications/resources/updated") >= 20_000, timeout=60)
        await pilot.pause(1.5)  # the coalesced re-reads settle (at most one queued, paced)
        reads = (await calls(app, "flood")).get("resources/read", 0)
        # The first read, then at most a few paced re-reads for 20,000 announcements (each re-read
        # triggers another storm of this fixture: pacing keeps that from becoming a tight loop).
        assert reads <= 8, reads
        preview = screen.query_one(ContentPreview)
        assert preview.uri == "storm://updates"
        await pilot.press("down")  # the UI still takes keys
        assert app.is_running


async def test_a_server_that_always_changes_is_paced_and_the_user_is_told() -> None:
    async with settled_app(raw_spec("restless", "changed-after-list", resources=30)) as (app, pilot):
        screen = main_screen(app)
        told = lambda: any("keeps changing" in n.message for n in app._notifications)  # noqa: E731
        await wait_for(pilot, told, timeout=40)
        assert screen.supervisor.keeps_changing("restless")
        traversals = (await calls(app, "restless")).get("resources/list", 0)
        await pilot.pause(3)  # paced: no new refresh for 30 s
        assert (await calls(app, "restless")).get("resources/list", 0) == traversals
        assert screen.catalogue.servers["restless"].listing is not None


async def test_a_resource_announced_changed_on_every_read_is_read_at_a_bounded_pace() -> None:
    spec = raw_spec("loop", "updated-on-read", caps="resources,subscribe")
    async with settled_app(spec) as (app, pilot):
        screen = main_screen(app)
        screen.read("loop", "storm://updates")
        await pilot.pause(4)
        reads = (await calls(app, "loop")).get("resources/read", 0)
        # Every read announces a change: at most two reads a second (a tight loop would be hundreds).
        assert 2 <= reads <= 12, reads
        await pilot.press("down")
        assert app.is_running
