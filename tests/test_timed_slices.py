"""Slices sized by time: a loop that gives the event loop back between slices keeps each slice near its
budget whatever an item costs, so a key waits about the same on a slow machine and in a wide node.

The clocks here are scripted (each slice "takes" what the test says): no test reads real time."""

from __future__ import annotations

import time
from itertools import pairwise

import anyio
import pytest

from explorer.config import ListingBounds
from explorer.connection import discovery, supervisor
from explorer.connection.discovery import PARSE_SLICE, list_server
from explorer.model.catalogue import Catalogue
from explorer.model.timed_slices import SLICE_BUDGET, TimedSlices, work_clock
from tests.test_discovery import FakeConn, chain, count_calls
from tests.test_discovery import res as raw_res
from tests.test_page_slices import SPEC, page


class ScriptedClock:
    """A clock the slices read: `start` reads it, then `done` reads it `per_item * items` later."""

    def __init__(self) -> None:
        self.now = 0.0
        self.per_item = 0.0
        self.items = 0

    def __call__(self) -> float:
        return self.now

    def run(self, slices: TimedSlices, items: int | None = None) -> int:
        """One slice of `slices.size` items (or `items`) costing `per_item` each; returns its size."""
        size = slices.size if items is None else items
        slices.start()
        self.now += self.per_item * size
        slices.done(size)
        return size


def test_the_first_slice_is_the_given_size_and_the_next_fits_the_budget() -> None:
    clock = ScriptedClock()
    slices = TimedSlices(125, budget=0.001, clock=clock)
    assert slices.size == 125
    clock.per_item = 4e-6  # 250 items fit in a millisecond
    clock.run(slices)
    assert slices.size == 250
    for _ in range(5):
        clock.run(slices)
    assert slices.size == 250


def test_items_that_grow_dear_shrink_the_slices_within_two_slices() -> None:
    """A node that grows wide mid-listing: each item costs four times as much from now on."""
    clock = ScriptedClock()
    slices = TimedSlices(125, budget=0.001, clock=clock)
    clock.per_item = 4e-6
    for _ in range(4):
        clock.run(slices)
    clock.per_item = 16e-6
    clock.run(slices)
    clock.run(slices)
    assert slices.size <= 1.25 * (0.001 / 16e-6)  # near 62, the budget's worth at the new cost
    for _ in range(6):
        clock.run(slices)
    assert slices.size in range(60, 64)


def test_a_short_last_slice_barely_moves_the_size() -> None:
    """The tail of a page (a few items, one slow by chance) must not undo what full slices measured."""
    clock = ScriptedClock()
    slices = TimedSlices(125, budget=0.001, clock=clock)
    clock.per_item = 4e-6
    for _ in range(4):
        clock.run(slices)
    clock.per_item = 100e-6
    clock.run(slices, items=3)
    assert slices.size > 125  # more than half of 250 (taken at its word, that slice would make it 10)


def test_the_size_stays_within_its_bounds() -> None:
    clock = ScriptedClock()
    slices = TimedSlices(125, budget=0.001, least=16, most=2048, clock=clock)
    clock.per_item = 1e-3  # a millisecond an item: one would fill the budget
    for _ in range(4):
        clock.run(slices)
    assert slices.size == 16
    clock.per_item = 1e-9
    for _ in range(12):
        clock.run(slices)
    assert slices.size == 2048
    clock.per_item = 0.0  # a clock too coarse to see the slice: as big as allowed
    clock.run(slices)
    assert slices.size == 2048


def test_fixed_slices_never_change_and_read_no_clock() -> None:
    def no_clock() -> float:
        raise AssertionError("a fixed slice reads no clock")

    slices = TimedSlices(300, budget=None, clock=no_clock)
    for _ in range(3):
        slices.start()
        slices.done(300)
    assert slices.size == 300 == TimedSlices.fixed(300).size


