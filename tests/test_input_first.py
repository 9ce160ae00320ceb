"""Listings pause while a frame is owed to the user's last input (and only then), noted once, as soon as
the input reaches the app; a filter scan keeps the cyclic collector off while it runs, and the collector
comes back when the last scan ends; while an app runs, a thread that waits for the interpreter lock
asks for it after 1 ms (the interpreter's default: 5 ms)."""

from __future__ import annotations

import gc
from collections.abc import Coroutine

import pytest

import explorer.input_first
from explorer.input_first import InputFirst
from explorer.model.heap import scan_without_collector

pytestmark = pytest.mark.anyio


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """A hand-moved clock for `InputFirst`: no test here depends on how fast the machine is."""
    fake = Clock()
    monkeypatch.setattr(explorer.input_first, "time", fake)
    return fake


async def test_while_a_frame_is_owed_every_listing_pauses_until_it_ends(clock: Clock) -> None:
    gate = InputFirst()
    assert gate.gate() is None and gate.owed() == 0.0  # nothing pressed: pages flow
    gate.note_input()
    first, second = gate.gate(), gate.gate()  # two listings (or two slices of one page) ask
    assert first is not None and second is not None  # both wait: a key pauses every listing
    await first
    if isinstance(second, Coroutine):
        second.close()
    clock.now += InputFirst.FRAME * 0.75
    assert gate.owed() == pytest.approx(InputFirst.FRAME * 0.25)
    late = gate.gate()
    assert late is not None
    if isinstance(late, Coroutine):
        late.close()
    clock.now += InputFirst.FRAME * 0.25
    assert gate.gate() is None and gate.owed() == 0.0  # the frame is over: pages flow again
    gate.note_input()
    clock.now += InputFirst.FRAME / 2
    gate.note_input()  # a second key: the frame is owed from the last one
    clock.now += InputFirst.FRAME * 0.75
    assert gate.owed() == pytest.approx(InputFirst.FRAME * 0.25)


