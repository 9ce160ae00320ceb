"""A substring scan of a big tree shows what it found so far while it runs (`FilterResult.partial`).

`PROGRESS_FIRST` and `PROGRESS_EVERY` are set to 0 so that every check point of the scan reports: no
clock is involved.
"""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from explorer.model import tree_filter
from explorer.model.entries import ResourceEntry
from explorer.model.tree_filter import FilterResult, compute_filter
from explorer.model.tree_view import TreeRows
from explorer.model.uri_tree import UriNode, UriTree
from explorer.theming import theme_variable_defaults
from explorer.widgets.resource_tree import ResourceTree, filter_runs

pytestmark = pytest.mark.anyio


def big_tree(count: int = 20_000) -> UriTree:
    """`count` resources in folders of 100; every resource's name is "item K"."""
    tree = UriTree()
    tree.add_resources(
        ResourceEntry("a", f"x://h/g{k // 100}/file{k}.txt", f"item {k}", {"uri": "", "name": ""})
        for k in range(count)
    )
    return tree


def test_a_scan_reports_growing_partial_results_then_the_complete_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tree_filter, "PROGRESS_FIRST", 0.0)
    monkeypatch.setattr(tree_filter, "PROGRESS_EVERY", 0.0)
    tree = big_tree()
    partials: list[FilterResult] = []
    # "item 1" matches by name only (pass 2, which reads every entry): 1, 10-19, 100-199, ...
    final = compute_filter(tree, "item 1", progress=partials.append)
    assert not final.partial and not final.cancelled
    assert final.total == 1 + 10 + 100 + 1000 + 10_000
    assert partials and all(p.partial and p.text == "item 1" for p in partials)
    totals = [p.total for p in partials]
    assert totals == sorted(totals) and totals[-1] < final.total
    for partial in partials:  # what a partial result shows is shown by the complete one too
        assert partial.matched <= final.matched and partial.summary.partial


def flat_tree(count: int) -> UriTree:
    """`count` resources in one node (`x://w/item0.txt` ...), with a few folders beside it."""
    tree = UriTree()
    for start in range(0, count, 1000):
        tree.add_resources(
            ResourceEntry("a", f"x://w/item{k}.txt", f"item {k}", {"uri": "", "name": ""})
            for k in range(start, min(count, start + 1000))
        )
    tree.add_resources(ResourceEntry("a", f"x://z/g{k}/item{k}", f"z {k}", {}) for k in range(30))
    return tree


