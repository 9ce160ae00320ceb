"""While the app runs, a thread that waits for the interpreter lock asks for it after 1 ms, not 5.

Why: a filter's substring scan runs in a thread of its own, and the interpreter lets the thread that holds
its lock run on for its switch interval (5 ms by default) before a waiting thread may ask for it. Each hop
of a key's way to the screen (driver, app, widget, handler, paint) that found the scan holding the lock
waited up to that long: traced at 10^5, 5 ms at each of three hops of a typed character. The interval is
a request, not a bound: a long C-level call still holds the lock until it returns.

Process-wide state, so counted: set when the first app mounts, put back when the last one unmounts (a
test process runs many apps, one after another or at once), unless something else changed it meanwhile.
"""

from __future__ import annotations

import math
import sys

__all__ = ["SWITCH_INTERVAL", "restore", "shorten"]

SWITCH_INTERVAL = 0.001  # seconds

_holders = 0
_saved: float | None = None


def shorten() -> None:
    """An app starts: the short interval while it (or any other) runs."""
    global _holders, _saved
    if _holders == 0:
        _saved = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_INTERVAL)
    _holders += 1


def restore() -> None:
    """An app that called `shorten` ends: the interval as it was, once the last one ended."""
    global _holders, _saved
    if _holders == 0:
        return
    _holders -= 1
    if _holders == 0:
        if _saved is not None and math.isclose(sys.getswitchinterval(), SWITCH_INTERVAL):
            sys.setswitchinterval(_saved)
        _saved = None
