"""Coalesced re-reads and paced refreshes, as plain logic (no server, no real time)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio
import anyio.lowlevel
import pytest

from explorer.connection.pacing import Coalescer, RefreshPacer

pytestmark = pytest.mark.anyio


async def test_a_flood_costs_one_job_in_flight_and_one_queued() -> None:
    coalescer = Coalescer()
    release = anyio.Event()
    runs: list[int] = []

    async def job() -> None:
        runs.append(len(runs))
        await release.wait()

    async with anyio.create_task_group() as group:

        def spawn(work: Callable[[], Awaitable[None]]) -> None:
            async def go() -> None:
                await work()

            group.start_soon(go)

        coalescer.trigger("clock", job, spawn)
        while not runs:
            await anyio.lowlevel.checkpoint()
        for _ in range(20_000):  # a flood while the first re-read is in flight
            coalescer.trigger("clock", job, spawn)
        assert coalescer.busy("clock")
        release.set()
    assert len(runs) == 2  # the one in flight, then one for everything that arrived meanwhile
    assert coalescer.absorbed == 20_000 - 1
    assert not coalescer.busy("clock")


async def test_triggers_before_the_job_starts_are_covered_by_it() -> None:
    coalescer = Coalescer()
    runs: list[int] = []

    async def job() -> None:
        runs.append(1)

    async with anyio.create_task_group() as group:

        def spawn(work: Callable[[], Awaitable[None]]) -> None:
            async def go() -> None:
                await work()

            group.start_soon(go)

        for _ in range(1000):
            coalescer.trigger("clock", job, spawn)
    assert runs == [1]  # the read had not started: it sees every change


async def test_keys_are_independent_and_a_failing_job_does_not_stick() -> None:
    coalescer = Coalescer()
    ran: list[str] = []

    async def boom() -> None:
        ran.append("a")
        raise RuntimeError("read failed")

    async def fine() -> None:
        ran.append("b")

    async with anyio.create_task_group() as group:

        def spawn(work: Callable[[], Awaitable[None]]) -> None:
            async def go() -> None:
                await work()

            group.start_soon(go)

        coalescer.trigger("a", boom, spawn)
        coalescer.trigger("b", fine, spawn)
    assert sorted(ran) == ["a", "b"] and not coalescer.busy("a")


def test_a_server_that_keeps_announcing_is_paced_then_forgiven() -> None:
    now = [0.0]
    pacer = RefreshPacer(debounce=0.5, burst=3, window=60.0, slow_interval=30.0, clock=lambda: now[0])
    delays = []
    for _ in range(3):
        delays.append(pacer.delay())
        pacer.refreshed()
        now[0] += 1.0
    assert delays == [0.5, 0.5, 0.5] and not pacer.keeps_changing
    assert pacer.delay() == pytest.approx(29.0)  # 30 s after the last refresh, which was 1 s ago
    assert pacer.keeps_changing
    now[0] += 120.0  # a quiet window
    assert pacer.delay() == 0.5 and not pacer.keeps_changing
