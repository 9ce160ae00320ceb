"""Input first: listing work waits while a frame is owed to the user's last key (or click).

Why: a page of 1,000 resources costs the UI thread about 8 ms to parse and merge (it runs on the event
loop, where the tree lives). A keypress needs several turns of that loop before its frame is painted (the
driver's event, the binding, the action, the repaint), and at full speed a page takes every other turn:
the key waited for several pages (43 ms at the median, 130 ms at p99 measured at 10^6). With this gate, a
listing asks between pages and between the slices of a page's parse and merge, and pauses until `FRAME`
seconds after the input, so the key's frame is painted before more listing work runs; between keys pages
flow at full speed. A user holding an arrow key (30 keys a second) slows the listing while the key is
held (to about 60% of its speed, in a simulation of the listing loop alone), never stops it.

The app notes input when the event is posted to it, before it gets to handle it: a listing then stops at
its next slice, not after the several turns of the loop the event takes to reach the tree. The tree's
redraw after pages waits out the same frame (`owed`, `screens/main_listener.py`).

The frame is owed until the screen shows the input's answer (`answered`: the main screen says so once the
frame that moved the tree's cursor is painted), or `FRAME` seconds at most (an input nobody answers with a
frame). Why not always `FRAME`: work that waited then ran at a fixed 20 ms after the key, which is when the
next key of a held arrow (25 to 35 ms apart) comes, and that key waited for it (the tree's redraw after
pages and its frame, about 10 ms): released as soon as the answer is on screen, the work runs in the gap
between the two keys instead.

Core-free (no Textual): the app notes input (`note_input`), the supervisor's listings await `gate()`
between pages and slices (`Supervisor._on_page`, `discovery.Pace`).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import anyio

__all__ = ["InputFirst"]


class InputFirst:
    """Tells listing loops to pause while a frame is owed to the user's input."""

    FRAME = 0.02
    """Seconds after an input during which listing work and unasked redraws wait: a 60 Hz frame, with
    room for the key's own work."""

    def __init__(self) -> None:
        self._input_at = float("-inf")
        self.inputs = 0  # inputs noted so far: an answer says up to which one it answers
        self._answered = 0
        self._answer: anyio.Event | None = None  # set by `answered`: wakes the listings that wait
        self._on_answer: list[Callable[[], None]] = []

    def note_input(self) -> None:
        """The user pressed a key (or clicked) now."""
        self._input_at = time.monotonic()
        self.inputs += 1

    def answered(self, upto: int) -> None:
        """The frame that answers the inputs up to number `upto` (`inputs` when the answer began) is on
        screen: if no input came since, what waits for it may run now."""
        self._answered = max(self._answered, upto)
        if self._answered < self.inputs:
            return  # a newer key is still owed its frame
        answer, self._answer = self._answer, None
        if answer is not None:
            answer.set()
        callbacks, self._on_answer = self._on_answer, []
        for callback in callbacks:
            callback()

    def when_answered(self, callback: Callable[[], None]) -> None:
        """Call `callback` once, at the next `answered` (a redraw waiting for the frame; it keeps its own
        timer for `owed`, the longest it waits)."""
        if callback not in self._on_answer:
            self._on_answer.append(callback)

    def owed(self) -> float:
        """Seconds left of the frame owed to the last input, 0.0 when none is owed (or it was answered): a
        redraw nobody asked for (the tree after a page) waits that long, so the key's frame is not painted
        behind it."""
        if self._answered >= self.inputs:
            return 0.0
        left = self._input_at + self.FRAME - time.monotonic()
        return left if left > 0.0 else 0.0

    def gate(self) -> Awaitable[None] | None:
        """Between pages or slices: a pause to await until the frame owed to the last input is over, else
        None. Every caller gets one while it is owed (several listings: all of them wait). Callers ask
        after a slice of work, so one slice runs between two pauses: input at any rate slows a listing,
        never stops it (though input every frame leaves it a few % of its speed: why the app does not
        count the wheel)."""
        left = self.owed()
        if left > 0.0:
            return self._wait(left)
        return None

    async def _wait(self, left: float) -> None:
        """Until the input is answered, `left` seconds at most."""
        import anyio  # imported by then (a listing runs); not on the way to the first frame

        answer = self._answer
        if answer is None:
            answer = self._answer = anyio.Event()
        with anyio.move_on_after(left):
            await answer.wait()