@pytest.mark.parametrize(("text", "expected"), [("item", 10_030), ("item1", 1_111 + 1 + 10), ("9.t", 1_000)])
def test_a_wide_node_shows_its_hits_so_far_before_it_is_searched_to_the_end(
    text: str, expected: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A node of 10,000 children searched 1,000 at a time: the partial results show the hits found so far
    in it (kept in order as the node's listed children, `full`), each one a real match, in the order the
    complete result shows them; the first comes after one slice, not after the whole node."""
    monkeypatch.setattr(tree_filter, "PROGRESS_FIRST", 0.0)
    monkeypatch.setattr(tree_filter, "PROGRESS_EVERY", 0.0)
    monkeypatch.setattr(tree_filter, "_SLICE", 1_000)
    tree = flat_tree(10_000)
    wide = tree.node_for("x://w")
    assert wide is not None
    partials: list[FilterResult] = []
    final = compute_filter(tree, text, progress=partials.append)
    assert final.total == expected
    shown_final = [child for child in tree.children(wide) if final.covers(child)]
    during = [p for p in partials if wide in p.full and p.shown_children[wide] != shown_final]
    assert during, "no partial result while the wide node was searched"
    first = during[0].shown_children[wide]
    assert 0 < len(first) <= len([c for c in tree.children(wide)[:1_000] if text in c.segment])
    for partial in during:
        listed = list(partial.shown_children[wide])
        assert listed == shown_final[: len(listed)]  # real matches, in display order
        assert all(partial.is_whole(child) and partial.covers(child) for child in listed)
        assert partial.count_below(wide) == len(listed) and partial.total <= final.total
        assert partial.first is not None and partial.covers(partial.first)
        assert wide in partial.expand  # opened, so the hits are on screen


def test_partial_results_in_a_wide_node_show_what_they_count_also_its_name_matches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """20,000 children: `aa*` hold the text in their names only, `qq*` in their URIs. Every partial
    result shows under the node as many rows as it counts there, name matches included, and they never
    vanish from one partial to the next (found by review: the wide node's hits so far replaced them)."""
    monkeypatch.setattr(tree_filter, "PROGRESS_FIRST", 0.0)
    monkeypatch.setattr(tree_filter, "PROGRESS_EVERY", 0.0)
    monkeypatch.setattr(tree_filter, "_SLICE", 1_000)
    tree = UriTree()
    for start in range(0, 10_000, 1000):
        tree.add_resources(
            [ResourceEntry("a", f"x://w/aa{k}", f"qq {k}", {}) for k in range(start, start + 1000)]
            + [ResourceEntry("a", f"x://w/qq{k}", f"n {k}", {}) for k in range(start, start + 1000)]
        )
    wide = tree.node_for("x://w")
    assert wide is not None
    partials: list[FilterResult] = []
    lengths: list[int] = []

    def progress(partial: FilterResult) -> None:
        partials.append(partial)
        lengths.append(len(partial.counts))

    final = compute_filter(tree, "qq", progress=progress)
    assert final.total == 20_000 and partials
    before: set[UriNode] = set()
    for partial in [*partials, final]:
        rows = TreeRows(tree)
        rows.apply_filter(partial, 0)
        under = {row.node for row in rows if row.node.parent is wide}
        assert len(under) == partial.count_below(wide)
        assert before <= under
        before = under
    # What a partial result counts is its own: the scan, going on, changes none of them.
    assert [len(partial.counts) for partial in partials] == lengths


def test_partial_results_never_take_back_a_match_when_a_name_matches_inside_the_wide_node(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """60,000 children `000000qq` .. hold the text in their URIs; one, `005000z`, only in its name, found by
    the name pass after the first partial results listed the node's hits. Totals never go down and the
    rows under the node always add up to its count (found by review: the hits vanished, 16,383 -> 1)."""
    monkeypatch.setattr(tree_filter, "PROGRESS_FIRST", 0.0)
    monkeypatch.setattr(tree_filter, "PROGRESS_EVERY", 0.0)
    # The name pass must meet `005000z` while the node's slices are still searched: a check point of
    # 2,048 nodes, as when the bug was found (the passes take a step each in turn; with smaller name steps
    # it comes later, once every slice is searched).
    monkeypatch.setattr(tree_filter, "_ENTRY_CHECK_MASK", 2047)
    tree = UriTree()
    for start in range(0, 60_000, 1000):
        tree.add_resources(
            ResourceEntry("a", f"x://w/{k:06d}qq", "n", {}) for k in range(start, start + 1000)
        )
    tree.add_resources([ResourceEntry("a", "x://w/005000z", "qq", {})])
    wide = tree.node_for("x://w")
    assert wide is not None
    partials: list[FilterResult] = []
    final = compute_filter(tree, "qq", progress=partials.append)
    assert final.total == 60_001 and len(partials) > 1
    named = tree.node_for("x://w/005000z")
    listing = [partial for partial in partials if wide in partial.shown_children]
    assert listing  # the node's hits so far were listed in partial results ...
    assert all(named not in partial.matched for partial in listing)  # ... its names wait for the end
    assert named in final.matched
    totals = [partial.total for partial in [*partials, final]]
    assert totals == sorted(totals)
    for partial in [*partials, final]:
        rows = TreeRows(tree)
        rows.apply_filter(partial, 0)
        under = [row for row in rows if row.node.parent is wide]
        assert len(under) == partial.count_below(wide)


def test_a_partial_result_keeps_what_it_counted_while_the_scan_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """600 folders whose every child holds `qq`: the scan notes each as a `full` node as it goes; what a
    partial result lists and counts is a copy, which the scan going on does not change (found by review:
    its counts read the scan's own, growing, mapping)."""
    monkeypatch.setattr(tree_filter, "PROGRESS_FIRST", 0.0)
    monkeypatch.setattr(tree_filter, "PROGRESS_EVERY", 0.0)
    tree = UriTree()
    tree.add_resources(ResourceEntry("a", f"x://g{i}/qq{j}", "n", {}) for i in range(600) for j in range(3))
    partials: list[FilterResult] = []
    sizes: list[tuple[int, int, int]] = []

    def progress(partial: FilterResult) -> None:
        partials.append(partial)
        sizes.append((len(partial.counts), len(partial.shown_children), len(partial.full)))

    final = compute_filter(tree, "qq", progress=progress)
    assert final.total == 1_800 and len(partials) > 1
    assert [(len(p.counts), len(p.shown_children), len(p.full)) for p in partials] == sizes


def test_a_prefix_query_or_a_small_scan_reports_nothing_partial(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tree_filter, "PROGRESS_FIRST", 0.0)
    monkeypatch.setattr(tree_filter, "PROGRESS_EVERY", 0.0)
    tree = big_tree(tree_filter._ENTRY_CHECK_MASK)  # fewer entries than a check point, 5 folders
    partials: list[FilterResult] = []
    compute_filter(tree, "x://h/g1", progress=partials.append)
    compute_filter(tree, "item 1", progress=partials.append)
    assert partials == []


class TreeApp(App[None]):
    def __init__(self, tree: UriTree) -> None:
        super().__init__()
        self.uri_model = tree
        self.applied: list[ResourceTree.FilterApplied] = []

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults()

    def compose(self) -> ComposeResult:
        yield ResourceTree(self.uri_model)

    def on_resource_tree_filter_applied(self, message: ResourceTree.FilterApplied) -> None:
        self.applied.append(message)


def scan_in_thread_reporting_every_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every tree over ten items scanned in a thread, every check point of the scan reporting."""
    monkeypatch.setattr(tree_filter, "PROGRESS_FIRST", 0.0)
    monkeypatch.setattr(tree_filter, "PROGRESS_EVERY", 0.0)
    monkeypatch.setattr(ResourceTree, "SYNC_FILTER_LIMIT", 10)


def scan_in_thread_refiltering_soon(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every tree over ten items scanned in a thread, results through the event loop (no wait on the
    keystroke), and the filter run again 10 ms after pages."""
    monkeypatch.setattr(ResourceTree, "SYNC_FILTER_LIMIT", 10)
    monkeypatch.setattr(ResourceTree, "REFILTER_DELAY", 0.01)
    monkeypatch.setattr(filter_runs, "FIRST_WAIT_SECONDS", 0.0)


async def settled(pilot: Pilot[None], view: ResourceTree, rounds: int = 3000) -> None:
    """Let the app run until no scan is pending; at most `rounds` pauses of 20 ms, a hang guard that fails
    saying so. (It was 200 pauses, 4 s, in some tests, then went on as if settled: on a machine busy
    enough the scan's thread had not run yet, and a later assertion failed without saying why.)"""
    for _ in range(rounds):
        await pilot.pause(0.02)
        if not view.filter_pending:
            return
    raise AssertionError(f"the filter scan was still pending after {rounds} pauses")


async def test_the_view_shows_partial_results_while_the_scan_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    scan_in_thread_reporting_every_check(monkeypatch)
    tree = big_tree()
    app = TreeApp(tree)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ResourceTree)
        shown: list[FilterResult] = []
        apply_filter = view.rows.apply_filter

        def record(result: FilterResult, cursor: int) -> object:
            shown.append(result)
            return apply_filter(result, cursor)

        monkeypatch.setattr(view.rows, "apply_filter", record)
        assert view.set_filter("item 1") is None  # a scan in a worker
        await settled(pilot, view)
        await pilot.pause()
        assert not view.filter_pending
        assert [r.partial for r in shown][-1] is False and any(r.partial for r in shown)
        result = view.filter_result
        assert result is not None and not result.partial and result.total == 11_111
        # Only the complete result is announced; the cursor is on a match.
        assert [m.summary.total for m in app.applied if m.summary is not None] == [11_111]
        assert view.cursor_node in result.matched


async def test_a_scan_first_result_is_on_screen_when_the_keystroke_is_handled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The UI thread waits a moment for a scan's first result (here as long as it takes, so no clock
    decides): it is shown by the call that started the scan, in the frame that echoes the keystroke."""
    scan_in_thread_reporting_every_check(monkeypatch)
    monkeypatch.setattr(filter_runs, "FIRST_WAIT_SECONDS", 60.0)
    tree = big_tree()
    app = TreeApp(tree)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ResourceTree)
        assert view.set_filter("item 1") is None  # the scan goes on in its thread
        first = view.filter_result
        assert first is not None and first.partial and first.text == "item 1" and first.total > 0
        assert view.filter_pending
        await settled(pilot, view)
        await pilot.pause()
        result = view.filter_result
        assert result is not None and not result.partial and result.total == 11_111
        assert [m.summary.total for m in app.applied if m.summary is not None] == [11_111]


async def test_a_scan_over_within_the_wait_is_answered_by_the_call_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ResourceTree, "SYNC_FILTER_LIMIT", 10)
    monkeypatch.setattr(filter_runs, "FIRST_WAIT_SECONDS", 60.0)
    tree = big_tree(300)  # fewer entries than a check point: no partial result, only the final one
    app = TreeApp(tree)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ResourceTree)
        summary = view.set_filter("item 1")
        assert summary is not None and summary.total == 1 + 10 + 100
        assert not view.filter_pending
        result = view.filter_result
        assert result is not None and not result.partial and result.total == 111
        await pilot.pause()
        assert [m.summary.total for m in app.applied if m.summary is not None] == [111]


async def test_a_scan_that_fails_says_so_and_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ResourceTree, "SYNC_FILTER_LIMIT", 10)
    monkeypatch.setattr(filter_runs, "FIRST_WAIT_SECONDS", 0.0)

    def broken(*_args: object, **_kwargs: object) -> FilterResult:
        raise ValueError("a bug in the scan at x://\x1b[2Jevil\nline")  # quoting a server's string

    monkeypatch.setattr(filter_runs, "compute_filter", broken)
    app = TreeApp(big_tree(300))
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ResourceTree)
        assert view.set_filter("item 1") is None
        await settled(pilot, view)
        assert not view.filter_pending
        notes = [str(n.message) for n in app._notifications if "a bug in the scan" in str(n.message)]
        assert len(notes) == 1 and "\x1b" not in notes[0] and "\n" not in notes[0]


async def test_pages_after_a_failed_scan_run_neither_it_nor_the_previous_text_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scan_in_thread_refiltering_soon(monkeypatch)
    tree = big_tree(300)
    app = TreeApp(tree)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ResourceTree)

        view.set_filter("item 1")
        await settled(pilot, view)
        assert [m.summary.text for m in app.applied if m.summary is not None] == ["item 1"]

        def broken(*_args: object, **_kwargs: object) -> FilterResult:
            raise ValueError("a bug in the scan")

        monkeypatch.setattr(filter_runs, "compute_filter", broken)
        view.set_filter("item 12")
        await settled(pilot, view)
        tree.add_resources([ResourceEntry("a", "x://h/new/file1.txt", "item 1 new", {"uri": "", "name": ""})])
        view.model_changed()
        await pilot.pause(0.1)
        await pilot.pause()
        assert [m.summary.text for m in app.applied if m.summary is not None] == ["item 1"]
        assert sum("a bug in the scan" in str(n.message) for n in app._notifications) == 1


async def test_pages_merged_while_a_scan_runs_are_filtered_once_it_is_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import threading

    scan_in_thread_refiltering_soon(monkeypatch)
    release = threading.Event()
    real = filter_runs.compute_filter
    held = [True]

    def slow(*args: object, **kwargs: object) -> FilterResult:
        result = real(*args, **kwargs)  # type: ignore[arg-type]
        if held[0]:  # the first scan: over only after pages were merged, which it did not see
            held[0] = False
            release.wait(10)
        return result

    monkeypatch.setattr(filter_runs, "compute_filter", slow)
    tree = big_tree(300)
    app = TreeApp(tree)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ResourceTree)
        view.set_filter("item 1")
        assert view.filter_pending
        tree.add_resources([ResourceEntry("a", "x://h/new/file1.txt", "item 1 new", {"uri": "", "name": ""})])
        view.model_changed()
        await pilot.pause(0.1)  # the re-filter comes due while the scan runs
        release.set()
        for _ in range(200):
            await pilot.pause(0.02)
            result = view.filter_result
            if not view.filter_pending and result is not None and result.total == 112:
                break
        result = view.filter_result
        assert result is not None and result.total == 1 + 10 + 100 + 1  # the new entry is a match too


async def test_a_newer_filter_releases_a_scan_waiting_for_its_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    """A scan waits for the frame of each partial result; a newer filter (or the tree leaving) must not
    leave it waiting: it goes on, sees it is stale and ends (its collector pause with it)."""
    import threading

    scan_in_thread_reporting_every_check(monkeypatch)
    monkeypatch.setattr(filter_runs, "FIRST_WAIT_SECONDS", 0.0)
    monkeypatch.setattr(filter_runs, "PAINT_WAIT_SECONDS", 600.0)
    # The frame never comes: the partial result is dropped without setting `painted`.
    monkeypatch.setattr(filter_runs.FilterRuns, "_deliver_partial", lambda self, result, token, painted: None)
    monkeypatch.setattr(filter_runs._Handoff, "offer", lambda self, result, painted: False)
    before = set(threading.enumerate())
    app = TreeApp(big_tree())
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ResourceTree)
        view.set_filter("item 1")
        scans = [t for t in threading.enumerate() if t not in before and t.daemon]
        assert scans
        for _ in range(100):  # it reports a partial result, then waits for its frame
            await pilot.pause(0.01)
        view.set_filter("")
        for _ in range(200):
            await pilot.pause(0.02)
            if not any(t.is_alive() for t in scans):
                break
        assert not any(t.is_alive() for t in scans)
