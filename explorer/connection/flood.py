"""Notifications from a server at most `RATE` a second (bursts of `BURST`): past that, dropped.

Why: the SDK validates and dispatches every notification on the connection's loop, about 100 us each (110
us for a log entry, more for one it finds invalid, with a traceback in its log). A server that sent
100,000 log entries before a page took 11 s to get through, and the page's request, answered all along,
was reported as timed out. Lists changing and resources updated are never dropped: they are coalesced
further on (`connection.pacing`), and one of them lost would leave the tree stale. What was dropped is
counted by method in the connection's `ProtocolProblems`, so a fault and the TUI's notice say so.

One `FloodGate` a connection, on every transport: the stdio reader asks it of each message it parsed
(`admits`), before the message is handed on; over HTTP (Streamable HTTP and legacy SSE), where the SDK
reads the event streams itself, it wraps the transport's read stream (`watched`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from explorer.connection.stream_wrappers import ReceiveWrapper

if TYPE_CHECKING:
    from explorer.connection.errors import ProtocolProblems

__all__ = ["BURST", "KEPT", "RATE", "FloodGate", "NotificationBudget", "notification_method"]

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


def notification_method(item: Any) -> str | None:
    """The method of a notification (a `SessionMessage` whose message has a method and no id), else None."""
    inner = getattr(item, "message", None)
    method = getattr(inner, "method", None)
    if isinstance(method, str) and getattr(inner, "id", None) is None:
        return method
    return None


class FloodGate:
    """One connection's notification budget, and where what it drops is counted."""

    def __init__(self, problems: ProtocolProblems, clock: Callable[[], float] = time.monotonic) -> None:
        self._budget = NotificationBudget(clock)
        self._problems = problems

    def admits(self, item: Any) -> bool:
        """Whether `item` goes on: a notification within the rate, or anything else. A notification past
        the rate is counted as dropped."""
        method = notification_method(item)
        if method is None or self._budget.admit(method):
            return True
        self._problems.dropped_notification(method)
        return False

    def watched(self, read: Any) -> Any:
        """A transport's read stream that skips the notifications past the rate."""
        return _GatedReceive(read, self)


class _GatedReceive(ReceiveWrapper):
    """A read stream handing out only what its gate admits."""

    def __init__(self, inner: Any, gate: FloodGate) -> None:
        super().__init__(inner)
        self._gate = gate

    async def receive(self) -> Any:
        while True:
            item = await self._inner.receive()
            if self._gate.admits(item):
                return item
