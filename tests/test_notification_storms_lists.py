"""A storm of `prompts/list_changed` and `tools/list_changed` after the first listing costs a few re-lists.

Before, every announcement started a re-list of its own: 500 of each made 501 `prompts/list` and 501
`tools/list` requests, and 20,000 took the explorer from 87 to 628 MB with the pipes blocked. Now each list
is re-listed as resources are: at most one running and one queued per kind and server, paced by a
`RefreshPacer`.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest

from explorer.app import ExplorerApp
from explorer.connection.pacing import PacedRuns, RefreshPacer
from tests.app_helpers import main_screen, settled_app, stdio_spec, wait_for
from tests.helpers.tiny_server import tiny_server

pytestmark = pytest.mark.anyio

# Counts every request; reading burst://now announces both lists changed 500 times before answering.
SERVER = """
CAPABILITIES = {"resources": {}, "prompts": {"listChanged": True}, "tools": {"listChanged": True}}
NAME = "storm"
CALLS = {}
STORM = 500
def answer(method, params):
    CALLS[method] = CALLS.get(method, 0) + 1
    if method == "resources/read" and params.get("uri") == "count://calls":
        return {"contents": [{"uri": "count://calls", "text": json.dumps(CALLS)}]}
    if method == "resources/read":
        for _ in range(STORM):
            send({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"})
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        return {"contents": [{"uri": params.get("uri"), "text": "announced"}]}
    if method == "resources/list":
        return {"resources": [{"uri": "burst://now", "name": "now"}]}
    if method == "prompts/list":
        return {"prompts": [{"name": "p1", "arguments": []}]}
    if method == "tools/list":
        return {"tools": [{"name": "t1", "inputSchema": {"type": "object"}}]}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    return None
"""


async def calls(app: ExplorerApp) -> dict[str, int]:
    conn = main_screen(app).supervisor.connection("storm")
    assert conn is not None
    raw = await conn.read_resource("count://calls")
    return json.loads(raw["contents"][0]["text"])  # type: ignore[no-any-return]


@pytest.mark.slow
async def test_a_storm_of_list_changes_after_the_first_listing_costs_a_few_relists(tmp_path: Path) -> None:
    async with settled_app(stdio_spec("storm", tiny_server(tmp_path, SERVER))) as (app, pilot):
        screen = main_screen(app)
        conn = screen.supervisor.connection("storm")
        assert conn is not None
        await conn.read_resource("burst://now")  # the server announces both lists changed 500 times
        counted: dict[str, int] = {}

        async def relisted() -> bool:
            counted.update(await calls(app))
            return counted.get("prompts/list", 0) >= 2 and counted.get("tools/list", 0) >= 2

        with anyio.fail_after(60):  # a hang guard, not a speed claim
            while not await relisted():
                await pilot.pause(0.1)
        await pilot.pause(3)  # a queued re-list, paced, has had its time
        counted = await calls(app)
        assert counted["prompts/list"] <= 5, counted
        assert counted["tools/list"] <= 5, counted
        status = screen.catalogue.servers["storm"]
        await wait_for(pilot, lambda: status.listing is not None and not status.busy)
        assert status.listing is not None
        assert [p.name for p in status.listing.prompts] == ["p1"]
        assert [t.name for t in status.listing.tools] == ["t1"]
        assert "1 prompt" in status.progress_text() and "1 tool" in status.progress_text()


async def test_paced_runs_keep_one_running_and_one_queued_per_key() -> None:
    runs = PacedRuns(lambda: RefreshPacer(debounce=0.0))
    release = anyio.Event()
    ran: list[str] = []

    async def job(kind: str) -> None:
        ran.append(kind)
        await release.wait()

    async with anyio.create_task_group() as group:

        def spawn(work: Callable[[], Awaitable[None]]) -> None:
            async def go() -> None:
                await work()

            group.start_soon(go)

        for kind in ("prompts", "tools"):
            runs.trigger(kind, partial(job, kind), spawn)
        while len(ran) < 2:
            await anyio.lowlevel.checkpoint()
        for _ in range(20_000):  # a storm while both re-lists are running
            for kind in ("prompts", "tools"):
                runs.trigger(kind, partial(job, kind), spawn)
        release.set()
    assert sorted(ran) == ["prompts", "prompts", "tools", "tools"]  # the running one, then one queued
    assert not runs.busy("prompts") and not runs.busy("tools")


async def test_a_key_that_keeps_changing_is_said_once() -> None:
    told: list[str] = []
    runs = PacedRuns(lambda: RefreshPacer(debounce=0.0, burst=2, slow_interval=0.0), told.append)

    async def job() -> None:
        await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as group:

        def spawn(work: Callable[[], Awaitable[None]]) -> None:
            async def go() -> None:
                await work()

            group.start_soon(go)

        for _ in range(6):
            runs.trigger("prompts", job, spawn)
            while runs.busy("prompts"):
                await anyio.lowlevel.checkpoint()
    assert told == ["prompts"]
