"""Running the tree's filter: at once when it is cheap, else a scan in a thread that shows what it finds.

Why a class of its own: the widget shows a `FilterResult`; this decides when and where one is computed.
A prefix query is answered from the trie and a small tree (at most `ResourceTree.SYNC_FILTER_LIMIT`
items) is scanned at once; a big tree is scanned in a thread with the cyclic collector off, its partial
results shown as they come (never an empty one: "no match" waits for the end), a result that a newer
filter made stale dropped (a token per run), and the filter run again while pages keep arriving (at most
every `ResourceTree.REFILTER_DELAY` seconds).

The keystroke's handler waits up to `FIRST_WAIT_SECONDS` for the scan's first result and shows it itself,
so it is painted in the frame that echoes the keystroke; the scan has the interpreter to itself meanwhile.
After each partial result the scan waits for the frame that shows it, for the same reason. The thread is
a plain one started on the spot: a Textual worker's thread would start only after the handler returned.
"""

from __future__ import annotations

import threading
import time
from contextlib import suppress
from typing import TYPE_CHECKING

from textual.timer import Timer

from explorer.model.heap import big_change, keep_big_result, scan_without_collector
from explorer.model.tree_filter import FilterResult, FilterSummary, compute_filter, is_prefix_query
from explorer.sanitize import sanitize_line

if TYPE_CHECKING:
    from explorer.widgets.resource_tree.widget import ResourceTree


FIRST_WAIT_SECONDS = 0.02
"""The UI thread waits this long for a scan's first result, which then shows in the frame that echoes
the keystroke instead of one frame later (the scan has the interpreter to itself meanwhile)."""
PAINT_WAIT_SECONDS = 0.1
"""At most this long a scan waits for the frame of its partial result (a busy or closing app never
holds it up longer)."""


