"""Running the tree's filter: at once when it is cheap, else a scan in a thread that shows what it finds.

Why a class of its own: the widget shows a `FilterResult`; this decides when and where one is computed.
A prefix query is answered from the trie and a small tree (at most `ResourceTree.SYNC_FILTER_LIMIT`
items) is scanned at once; a big tree is scanned in a worker thread with the cyclic collector off, its
partial results shown as they come (never an empty one: "no match" waits for the end), a result that a
newer filter made stale dropped (a token per run), and the filter run again while pages keep arriving
(at most every `ResourceTree.REFILTER_DELAY` seconds).
"""

from __future__ import annotations

import time
from contextlib import suppress
from functools import partial
from typing import TYPE_CHECKING

from textual.timer import Timer
from textual.worker import get_current_worker

from explorer.model.heap import big_change, freeze_if_big, scan_without_collector
from explorer.model.tree_filter import FilterResult, FilterSummary, compute_filter, is_prefix_query

if TYPE_CHECKING:
    from explorer.widgets.resource_tree.widget import ResourceTree


class FilterRuns:
    """The filter of one `ResourceTree`: its text, whether a scan is running, and the runs themselves."""

    def __init__(self, tree: ResourceTree) -> None:
        self.tree = tree
        self.text = ""
        self.pending = False  # a scan runs in a thread; its result is not on screen yet
        self._token = 0  # grows with every run: a result of an older run is stale
        self._refilter_timer: Timer | None = None

    def set(self, text: str) -> FilterSummary | None:
        """`ResourceTree.set_filter`: the summary when the result is on screen, None when cleared or when
        a scan was started in a thread."""
        self._token += 1
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
        self.pending = True
        self._scan_in_thread(text, self._token)
        return None

    def schedule_refilter(self) -> None:
        """Pages changed the tree under an active filter: run it again, after a pause."""
        tree = self.tree
        if self._refilter_timer is None and tree.is_attached:
            self._refilter_timer = tree.set_timer(tree.REFILTER_DELAY, self._refilter)

    def _refilter(self) -> None:
        self._refilter_timer = None
        active = self.tree.rows.filter
        if active is None or active.version == self.tree.uri_tree.version or self.pending:
            return
        self._token += 1
        if is_prefix_query(active.text) or self._small():  # from the trie, here: no thread reads the tree
            self.tree.show_filter(self._compute(active.text))
        else:
            self.pending = True
            self._scan_in_thread(active.text, self._token)

    def _small(self) -> bool:
        root = self.tree.uri_tree.root
        return root.resource_count + root.template_count <= self.tree.SYNC_FILTER_LIMIT

    def _compute(self, text: str) -> FilterResult:
        tree = self.tree
        root = tree.uri_tree.root
        with big_change(root.resource_count + root.template_count):  # its sets of a million nodes
            return compute_filter(tree.uri_tree, text, limit=tree.FILTER_LIMIT, expand=tree.FILTER_EXPAND)

    def _scan_in_thread(self, text: str, token: int) -> None:
        scan = partial(self._scan, text, token)
        self.tree.run_worker(scan, thread=True, exclusive=True, group="tree-filter")

    def _scan(self, text: str, token: int) -> None:
        """Substring scan off the UI thread; a newer `set` makes this result stale."""
        worker = get_current_worker()
        tree = self.tree

        def stale() -> bool:
            time.sleep(0)  # let the UI thread take the GIL now rather than after the switch interval
            return worker.is_cancelled or token != self._token

        def progress(partial_result: FilterResult) -> None:
            if partial_result.total and not stale():  # "no match" is not shown before the scan is over
                with suppress(RuntimeError):  # the app is shutting down
                    tree.app.call_from_thread(self._deliver_partial, partial_result, token)

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
            freeze_if_big(root.resource_count + root.template_count)  # while the collector is still off
        if result.cancelled or stale():
            return
        with suppress(RuntimeError):  # the app is shutting down
            tree.app.call_from_thread(self._deliver, result, token)

    def _deliver_partial(self, result: FilterResult, token: int) -> None:
        """What a running scan found so far: shown at once (`pending` stays True; no message)."""
        if token == self._token:
            self.tree.show_filter(result, final=False)

    def _deliver(self, result: FilterResult, token: int) -> None:
        if token != self._token:
            return  # a newer filter (or a clear) came in meanwhile
        self.pending = False
        self.tree.show_filter(result)
