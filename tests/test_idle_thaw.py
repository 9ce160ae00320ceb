"""Garbage frozen for good (Textual's cycles alive at a freeze, dropped after it) is freed while the user is
away: when the terminal's window loses focus or after long idle, once enough freezes happened and no page
is merging; never while a scan keeps the collector off, never while the user is there."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from explorer.model import heap
from explorer.model.idle_thaw import IdleThaw

pytestmark = pytest.mark.anyio


class Cycle:
    def __init__(self) -> None:
        self.me = self


@pytest.fixture(autouse=True)
def thawed() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()


def frozen_garbage() -> weakref.ref[Cycle]:
    """A reference cycle that is alive when frozen and dropped after: only a thaw can free it."""
    cycle = Cycle()
    ref = weakref.ref(cycle)
    gc.collect()
    gc.freeze()
    del cycle
    gc.collect()
    assert ref() is not None  # frozen: no collection walks it
    return ref


class Fakes:
    def __init__(self) -> None:
        self.now = 1000.0
        self.freezes = IdleThaw.WORTH
        self.frozen_at = 0.0
        self.thawed = 0

    def clock(self) -> float:
        return self.now

    def thaw(self) -> int:
        self.thawed += 1
        self.freezes = 0
        return 7

    def idle_thaw(self) -> IdleThaw:
        return IdleThaw(
            self.clock, freezes=lambda: self.freezes, frozen_at=lambda: self.frozen_at, thaw=self.thaw
        )


def test_due_only_when_away_worth_it_and_no_page_is_merging() -> None:
    fakes = Fakes()
    idle = fakes.idle_thaw()
    assert not idle.due(away=False)  # just started: the user is here
    assert idle.due(away=True)  # the terminal's window lost focus
    fakes.now += IdleThaw.IDLE - 1
    idle.note_activity()
    fakes.now += IdleThaw.IDLE - 1
    assert not idle.due(away=False)  # input a little under IDLE ago
    fakes.now += 1
    assert idle.due(away=False)  # IDLE seconds without input
    fakes.frozen_at = fakes.now - IdleThaw.QUIET + 0.5
    assert not idle.due(away=True)  # pages still merging (a freeze after each)
    fakes.frozen_at = fakes.now - IdleThaw.QUIET
    fakes.freezes = IdleThaw.WORTH - 1
    assert not idle.due(away=True)  # too little frozen since the last thaw to walk the whole heap
    fakes.freezes = IdleThaw.WORTH
    assert idle.run(away=True) == 7 and fakes.thawed == 1
    assert idle.run(away=True) is None and fakes.thawed == 1  # once: nothing frozen since


def test_thaw_frees_frozen_garbage_and_freezes_what_is_alive_again() -> None:
    ref = frozen_garbage()
    kept = [Cycle() for _ in range(10)]
    heap.after_ingest()
    assert heap.freezes_since_thaw() >= 1
    assert heap.thaw() is not None
    assert ref() is None
    assert heap.freezes_since_thaw() == 0
    assert all(not gc.is_finalized(item) for item in kept)
    assert gc.get_freeze_count() >= len(kept)  # alive and frozen again: no later collection walks them


def test_no_thaw_while_a_scan_keeps_the_collector_off() -> None:
    ref = frozen_garbage()
    heap.after_ingest()
    count = heap.freezes_since_thaw()
    with heap.scan_without_collector():
        assert heap.thaw() is None
    assert ref() is not None and heap.freezes_since_thaw() == count
    assert heap.thaw() is not None and ref() is None


async def test_the_app_thaws_when_its_window_loses_focus(monkeypatch: pytest.MonkeyPatch) -> None:
    from textual import events

    from explorer.app import ExplorerApp

    app = ExplorerApp([], remember_theme=False)
    async with app.run_test() as pilot:
        await pilot.pause()
        ref = frozen_garbage()
        monkeypatch.setattr(heap, "_freezes", IdleThaw.WORTH)
        monkeypatch.setattr(heap, "_frozen_at", float("-inf"))
        await pilot.press("down")  # the user is here: nothing happens
        app._thaw_if_away()
        assert ref() is not None
        app.post_message(events.AppBlur())
        for _ in range(3):
            await pilot.pause()
        assert ref() is None
        assert heap.freezes_since_thaw() == 0


async def test_the_app_thaws_after_long_idle_not_before(monkeypatch: pytest.MonkeyPatch) -> None:
    from explorer.app import ExplorerApp

    fakes = Fakes()
    app = ExplorerApp([], remember_theme=False)
    app.idle_thaw = fakes.idle_thaw()
    async with app.run_test() as pilot:
        await pilot.pause()
        fakes.now += IdleThaw.IDLE - 1
        await pilot.press("down")  # the user comes back: idle counts from here
        fakes.now += IdleThaw.IDLE - 1
        app._thaw_if_away()  # what the app's timer calls every `CHECK` seconds
        assert fakes.thawed == 0
        fakes.now += 1
        app._thaw_if_away()
        assert fakes.thawed == 1
