"""Keep the cyclic garbage collector away from what a big listing leaves alive.

Why: a listing of a million resources leaves a few million tracked objects (entries, tree nodes) that live
until the end. Every full collection walks all of them (0.8 to 2.3 s measured, several times during one
listing), and the interpreter starts one whenever enough objects survived since the last, so the pauses
come back as long as anything allocates. After each page is merged, `after_ingest` runs a collection and
then freezes everything alive (`gc.freeze`): frozen objects are never walked again, so that collection
(and every later one) costs what was allocated since the last page, not the size of the catalogue, and
nothing that was garbage gets frozen (it was just collected). Frozen objects are still freed by reference
counting as usual, and the model holds no cycles that outlive a removal (a pruned tree node is detached
from its parent), so a refresh frees the entries it replaces.
The CLI's `tree`, whose process ends with its listing, freezes each page without that collection
(`after_ingest_briefly`): the few cycles a page leaves wait for exit.

Writing a big result makes caches that live on (each node's sorted children) and temporaries that are
freed by reference counting, never cycles: `collector_paused` keeps the collector out of that phase
altogether (it was 20 to 30 ms a pass, walking the fresh caches). Importing the MCP SDK builds some fifty
thousand objects that live as long as the process (pydantic models): the same, or a full collection in
the middle of the import takes 20 to 70 ms. The CLI imports the terminal UI (Textual and the app, some
forty thousand objects) the same way, so the collections before the first page do not walk them.

While the terminal UI runs, the interpreter makes only young collections itself (`BetweenFrames`): the older
ones walk what browsing keeps alive (painted rows and their caches, 2 to 15 ms a pass measured), and came
in the middle of a key's frame, on one key in ten or so. They run right after a frame is painted instead,
in the time before the next key.

A filter's substring scan of a big tree runs in a worker thread for up to a second and holds containers of
up to 100,000 entries while it runs (match records, counts): every young collection in that second walked
them (16-60 ms each, in whichever thread allocated, so the UI thread too). `scan_without_collector` keeps
the collector off for the scan; at its end `keep_big_result` freezes what the scan and everything else
made meanwhile, after a collection only when that is little (see there).

A freeze keeps whatever is not collected yet, garbage included, for good: `big_change` collects first,
and what the view drops must not be a reference cycle (`tree_view.rows.release`, `widgets/line_cache.py`).
What neither can help is what is alive when it is frozen and dropped later in a cycle: Textual's own
(the style nodes it makes anew at each restyle, strips that cache themselves), about 2,000 objects a
filter text at 200,000 items, so the frozen garbage grew with use, never freed. `thaw` frees it with one
full collection of the whole heap (511 ms at 10^6): the app runs it only while the user is away
(`idle_thaw.IdleThaw`).
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

_freezes = 0  # freezes since the last thaw (or start)
_frozen_at = float("-inf")  # when the last one was (`time.monotonic`)


def _freeze() -> None:
    """`gc.freeze`, counted: each one may keep garbage for good that only `thaw` frees."""
    global _freezes, _frozen_at
    gc.freeze()
    _freezes += 1
    _frozen_at = time.monotonic()


def freezes_since_thaw() -> int:
    return _freezes


def last_freeze_at() -> float:
    """When the last freeze was (`time.monotonic`): pages still merging freeze after each one."""
    return _frozen_at


def thaw() -> int | None:
    """Free the garbage frozen for good so far: thaw everything, collect it all, freeze what is alive.

    One full collection of the whole heap (511 ms at 10^6, about 0.2 us an object): only for a moment no
    one waits on. Returns how many objects were freed, or None when the collector is off or a scan runs
    (nothing is done then). Scans cannot start meanwhile: their threads wait for the lock.
    """
    global _freezes
    with _scans:
        if _scan_count or not gc.isenabled():
            return None
        gc.unfreeze()
        freed = gc.collect()
        gc.freeze()
        _freezes = 0
    return freed


def after_ingest() -> None:
    """After a page of a listing is merged: collect what is not frozen yet, then freeze what is alive."""
    if not gc.isenabled():
        return
    gc.collect()
    _freeze()


def after_ingest_briefly() -> None:
    """`after_ingest` for a run that ends with its listing (the CLI's `tree`): freeze what is alive without
    a collection first. The few reference cycles among a page's garbage (the event loop's, not the
    entries') are kept until exit, where a process that runs for hours must not keep them (the TUI):
    the peak RSS of a listing of 10^6 is the same either way, and the listing 0.2 s shorter (a collection
    of what a page left, a thousand times)."""
    if gc.isenabled():
        _freeze()


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic collection inside the block (for work that makes no reference cycles, or imports).

    What the block left alive is frozen at its end: else the first young collection after it would walk
    all of it at once (37 ms measured after writing a million rows).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            _freeze()
            gc.enable()


_scans = threading.Lock()
_scan_count = 0
_scan_reenable = False


@contextmanager
def scan_without_collector() -> Iterator[None]:
    """No cyclic collection while the block runs (in any thread); nested and concurrent blocks count, the
    collector comes back when the last one ends (if it was on when the first began). Nothing is frozen."""
    global _scan_count, _scan_reenable
    with _scans:
        if _scan_count == 0:
            _scan_reenable = gc.isenabled()
            gc.disable()
        _scan_count += 1
    try:
        yield
    finally:
        with _scans:
            _scan_count -= 1
            if _scan_count == 0 and _scan_reenable:
                gc.enable()


BIG_TREE = 100_000  # items in a tree above which a change to its rows may leave big young containers


@contextmanager
def big_change(items: int) -> Iterator[None]:
    """A change to the rows of a tree of `items` entries: above `BIG_TREE`, what the change leaves alive
    (a wide node's sorted children, a filter's sets, a row layout of a million lines) is frozen at its end.

    Else the next young collection walks those containers, then the next older one again, and the
    oldest a third time (180, 206 and 276 ms measured at 10^6, each a frame the user waits for). The
    collector stays off during the change, which makes no reference cycles (rows that leave the lines are
    released: `tree_view.rows.release`).

    A collection runs first, because a freeze keeps whatever is not collected yet, garbage included, for
    good: the reference cycles the frames and widgets left since the last freeze (each filter keystroke
    at 200,000 items froze some 400 objects that way, memory that never came back). It walks only what
    is not frozen yet, and everything is frozen at the end of each change and after each page: 0.04 ms
    at the median and 2.8 ms at most, measured at 10^6 while typing filters and while pages streamed.
    """
    if items <= BIG_TREE or not gc.isenabled():
        yield
        return
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        _freeze()
        gc.enable()


COLLECT_BEFORE_FREEZE = 20_000  # objects made since the last collection, up to which `keep_big_result`
# collects first. A proxy for the collection's cost: it also walks the older generations not frozen yet
# (small: every change and page freezes them) and each element of a big container.


def keep_big_result(items: int, *, used: bool = True) -> None:
    """After a substring scan of a tree of `items` entries (up to 100,000 match records, and sets of the
    nodes to show): above `BIG_TREE`, freeze what is alive, for the reasons `big_change` gives (74 ms
    measured for a young collection that walked a scan's result at 10^6). Call it whether or not the
    result is `used`: the collector was off while the scan ran, and what was made meanwhile (pages merged
    while they stream) would else be walked at once by the next young collection.

    When little was made while the scan ran (`COLLECT_BEFORE_FREEZE`), a used result is collected first,
    so the garbage among it is not frozen for good (see `big_change`), and a dropped one (a newer
    keystroke made it stale: one of many while the user types) is left to the collector as usual, its
    big containers freed by reference counting. When much was made, it is frozen as it is: a collection
    of the 243,713 objects a scan of 10^6 left while pages streamed took 63.7 ms, in the scan's thread,
    holding the interpreter lock that the UI thread waited for; the garbage frozen then is what the UI
    dropped in cycles while the scan ran.
    """
    if items <= BIG_TREE:
        return
    little = gc.get_count()[0] <= COLLECT_BEFORE_FREEZE
    if not used:
        if not little:
            _freeze()
        return
    if little:
        gc.collect()
    _freeze()


NEVER = 2**30  # a collection threshold the interpreter never reaches
_thresholds: tuple[int, int, int] | None = None  # the interpreter's own, while a `BetweenFrames` is installed
_installed = 0  # how many are


class BetweenFrames:
    """The collector's older generations run when the app says a frame was painted, not in the middle of one.

    While installed, the interpreter's own collections are young ones only (its other thresholds are out of
    reach). When one of them finds an older collection due by the interpreter's own counts, `ask` is called
    (from that collection's callback, in whichever thread allocated: it must only schedule, thread-safely),
    and the app calls `run_due` once the next frame is painted; `run_due` decides as CPython 3.11 does,
    including its rule that a full collection waits until a quarter more objects than the last one left
    have reached the oldest generation. Nothing runs while the collector is off (a scan or a big change):
    the next young collection after it asks again. Several may be installed at once (apps in one process):
    the thresholds come back when the last one goes.

    From Python 3.14 the collector is incremental (a young and an old generation, the old one collected a
    slice at a time): its pauses are short already and its counts mean other things, so this does nothing.
    """

    SUPPORTED = sys.version_info < (3, 14)

    def __init__(self, ask: Callable[[], None]) -> None:
        self._ask = ask
        self._asked = False
        self._installed = False
        self._long_lived = 0  # objects in the oldest generation after the last full collection

    @property
    def installed(self) -> bool:
        return self._installed

    def install(self) -> None:
        global _thresholds, _installed
        if self._installed or not self.SUPPORTED:
            return
        if _installed == 0:
            _thresholds = gc.get_threshold()
            gc.set_threshold(_thresholds[0], NEVER, NEVER)
        _installed += 1
        self._installed = True
        self._long_lived = len(gc.get_objects(2))
        gc.callbacks.append(self._on_collection)

    def uninstall(self) -> None:
        """The interpreter's thresholds as they were, when this was the last one (and a collection that
        was due, now)."""
        global _thresholds, _installed
        if not self._installed:
            return
        gc.callbacks.remove(self._on_collection)
        self.run_due()
        self._installed = False
        _installed -= 1
        if _installed == 0 and _thresholds is not None:
            gc.set_threshold(*_thresholds)
            _thresholds = None

    def thawed(self) -> None:
        """After `thaw`: its full collection counts as the last one (`_full_is_due`)."""
        self._long_lived = len(gc.get_objects(2))

    def _on_collection(self, phase: str, info: dict[str, Any]) -> None:
        if phase != "stop" or info["generation"] != 0 or self._asked or _thresholds is None:
            return
        if gc.get_count()[1] > _thresholds[1]:
            self._asked = True
            try:
                self._ask()
            except BaseException:
                self._asked = False  # asked for nothing: the next young collection asks again
                raise

    def run_due(self) -> None:
        """The older collection the interpreter would have made by now, if any (a frame was just painted)."""
        self._asked = False
        if not self._installed or _thresholds is None or not gc.isenabled():
            return
        _, middle, old = _thresholds
        _, young_passes, middle_passes = gc.get_count()
        if middle_passes > old and self._full_is_due():
            gc.collect(2)
            self._long_lived = len(gc.get_objects(2))
        elif young_passes > middle:
            gc.collect(1)

    def _full_is_due(self) -> bool:
        """CPython's rule against quadratic full collections: they wait until the objects that reached
        the oldest generation since the last one are more than a quarter of what that one left there."""
        pending = len(gc.get_objects(2)) - self._long_lived
        return pending > self._long_lived // 4
