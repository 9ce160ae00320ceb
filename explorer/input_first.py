"""Input first: a page of a running listing waits one frame when the user pressed a key since the last page.

Why: a page of 1,000 resources costs the UI thread about 8 ms to parse and merge (it runs on the event
loop, where the tree lives). A keypress needs several turns of that loop before its frame is painted (the
driver's event, the binding, the action, the repaint), and at full speed a page takes every other turn:
the key waited for several pages (43 ms at the median, 130 ms at p99 measured at 10^6). With this gate,
the first page merged after a key gives the loop `FRAME` seconds with nothing else to do, so the key's
frame is painted before the next page starts; between keys pages flow at full speed. A user holding an
arrow key (30 keys a second) slows the listing by about half while the key is held, never stops it. A big
page is merged in slices, and the gate is asked between them too (`Supervisor._merge_in_slices`).

The gate is asked between slices of a page's parse too (`discovery.Pace`), and the app notes input when
the event is posted to it, before it gets to handle it: a listing then stops at its next slice, not after
the several turns of the loop the event takes to reach the tree. The tree's redraw after pages waits out
the frame owed to a key (`owed`, `screens/main_listener.py`).

Core-free (no Textual): the app notes input (`note_input`), the supervisor awaits `gate()` after each page.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable

__all__ = ["InputFirst"]


class InputFirst:
    """Tells a listing loop to pause for one frame after the user's input."""

    FRAME = 0.02
    """Seconds a page waits after a key: a 60 Hz frame, with room for the key's own work."""

    def __init__(self) -> None:
        self._input_at = 0.0
        self._served = 0.0

    def note_input(self) -> None:
        """The user pressed a key (or clicked) now."""
        self._input_at = time.monotonic()

    def owed(self) -> float:
        """Seconds left of the frame owed to the last input, 0.0 when none is owed: a redraw nobody asked
        for (the tree after a page) waits that long, so the key's frame is not painted behind it."""
        left = self._input_at + self.FRAME - time.monotonic()
        return left if left > 0.0 else 0.0

    def gate(self) -> Awaitable[None] | None:
        """After a page: a pause to await when input came in since the last pause, else None."""
        if self._input_at > self._served:
            import anyio  # imported by then (a listing runs); not on the way to the first frame

            self._served = self._input_at
            return anyio.sleep(self.FRAME)
        return None
