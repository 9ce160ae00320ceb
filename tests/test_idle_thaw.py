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
def thawed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Nothing frozen before or after; the heap's freeze counts as they were (other tests run in this
    process after)."""
    monkeypatch.setattr(heap, "_freezes", heap._freezes)
    monkeypatch.setattr(heap, "_frozen_at", heap._frozen_at)
    gc.unfreeze()
    yield
    gc.unfreeze()


def is_frozen(item: object) -> bool:
    """`gc.get_objects` lists what the collector may walk, never what is frozen."""
    return not any(found is item for found in gc.get_objects())


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
    assert not idle.due(away=True)  # the window lost focus, but input came a moment ago (the wheel)
    fakes.now += IdleThaw.QUIET
    assert idle.due(away=True)  # the window lost focus and no input came since
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
    assert all(item.me is item for item in kept)  # alive
    assert all(map(is_frozen, kept))  # and frozen again: no later collection walks them


def test_no_thaw_while_a_scan_keeps_the_collector_off() -> None:
    ref = frozen_garbage()
    heap.after_ingest()
    count = heap.freezes_since_thaw()
    with heap.scan_without_collector():
        assert heap.thaw() is None
    assert ref() is not None and heap.freezes_since_thaw() == count
    with heap.scan_without_collector():  # a scan runs though something turned the collector back on
        gc.enable()
        try:
            assert heap.thaw() is None
        finally:
            gc.disable()
    assert ref() is not None
    assert heap.thaw() is not None and ref() is None


async def test_the_app_thaws_when_its_window_loses_focus(monkeypatch: pytest.MonkeyPatch) -> None:
    from textual import events

    from explorer.app import ExplorerApp

    fakes = Fakes()
    app = ExplorerApp([], remember_theme=False)
    app.idle_thaw = IdleThaw(fakes.clock)  # the heap's own counts and thaw, a hand-moved clock
    thawed: list[bool] = []
    app.collector.thawed = lambda: thawed.append(True)  # type: ignore[method-assign]
    async with app.run_test() as pilot:
        await pilot.pause()
        ref = frozen_garbage()
        monkeypatch.setattr(heap, "_freezes", IdleThaw.WORTH)
        monkeypatch.setattr(heap, "_frozen_at", float("-inf"))
        await pilot.press("down")
        app.post_message(events.AppBlur())
        await settle(pilot)
        assert ref() is not None  # input a moment before: the wheel may still be scrolling it
        app.post_message(events.AppFocus())
        await settle(pilot)
        fakes.now += IdleThaw.QUIET
        app.post_message(events.AppBlur())
        for _ in range(500):  # after the blur's frame (a bound on turns of the loop, not on time)
            if ref() is None:
                break
            await pilot.pause()
        assert ref() is None
        assert heap.freezes_since_thaw() == 0 and thawed == [True]


async def settle(pilot: object) -> None:
    for _ in range(3):
        await pilot.pause()  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", ["wheel", "paste", "key"])
async def test_any_input_puts_off_the_idle_thaw(monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    """The app's own timer thaws after `IDLE` seconds without input; a wheel step, a paste or a key
    counts as input (the user is there), and the timer then waits `IDLE` more seconds."""
    from textual import events

    from explorer.app import ExplorerApp

    monkeypatch.setattr(IdleThaw, "CHECK", 0.01)  # the app's timer looks every 10 ms
    fakes = Fakes()
    app = ExplorerApp([], remember_theme=False)
    app.idle_thaw = fakes.idle_thaw()
    async with app.run_test() as pilot:
        await pilot.pause()
        fakes.now += IdleThaw.IDLE - 1
        if kind == "wheel":
            app.post_message(events.MouseScrollDown(None, 3, 4, 0, 0, 0, False, False, False))
        elif kind == "paste":
            app.post_message(events.Paste("x"))
        else:
            await pilot.press("down")
        fakes.now += IdleThaw.IDLE - 1
        await pilot.pause(0.05)
        assert fakes.thawed == 0
        fakes.now += 1
        for _ in range(3000):  # the timer's next look (a generous bound: it only has to come at all)
            if fakes.thawed:
                break
            await pilot.pause(0.01)
        assert fakes.thawed == 1