class FilterRuns:
    """The filter of one `ResourceTree`: its text, whether a scan is running, and the runs themselves."""

    def __init__(self, tree: ResourceTree) -> None:
        self.tree = tree
        self.text = ""
        self.pending = False  # a scan runs in a thread; its result is not on screen yet
        self._token = 0  # grows with every run: a result of an older run is stale
        self._refilter_timer: Timer | None = None
        self._painted: threading.Event | None = None  # what a running scan waits for, if it waits

    def _release(self) -> None:
        """A newer run or the tree leaving: a scan waiting for its frame goes on to see it is stale."""
        painted = self._painted
        if painted is not None:
            painted.set()

    def set(self, text: str) -> FilterSummary | None:
        """`ResourceTree.set_filter`: the summary when the result is on screen, None when cleared or when
        a scan was started in a thread."""
        self._token += 1
        self._release()
        self.text = text
        if self._refilter_timer is not None:
            self._refilter_timer.stop()
            self._refilter_timer = None
        tree = self.tree
        if not text.strip():
            self.text = ""
            self.pending = False
            if tree.rows.filter is not None:
                tree.drop_filter()
                tree.post_message(tree.FilterApplied(tree, None))
            return None
        if is_prefix_query(text) or self._small():
            result = self._compute(text)
            self.pending = False
            tree.show_filter(result)
            return result.summary
        return self._scan_in_thread(text, FIRST_WAIT_SECONDS)

    def schedule_refilter(self) -> None:
        """Pages changed the tree under an active filter: run it again, after a pause."""
        tree = self.tree
        if self._refilter_timer is None and tree.is_attached:
            self._refilter_timer = tree.set_timer(tree.REFILTER_DELAY, self._refilter)

    def _refilter(self) -> None:
        self._refilter_timer = None
        active = self.tree.rows.filter
        if active is None or active.version == self.tree.uri_tree.version or self.pending:
            return  # a running scan's result schedules the next run if pages came meanwhile (`_final`)
        if active.partial or active.text != self.text:  # the scan of `self.text` failed: not again
            return
        self._token += 1
        if is_prefix_query(active.text) or self._small():  # from the trie, here: no thread reads the tree
            self.tree.show_filter(self._compute(active.text))
        else:
            self._scan_in_thread(active.text, 0.0)  # pages keep coming: no wait on the UI thread

    def _small(self) -> bool:
        root = self.tree.uri_tree.root
        return root.resource_count + root.template_count <= self.tree.SYNC_FILTER_LIMIT

    def _compute(self, text: str) -> FilterResult:
        tree = self.tree
        root = tree.uri_tree.root
        with big_change(root.resource_count + root.template_count):  # its sets of a million nodes
            return compute_filter(tree.uri_tree, text, limit=tree.FILTER_LIMIT, expand=tree.FILTER_EXPAND)

    def _scan_in_thread(self, text: str, wait: float) -> FilterSummary | None:
        """Start a scan in a thread and wait up to `wait` seconds for its first result: shown at once if it
        came (the summary when that was the whole result), else the scan delivers through the loop."""
        tree = self.tree
        self.pending = True
        handoff = _Handoff()
        # A thread of its own, started here: a Textual worker's thread would start only once this
        # handler has returned to the event loop, after the wait below. A newer run's token stops it.
        scan = threading.Thread(target=self._scan, args=(text, self._token, handoff), daemon=True)
        scan.start()
        taken = handoff.take(wait)
        if taken is None:
            return None
        result, painted = taken
        if painted is None:  # the whole scan was over within the wait
            self._final(result)
            return result.summary
        tree.show_filter(result, final=False)
        tree.call_after_refresh(painted.set)
        return None

    def stop(self) -> None:
        """The tree leaves the screen: a running scan stops at its next check."""
        self._token += 1
        self.pending = False
        self._release()

    def _scan(self, text: str, token: int, handoff: _Handoff) -> None:
        """Substring scan off the UI thread; a newer `set` (or `stop`) makes this result stale."""
        try:
            self._scan_tree(text, token, handoff)
        except Exception as exc:  # a bug must not pass silently, nor end the app from a thread
            with suppress(RuntimeError):  # the app is shutting down
                self.tree.app.call_from_thread(self._failed, exc, token)

    def _failed(self, exc: Exception, token: int) -> None:
        if token != self._token:
            return
        self.pending = False
        # The exception's text may quote a server's string (a URI, a name): through the sanitizer.
        message = sanitize_line(f"The filter failed: {type(exc).__name__}: {exc}", 300)
        self.tree.notify(message, severity="error", markup=False)

    def _scan_tree(self, text: str, token: int, handoff: _Handoff) -> None:
        tree = self.tree

        def stale() -> bool:
            time.sleep(0)  # let the UI thread take the GIL now rather than after the switch interval
            return token != self._token

        def progress(partial_result: FilterResult) -> None:
            if partial_result.total and not stale():  # "no match" is not shown before the scan is over
                painted = self._painted = threading.Event()
                with suppress(RuntimeError):  # the app is shutting down
                    if not handoff.offer(partial_result, painted):
                        tree.app.call_from_thread(self._deliver_partial, partial_result, token, painted)
                    # The scan holds the interpreter lock while it runs: it waits for the frame that
                    # shows these matches, which would otherwise take twice as long to render.
                    painted.wait(PAINT_WAIT_SECONDS)

        with scan_without_collector():  # the scan's big containers, walked by every collection: see heap
            result = compute_filter(
                tree.uri_tree,
                text,
                limit=tree.FILTER_LIMIT,
                expand=tree.FILTER_EXPAND,
                cancelled=stale,
                progress=progress,
            )
            root = tree.uri_tree.root
            dropped = result.cancelled or stale()
            # While the collector is still off.
            keep_big_result(root.resource_count + root.template_count, used=not dropped)
        if dropped:
            return
        if handoff.offer(result, None):
            return
        with suppress(RuntimeError):  # the app is shutting down
            tree.app.call_from_thread(self._deliver, result, token)

    def _deliver_partial(self, result: FilterResult, token: int, painted: threading.Event) -> None:
        """What a running scan found so far: shown at once (`pending` stays True; no message); `painted`
        is set once the frame that shows it is rendered."""
        if token == self._token:
            self.tree.show_filter(result, final=False)
            self.tree.call_after_refresh(painted.set)
        else:
            painted.set()

    def _deliver(self, result: FilterResult, token: int) -> None:
        if token != self._token:
            return  # a newer filter (or a clear) came in meanwhile
        self._final(result)

    def _final(self, result: FilterResult) -> None:
        """Show a scan's complete result; pages merged while it ran are filtered next."""
        self.pending = False
        self.tree.show_filter(result)
        if result.version != self.tree.uri_tree.version:
            self.schedule_refilter()


class _Handoff:
    """A scan's first result, handed straight to the UI thread that waits for it after starting the scan
    (`FIRST_WAIT_SECONDS`); once the UI thread stopped waiting, results go through the event loop."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._open = True
        self._taken: tuple[FilterResult, threading.Event | None] | None = None

    def offer(self, result: FilterResult, painted: threading.Event | None) -> bool:
        """From the scan: True when the UI thread takes `result` (partial with `painted` to set once it is
        on screen, or the final one with None); False when it no longer waits."""
        with self._lock:
            if not self._open:
                return False
            self._open = False
            self._taken = (result, painted)
        self._ready.set()
        return True

    def take(self, seconds: float) -> tuple[FilterResult, threading.Event | None] | None:
        """On the UI thread: what the scan offered within `seconds`, else None (and no later offer)."""
        self._ready.wait(seconds)
        with self._lock:
            self._open = False
            return self._taken
