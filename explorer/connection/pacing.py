"""Pacing what a server's notifications make the explorer do: coalesced re-reads, paced refreshes.

Why: a server decides how often it notifies, the explorer decides how often it acts. A flood of
`resources/updated` for the previewed resource must cost at most one re-read in flight and one queued (not
one read per notification), and a server that announces a list change after every listing must not make
the explorer refresh forever: after a burst, refreshes slow down and the user is told the server keeps
changing. A storm of announcements that prompts or tools changed costs the same: at most one re-list of
each running and one queued, paced like the resources' refreshes (`PacedRuns`). What is kept per key is
forgotten once it constrains nothing: 20,000 keys seen once leave nothing behind. Plain logic with an
injectable clock, so the tests need no real time.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field

Spawn = Callable[[Callable[[], Awaitable[None]]], None]
_SWEEP_FLOOR = 64


class Coalescer:
    """Per key: at most one job in flight and one queued; triggers while one is queued are absorbed.

    A job starts at least `min_interval` seconds after the previous one for its key started, even when the
    next trigger comes after the previous job ended: a server that announces a change in answer to every
    read makes the explorer read at most twice a second, not in a tight loop, while a resource that really
    changes every few seconds is followed at once.
    """

    def __init__(self, min_interval: float = 0.5, clock: Callable[[], float] = time.monotonic) -> None:
        self.min_interval = min_interval
        self.clock = clock
        self._running: set[Hashable] = set()
        self._queued: set[Hashable] = set()
        self._last_start: dict[Hashable, float] = {}
        self._sweep_at = _SWEEP_FLOOR  # `_last_start` is swept of what constrains nothing at this size
        self.absorbed = 0  # triggers that cost nothing (counted for tests and the protocol log)

    def trigger(self, key: Hashable, job: Callable[[], Awaitable[None]], spawn: Spawn) -> None:
        """Run `job` for `key` now (through `spawn`), or once more after the running one."""
        if key in self._running:
            if key in self._queued:
                self.absorbed += 1
            self._queued.add(key)
            return
        self._running.add(key)
        self._forget_old_starts()
        spawn(lambda: self._run(key, job))

    def _forget_old_starts(self) -> None:
        """Drop start times older than `min_interval` of keys not running: they delay nothing any more.
        Swept when the table has doubled since the last sweep, so a trigger costs O(1) amortized and the
        table holds at most twice what still counts (a key is started at most twice a second)."""
        if len(self._last_start) < self._sweep_at:
            return
        now = self.clock()
        self._last_start = {
            key: at
            for key, at in self._last_start.items()
            if key in self._running or now - at < self.min_interval
        }
        self._sweep_at = max(_SWEEP_FLOOR, 2 * len(self._last_start))

    @property
    def remembered(self) -> int:
        """How many keys' start times are kept (bounded: see `_forget_old_starts`)."""
        return len(self._last_start)

    async def _run(self, key: Hashable, job: Callable[[], Awaitable[None]]) -> None:
        import anyio

        try:
            while True:
                last = self._last_start.get(key)
                if last is not None:
                    await anyio.sleep(max(0.0, self.min_interval - (self.clock() - last)))
                self._queued.discard(key)
                self._last_start[key] = self.clock()
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


class PacedRuns:
    """Per key (a server's list of prompts, of tools): at most one run going and one queued, each after
    the delay its key's `RefreshPacer` asks for; announcements while one is queued are absorbed.

    A run queued while another goes waits for it, then for its own delay, so a server announcing a change
    on every listing is re-listed at most every `slow_interval` once it keeps at it. `on_keeps_changing`
    is told the key once each time its pacer starts pacing.
    """

    def __init__(
        self,
        pacer: Callable[[], RefreshPacer],
        on_keeps_changing: Callable[[Hashable], None] | None = None,
    ) -> None:
        self._make_pacer = pacer
        self._on_keeps_changing = on_keeps_changing
        self._pacers: dict[Hashable, RefreshPacer] = {}
        self._running: set[Hashable] = set()
        self._queued: set[Hashable] = set()
        self.absorbed = 0  # announcements that cost nothing

    def trigger(self, key: Hashable, job: Callable[[], Awaitable[None]], spawn: Spawn) -> None:
        """Run `job` for `key` after its pacer's delay, or once more after the one going."""
        if key in self._queued:
            self.absorbed += 1
            return
        self._queued.add(key)
        if key in self._running:
            return  # the run going takes it when it ends
        self._running.add(key)
        spawn(lambda: self._run(key, job))

    def busy(self, key: Hashable) -> bool:
        return key in self._running

    def keeps_changing(self, key: Hashable) -> bool:
        pacer = self._pacers.get(key)
        return pacer is not None and pacer.keeps_changing

    async def _run(self, key: Hashable, job: Callable[[], Awaitable[None]]) -> None:
        import anyio

        pacer = self._pacers.get(key)
        if pacer is None:
            pacer = self._pacers[key] = self._make_pacer()
        try:
            while key in self._queued:
                was_pacing = pacer.keeps_changing
                delay = pacer.delay()
                if pacer.keeps_changing and not was_pacing and self._on_keeps_changing is not None:
                    self._on_keeps_changing(key)
                await anyio.sleep(delay)
                self._queued.discard(key)  # announcements from now on queue one more run
                pacer.refreshed()
                with contextlib.suppress(Exception):  # one failed re-list must not stop the next
                    await job()
        finally:
            self._running.discard(key)
            self._queued.discard(key)
