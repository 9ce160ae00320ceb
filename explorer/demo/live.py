"""The parts of the demo that change while it runs: a ticking clock and an inbox that grows.

Both are pure functions of the time elapsed since the server was built, so several connections to the
same server see the same state, and nothing has to be mutated from a background task.
"""

from __future__ import annotations

import logging
import os
import time
from datetime import UTC, datetime, timedelta

from explorer.demo import handbook
from explorer.demo.catalogue import CLOCK_URI, INBOX_PREFIX, Entry, constant

logger = logging.getLogger(__name__)

CHANGE_ENV = "EXPLORER_DEMO_CHANGE_SECONDS"
TICK_ENV = "EXPLORER_DEMO_TICK_SECONDS"
DEFAULT_CHANGE_SECONDS = 30.0
DEFAULT_TICK_SECONDS = 2.0
INBOX_CAP = 500


def seconds_from_env(name: str, default: float) -> float:
    """A non-negative number of seconds from the environment; the default when unset or invalid."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        logger.warning("ignoring %s=%r: not a number", name, raw)
        return default
    if value < 0 or value != value:  # negative or NaN
        logger.warning("ignoring %s=%r: must be >= 0", name, raw)
        return default
    return value


class Live:
    """Time-driven state: the clock's tick and the inbox's notes."""

    def __init__(self, *, tick_seconds: float, change_seconds: float) -> None:
        self.tick_seconds = tick_seconds if tick_seconds > 0 else DEFAULT_TICK_SECONDS
        self.change_seconds = change_seconds
        self._started = time.monotonic()
        self._started_wall = datetime.now(UTC).replace(microsecond=0)
        self._inbox: list[Entry] = []

    def elapsed(self) -> float:
        return time.monotonic() - self._started

    # The clock -----------------------------------------------------------------------------------------

    def tick(self) -> int:
        return int(self.elapsed() / self.tick_seconds)

    def seconds_to_next_tick(self) -> float:
        return max(0.0, (self.tick() + 1) * self.tick_seconds - self.elapsed()) + 0.001

    def clock_text(self) -> str:
        now = datetime.now(UTC)
        tick = self.tick()
        return (
            f"{CLOCK_URI}\n"
            f"utc      {now.isoformat(timespec='seconds').replace('+00:00', 'Z')}\n"
            f"tick     {tick} (one every {self.tick_seconds:g} s)\n"
            f"uptime   {timedelta(seconds=int(self.elapsed()))}\n"
            f"inbox    {self.inbox_count()} notes\n"
        )

    # The inbox -----------------------------------------------------------------------------------------

    def inbox_count(self) -> int:
        if self.change_seconds <= 0:
            return 0
        return min(INBOX_CAP, int(self.elapsed() / self.change_seconds))

    def seconds_to_next_note(self) -> float | None:
        """How long until the next note arrives; None when the inbox never grows any more."""
        if self.change_seconds <= 0 or self.inbox_count() >= INBOX_CAP:
            return None
        return max(0.0, (self.inbox_count() + 1) * self.change_seconds - self.elapsed()) + 0.001

    def inbox_entries(self) -> list[Entry]:
        count = self.inbox_count()
        while len(self._inbox) < count:
            index = len(self._inbox) + 1
            arrived = self._started_wall + timedelta(seconds=index * self.change_seconds)
            stamp = arrived.isoformat().replace("+00:00", "Z")
            name, title, body = handbook.inbox_note(index, stamp)
            self._inbox.append(
                Entry(
                    f"{INBOX_PREFIX}{name}",
                    name,
                    "text/markdown",
                    constant(body),
                    title=title,
                    description=f"Inbox note {index}, added while the server was running.",
                    size=len(body.encode()),
                    audience=("user",),
                    priority=0.5,
                    last_modified=stamp,
                )
            )
        return self._inbox[:count]

    def inbox_entry(self, uri: str) -> Entry | None:
        if not uri.startswith(INBOX_PREFIX):
            return None
        return next((e for e in self.inbox_entries() if e.uri == uri), None)
