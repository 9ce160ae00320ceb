"""The TUI at scale, driven headless (a script, not a test): listing, keypress to frame, expand, filter.

Run: python benchmarks/bench_tui.py --count N [--presses 200] [--no-baseline] [--json]

The app runs at 160x45 in Textual's headless mode against `fixture_server.py` (pages of 1,000, bounds
raised to fit N). Every figure that says "to frame" is taken by a probe on the app's display step: each
screen update is rendered to the bytes a terminal would get (headless mode skips that; the probe does
it, so its cost counts) and timestamped, and a measurement ends at the first frame painted after the
keypress took effect (the tree's action ran, the filter of the typed text is on screen, the node is
expanded). Keys go in through the driver as Pilot sends them, one after another, 20 ms apart once the
previous one is painted (key repeat is about 30 per second), so a measurement never waits for the 60 fps
frame clock of the previous frame.

Each phase runs in a process of its own (`--phase`), so one phase's heap never weighs on the next:

- `floor`: the same probe on a minimal Textual app (a stock `OptionList` of 1,000 lines): cursor keypress
  to frame, the baseline of every keypress figure (no app paints faster than its framework).
- `floor-frozen`: the same, with everything alive frozen first (`gc.freeze`), so no full collection walks
  the framework's own objects during the presses: what is left is its 60 fps update timer and its render.
- `listing`: the app lists the deep fixture (``bench://hostH/areaA/groupG/itemI.json``) to the end, nothing
  pressed: first rows and listing complete (from spawn, interpreter start and imports included), peak RSS,
  collector pauses. Then, after the listing: cursor keypresses in an open group (each: to the frame that
  moves the cursor, and, as `..._details`, to the first frame that paints the details pane's body after
  it took the new node's content: `DetailsPainted`), and typing a filter one character at a time, a URI
  prefix, then a substring `SUBSTRING_ROUNDS` times (each character: time until its results are painted,
  partial ones count for a substring scan that is still running). Then the user goes away (the terminal's
  window loses focus: `user_away`): the app frees the garbage it froze for good so far, one full
  collection (`thaw_ms`, `thaw_freed`), and what is still frozen garbage after it is counted
  (`frozen_garbage`).
- `streaming`: the same presses and typing while pages stream in. At 10^6 the fixture answers at full
  speed; a smaller listing is over too soon, so its pages are paced (`--delay`, about 14 s in all) and the
  presses land between them. Only presses painted while the listing ran are counted.
- `wide`: the flat fixture (N resources under one node, ``bench://flat/itemK.json``): expand and collapse
  that node after the listing (the first expand sorts its N children), keypresses inside it, `end`, a
  prefix filter typed into it, and a substring (`item42`: every child holds `item`, then about 1%).
  At its end, after the timings: how many frozen objects nothing reaches (`frozen_garbage_wide`), the
  memory that frozen garbage would keep for good, growing with use.
- `wide-streaming`: the flat node expanded while its N children stream in; presses in it, then collapse
  and expand while pages keep arriving.

Every phase also reports `stall_max_ms_PHASE`: the longest the app's event loop ran one thing without a
break (`Stalls`, a 5 ms timer's lateness), what a user would feel at any moment, whether or not a timed key
met it; the app's start, its quitting, the thaw while the user is away and the benchmark's own heap
counts are left out.

Baselines of the same run: the `floor` app for keypresses, and for "listing complete" the CLI's own
`tree` on the same server, a whole process (`python -m explorer tree BOUNDS -s SERVER > /dev/null`,
spawn to exit), and the SDK's listing loop (`sdk_list.py`). The TUI against the CLI is timed in
`--rounds` rounds (default 3), each a `start` phase (the app until its listing is complete, nothing
else) then a CLI run, alternated; the medians and their ratio are reported (`listing_rounds` has each
pair). Targets (issue 13): a keypress painted within
16.7 ms at p99 and 50 ms at worst, also while streaming; any expand or collapse within 50 ms; each typed
filter character's results within 50 ms at p99; the listing complete within 1.2x the CLI's `tree`.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

SPAWNED_AT = time.time()  # replaced by --spawned-at: the parent's clock just before it spawned this process

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FIXTURE = ROOT / "benchmarks" / "fixture_server.py"
SIZE = (160, 45)
GAP = 0.02  # seconds between a painted frame and the next key
GROUP = "bench://host0/area0/group1"  # the open group the cursor moves in (100 items)
PREFIX_TEXT = "bench://host7/area3/group42/item5"
SUBSTRING_TEXT = "item 4217"  # names are "item K": matches by name, after a scan of every URI
SUBSTRING_ROUNDS = 12  # times it is typed: 113 characters with `bench`, so that the p99 (nearest rank)
# is the second slowest, not the slowest of 9 or 14 as before
WIDE_PREFIX_TEXT = "bench://flat/item4217"
WIDE_SCAN_TEXT = "item42"  # a substring in the node of N: `item` holds every child, `item42` about 1%
STREAM_SECONDS = 14.0  # a paced listing lasts about this long


# ------------------------------------------------------------------------------------------ figures


def nearest_rank(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def summary(samples: list[float]) -> dict[str, Any]:
    """p50, p99 (nearest rank) and worst, in milliseconds, of samples in seconds."""
    if not samples:
        return {"n": 0, "p50": None, "p99": None, "max": None}
    ms = [s * 1000 for s in samples]
    return {
        "n": len(ms),
        "p50": round(statistics.median(ms), 1),
        "p99": round(nearest_rank(ms, 0.99), 1),
        "max": round(max(ms), 1),
    }


class Pauses:
    """Every collection's duration, by phase (set `phase` to file the next ones elsewhere): wall time, and
    the CPU time of the collecting thread (on a shared machine the wall time also counts waiting for a
    core, up to twice the CPU time here)."""

    def __init__(self) -> None:
        self.trail = ["start"]  # every phase set so far, in order (`Stalls` reads what a stall spanned)
        self.by_phase: dict[str, list[float]] = {}
        self.collected: dict[str, int] = {}
        self.cpu: list[float] = []
        self._started = 0.0
        self._started_cpu = 0.0

    @property
    def phase(self) -> str:
        return self.trail[-1]

    @phase.setter
    def phase(self, phase: str) -> None:
        self.trail.append(phase)

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            self._started_cpu = time.thread_time()
        else:
            self.by_phase.setdefault(self.phase, []).append(time.perf_counter() - self._started)
            self.collected[self.phase] = self.collected.get(self.phase, 0) + info["collected"]
            if self.phase != AWAY:
                self.cpu.append(time.thread_time() - self._started_cpu)

    def longest_ms(self, phase: str | None = None) -> float:
        """The longest pause in `phase`, or in every phase but `AWAY` (no one waits on that one)."""
        if phase is None:
            found = [max(v) for name, v in self.by_phase.items() if v and name != AWAY]
            return round(max(found, default=0.0) * 1000, 1)
        return round(max(self.by_phase.get(phase, [0.0])) * 1000, 1)


AWAY = "away"  # the phase of the collection the app runs while the user is away (`user_away`)
CLOSING = "closing"  # a phase's app quits
MEASURING = "measuring"  # the benchmark counts the heap's objects (`gc.get_objects`), not the app's time


APART = (AWAY, CLOSING, MEASURING, "start")  # phases no stall counts in (`Stalls.longest_ms`)


@contextmanager
def measuring(pauses: Pauses) -> Iterator[None]:
    """The benchmark's own walks of the heap stall the loop too (tens of ms at 10^6): filed apart."""
    before, pauses.phase = pauses.phase, MEASURING
    try:
        yield
    finally:
        pauses.phase = before


