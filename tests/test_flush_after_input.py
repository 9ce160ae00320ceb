"""The tree's redraw after pages waits out the frame owed to a key, but never long.

While a listing streams, the tree is redrawn from the catalogue at most every 50 ms. A redraw falling due
just after a key was pressed used to run first (a flush of about 4 ms at 10^6, then its paint), and the
key's own frame was painted behind it. Now the redraw waits until the key's frame is no longer owed, up
to `TREE_FLUSH_MAX_WAIT` after it fell due, so a key held down slows the tree's updates without stopping
them. A fake screen and a hand-moved clock: no timing in the test.
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


class FakeScreen:
    """What the listener's throttle uses of the screen: timers (recorded, never run) and the input gate."""

    def __init__(self) -> None:
        self.timers: list[tuple[float, Callable[[], None]]] = []
        self.supervisor = SimpleNamespace(input_first=InputFirst())

    def set_timer(self, delay: float, callback: Callable[[], None]) -> object:
        self.timers.append((delay, callback))
        return object()


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(explorer.input_first, "time", fake)
    monkeypatch.setattr(explorer.screens.main_listener, "time", fake)
    return fake


def listener_on(screen: FakeScreen) -> tuple[ScreenListener, list[float]]:
    listener = ScreenListener(screen)  # type: ignore[arg-type]
    flushed: list[float] = []

    def flush_tree() -> None:  # the redraw itself, recorded; the throttle's bookkeeping as the real one
        listener._flush_timer = None
        listener._flush_due_at = None
        listener._flushed_once = True
        flushed.append(explorer.screens.main_listener.time.monotonic())

    listener.flush_tree = flush_tree  # type: ignore[method-assign]
    listener.flush_tree()  # the first page shows at once: later ones are throttled
    flushed.clear()
    return listener, flushed


def fire(screen: FakeScreen, clock: Clock, *, set_at: float) -> float:
    """Run the last timer set (at `set_at`) when its delay has passed; returns the delay."""
    delay, callback = screen.timers[-1]
    clock.now = set_at + delay
    callback()
    return delay


def test_with_no_key_owed_a_redraw_runs_when_the_throttle_fires(clock: Clock) -> None:
    screen = FakeScreen()
    listener, flushed = listener_on(screen)
    listener.tree_changed()
    listener.tree_changed()  # pages in a burst: one timer
    assert [delay for delay, _ in screen.timers] == [TREE_FLUSH_SECONDS]
    fire(screen, clock, set_at=clock.now)
    assert flushed == [clock.now]


def test_a_redraw_due_while_a_keys_frame_is_owed_waits_it_out(clock: Clock) -> None:
    screen = FakeScreen()
    listener, flushed = listener_on(screen)
    set_at = clock.now
    listener.tree_changed()
    clock.now = set_at + TREE_FLUSH_SECONDS - 0.005
    screen.supervisor.input_first.note_input()  # a key 5 ms before the redraw falls due
    fire(screen, clock, set_at=set_at)
    assert flushed == []  # the key's frame goes first
    waited = fire(screen, clock, set_at=clock.now)
    assert waited == pytest.approx(InputFirst.FRAME - 0.005)
    assert flushed == [pytest.approx(set_at + TREE_FLUSH_SECONDS + waited)]


def test_keys_held_down_delay_a_redraw_at_most_the_max_wait(clock: Clock) -> None:
    screen = FakeScreen()
    listener, flushed = listener_on(screen)
    listener.tree_changed()
    due = clock.now + TREE_FLUSH_SECONDS
    while not flushed:
        delay, callback = screen.timers[-1]
        clock.now += delay - 0.001
        screen.supervisor.input_first.note_input()  # a key just before each time the timer fires
        clock.now += 0.001
        callback()
        assert clock.now - due < TREE_FLUSH_MAX_WAIT + InputFirst.FRAME
    assert len(screen.timers) > 2  # it did wait for keys
    assert flushed[0] - due >= TREE_FLUSH_MAX_WAIT
    listener.tree_changed()  # the next redraw is throttled afresh
    assert screen.timers[-1][0] == TREE_FLUSH_SECONDS
