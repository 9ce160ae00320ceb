"""Notifications from a stdio server at most `RATE` a second (bursts of `BURST`): past that, dropped.

Why: the SDK validates and dispatches every notification on the connection's loop, about 100 us each (110
us for a log entry, more for one it finds invalid, with a traceback in its log). A server that sent
100,000 log entries before a page took 11 s to get through, and the page's request, answered all along,
was reported as timed out. Lists changing and resources updated are never dropped: they are coalesced
further on (`connection.pacing`), and one of them lost would leave the tree stale. What was dropped is
counted by method in the connection's `ProtocolProblems`, so a fault and the TUI's notice say so.
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["BURST", "KEPT", "RATE", "NotificationBudget"]

RATE = 2_000.0  # notifications a second, sustained: 20% of a core in the SDK, no listing waits on it
BURST = 10_000  # at once: a server that logs a burst at start-up loses none of it
KEPT = frozenset(
    {
        "notifications/resources/list_changed",
        "notifications/resources/updated",
        "notifications/prompts/list_changed",
        "notifications/tools/list_changed",
        "notifications/cancelled",
    }
)


class NotificationBudget:
    """A token bucket for one connection's notifications."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._tokens = float(BURST)
        self._at = clock()

    def admit(self, method: str) -> bool:
        """Whether a notification of `method` goes on to the SDK now (else it is dropped)."""
        if method in KEPT:
            return True
        now = self._clock()
        self._tokens = min(float(BURST), self._tokens + (now - self._at) * RATE)
        self._at = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False