@asynccontextmanager
async def running(app: Any, pauses: Pauses) -> AsyncIterator[Any]:
    """`app.run_test` at `SIZE`; once the phase is done, what the app does to quit is filed as `CLOSING`."""
    async with app.run_test(size=SIZE) as pilot:
        yield pilot
        pauses.phase = CLOSING


class Stalls:
    """The longest time the app's event loop ran one thing without a break, by phase (`Pauses.phase`):
    a timer every `STEP` seconds, and how late it fires. What a user feels whether or not a key lands on
    it (a key measured only shows a stall it happened to meet: at 10^6 the keys slowed the listing so
    much that it never reached the sizes where its tables grew in one 110 ms step)."""

    STEP = 0.005

    def __init__(self, pauses: Pauses) -> None:
        self.pauses = pauses
        self.longest: dict[str, float] = {}

    async def watch(self) -> None:
        trail = self.pauses.trail
        while True:
            started, mark = time.perf_counter(), len(trail) - 1
            await asyncio.sleep(self.STEP)
            late = time.perf_counter() - started - self.STEP
            spanned = trail[mark:]  # a phase set and set back within one step counts too
            phase = next((name for name in APART if name in spanned), spanned[-1])
            if late > self.longest.get(phase, 0.0):
                self.longest[phase] = late

    def longest_ms(self) -> float:
        """The longest stall in any phase but the start (imports, the first frame: `bench_startup.py`),
        `AWAY` (no one waits on that one), `CLOSING` (the app quits) and `MEASURING`."""
        found = [late for phase, late in self.longest.items() if phase not in APART]
        return round(max(found, default=0.0) * 1000, 1)


