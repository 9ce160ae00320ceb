"""A big page is merged into the tree a slice at a time, the event loop free in between, and always whole.

A page of 1,000 children of one node took 4 ms at the median and 14 ms at worst to merge at 10^5, on the
event loop: a key pressed meanwhile waited for all of it. The supervisor merges `PAGE_SLICE` resources at
a time (`Catalogue.add_page_in_slices`), lets other tasks run between slices (a frame's pause when a key
came), and finishes the page even when the listing is stopped halfway, since the listing counts it.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Awaitable
from typing import Any

import anyio
import pytest

from explorer.config import ListingBounds, ServerSpec
from explorer.connection import discovery
from explorer.connection.discovery import PARSE_SLICE
from explorer.connection.supervisor import PAGE_SLICE, Settings, Supervisor
from explorer.input_first import InputFirst
from explorer.model.catalogue import Catalogue
from explorer.model.listing import Listing, Page
from tests.factories import res
from tests.helpers.paths import ROOT

pytestmark = pytest.mark.anyio

FIXTURE = ROOT / "benchmarks" / "fixture_server.py"
PAGE = 1000  # a page of the fixture server: four slices to parse
SPEC = ServerSpec(name="s", transport="stdio", command=sys.executable, args=("-c", "pass"))


class Listener:
    def __init__(self) -> None:
        self.tree_changes = 0

    def tree_changed(self) -> None:
        self.tree_changes += 1

    def __getattr__(self, name: str) -> Any:
        return lambda *args: None


def page(count: int, start: int = 0, number: int = 1) -> Page:
    resources = tuple(res("s", f"wide://node/item-{index}") for index in range(start, start + count))
    return Page(server="s", kind="resources", number=number, resources=resources)


def test_slices_leave_the_tree_whole_between_them_and_count_the_page_once() -> None:
    catalogue = Catalogue()
    catalogue.add_server(SPEC)
    catalogue.begin_listing("s")
    seen = [catalogue.tree.root.resource_count for _ in catalogue.add_page_in_slices(page(1000), 300)]
    assert seen == [300, 600, 900]  # a yield after each slice but the last
    assert catalogue.tree.root.resource_count == 1000
    status = catalogue.servers["s"]
    assert status.pages_seen == 1 and status.items_seen == 1000
    node = catalogue.tree.node_for("wide://node")
    assert node is not None and [kid.segment for kid in catalogue.tree.children(node)][:3] == [
        "item-0",
        "item-1",
        "item-2",
    ]


def supervisor_with(input_first: InputFirst) -> tuple[Supervisor, Listener]:
    listener = Listener()
    settings = Settings(bounds=ListingBounds(), log_level=None)
    supervisor = Supervisor([SPEC], settings, listener, input_first=input_first)  # type: ignore[arg-type]
    supervisor.catalogue.begin_listing("s")
    return supervisor, listener


async def test_other_tasks_run_between_slices_and_the_page_ends_whole() -> None:
    supervisor, listener = supervisor_with(InputFirst())
    tree = supervisor.catalogue.tree
    observed: list[int] = []
    merging = supervisor._on_page(page(4 * PAGE_SLICE))
    assert merging is not None

    async def watch() -> None:
        while tree.root.resource_count < 4 * PAGE_SLICE:
            observed.append(tree.root.resource_count)
            await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as group:
        group.start_soon(watch)
        await merging
    assert {PAGE_SLICE, 2 * PAGE_SLICE, 3 * PAGE_SLICE} <= set(observed)
    assert tree.root.resource_count == 4 * PAGE_SLICE and listener.tree_changes == 1


class HeldFrame(InputFirst):
    """`InputFirst` whose frame, once input is noted, lasts until the test says so (no clock involved)."""

    def __init__(self) -> None:
        super().__init__()
        self.painted = anyio.Event()
        self.noted = False

    def note_input(self) -> None:
        super().note_input()
        self.noted = True

    def gate(self) -> Awaitable[None] | None:
        return self.painted.wait() if self.noted and not self.painted.is_set() else None


async def test_a_key_during_a_big_page_gets_its_frame_before_the_next_slice() -> None:
    first = HeldFrame()
    supervisor, _ = supervisor_with(first)
    tree = supervisor.catalogue.tree
    first.note_input()  # a key came while the page merges
    merging = supervisor._on_page(page(2 * PAGE_SLICE))
    assert merging is not None
    async with anyio.create_task_group() as group:
        group.start_soon(lambda: merging)
        for _ in range(20):
            await anyio.lowlevel.checkpoint()
        assert tree.root.resource_count == PAGE_SLICE  # the merge waits for the key's frame
        first.painted.set()
    assert tree.root.resource_count == 2 * PAGE_SLICE


class AlwaysOwed(InputFirst):
    """Input at any rate (a key repeating faster than a frame): every turn of the gate owes a frame. The
    pause is a bare checkpoint here (no clock); what counts is that work runs between two pauses."""

    def __init__(self, tree: Any) -> None:
        super().__init__()
        self.tree = tree
        self.counts: list[int] = []

    def gate(self) -> Awaitable[None] | None:
        count = self.tree.root.resource_count if self.tree is not None else 0
        assert not self.counts or count > self.counts[-1], "two pauses with no merging between them"
        self.counts.append(count)
        return anyio.lowlevel.checkpoint()


async def test_constant_input_slows_a_merge_but_never_stops_it() -> None:
    owed = AlwaysOwed(None)
    supervisor, listener = supervisor_with(owed)
    owed.tree = supervisor.catalogue.tree
    merging = supervisor._on_page(page(4 * PAGE_SLICE))
    assert merging is not None
    await merging
    assert owed.counts == [PAGE_SLICE, 2 * PAGE_SLICE, 3 * PAGE_SLICE, 4 * PAGE_SLICE]  # the last: next page
    assert supervisor.catalogue.tree.root.resource_count == 4 * PAGE_SLICE and listener.tree_changes == 1


async def test_a_listing_stopped_halfway_through_a_page_still_merges_all_of_it() -> None:
    supervisor, _ = supervisor_with(InputFirst())
    tree = supervisor.catalogue.tree
    merging = supervisor._on_page(page(4 * PAGE_SLICE))
    assert merging is not None
    with anyio.CancelScope() as scope:

        async def stop_soon() -> None:
            await anyio.lowlevel.checkpoint()
            scope.cancel()

        async with anyio.create_task_group() as group:
            group.start_soon(stop_soon)
            await merging
    assert tree.root.resource_count == 4 * PAGE_SLICE


async def test_a_key_pressed_while_a_page_is_parsed_holds_the_parse_at_the_next_slice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Against a real server: a key pressed while the first page of resources is parsed holds that parse
    after its slice (the gate is the listing's `pace`), before anything is merged; released, the listing
    runs to its end."""
    parsed = [0]
    original = discovery.plain_entry
    held = HeldFrame()

    def counting(*args: Any) -> Any:
        parsed[0] += 1
        if parsed[0] == 1:
            held.note_input()  # the key comes while the page is parsed
        return original(*args)

    monkeypatch.setattr(discovery, "plain_entry", counting)
    settings = Settings(bounds=ListingBounds(), log_level=None)
    fixture = ServerSpec(
        name="s",
        transport="stdio",
        command=sys.executable,
        args=(str(FIXTURE), "--count", str(2 * PAGE), "--page", str(PAGE)),
    )
    supervisor = Supervisor([fixture], settings, Listener(), input_first=held)  # type: ignore[arg-type]
    try:
        with anyio.fail_after(30):
            async with anyio.create_task_group() as group:
                group.start_soon(supervisor.run, "s")
                try:
                    while parsed[0] == 0:  # noqa: ASYNC110  # the parse began: no event to await
                        await anyio.sleep(0.01)
                    for _ in range(50):
                        await anyio.lowlevel.checkpoint()
                    held_at = parsed[0]
                    for _ in range(50):
                        await anyio.lowlevel.checkpoint()
                    # held after its first slice (the fixture's plain resources in it) while the frame is owed
                    assert 0 < held_at == parsed[0] <= PARSE_SLICE
                    assert supervisor.catalogue.tree.root.resource_count == 0
                finally:
                    held.painted.set()  # the parse is shielded: a failed check must not leave it held
                while supervisor.catalogue.servers["s"].state == "listing":  # noqa: ASYNC110
                    await anyio.sleep(0.01)
                assert supervisor.catalogue.tree.root.resource_count == 2 * PAGE
                group.cancel_scope.cancel()
    finally:
        gc.unfreeze()  # the supervisor froze each merged page out of the collector


async def test_every_listing_the_supervisor_runs_is_paced_by_its_gate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A listing by prefix (SEP-1269, on demand) and the re-listing of prompts or tools after a change run
    beside the user too: their parses pause for a key's frame like the main listing's."""
    paces: list[object] = []

    async def recording(*args: Any, **kwargs: Any) -> Listing:
        paces.append(kwargs.get("pace"))
        return Listing(server="s")

    monkeypatch.setattr(discovery, "list_server", recording)
    gate = InputFirst()
    supervisor, _ = supervisor_with(gate)
    supervisor._lives["s"].conn = object()  # type: ignore[assignment]  # never asked: listing is recorded
    supervisor.catalogue.finish_listing("s", Listing(server="s"))
    await supervisor._prefix_listing("s", "wide://node/")
    await supervisor._refresh_kind("s", "prompts")
    await supervisor._refresh_kind("s", "tools")
    assert paces == [gate.gate, gate.gate, gate.gate]