async def test_an_answered_input_owes_nothing_and_wakes_the_listings_that_wait(
    clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the key's frame is on screen the listings go on at once, not `FRAME` after the key (when the
    next key of a held arrow comes); a redraw waiting for the frame is called once."""
    import anyio
    import anyio.lowlevel

    monkeypatch.setattr(InputFirst, "FRAME", 3600.0)  # the wait's own cap (real time) never ends it here
    gate = InputFirst()
    redraws: list[str] = []
    gate.note_input()
    gate.when_answered(lambda: redraws.append("tree"))
    waiting = gate.gate()
    assert waiting is not None and gate.owed() == pytest.approx(InputFirst.FRAME)
    woke: list[bool] = []

    async def listing() -> None:
        assert waiting is not None
        await waiting
        woke.append(True)

    with anyio.fail_after(30):  # only `answered` can end the wait
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(listing)
            await anyio.lowlevel.checkpoint()
            assert not woke
            answer_of_first = gate.inputs
            gate.note_input()  # a second key before the first one's answer: still owed
            gate.answered(answer_of_first)
            await anyio.lowlevel.checkpoint()
            assert not woke and gate.owed() > 0.0 and not redraws
            gate.answered(gate.inputs)
    assert woke == [True] and redraws == ["tree"]
    assert gate.owed() == 0.0 and gate.gate() is None
    gate.answered(gate.inputs)  # a second answer calls nothing again
    assert redraws == ["tree"]
    clock.now += 0.001
    gate.note_input()  # the next key owes its own frame
    assert gate.owed() == pytest.approx(InputFirst.FRAME)


async def test_a_cursor_key_is_answered_once_its_frame_is_painted(clock: Clock) -> None:
    """The main screen says a key that moved the tree's cursor is answered after the frame that shows it,
    though `FRAME` has not run out (the clock here never moves): the redraw and listings that waited go on."""
    from tests.app_helpers import demo_spec, main_screen, settled_app, wait_for

    async with settled_app(demo_spec()) as (app, pilot):
        tree = main_screen(app).tree_widget
        tree.focus()
        await pilot.pause()
        before = tree.cursor
        answers: list[int] = []
        answered = app.input_first.answered

        def noted(upto: int) -> None:
            answers.append(tree.cursor)
            answered(upto)

        app.input_first.answered = noted  # type: ignore[method-assign]
        await pilot.press("down")
        await wait_for(pilot, lambda: bool(answers))
        assert answers == [before + 1] and app.input_first.owed() == 0.0


def test_a_key_posted_to_the_app_is_noted_before_the_app_handles_it(clock: Clock) -> None:
    """The listing's gate must see a key from the moment it reaches the app's queue: a page's parse and
    merge then stop at their next slice instead of running while the key waits its turns of the loop."""
    from textual import events

    from explorer.app import ExplorerApp

    app = ExplorerApp([], remember_theme=False)
    assert app.input_first.owed() == 0.0
    app.post_message(events.Key("down", None))  # queued, not handled: the app is not even running
    assert app.input_first.owed() == pytest.approx(InputFirst.FRAME)
    clock.now += InputFirst.FRAME
    assert app.input_first.owed() == 0.0
    app.post_message(events.Paste("bench://"))  # a paste asks for a frame too
    assert app.input_first.owed() == pytest.approx(InputFirst.FRAME)
    clock.now += InputFirst.FRAME
    # Not the wheel (a trackpad's 60-120 steps a second would all but stop a listing), nor the app's own.
    app.post_message(events.MouseScrollDown(None, 3, 4, 0, 0, 0, False, False, False))
    app.post_message(events.Resize.from_dimensions((80, 24), None))
    assert app.input_first.owed() == 0.0


async def test_a_key_is_noted_once_though_it_comes_back_to_the_app() -> None:
    """A key the focused widget handles without stopping it bubbles back up to the app (marked forwarded):
    noting it again would owe a second frame, and pause the listings twice per key."""
    from explorer.app import ExplorerApp

    app = ExplorerApp([], remember_theme=False)
    notes: list[str] = []
    note = app.input_first.note_input

    def counted() -> None:
        notes.append("key")
        note()

    app.input_first.note_input = counted  # type: ignore[method-assign]
    async with app.run_test() as pilot:
        await pilot.pause()
        notes.clear()
        for key in ("down", "x", "up"):
            await pilot.press(key)
            await pilot.pause()
    assert notes == ["key", "key", "key"]


def test_nested_scans_keep_the_collector_off_until_the_last_ends() -> None:
    assert gc.isenabled()
    with scan_without_collector():
        assert not gc.isenabled()
        with scan_without_collector():  # another scan (another thread, in the app)
            assert not gc.isenabled()
        assert not gc.isenabled()  # the first one still runs
    assert gc.isenabled()


def test_a_scan_leaves_a_disabled_collector_disabled() -> None:
    gc.disable()
    try:
        with scan_without_collector():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


async def test_the_app_shortens_the_interpreter_switch_interval_while_it_runs() -> None:
    """A filter's scan runs in a thread: a key's hops to the screen must not each wait the interpreter's
    default 5 ms for the lock. The interpreter's own interval comes back when the app ends."""
    import sys

    from explorer.app import ExplorerApp
    from explorer.lock_handoff import SWITCH_INTERVAL

    before = sys.getswitchinterval()
    assert before > SWITCH_INTERVAL, "an earlier test left the short interval behind"
    app = ExplorerApp([], remember_theme=False)
    async with app.run_test() as pilot:
        await pilot.pause()
        assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL)
    assert sys.getswitchinterval() == pytest.approx(before)


def test_the_interval_comes_back_when_the_last_app_ends_unless_changed_meanwhile() -> None:
    """Apps in one process (tests) may overlap: the first to end must not end the short interval of the
    others, nor may an app that ends put back an interval older than what someone set meanwhile."""
    import sys

    from explorer import lock_handoff

    before = sys.getswitchinterval()
    try:
        lock_handoff.shorten()
        lock_handoff.shorten()  # a second app, while the first runs
        lock_handoff.restore()  # the first ends
        assert sys.getswitchinterval() == pytest.approx(lock_handoff.SWITCH_INTERVAL)
        lock_handoff.restore()
        assert sys.getswitchinterval() == pytest.approx(before)
        lock_handoff.restore()  # one too many (an app that never mounted): nothing
        assert sys.getswitchinterval() == pytest.approx(before)
        lock_handoff.shorten()
        sys.setswitchinterval(0.002)  # someone else's choice, meanwhile
        lock_handoff.restore()
        assert sys.getswitchinterval() == pytest.approx(0.002)
    finally:
        sys.setswitchinterval(before)