async def user_away(app: Any, pauses: Pauses) -> dict[str, Any]:
    """The terminal's window loses focus after `IdleThaw.QUIET` seconds with no input and no freeze:
    the app frees the garbage frozen so far (`model/idle_thaw.py`), one full collection of the heap, timed
    on its own (`thaw_ms`), with what it freed (`thaw_freed`). Not due (too few freezes so far): None."""
    from textual import events

    from explorer.model import heap
    from explorer.model.idle_thaw import IdleThaw

    if heap.freezes_since_thaw() < IdleThaw.WORTH:
        return {"thaw_ms": None, "thaw_freed": None}
    await asyncio.sleep(IdleThaw.QUIET)  # no input (the last key was just now), no freeze, for that long
    before, pauses.phase = pauses.phase, AWAY
    app.post_message(events.AppBlur())
    deadline = time.monotonic() + 2 * IdleThaw.CHECK + IdleThaw.QUIET
    while heap.freezes_since_thaw() and time.monotonic() < deadline:  # noqa: ASYNC110 - no event to wait on
        await asyncio.sleep(0.05)
    app.post_message(events.AppFocus())
    await asyncio.sleep(0.1)
    pauses.phase = before
    if heap.freezes_since_thaw():
        raise SystemExit("the app did not thaw while its window had lost focus")
    return {"thaw_ms": pauses.longest_ms(AWAY), "thaw_freed": pauses.collected.get(AWAY, 0)}


def frozen_garbage(pauses: Pauses) -> int:
    """How many objects were frozen (`gc.freeze`) that nothing reaches any more: those are never freed, so
    they grow with use. Measured after the timings, out of `pauses`' sight: thawing makes this one
    collection walk the whole heap."""
    gc.callbacks.remove(pauses)
    try:
        gc.collect()  # the garbage that is not frozen: the collector frees it as usual
        gc.unfreeze()
        return gc.collect()
    finally:
        gc.freeze()
        gc.callbacks.append(pauses)


def peak_rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return (peak if sys.platform == "darwin" else peak * 1024) / 2**20


# -------------------------------------------------------------------------------------------- probe