def test_a_slice_of_nothing_changes_nothing() -> None:
    clock = ScriptedClock()
    slices = TimedSlices(125, clock=clock)
    slices.start()
    clock.now += 1.0
    slices.done(0)
    assert slices.size == 125


def test_the_work_clock_resolves_microseconds() -> None:
    """The thread's CPU clock where it is fine enough, else the wall clock: never a 15 ms tick."""
    clock = work_clock()
    name = {time.thread_time: "thread_time", time.perf_counter: "perf_counter"}[clock]
    assert time.get_clock_info(name).resolution <= 1e-6


# ------------------------------------------------------------------- the loops follow the sizes


class HalvingClock:
    """Every slice "takes" twice the budget, whatever its size: the next one is half as big."""

    def __init__(self) -> None:
        self.now = 0.0
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        if self.reads % 2 == 0:  # `done` reads it after `start`
            self.now += 2 * SLICE_BUDGET
        return self.now


def gaps(counts: list[int], total: int) -> list[int]:
    """The slice sizes a watcher saw: the differences between the counts it noted (0 and `total` last)."""
    ends = [*sorted({count for count in counts if 0 < count < total}), total]
    return [b - a for a, b in pairwise([0, *ends])]


def halving(sizes: list[int]) -> bool:
    """Each size half the one before it, give or take the rounding."""
    return all(abs(after - before / 2) <= 1 for before, after in pairwise(sizes))


@pytest.mark.anyio
async def test_the_parse_of_a_page_takes_smaller_slices_when_they_run_long(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Slices that take twice the budget: the next slice of the same page is half as big, so a key
    waits for about the budget, not for twice it."""
    monkeypatch.setattr(discovery, "RESOURCE_SLICES", TimedSlices(PARSE_SLICE, clock=HalvingClock()))
    parsed = count_calls(monkeypatch, "plain_entry")
    conn = FakeConn(chain("resources", [[raw_res(i) for i in range(1000)]]))
    seen: list[int] = []
    done = anyio.Event()

    async def watch() -> None:
        while not done.is_set():
            seen.append(parsed[0])
            await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as group:
        group.start_soon(watch)
        listing = await list_server(conn, ListingBounds(), lambda page: None)
        done.set()
    assert len(listing.resources) == 1000 and listing.complete  # every item, whatever the slices
    sizes = gaps(seen, 1000)
    assert sizes[0] == PARSE_SLICE and halving(sizes[:4]) and sizes[3] == 16
    assert set(sizes[4:-1]) == {16}  # the least a slice takes


def test_a_merge_takes_smaller_slices_when_they_run_long() -> None:
    catalogue = Catalogue()
    catalogue.add_server(SPEC)
    catalogue.begin_listing("s")
    slices = TimedSlices(supervisor.PAGE_SLICE, clock=HalvingClock())
    seen = [catalogue.tree.root.resource_count for _ in catalogue.add_page_in_slices(page(400), slices)]
    sizes = gaps(seen, 400)
    assert sizes[0] == supervisor.PAGE_SLICE and halving(sizes[:3])
    assert catalogue.tree.root.resource_count == 400  # the page whole


def test_the_sizes_a_listing_learns_stay_between_pages() -> None:
    """One `TimedSlices` per loop for the whole process: the next page starts at the size the last one
    ended with, not at the first size again. The clock here is the work done: 2 us an item merged."""
    catalogue = Catalogue()
    catalogue.add_server(SPEC)
    catalogue.begin_listing("s")
    slices = TimedSlices(125, budget=0.001, clock=lambda: catalogue.tree.root.resource_count * 2e-6)
    first = [catalogue.tree.root.resource_count for _ in catalogue.add_page_in_slices(page(1000), slices)]
    assert gaps(first, 1000)[:2] == [125, 500]
    second = [
        catalogue.tree.root.resource_count
        for _ in catalogue.add_page_in_slices(page(1000, start=1000, number=2), slices)
    ]
    assert gaps([count - 1000 for count in second], 1000) == [500, 500]
