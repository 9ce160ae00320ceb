"""The terminal UI paints up to 240 frames a second (Textual's default is 60), unless `TEXTUAL_FPS` is set.

Why: Textual paints from a timer that ticks at most `TEXTUAL_FPS` times a second. A frame asked for
within one tick of the last waits for the next tick; one asked for after a quiet spell is painted at
once, but the timer then skips to the tick after next, so the frame after it (a key's, or the details'
that follow the cursor) waits up to two ticks. At 60 that was up to 33 ms between a key's action and its
frame (measured: one frame in eight waited over 17 ms, at most 33-45 ms); at 120 one in ten still
waited 15 ms, at most 17-19; at 240 at most 8.6-13 ms (keys p99 32-34 -> 26-29 ms at 10^5, the listing
of 10^6 as fast). It paints no more often for that: the tree's redraws are throttled while a listing
streams (`screens/main_listener.py`), and keys come at most about 30 a second.

Textual reads the variable once, when it is imported: `cap_frame_rate` must run before that.
"""

from __future__ import annotations

import os
import sys

FPS = 240


def cap_frame_rate() -> bool:
    """Set `TEXTUAL_FPS` to `FPS` unless the user chose one; False if Textual was imported already (then
    nothing changes: it would not read the variable again)."""
    if "textual.constants" in sys.modules:
        return False
    os.environ.setdefault("TEXTUAL_FPS", str(FPS))
    return True