class FrameProbe:
    """Timestamps every frame the app paints; `until(test)` is the time of the first frame where `test`
    holds, checked as the frame is painted (so the frame shows what the test saw), or of the moment the
    screen is known to show it without a new frame (`on_screen`)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.frames = 0
        self._original = app._display
        self._waiters: list[tuple[Callable[[], bool], asyncio.Future[float]]] = []
        self.on_frame: list[Callable[[Any], None]] = []  # told of each update before the waiters test
        app._display = self._display

    def _display(self, screen: Any, renderable: Any) -> None:
        self._original(screen, renderable)
        if renderable is None:
            return
        render = getattr(renderable, "render_segments", None)
        if render is not None:
            render(self.app.console)  # what a terminal app writes (headless mode skips it)
        self.frames += 1
        for hook in self.on_frame:
            hook(renderable)
        self.check()

    def on_screen(self) -> None:
        """A change was made that may paint nothing (a filter result with the same lines): once the screen
        is up to date (`call_after_refresh` runs after the frame that paints it, or at once when nothing
        needs painting), what the waiters test is on screen."""
        self.app.screen.call_after_refresh(self.check)

    def check(self) -> None:
        now = time.perf_counter()
        if self._waiters:
            waiting = []
            for test, future in self._waiters:
                if future.done():
                    continue
                if test():
                    future.set_result(now)
                else:
                    waiting.append((test, future))
            self._waiters = waiting

    async def until(self, test: Callable[[], bool], timeout: float = 60.0) -> float:
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._waiters.append((test, future))
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            focused = self.app.focused
            raise SystemExit(
                f"no frame showed the keypress within {timeout} s (focus: {focused!r})"
            ) from None


def send_key(app: Any, key: str) -> None:
    """A key as the terminal driver delivers it (as Pilot sends it)."""
    from textual import events
    from textual.keys import _character_to_key

    char = key if len(key) == 1 else None
    name = _character_to_key(key) if char is not None else key
    event = events.Key(name, char)
    event.set_sender(app)
    app._driver.send_message(event)


async def timed_key(app: Any, probe: FrameProbe, key: str, test: Callable[[], bool]) -> float:
    """Seconds from sending `key` to the first frame painted once `test` holds; then the gap."""
    started = time.perf_counter()
    send_key(app, key)
    painted = await probe.until(test)
    await asyncio.sleep(GAP)
    return painted - started


class Handled:
    """Counts the tree's cursor actions (wrapping the instance's action methods), so a keypress is known
    to have taken effect before the frame that shows it."""

    def __init__(self, tree: Any) -> None:
        self.tree = tree
        self.count = 0
        for name in ("action_cursor_down", "action_cursor_up", "action_cursor_end", "action_cursor_home"):
            setattr(tree, name, self._wrap(getattr(tree, name)))

    def _wrap(self, action: Callable[[], None]) -> Callable[[], None]:
        def counted() -> None:
            action()
            self.count += 1

        return counted


class DetailsPainted:
    """Which node's details the last frame painted: `show_node` says which node the pane is showing,
    the body's `update` that its content now is that node's, and a frame whose update covers the body's
    visible region on screen paints it (a frame that repaints only other widgets does not; Textual may
    render the body's lines for such a frame and then write only the dirty spans)."""

    def __init__(self, screen: Any, probe: FrameProbe) -> None:
        from textual.geometry import Region

        from explorer.widgets.detail import DetailPane

        pane = screen.query_one(DetailPane)
        body = pane.query_one("#detail-body")
        self.showing: Any = None  # the node `show_node` was called for last
        self.held: Any = None  # the node whose content the body holds
        self.painted: Any = None  # the node whose content a frame painted last
        show_node, update = pane.show_node, body.update

        def recorded_show(tree: Any, node: Any, **kwargs: Any) -> None:
            self.showing = node
            show_node(tree, node, **kwargs)

        def recorded_update(*args: Any, **kwargs: Any) -> Any:
            self.held = self.showing
            return update(*args, **kwargs)

        def frame(renderable: Any) -> None:
            visible = body.region.intersection(pane.region)
            if not visible:
                return
            region = getattr(renderable, "region", None)  # a whole layout
            if isinstance(region, Region):
                covers = region.overlaps(visible)
            else:  # changed spans: (y, x1, x2) on screen
                covers = any(
                    visible.y <= y < visible.bottom and x1 < visible.right and x2 >= visible.x
                    for y, x1, x2 in getattr(renderable, "spans", ())
                )
            if covers:
                self.painted = self.held

        pane.show_node = recorded_show
        body.update = recorded_update
        probe.on_frame.append(frame)


async def cursor_presses(
    app: Any,
    probe: FrameProbe,
    handled: Handled,
    count: int,
    keep: Callable[[], bool] | None = None,
    details: DetailsPainted | None = None,
) -> list[tuple[float, bool, float | None]]:
    """`count` cursor keys (50 down, 50 up, ...): (seconds to frame, `keep()` at the frame, seconds to
    the frame that shows the new node's details, with `details`) each.

    A key that would not move the cursor (up on the first row, down on the last: while a listing streams,
    rows come and go under it) is turned the other way: a key that changes nothing paints no frame, and
    would measure the wait for an unrelated one (a spinner's). A key the cursor did not follow all the
    same is not kept."""
    samples: list[tuple[float, bool, float | None]] = []
    tree = handled.tree
    for index in range(count):
        key = "down" if index // 50 % 2 == 0 else "up"
        if key == "down" and tree.cursor >= tree.row_count - 1:
            key = "up"
        elif key == "up" and tree.cursor <= 0:
            key = "down"
        before = tree.cursor
        wanted = handled.count + 1
        flag: list[bool] = [True]

        def test(wanted: int = wanted, flag: list[bool] = flag, before: int = before) -> bool:
            if handled.count < wanted:
                return False
            flag[0] = tree.cursor != before and (keep() if keep is not None else True)
            return True

        shown: asyncio.Task[float] | None = None
        if details is not None:

            def complete(wanted: int = wanted, before: int = before, seen: DetailsPainted = details) -> bool:
                return handled.count >= wanted and tree.cursor != before and seen.painted is tree.highlighted

            shown = asyncio.ensure_future(probe.until(complete))
        started = time.perf_counter()
        send_key(app, key)
        cursor = await probe.until(test) - started
        late: float | None = None
        if shown is not None:
            if tree.cursor != before:
                late = await shown - started
            else:  # the cursor did not move: no new details to wait for (the sample is not kept)
                shown.cancel()
        await asyncio.sleep(GAP)  # after the details' frame too: the next key comes 20 ms after it
        samples.append((cursor, flag[0], late))
    return samples


def press_figures(samples: list[tuple[float, bool, float | None]], name: str) -> dict[str, Any]:
    """The cursor's frame, and (when taken) the frame that shows the new node's details too."""
    figures = {name: summary([seconds for seconds, kept, _ in samples if kept])}
    late = [seconds for _, kept, seconds in samples if kept and seconds is not None]
    if late:
        figures[f"{name}_details"] = summary(late)
    return figures


async def type_filter(
    app: Any, probe: FrameProbe, tree: Any, text: str, keep: Callable[[], bool] | None = None
) -> list[tuple[str, float, bool]]:
    """Open the filter box and type `text`: (mode, seconds until that text's results are painted, `keep()`)
    per character, the first results of a scan still running counting (`FilterResult.partial`); then how
    much longer the whole text's complete results took ("complete"); then escape clears it (not counted)."""
    from explorer.model.tree_filter import is_prefix_query

    box = app.screen.query_one("#filter")
    await timed_key(app, probe, "/", lambda: bool(box.has_focus))
    show_filter = tree.show_filter

    def shown_then_settled(result: Any, *, final: bool = True) -> None:
        show_filter(result, final=final)
        probe.on_screen()  # the same lines as before paint no frame: the screen shows it already

    tree.show_filter = shown_then_settled
    samples: list[tuple[str, float, bool]] = []
    for end in range(1, len(text) + 1):
        typed = text[:end]
        flag: list[bool] = [True]

        def shown(typed: str = typed, flag: list[bool] = flag) -> bool:
            result = tree.filter_result
            if box.value != typed or result is None or result.text != typed:
                return False
            flag[0] = keep() if keep is not None else True
            return True

        mode = "prefix" if is_prefix_query(typed) else "substring"
        samples.append((mode, await timed_key(app, probe, typed[-1], shown), flag[0]))

    # The last character again, until its complete results are painted (a scan's partial ones do not count).
    def done() -> bool:
        return not tree.filter_pending and tree.filter_result is not None and not tree.filter_result.partial

    started = time.perf_counter()
    complete = started if done() else await probe.until(done)  # already on screen: no frame to wait for
    samples.append(("complete", complete - started, keep() if keep is not None else True))
    await timed_key(app, probe, "escape", lambda: tree.filter_result is None and not box.display)
    tree.show_filter = show_filter
    return samples


def filter_figures(samples: list[tuple[str, float, bool]], prefix: str) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for mode in ("prefix", "substring", "complete"):
        chosen = [seconds for kind, seconds, kept in samples if kind == mode and kept]
        if chosen:
            figures[f"{prefix}_{mode}"] = summary(chosen)
    return figures


# ------------------------------------------------------------------------------------------ the app


def fixture_spec(count: int, *, flat: bool = False, delay: float = 0.0) -> Any:
    from explorer.config import ServerSpec

    args = [str(FIXTURE), "--count", str(count)]
    if flat:
        args.append("--flat")
    if delay:
        args += ["--delay", str(delay)]
    return ServerSpec(name="fixture", transport="stdio", command=sys.executable, args=tuple(args))


def bounds_for(count: int) -> Any:
    from explorer.config import ListingBounds

    return ListingBounds(
        max_items=count * 2 + 10, max_pages=count // 100 + 10, max_bytes=2**40, max_seconds=3600
    )


def pacing(count: int) -> float:
    """Seconds before each page so that a listing of `count` lasts about STREAM_SECONDS (none at 10^6)."""
    pages = max(1, math.ceil(count / 1000))
    return 0.0 if count >= 1_000_000 else round(STREAM_SECONDS / pages, 3)


class Session:
    """The app under test with its probe, started against one server."""

    def __init__(self, app: Any, pilot: Any) -> None:
        self.app = app
        self.pilot = pilot
        self.probe = FrameProbe(app)
        self.screen: Any = app.screen
        self.tree: Any = self.screen.tree_widget
        self.handled = Handled(self.tree)

    @property
    def state(self) -> str:
        return str(self.screen.catalogue.servers["fixture"].state)

    def listing(self) -> bool:
        return self.state in ("connecting", "listing")

    async def listed(self) -> tuple[float, float]:
        """Seconds from spawn to the first rows on screen, then to the frame that shows the listing over
        (the server bar repaints when the state changes)."""
        await self.probe.until(lambda: self.tree.row_count > 1)
        first_rows = time.time() - SPAWNED_AT
        await self.probe.until(lambda: not self.listing())
        return first_rows, time.time() - SPAWNED_AT

    async def until_state(self, *states: str) -> None:
        while self.state not in states:  # noqa: ASYNC110 - the catalogue has no event to wait on
            await asyncio.sleep(0.02)

    async def cursor_to(self, node: Any) -> None:
        """Put the cursor on the row of `node` (expanding its ancestors), then let the app settle."""
        self.tree.select_prefix(node.prefix)
        await self.pilot.pause()

    async def expand(self, node: Any) -> float:
        await self.cursor_to(node)
        return await timed_key(self.app, self.probe, "right", lambda: self.tree.is_expanded(node))

    async def collapse(self, node: Any) -> float:
        await self.cursor_to(node)
        return await timed_key(self.app, self.probe, "left", lambda: not self.tree.is_expanded(node))


def make_app(spec: Any, count: int) -> Any:
    from explorer.frame_rate import cap_frame_rate

    if not cap_frame_rate():  # as `python -m explorer` does it, before Textual is imported
        raise SystemExit("Textual was imported before the app: its frame rate would not be the app's")
    from explorer.model.heap import collector_paused

    with collector_paused():  # as the CLI imports the app (`explorer/cli/main.py`)
        from explorer.app import ExplorerApp

    return ExplorerApp([spec], bounds=bounds_for(count), remember_theme=False)


async def phase_floor(presses: int, pauses: Pauses, *, frozen: bool = False) -> dict[str, Any]:
    """The framework's own keypress-to-frame time: a stock OptionList of 1,000 lines, same probe.

    `frozen`: everything alive once the app runs is frozen first (`gc.freeze`), so that no full collection
    walks it: what is left is the framework's update timer and its render, which no app can undercut.
    It paints at the app's frame rate (`explorer/frame_rate.py`), so that only the widgets differ."""
    from explorer.frame_rate import cap_frame_rate

    cap_frame_rate()
    from textual.app import App, ComposeResult
    from textual.widgets import OptionList

    class Floor(App[None]):
        def compose(self) -> ComposeResult:
            yield OptionList(*(f"bench://host0/area0/group{g}/item{g}.json" for g in range(1000)))

    app = Floor()
    async with running(app, pauses) as pilot:
        await pilot.pause()
        pauses.phase = "floor"
        if frozen:
            gc.collect()
            gc.freeze()
        probe = FrameProbe(app)
        options = app.query_one(OptionList)
        samples = []
        for index in range(presses):
            key = "down" if index // 50 % 2 == 0 else "up"
            before = options.highlighted or 0
            wanted = before + 1 if key == "down" else before - 1
            samples.append(await timed_key(app, probe, key, lambda w=wanted: options.highlighted == w))
    return {"floor_frozen_press" if frozen else "floor_press": summary(samples)}


async def listed_session(
    app: Any, pilot: Any, pauses: Pauses, result: dict[str, Any], *, digits: int
) -> Session:
    """The app's session once its listing is over: `first_rows_s`, `listing_s` and `state` into `result`."""
    session = Session(app, pilot)
    pauses.phase = "listing"
    first_rows, listed = await session.listed()
    result["first_rows_s"], result["listing_s"] = round(first_rows, digits), round(listed, digits)
    result["state"] = session.state
    return session


async def phase_listing(count: int, presses: int, pauses: Pauses) -> dict[str, Any]:
    app = make_app(fixture_spec(count), count)
    result: dict[str, Any] = {}
    async with running(app, pauses) as pilot:
        session = await listed_session(app, pilot, pauses, result, digits=2)
        listing = session.screen.catalogue.servers["fixture"].listing
        result["resources"] = listing.count("resources") if listing is not None else 0
        result["gc_max_listing_ms"] = pauses.longest_ms("listing")
        result["peak_rss_mb"] = round(peak_rss_mb())
        await pilot.pause()
        pauses.phase = "browsing"
        tree = session.screen.catalogue.tree
        group = tree.node_for(GROUP)
        await session.cursor_to(group)
        session.tree.expand_node(group)
        await pilot.pause()
        samples = await cursor_presses(
            app, session.probe, session.handled, presses, details=DetailsPainted(app.screen, session.probe)
        )
        result.update(press_figures(samples, "press"))
        typed = await type_filter(app, session.probe, session.tree, PREFIX_TEXT)
        for _ in range(SUBSTRING_ROUNDS):
            typed += await type_filter(app, session.probe, session.tree, SUBSTRING_TEXT)
        result.update(filter_figures(typed, "filter"))
        result["gc_max_browsing_ms"] = pauses.longest_ms("browsing")
        with measuring(pauses):
            result["tracked_objects"] = len(gc.get_objects())
            result["frozen_objects"] = gc.get_freeze_count()
        result.update(await user_away(app, pauses))
        with measuring(pauses):
            result["frozen_garbage"] = frozen_garbage(pauses)
    return result


async def phase_start(count: int, presses: int, pauses: Pauses) -> dict[str, Any]:
    """Only the start: first rows and listing complete, from spawn (the rounds against the CLI)."""
    app = make_app(fixture_spec(count), count)
    result: dict[str, Any] = {}
    async with running(app, pauses) as pilot:
        await listed_session(app, pilot, pauses, result, digits=3)
    return result


async def phase_streaming(count: int, presses: int, pauses: Pauses) -> dict[str, Any]:
    delay = pacing(count)
    app = make_app(fixture_spec(count, delay=delay), count)
    result: dict[str, Any] = {"page_delay_s": delay}
    async with running(app, pauses) as pilot:
        session = Session(app, pilot)
        pauses.phase = "streaming"
        tree = session.screen.catalogue.tree
        # The first page of resources (templates are listed first, and a paced page comes late).
        await session.probe.until(lambda: tree.node_for(GROUP) is not None)
        group = tree.node_for(GROUP)
        await session.cursor_to(group)
        session.tree.expand_node(group)
        await pilot.pause()
        details = DetailsPainted(app.screen, session.probe)
        samples = await cursor_presses(
            app, session.probe, session.handled, presses, keep=session.listing, details=details
        )
        result.update(press_figures(samples, "press_streaming"))
        typed = await type_filter(app, session.probe, session.tree, PREFIX_TEXT, keep=session.listing)
        for _ in range(SUBSTRING_ROUNDS):
            if not session.listing():
                break  # what is typed after the listing is not counted here
            typed += await type_filter(app, session.probe, session.tree, SUBSTRING_TEXT, keep=session.listing)
        result.update(filter_figures(typed, "filter_streaming"))
        result["streamed_to_the_end"] = not session.listing()
        result["gc_max_streaming_ms"] = pauses.longest_ms("streaming")
    return result


async def phase_wide(count: int, presses: int, pauses: Pauses) -> dict[str, Any]:
    app = make_app(fixture_spec(count, flat=True), count)
    result: dict[str, Any] = {}
    async with running(app, pauses) as pilot:
        session = Session(app, pilot)
        await session.until_state("ready", "incomplete", "failed")
        result["wide_listing_s"] = round(time.time() - SPAWNED_AT, 2)
        pauses.phase = "wide"
        flat = session.screen.catalogue.tree.node_for("bench://flat")
        result["fan_out"] = flat.child_count
        result["expand_first_ms"] = round(await session.expand(flat) * 1000, 1)
        result["collapse_ms"] = round(await session.collapse(flat) * 1000, 1)
        result["expand_again_ms"] = round(await session.expand(flat) * 1000, 1)
        samples = await cursor_presses(
            app, session.probe, session.handled, presses, details=DetailsPainted(app.screen, session.probe)
        )
        result.update(press_figures(samples, "press_wide"))
        last = session.tree.row_count - 1
        result["end_ms"] = round(
            await timed_key(app, session.probe, "end", lambda: session.tree.cursor == last) * 1000, 1
        )
        await timed_key(app, session.probe, "home", lambda: session.tree.cursor == 0)
        typed = await type_filter(app, session.probe, session.tree, WIDE_PREFIX_TEXT)
        result.update(filter_figures(typed, "filter_wide"))
        typed = await type_filter(app, session.probe, session.tree, WIDE_SCAN_TEXT)
        result.update(filter_figures(typed, "filter_wide_scan"))
        result["collapse_after_ms"] = round(await session.collapse(flat) * 1000, 1)
        result["gc_max_wide_ms"] = pauses.longest_ms("wide")
        with measuring(pauses):
            result["frozen_garbage_wide"] = frozen_garbage(pauses)
    return result


async def phase_wide_streaming(count: int, presses: int, pauses: Pauses) -> dict[str, Any]:
    delay = pacing(count)
    app = make_app(fixture_spec(count, flat=True, delay=delay), count)
    result: dict[str, Any] = {}
    async with running(app, pauses) as pilot:
        session = Session(app, pilot)
        tree = session.screen.catalogue.tree
        await session.probe.until(lambda: tree.node_for("bench://flat") is not None)
        pauses.phase = "wide-streaming"
        flat = tree.node_for("bench://flat")
        await session.expand(flat)
        details = DetailsPainted(app.screen, session.probe)
        samples = await cursor_presses(
            app, session.probe, session.handled, presses, keep=session.listing, details=details
        )
        result.update(press_figures(samples, "press_wide_streaming"))
        toggles: list[float] = []
        while session.listing() and len(toggles) < 20:
            collapse = await session.collapse(flat)
            expand = await session.expand(flat)
            if session.listing():
                toggles += [collapse, expand]
        result["toggle_wide_streaming"] = summary(toggles)
        result["fan_out_at_end"] = flat.child_count
        result["gc_max_wide_streaming_ms"] = pauses.longest_ms("wide-streaming")
    return result


PHASES = {
    "floor": lambda count, presses, pauses: phase_floor(presses, pauses),
    "floor-frozen": lambda count, presses, pauses: phase_floor(presses, pauses, frozen=True),
    "listing": phase_listing,
    "start": phase_start,
    "streaming": phase_streaming,
    "wide": phase_wide,
    "wide-streaming": phase_wide_streaming,
}


DEFAULT_PHASES = [phase for phase in PHASES if phase != "start"]  # `start` runs in the rounds


def run_phase(phase: str, count: int, presses: int) -> dict[str, Any]:
    import compileall

    compileall.compile_dir(ROOT / "explorer", quiet=1)  # as an installed package has it
    pauses = Pauses()
    stalls = Stalls(pauses)

    async def watched() -> dict[str, Any]:
        watcher = asyncio.create_task(stalls.watch())
        try:
            found: dict[str, Any] = await PHASES[phase](count, presses, pauses)
            return found
        finally:
            watcher.cancel()

    gc.callbacks.append(pauses)
    try:
        result: dict[str, Any] = asyncio.run(watched())
    finally:
        gc.callbacks.remove(pauses)
    result[f"gc_max_ms_{phase}"] = pauses.longest_ms()
    result[f"stall_max_ms_{phase}"] = stalls.longest_ms()
    result[f"gc_max_cpu_ms_{phase}"] = round(max(pauses.cpu, default=0.0) * 1000, 1)
    return result


# --------------------------------------------------------------------------------------- baselines


def timed_process(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    return time.perf_counter() - started


def cli_tree_command(count: int) -> list[str]:
    bounds = bounds_for(count)
    return [
        sys.executable,
        "-m",
        "explorer",
        "tree",
        "--max-items",
        str(bounds.max_items),
        "--max-pages",
        str(bounds.max_pages),
        "--max-bytes",
        str(bounds.max_bytes),
        "--list-timeout",
        "3600",
        "-s",
        f"{sys.executable} {FIXTURE} --count {count}",
    ]


def sdk_command(count: int) -> list[str]:
    serve = [sys.executable, str(FIXTURE), "--count", str(count)]
    return [sys.executable, str(ROOT / "benchmarks" / "sdk_list.py"), "--", *serve]


# -------------------------------------------------------------------------------------------- main


def spawn_phase(
    phase: str, count: int, presses: int, thaw_worth: int | None = None, thaw_quiet: float | None = None
) -> dict[str, Any]:
    command = [sys.executable, __file__, "--phase", phase, "--count", str(count), "--presses", str(presses)]
    command += ["--stream-seconds", repr(STREAM_SECONDS)]
    if thaw_worth is not None:
        command += ["--thaw-worth", str(thaw_worth)]
    if thaw_quiet is not None:
        command += ["--thaw-quiet", repr(thaw_quiet)]
    command += ["--spawned-at", repr(time.time())]
    proc = subprocess.run(command, check=False, capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        raise SystemExit(f"phase {phase} failed: {proc.stderr[-3000:]}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def listing_rounds(count: int, rounds: int) -> dict[str, Any]:
    """'Listing complete' against the CLI's `tree`: each round a TUI start (the `start` phase) then a CLI
    run, alternated so that a busy spell of the machine weighs on both; medians, and the ratio of them."""
    tui: list[float] = []
    cli: list[float] = []
    first_rows: list[float] = []
    for _ in range(max(1, rounds)):
        started = spawn_phase("start", count, 0)
        tui.append(started["listing_s"])
        first_rows.append(started["first_rows_s"])
        cli.append(timed_process(cli_tree_command(count)))
    tui_median, cli_median = statistics.median(tui), statistics.median(cli)
    return {
        "start_first_rows_s": round(statistics.median(first_rows), 2),
        "start_listing_s": round(tui_median, 2),
        "cli_tree_s": round(cli_median, 2),
        "listing_vs_cli_tree": round(tui_median / cli_median, 2),
        "listing_rounds": [[round(t, 2), round(c, 2)] for t, c in zip(tui, cli, strict=True)],
    }


def show(label: str, figures: Any) -> str:
    if isinstance(figures, dict) and "p99" in figures:
        if not figures["n"]:
            return f"  {label:<34} (no samples)"
        return (
            f"  {label:<34} p50 {figures['p50']:>7} ms  p99 {figures['p99']:>7} ms  "
            f"max {figures['max']:>7} ms  (n={figures['n']})"
        )
    return f"  {label:<34} {figures}"


def main() -> None:
    global SPAWNED_AT, STREAM_SECONDS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--presses", type=int, default=200, help="cursor keys per measurement")
    parser.add_argument(
        "--phases", default=",".join(DEFAULT_PHASES), help="comma-separated (default: all but `start`)"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="TUI starts (`start`) and CLI `tree` runs, alternated, for 'listing complete' (medians)",
    )
    parser.add_argument("--no-baseline", action="store_true", help="skip the CLI tree and the SDK loop")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--thaw-worth",
        type=int,
        help="freezes after which the app's thaw is due (default: the app's `IdleThaw.WORTH`); a small run "
        "freezes too few times to reach it",
    )
    parser.add_argument(
        "--thaw-quiet",
        type=float,
        help="seconds of quiet before the thaw while the user is away (default: the app's `IdleThaw.QUIET`); "
        "a smoke run need not wait that long",
    )
    parser.add_argument(
        "--stream-seconds",
        type=float,
        default=STREAM_SECONDS,
        help="how long a paced listing (under 10^6) lasts; a smoke run needs less than the default",
    )
    parser.add_argument("--phase", choices=list(PHASES), help=argparse.SUPPRESS)
    parser.add_argument("--spawned-at", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    STREAM_SECONDS = args.stream_seconds
    if args.phase is not None:
        if args.spawned_at is not None:
            SPAWNED_AT = args.spawned_at
        if args.thaw_worth is not None:
            from explorer.model.idle_thaw import IdleThaw

            IdleThaw.WORTH = args.thaw_worth
        if args.thaw_quiet is not None:
            from explorer.model.idle_thaw import IdleThaw

            IdleThaw.QUIET = args.thaw_quiet
        print(json.dumps(run_phase(args.phase, args.count, args.presses)))
        return
    import compileall

    compileall.compile_dir(ROOT / "explorer", quiet=1)
    result: dict[str, Any] = {"count": args.count, "presses": args.presses}
    for phase in [p for p in args.phases.split(",") if p]:
        result.update(spawn_phase(phase, args.count, args.presses, args.thaw_worth, args.thaw_quiet))
    if not args.no_baseline:
        result.update(listing_rounds(args.count, args.rounds))
        result["sdk_list_s"] = round(timed_process(sdk_command(args.count)), 2)
    if args.json:
        print(json.dumps(result))
        return
    print(f"TUI at {args.count:,} resources ({SIZE[0]}x{SIZE[1]}, headless, frames rendered)")
    for key, value in result.items():
        print(show(key, value))


if __name__ == "__main__":
    main()
