"""Pacing what a server's notifications make the explorer do: coalesced re-reads, paced refreshes.

Why: a server decides how often it notifies, the explorer decides how often it acts. A flood of
`resources/updated` for the previewed resource must cost at most one re-read in flight and one queued (not
one read per notification), and a server that announces a list change after every listing must not make
the explorer refresh forever: after a burst, refreshes slow down and the user is told the server keeps
changing. Both are plain logic with an injectable clock, so the tests need no real time.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field

Spawn = Callable[[Callable[[], Awaitable[None]]], None]


class Coalescer:
    """Per key: at most one job in flight and one queued; triggers while one is queued are absorbed.

    A job starts at least `min_interval` seconds after the previous one for its key started, even when the
    next trigger comes after the previous job ended: a server that announces a change in answer to every
    read makes the explorer read at most twice a second, not in a tight loop, while a resource that really
    changes every few seconds is followed at once.
    """

    def __init__(self, min_interval: float = 0.5) -> None:
        self.min_interval = min_interval
        self._running: set[Hashable] = set()
        self._queued: set[Hashable] = set()
        self._last_start: dict[Hashable, float] = {}
        self.absorbed = 0  # triggers that cost nothing (counted for tests and the protocol log)

    def trigger(self, key: Hashable, job: Callable[[], Awaitable[None]], spawn: Spawn) -> None:
        """Run `job` for `key` now (through `spawn`), or once more after the running one."""
        if key in self._running:
            if key in self._queued:
                self.absorbed += 1
            self._queued.add(key)
            return
        self._running.add(key)
        spawn(lambda: self._run(key, job))

    async def _run(self, key: Hashable, job: Callable[[], Awaitable[None]]) -> None:
        import anyio

        try:
            while True:
                last = self._last_start.get(key)
                if last is not None:
                    await anyio.sleep(max(0.0, self.min_interval - (time.monotonic() - last)))
                self._queued.discard(key)
                self._last_start[key] = time.monotonic()
                with contextlib.suppress(Exception):  # one failed re-read must not stop the next
                    await job()
                if key not in self._queued:
                    break
        finally:
            self._running.discard(key)
            self._queued.discard(key)

    def busy(self, key: Hashable) -> bool:
        return key in self._running


@dataclass
class RefreshPacer:
    """When a list change may refresh a server's listing again.

    A change waits `debounce` seconds (several announcements become one refresh). More than `burst`
    refreshes caused by announcements within `window` seconds means the server keeps changing: from then
    on at most one refresh every `slow_interval` seconds, until a quiet `window` passes.
    """

    debounce: float = 0.5
    burst: int = 5
    window: float = 60.0
    slow_interval: float = 30.0
    clock: Callable[[], float] = time.monotonic
    _recent: list[float] = field(default_factory=list)
    _last: float | None = None
    keeps_changing: bool = False

    def delay(self) -> float:
        """Seconds to wait before the refresh this announcement asks for."""
        now = self.clock()
        self._recent = [t for t in self._recent if now - t < self.window]
        if self.keeps_changing and not self._recent:
            self.keeps_changing = False  # a quiet window: back to normal
        if len(self._recent) >= self.burst:
            self.keeps_changing = True
        if self.keeps_changing and self._last is not None:
            return max(self.debounce, self.slow_interval - (now - self._last))
        return self.debounce

    def refreshed(self) -> None:
        """A refresh caused by an announcement has started."""
        now = self.clock()
        self._recent.append(now)
        self._last = now
