"""The tree's redraw after pages waits out the frame owed to a key, but never long.

While a listing streams, the tree is redrawn from the catalogue at most every 50 ms. A redraw falling due
just after a key was pressed used to run first (a flush of about 4 ms at 10^6, then its paint), and the
key's own frame was painted behind it. Now the redraw waits until the key's frame is no longer owed, up
to `TREE_FLUSH_MAX_WAIT` after it fell due, so a key held down slows the tree's updates without stopping
them. A fake screen and a hand-moved clock: no timing in the test. The listener's own `flush_tree` runs
(its bookkeeping is what is tested); the fake screen has no tree, so it stops there, and says so.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

import pytest

import explorer.input_first
import explorer.screens.main_listener
from explorer.input_first import InputFirst
from explorer.screens.main_listener import TREE_FLUSH_MAX_WAIT, TREE_FLUSH_SECONDS, ScreenListener


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


class FakeTimer:
    def __init__(self, delay: float, callback: Callable[[], None]) -> None:
        self.delay = delay
        self.callback = callback
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True


class FakeScreen:
    """What the listener's throttle uses of the screen: timers (recorded, never run), the input gate, and
    the query by which `flush_tree` looks for the tree (each one is a redraw, recorded with the time)."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.timers: list[FakeTimer] = []
        self.supervisor = SimpleNamespace(input_first=InputFirst())
        self.redrawn_at: list[float] = []

    def set_timer(self, delay: float, callback: Callable[[], None]) -> FakeTimer:
        timer = FakeTimer(delay, callback)
        self.timers.append(timer)
        return timer

    def query(self, _widget: object) -> list[object]:
        self.redrawn_at.append(self.clock.now)
        return []  # no tree: `flush_tree` stops after its bookkeeping

    def key(self) -> None:
        self.supervisor.input_first.note_input()


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(explorer.input_first, "time", fake)
    monkeypatch.setattr(explorer.screens.main_listener, "time", fake)
    return fake


def listener_on(screen: FakeScreen) -> ScreenListener:
    listener = ScreenListener(screen)  # type: ignore[arg-type]
    listener.tree_changed()  # the first page shows at once: later ones are throttled
    assert screen.redrawn_at == [screen.clock.now] and screen.timers == []
    screen.redrawn_at.clear()
    return listener


def fire(screen: FakeScreen, clock: Clock, *, set_at: float) -> float:
    """Run the last timer set (at `set_at`) when its delay has passed; returns the delay."""
    timer = screen.timers[-1]
    assert not timer.stopped
    clock.now = set_at + timer.delay
    timer.callback()
    return timer.delay


def test_with_no_key_owed_a_redraw_runs_when_the_throttle_fires(clock: Clock) -> None:
    screen = FakeScreen(clock)
    listener = listener_on(screen)
    listener.tree_changed()
    listener.tree_changed()  # pages in a burst: one timer
    assert [timer.delay for timer in screen.timers] == [TREE_FLUSH_SECONDS]
    fire(screen, clock, set_at=clock.now)
    assert screen.redrawn_at == [clock.now]


def test_a_redraw_due_while_a_keys_frame_is_owed_waits_it_out(clock: Clock) -> None:
    screen = FakeScreen(clock)
    listener = listener_on(screen)
    set_at = clock.now
    listener.tree_changed()
    clock.now = set_at + TREE_FLUSH_SECONDS - 0.005
    screen.key()  # 5 ms before the redraw falls due
    fire(screen, clock, set_at=set_at)
    assert screen.redrawn_at == []  # the key's frame goes first
    waited = fire(screen, clock, set_at=clock.now)
    assert waited == pytest.approx(InputFirst.FRAME - 0.005)
    assert screen.redrawn_at == [pytest.approx(set_at + TREE_FLUSH_SECONDS + waited)]
    # Its bookkeeping reset: a second later, the next redraw waits for a key again, from when it falls due.
    clock.now += 1.0
    set_at = clock.now
    listener.tree_changed()
    clock.now = set_at + TREE_FLUSH_SECONDS - 0.001
    screen.key()
    fire(screen, clock, set_at=set_at)
    assert len(screen.redrawn_at) == 1


def test_keys_held_down_delay_a_redraw_at_most_the_max_wait(clock: Clock) -> None:
    screen = FakeScreen(clock)
    listener = listener_on(screen)
    listener.tree_changed()
    due = clock.now + TREE_FLUSH_SECONDS
    while not screen.redrawn_at:
        timer = screen.timers[-1]
        clock.now += timer.delay - 0.001
        screen.key()  # a key just before each time the timer fires
        clock.now += 0.001
        timer.callback()
        assert clock.now - due <= TREE_FLUSH_MAX_WAIT + 1e-9
    assert len(screen.timers) > 2  # it did wait for keys
    assert screen.redrawn_at[0] - due == pytest.approx(TREE_FLUSH_MAX_WAIT)
    listener.tree_changed()  # the next redraw is throttled afresh
    assert screen.timers[-1].delay == TREE_FLUSH_SECONDS


def test_a_redraw_done_at_once_cancels_the_one_still_waiting(clock: Clock) -> None:
    """A server failing redraws at once; the throttled redraw waiting for a key then has nothing left to
    do, and must not run later (nor leave its timer to clear the next one's)."""
    screen = FakeScreen(clock)
    listener = listener_on(screen)
    listener.tree_changed()
    screen.key()
    fire(screen, clock, set_at=clock.now - TREE_FLUSH_SECONDS + 0.001)
    waiting = screen.timers[-1]
    listener.flush_tree()
    assert waiting.stopped and len(screen.redrawn_at) == 1
    listener.tree_changed()
    assert screen.timers[-1] is not waiting and screen.timers[-1].delay == TREE_FLUSH_SECONDS
