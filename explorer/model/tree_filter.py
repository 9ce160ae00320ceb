"""Filtering the URI tree: which nodes stay visible for a filter text, and how many matches lie below each.

Core module (no `textual`, no `rich`). The `ResourceTree` widget renders a `FilterResult`; the headless
side may use it too.

Two kinds of query, chosen by `is_prefix_query`:

- **Prefix** (the text starts with a URI scheme, ``demo://docs/``, ``file:``, ``urn:``): the resources
  whose URI string-starts with the text, exactly as on the wire (case-sensitive, percent-encoding kept),
  and the templates that can expand to URIs under it (the text starts with it, or its literal part before
  the first ``{`` leads the text: `tree --prefix` keeps the same ones, `template_in_prefix`). Answered from
  the trie: `UriTree.nearest`, then the children of that node starting with the rest of the text
  (`UriTree.children_starting_with`: a bisection, plus a sort of the matches when the text has digits, as
  natural order does not keep `item5` and `item50` together); matching children are
  taken as whole subtrees with their stored counts, and templates are looked for only on the few nodes
  whose text leads the text (`UriTree.nodes_leading_to`). Cost O(depth + matching siblings), independent
  of the size of the tree: no scan.
- **Substring** (anything else): the case-insensitive (`str.lower`) substring of a resource's URI, name or
  title, or of a template's text (as the server wrote it, or as placed: ``a%20b`` finds ``t://x/a b{y}``,
  whose URIs all hold it) or name. A scan, in two passes over the public API. Pass 1 walks the
  nodes that have children or patterns and searches their children's segments in one C-level `find` over
  the joined segments: a node whose URI prefix contains the text matches with its whole subtree, which is
  not walked (``host0`` in ``bench://host0/...`` costs nothing below that node); a slice of a wide node
  whose segments mostly hold the text is tested segment by segment instead (`_DENSE`). Pass 2 reads every
  resource entry once, node by node (`UriTree.resource_nodes`), for names and titles, except below the
  subtrees pass 1 has matched whole by then (their URIs hold the text: names add nothing). The passes
  take turns a step at a time, so matches of either kind show early; the result lists pass 1's first. A
  partial result shows the hits so far in the wide node being searched as its listed children (`full`),
  so ``item`` in a node of 10^6 shows matches after one slice, not after the whole node. Cost
  about 0.5-1 µs per resource in CPython, so 0.5-1 s for 1,000,000 resources: run it off the UI thread,
  pass `cancelled` to
  abandon a stale scan, and `limit` to stop collecting after that many match records. `progress` is given
  what the scan found so far (``partial=True``) after `PROGRESS_FIRST` seconds and then at doubling
  intervals from `PROGRESS_EVERY`, so a view shows first matches within a frame or two of typing instead
  of after the whole scan (a few partial results per scan: each costs O(matches so far) to assemble).

Result model: ``visible`` holds every node to show (the root, matches, their ancestors, the tops of whole
matching subtrees, matched pattern nodes); ``whole`` the nodes whose entire subtree matches (their
descendants are shown without being listed). ``counts`` gives the number of matches (distinct URIs +
templates) in the subtree of each listed `UriNode` (for descendants of a whole node, the node's own stored
counts apply). ``full`` holds the nodes whose matching children, each such a whole subtree, are listed
only in ``shown_children`` (in display order), in no set: every child of a node (10^6 ``item`` leaves under
``i`` or under its own prefix), or a prefix's many matches among them (the 111,111 under ``item4``, from
`LISTED_FROM`); `FilterResult.is_whole`, `covers` and ``counts`` find them by bisection.
``shown_children`` gives a prefix's matching children in display order, so a view does not sort them
again.
``expand`` lists the ancestors of the first `expand` matches (top-down, without duplicates): the nodes a
view should open so those matches are on screen. For a prefix query ``first`` (where the cursor goes) is
what the text names most directly: a template whose text starts with it, else the first matching
subtree, else the template with the longest literal part; a substring scan takes URI and template
matches in walk order (by parent, depth first), then name-only matches.

Thread safety: the scan only reads the tree, and the order of each node as of the last page
(`UriTree.children_as_ordered`: it never brings a cache up to date, which could drop a child the writer
adds meanwhile). If pages are merged into the tree while a scan runs in
another thread, the result may miss or half-see those pages (a name read during a merge is skipped, never
an exception): compare ``result.version`` with ``tree.version`` and run again when it matters.
"""

from __future__ import annotations

import time
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import accumulate, chain, compress, repeat
from operator import attrgetter, contains
from typing import Literal

from explorer.model.listing import template_in_prefix
from explorer.model.uri_nodes import child_order_key, items_in, segment_range
from explorer.model.uri_segments import TAILS, join_segments, starts_with_scheme
from explorer.model.uri_tree import PatternNode, UriNode, UriTree

__all__ = [
    "FilterResult",
    "FilterSummary",
    "compute_filter",
    "is_prefix_query",
]

FilterMode = Literal["prefix", "substring"]
Node = UriNode | PatternNode

_segment = attrgetter("segment")
# A stale scan (a newer character was typed) runs on until its next call of `cancelled`, taking turns
# for the interpreter lock with the newer text's scan and the UI thread. One step of each pass lies
# between two calls: 0.27 ms of scanning at the median, 1.0-2.4 ms at most at 10^5 and 10^6 with these
# (with 128 and 2,048: 2.1 ms at the median and 7.5 ms at most at 10^5, and a stale scan went on for
# 8-12 ms of the next character's time once three threads shared the lock).
_CANCEL_EVERY = 16  # inner nodes visited between two calls of `cancelled`
_ENTRY_CHECK_MASK = 255  # resource nodes between two calls of `cancelled` in the name pass (minus one)
_SLICE = 8192  # children of a wide node searched between two calls of `cancelled`
LISTED_FROM = 1024
"""Matching children of one node from which a prefix result keeps them only in their order (a `full`
node's `shown_children`), not in sets: a set of the 111,111 children of 10^6 that start with `item4` cost
10 ms to fill, and a view asks about the few it shows (a bisection each)."""
PROGRESS_FIRST = 0.004
"""Seconds of scanning before the first partial result goes to `progress`: short, so that the first
matches are on screen within 50 ms of the keypress (scan, assembly, a frame)."""
PROGRESS_EVERY = 0.03
"""Seconds until the next partial result, doubling after each (a few per scan: each costs O(matches so
far) to assemble, and a frame)."""
_DENSE = 8  # a slice is tested segment by segment when more than one in this many segments has a hit
_DONE = object()  # what `next` gives for a pass that has ended
_child_count = attrgetter("child_count")
_pattern_count = attrgetter("pattern_count")


@dataclass(frozen=True, slots=True)
class FilterSummary:
    """What a status line says about a filter: how many matches, and whether the count is complete."""

    text: str
    mode: FilterMode
    total: int
    """Matches: distinct URIs plus templates (a lower bound when `truncated`)."""
    truncated: bool
    """The scan stopped after `limit` match records; counts cover only what it found."""
    elapsed: float
    """Seconds the computation took."""
    partial: bool = False
    """A scan still running reported what it found so far (more matches may come)."""


@dataclass(frozen=True, slots=True)
class FilterResult:
    """Visibility and match counts of one filter text over one version of a tree (see the module docs)."""

    text: str
    mode: FilterMode
    version: int
    """`UriTree.version` when the computation started."""
    visible: frozenset[Node]
    whole: frozenset[UriNode]
    counts: Mapping[UriNode, int]
    total: int
    expand: tuple[UriNode, ...]
    first: Node | None
    """The first match found (a node or a pattern; see `expand` for the order), or None without matches."""
    truncated: bool = False
    elapsed: float = 0.0
    cancelled: bool = False
    """The caller's `cancelled` said stop: the result is empty (nothing was assembled) and is dropped."""
    matched: frozenset[Node] = field(default_factory=frozenset)
    """The match records themselves (whole-subtree tops, name-matched nodes, matched patterns)."""
    partial: bool = False
    """What a substring scan still running found so far (given to `progress`; never returned)."""
    full: frozenset[UriNode] = frozenset()
    """Nodes whose matching children (each the top of a whole matching subtree) are listed only in
    `shown_children`, in neither `whole` nor `visible` (`is_whole`): every child of a node of 10^6 under a
    prefix that ends at it, or the many of them a prefix takes (`LISTED_FROM`)."""
    shown_children: Mapping[UriNode, Sequence[UriNode]] = field(default_factory=dict)
    """For a node whose visible children the filter found in display order (a prefix's last node, a `full`
    node), those children, so a view shows them as they are instead of sorting 10^5 of them again; a view
    of a newer tree (pages merged since) shows those of them still there, never a newcomer."""

    @property
    def summary(self) -> FilterSummary:
        return FilterSummary(self.text, self.mode, self.total, self.truncated, self.elapsed, self.partial)

    def count_below(self, node: UriNode) -> int | None:
        """The matches below `node` (None when none are counted there), as `UriNode.items_below` counts:
        `counts` includes the node's own resource when it matched, the line shown for it."""
        count = self.counts.get(node)
        if count is None:
            return None
        own = node.has_resource and (self.is_whole(node) or node in self.matched)
        return count - 1 if own else count

    def is_whole(self, node: Node) -> bool:
        """Whether `node` is the top of a whole matching subtree (listed in `whole`, or a child of `full`)."""
        if node in self.whole:
            return True
        parent = node.parent
        return isinstance(node, UriNode) and parent is not None and self._full_child(parent, node)

    def shows(self, node: Node) -> bool:
        """Whether `node` is listed as visible, or a child of a `full` node (descendants of whole
        subtrees are visible too, unlisted: `covers`)."""
        if node in self.visible:
            return True
        parent = node.parent
        return isinstance(node, UriNode) and parent is not None and self._full_child(parent, node)

    def _full_child(self, parent: UriNode, node: UriNode) -> bool:
        """Whether `node` is one of the children of `parent`, a `full` node, that the filter matched: a
        child that came with a later page is not (a view does not show it until the filter runs again)."""
        if parent not in self.full:
            return False
        kids = self.shown_children.get(parent)
        return True if kids is None else _listed_child(kids, node)

    def covers(self, node: Node) -> bool:
        """Whether a view shows `node`: listed, or at or below the top of a whole matching subtree."""
        if self.shows(node):
            return True
        parent = node.parent
        while parent is not None:
            if self.is_whole(parent):
                return True
            parent = parent.parent
        return False


def _listed_child(kids: Sequence[UriNode] | None, node: UriNode) -> bool:
    """Whether `node` is in `kids` (children in natural order, as a filter found them): a bisection."""
    if kids is None:
        return False
    key = child_order_key(node)
    at = bisect_left(kids, key, key=child_order_key)
    while at < len(kids) and child_order_key(kids[at]) == key:
        if kids[at] is node:
            return True
        at += 1
    return False


def is_prefix_query(text: str) -> bool:
    """True when `text` starts like a URI (a scheme and a colon): it is answered as a prefix query."""
    return starts_with_scheme(text)


def compute_filter(
    tree: UriTree,
    text: str,
    *,
    limit: int | None = None,
    expand: int = 500,
    cancelled: Callable[[], bool] | None = None,
    progress: Callable[[FilterResult], None] | None = None,
) -> FilterResult:
    """Filter `tree` by `text` (prefix or substring query, see `is_prefix_query`).

    `limit` caps the match records collected by a substring scan (a whole matching subtree is one record);
    past it the scan stops and the result is `truncated`. `expand` is how many matches (in tree order) get
    their ancestors listed in `FilterResult.expand`. `cancelled` is polled during a scan; when it returns
    True the scan stops and returns an empty result with ``cancelled=True`` (assembling what it found
    would hold up the scan that replaces it: 16 ms measured at 10^6). `progress` (substring scans
    only) is called from the scanning thread with partial results (see the module docstring). An empty
    text matches everything.
    """
    started = time.perf_counter()
    version = tree.version
    if not text:
        root = tree.root
        return FilterResult(
            text,
            "prefix",
            version,
            frozenset({root}),
            frozenset({root}),
            {root: root.resource_count + root.template_count},
            root.resource_count + root.template_count,
            (),
            None,
            elapsed=time.perf_counter() - started,
            matched=frozenset({root}),
        )
    if is_prefix_query(text):
        result = _prefix_filter(tree, text, version)
    else:
        result = _substring_filter(tree, text, version, limit, expand, cancelled, progress, started)
    return replace(result, elapsed=time.perf_counter() - started)


def _glues(node: UriNode) -> bool:
    """True when children follow `node` without a "/": the root and a top-level scheme node."""
    parent = node.parent
    if parent is None:
        return True
    if parent.parent is not None:
        return False
    # `join_segments` glues the second segment exactly when the first is a scheme (``x:`` or ``x://``).
    return join_segments([node.segment, "x"]) == node.segment + "x"


def _ancestors_top_down(node: UriNode) -> list[UriNode]:
    chain: list[UriNode] = []
    current: UriNode | None = node
    while current is not None:
        chain.append(current)
        current = current.parent
    chain.reverse()
    return chain


# ------------------------------------------------------------------------------------------ prefix


def _prefix_filter(tree: UriTree, text: str, version: int) -> FilterResult:
    """URIs that string-start with `text` and templates that can expand under it, from the trie (no scan)."""
    base = tree.nearest(text)
    if base.parent is not None and base.prefix == text:
        base = base.parent  # siblings such as ``wide2`` also start with ``.../wide``
    rest = text[len(base.prefix) :]
    whole: list[UriNode] = []
    full = False  # every child of `base` matches: they are not listed one by one (`FilterResult.full`)
    wanted: str | None = None  # what the matching children's segments start with
    if not base.child_count or not rest:
        pass
    elif _glues(base) or rest.startswith(TAILS):  # a ``?query`` / ``#fragment`` leaf is glued to `base`
        wanted = rest
    elif rest[0] == "/" and not rest.startswith(TAILS, 1):
        wanted = rest[1:]  # never a ?/# leaf: those start with ? or #
    listed: Sequence[UriNode] = ()  # many matching children: kept in their order only (`FilterResult.full`)
    if wanted:
        matches = tree.children_starting_with(base, wanted)
        full = len(matches) == base.child_count
        if not full and len(matches) >= LISTED_FROM:
            listed = matches
        elif not full:
            whole = list(matches)
    elif wanted == "":  # every child except the ?/# leaves, which follow `base` without the "/"
        kids = tree.children(base)
        cuts = sorted(segment_range(kids, tail) for tail in TAILS)
        full = all(lo == hi for lo, hi in cuts)
        start = 0
        for tail_lo, tail_hi in [] if full else cuts:
            whole.extend(kids[start:tail_lo])
            start = tail_hi
        if not full:
            whole.extend(kids[start:])
    in_order = listed or tuple(whole)  # the children of `base` that match, in display order
    path = _ancestors_top_down(base)
    below = base.items_below - base.pattern_count if full else items_in(listed or whole)
    others: list[UriNode] = []
    if base.parent is not None:
        # At the root a text such as ``s:/`` reaches into two branches: ``s:`` (walked above) and ``s://``.
        others = [top for top in tree.children_starting_with(tree.root, text) if top is not path[1]]
    # Templates that can expand to URIs under `text` (the rule of `tree --prefix`) hang on the nodes whose
    # text leads it: the path, and beside it a branch such as ``file:`` next to ``file://``.
    on_path = set(path)
    aside = [node for node in tree.nodes_leading_to(text) if node not in on_path]
    matched_patterns: list[PatternNode] = []
    own: dict[UriNode, int] = {}
    for node in [*path, *aside]:
        for pattern in tree.patterns(node):
            if template_in_prefix(pattern.uri_template, text):
                matched_patterns.append(pattern)
                own[node] = own.get(node, 0) + 1
    whole.extend(others)
    counts: dict[UriNode, int] = {}  # the path and the branches aside; a whole subtree's come from the tree
    running = below
    for node in reversed(path):
        running += own.get(node, 0)
        if node.parent is None:
            running += items_in(others)
        counts[node] = running
    total = running
    shown_aside: list[UriNode] = []  # the branches beside the path that hold matched templates
    for node in aside:
        found = own.get(node, 0)
        if not found:
            continue
        for ancestor in _ancestors_top_down(node):
            counts[ancestor] = counts.get(ancestor, 0) + found  # the root too: it is on the path
            if ancestor not in on_path and ancestor not in shown_aside:
                shown_aside.append(ancestor)
        total += found
    # The cursor goes to what the text names most directly: a template whose text starts with it (an
    # ancestor's patterns come before its children in display order), else the first subtree under it,
    # else the most specific template that can expand to it (the longest literal part: `demo://{+path}`
    # only when nothing else).
    literal = [pattern for pattern in matched_patterns if pattern.placed_text.startswith(text)]
    first: Node | None = None
    if literal:
        first = literal[0]
    elif full:
        first = tree.children(base)[0]
    elif listed:
        first = listed[0]
    elif whole:
        first = whole[0]
    elif matched_patterns:
        first = max(matched_patterns, key=lambda pattern: len(pattern.literal_prefix))
    shown_path = [node for node in path if counts[node] or node.parent is None]  # the root is always shown
    whole_set = frozenset(whole)  # fewer than `LISTED_FROM` children of `base`, and branches aside
    visible: frozenset[Node] = whole_set.union(shown_path, shown_aside, matched_patterns)
    expand_nodes = (*shown_path, *shown_aside) if total else ()
    full_set = frozenset([base]) if full or listed else frozenset()
    shown = {base: tree.children(base) if full else in_order} if full or in_order else {}
    return FilterResult(
        text,
        "prefix",
        version,
        visible,
        whole_set,
        _WholeCounts(counts, whole_set, shown if full_set else {}),
        total,
        expand_nodes,
        first,
        matched=whole_set.union(matched_patterns) if matched_patterns else whole_set,
        full=full_set,
        shown_children=shown,
    )


class _WholeCounts(Mapping[UriNode, int]):
    """A result's counts: the few nodes on the path kept, every whole subtree's read from its stored
    counts when asked (a dict of 10^6 matched children took 0.7 s to fill, and a view reads about 40)."""

    __slots__ = ("_kept", "_listed_under", "_whole")

    def __init__(
        self,
        kept: dict[UriNode, int],
        whole: frozenset[UriNode],
        listed_under: Mapping[UriNode, Sequence[UriNode]],
    ) -> None:
        self._kept = kept
        self._whole = whole
        self._listed_under = listed_under  # the `full` nodes, with their matching children in order

    def __getitem__(self, node: UriNode) -> int:
        found = self._kept.get(node)
        if found is not None:
            return found
        parent = node.parent
        if node in self._whole or (
            parent is not None and _listed_child(self._listed_under.get(parent), node)
        ):
            return node.resource_count + node.template_count
        raise KeyError(node)

    def _listed(self) -> Iterator[UriNode]:
        kept = self._kept
        children = chain.from_iterable(self._listed_under.values())
        return (node for node in chain(self._whole, children) if node not in kept)

    def __iter__(self) -> Iterator[UriNode]:
        return chain(self._kept, self._listed())

    def __len__(self) -> int:
        return len(self._kept) + sum(1 for _ in self._listed())


# --------------------------------------------------------------------------------------- substring


def _template_hit(needle: str, pattern: PatternNode) -> bool:
    """Whether a template's text contains `needle` (already lowered), as the server wrote it or as placed
    (`PatternNode.placed_text`: ``t://x/a b{y}`` holds ``a%20b`` as every URI it expands to does). Two
    texts for a template only: templates are few, and no resource pays for it."""
    raw = pattern.uri_template
    if needle in raw.lower():
        return True
    placed = pattern.placed_text
    return placed is not raw and needle in placed.lower()


def _name_hit(needle: str, name: object, raw: object) -> bool:
    """Whether a name, or the `title` in a raw listing item, contains `needle` (already lowered)."""
    if isinstance(name, str) and needle in name.lower():
        return True
    if isinstance(raw, dict):
        title = raw.get("title")
        if isinstance(title, str) and needle in title.lower():
            return True
    return False


def _segment_hits(kids: Sequence[UriNode], needle: str) -> list[int] | None:
    """Indexes of `kids` whose segment contains `needle`, found by C-level search over all segments at once.

    None when the batch cannot be trusted (lowering changed the text length); the caller checks one by one.
    """
    segments = list(map(_segment, kids))
    blob = "\x00".join(segments)
    low = blob.lower()
    if len(low) != len(blob):
        return None
    if low.count(needle) * _DENSE > len(segments):  # many hits: one C-level test per segment
        pieces = low.split("\x00")
        if len(pieces) == len(segments):  # else a segment holds a NUL itself: found by position below
            return list(compress(range(len(segments)), map(contains, pieces, repeat(needle))))
    starts = list(accumulate(map((1).__add__, map(len, segments)), initial=0))
    hits: list[int] = []
    at = low.find(needle)
    while at >= 0:
        index = bisect_right(starts, at) - 1
        hits.append(index)
        at = low.find(needle, starts[index + 1])  # next kid: one hit per kid is enough
    return hits


class _Records:
    """Match records: the match, the `UriNode` it counts for, its depth. Three lists rather than a tuple
    per record: a scan may collect 100,000 records, and tuples of nodes are objects the cyclic collector
    walks on every full collection while they live (50-150 ms measured at 10^5), lists of them are one."""

    __slots__ = ("depths", "holders", "items")

    def __init__(self) -> None:
        self.items: list[Node] = []
        self.holders: list[UriNode] = []
        self.depths: list[int] = []

    def __len__(self) -> int:
        return len(self.items)

    def add(self, item: Node, holder: UriNode, depth: int) -> None:
        self.items.append(item)
        self.holders.append(holder)
        self.depths.append(depth)

    def copy(self) -> _Records:
        copied = _Records()
        copied.items, copied.holders, copied.depths = list(self.items), list(self.holders), list(self.depths)
        return copied


def _substring_filter(
    tree: UriTree,
    text: str,
    version: int,
    limit: int | None,
    expand_limit: int,
    cancelled: Callable[[], bool] | None,
    progress: Callable[[FilterResult], None] | None = None,
    started: float = 0.0,
) -> FilterResult:
    """Two passes. 1: walk the nodes that have children or patterns; a child whose URI contains the needle
    (its segment, or the end of the parent's URI, a separator and its segment) matches with its whole
    subtree, which is not walked; patterns are checked where they sit. 2: one pass over every resource
    entry (`resources_under`, the tree's own fast iteration) for names and titles of URIs that do not
    contain the needle (those were counted in pass 1); the walk gives the node of each entry with it."""
    needle = text.lower()
    keep = max(0, len(needle) - 1)  # prefix characters a match may start in before the next segment
    batchable = not any(char in needle for char in "/?#\x00")
    records = _Records()
    own: dict[UriNode, int] = {}
    whole: list[UriNode] = []
    # Nodes all of whose children match (`i` in a node of 10^6 `item` leaves), with those children.
    full: dict[UriNode, Sequence[UriNode]] = {}
    truncated = False
    names_cut = False  # the name pass met a change made meanwhile and stopped: the result is incomplete
    stopped = False  # the caller's `cancelled` said stop
    cap = limit if limit is not None else -1
    stack: list[tuple[UriNode, str, int]] = [(tree.root, "", 0)]
    children = tree.children_as_ordered  # the scan may run in a thread while pages are merged
    patterns = tree.patterns
    named: dict[UriNode, None] = {}  # matched by name or title only, in walk order
    named_above: set[UriNode] = set()  # their ancestors
    listing: set[UriNode] = set()  # wide nodes whose hits so far partial results list (see `report`)
    report_at = [started + PROGRESS_FIRST, PROGRESS_EVERY]  # next report time, interval
    # Nodes below which every URI contains the needle (whole matches, `full` nodes): pass 2 skips them.
    covered: set[UriNode] = set()
    # The wide node pass 1 is searching a slice at a time, its children, their hits so far, its depth.
    searching: list[tuple[UriNode, list[UriNode], list[int], int]] = []

    def report() -> None:
        """Give `progress` what was found so far, when it is time to (see `PROGRESS_FIRST`)."""
        now = time.perf_counter()
        if progress is None or now < report_at[0]:
            return
        found, counted = records.copy(), dict(own)
        listed = dict(full)  # the scan goes on adding to its own
        shown_named: Iterable[UriNode] = named
        if searching and searching[0][2]:
            # The hits so far in the wide node being searched, as its listed children (`full`): one
            # record, not one per hit (10^6 children may match `item`; a record costs about 1 us here),
            # after pass 1's records like the node's own will be. A listed node shows its listed children
            # only: it is listed only if no name matched below it yet, and from then on (`listing`) the
            # names found below it wait for the complete result, so nothing shown ever vanishes and the
            # rows under the node always add up to its count.
            node, kids, hits, depth = searching[0]
            if node in listing or node not in named_above:
                listing.add(node)
                some = list(map(kids.__getitem__, hits))
                listed[node] = some
                found.add(some[0], node, depth)
                counted[node] = counted.get(node, 0) + items_in(some)
                if node in named_above:
                    shown_named = [found_ for found_ in named if not _below(found_, node)]
        found, counted = _with_named(found, counted, shown_named)
        if not found:  # nothing yet: look again at the next step
            return
        result = _assemble(tree, text, version, found, counted, whole, listed, expand_limit, truncated, False)
        progress(replace(result, partial=True, elapsed=now - started))
        report_at[0] = time.perf_counter() + report_at[1]
        report_at[1] *= 2

    def walk() -> Iterator[None]:
        """Pass 1, a step at a time (`_CANCEL_EVERY` nodes)."""
        nonlocal truncated
        visited = 0
        while stack:
            node, tail, depth = stack.pop()
            visited += 1
            if visited % _CANCEL_EVERY == 0:
                yield
            if node.pattern_count:
                try:
                    node_patterns = patterns(node)
                except RuntimeError:  # a page added one while they were sorted: skip them this time
                    node_patterns = []
                for pattern in node_patterns:
                    try:
                        hit = _template_hit(needle, pattern) or any(
                            _name_hit(needle, entry.name, entry.raw)
                            for entry in list(pattern.templates.values())
                        )
                    except RuntimeError:  # merged into by another thread mid-read: skip it
                        hit = False
                    if hit:
                        records.add(pattern, node, depth)
                        own[node] = own.get(node, 0) + 1
            ordered = children(node)
            if not ordered:
                continue
            # A wide node's blocks are copied flat as they are searched (one copy beats an index per
            # hit, and copying 10^6 at once would hold up the first results).
            kids = ordered if isinstance(ordered, list) else []
            glued = _glues(node)
            child_depth = depth + 1
            hits: list[int] = []
            if len(ordered) > _SLICE:
                searching.append((node, kids, hits, depth))
            # A wide node is searched a slice at a time, with a step between slices: one C-level search
            # over a million segments would hold the interpreter lock for tens of milliseconds at once.
            for start in range(0, len(ordered), _SLICE):
                if start:
                    yield
                part = ordered[start : start + _SLICE]
                if kids is not ordered:
                    kids.extend(part)
                found = _segment_hits(part, needle) if batchable and not glued else None
                if found is None:
                    found = []
                    for index, kid in enumerate(part):
                        segment = kid.segment
                        sep = "" if glued or segment.startswith(TAILS) else "/"
                        if needle in tail + sep + segment.lower():
                            found.append(index)
                hits.extend(found if not start else [index + start for index in found])
            searching.clear()
            if len(hits) == len(kids):  # every child: one record for the node, not one per child
                full[node] = kids
                covered.add(node)
                records.add(kids[0], node, depth)
                own[node] = own.get(node, 0) + node.items_below - node.pattern_count
                if cap >= 0 and len(records) >= cap:
                    truncated = True
                    return
                continue
            for index in hits:
                kid = kids[index]
                records.add(kid, kid, child_depth)
                whole.append(kid)
                own[kid] = kid.resource_count + kid.template_count
            # Children to walk: those with children, or with patterns (only looked for when there are any).
            # The hits' sets a slice at a time: for 10^6 hits one C-level call held the interpreter lock
            # (and so the UI thread) for 50-140 ms.
            pushed: list[tuple[UriNode, str, int]] = []
            for start in range(0, len(kids), _SLICE):
                if start:
                    yield
                part = kids[start : start + _SLICE]
                first, end = bisect_left(hits, start), bisect_left(hits, start + _SLICE)
                covered.update(map(kids.__getitem__, hits[first:end]))
                matched = set(hits[first:end])
                flags: Iterable[int] = map(_child_count, part)
                if node.template_count > node.pattern_count:
                    flags = map(max, flags, map(_pattern_count, part))
                for index in compress(range(start, start + len(part)), flags):
                    if index in matched:
                        continue
                    kid = kids[index]
                    segment = kid.segment
                    sep = "" if glued or segment.startswith(TAILS) else "/"
                    probe = tail + sep + segment.lower()
                    pushed.append((kid, probe[-keep:] if keep else "", child_depth))
            if cap >= 0 and len(records) >= cap:
                truncated = True
                return
            pushed.reverse()
            stack.extend(pushed)

    def read_names() -> Iterator[None]:
        """Pass 2, a step at a time (`_ENTRY_CHECK_MASK + 1` nodes)."""
        nonlocal truncated, names_cut
        try:
            for count, node in enumerate(tree.resource_nodes(covered)):
                if count & _ENTRY_CHECK_MASK == 0 and count:
                    yield
                for entry in node.entries:
                    if needle not in entry.name.lower():
                        title = entry.title  # no dict is built for the common entry without a title
                        if not (title is not None and needle in title.lower()):
                            continue
                    if needle not in entry.uri.lower():  # else counted in pass 1 with its node
                        named[node] = None
                        parent = node.parent
                        while parent is not None and parent not in named_above:
                            named_above.add(parent)
                            parent = parent.parent
                    break
                if cap >= 0 and len(records) + len(named) >= cap:
                    truncated = True
                    return
        except (RuntimeError, KeyError):  # a page merged or a server dropped mid-read: keep what was found
            names_cut = True

    # The passes take turns, a step each: a text that only names match (`item 4`) shows its first
    # results after one step of the name pass, not after a walk of every folder.
    passes = [walk(), read_names()]
    while passes and not truncated:
        for step in list(passes):
            if next(step, _DONE) is _DONE:
                passes.remove(step)
        if not passes or truncated:  # done: the complete result follows, no partial one
            break
        stopped = cancelled is not None and cancelled()
        if stopped:
            break
        report()
    # Stale (also during the last step, or at the limit): an empty result, nothing assembled for it.
    if stopped or (cancelled is not None and cancelled()):
        return _assemble(tree, text, version, _Records(), {}, [], {}, 0, truncated, True)
    truncated = truncated or names_cut
    records, own = _with_named(records, own, named)
    return _assemble(tree, text, version, records, own, whole, full, expand_limit, truncated, False)


def _below(node: UriNode, top: UriNode) -> bool:
    """Whether `node` lies below `top`."""
    parent = node.parent
    while parent is not None:
        if parent is top:
            return True
        parent = parent.parent
    return False


def _with_named(
    records: _Records, own: dict[UriNode, int], named: Iterable[UriNode]
) -> tuple[_Records, dict[UriNode, int]]:
    """Add the nodes matched by name (pass 2) to the records and their own counts (in place)."""
    for found in named:  # one per URI; its own patterns may be counted already
        records.add(found, found, found.depth)
        own[found] = own.get(found, 0) + 1
    return records, own


def _assemble(
    tree: UriTree,
    text: str,
    version: int,
    records: _Records,
    own: dict[UriNode, int],
    whole: list[UriNode],
    full: Mapping[UriNode, Sequence[UriNode]],
    expand_limit: int,
    truncated: bool,
    stopped: bool,
) -> FilterResult:
    """The result of a substring scan from its match records (a record of a `full` node holds its first
    child as the item and the node as the holder: the node is opened, its children are not listed)."""
    # Ancestors of every record become visible; counts flow up from the deepest level.
    visible: set[Node] = {tree.root}  # the root is always shown
    depth_of: dict[UriNode, int] = {}
    for item, holder, depth in zip(records.items, records.holders, records.depths, strict=True):
        visible.add(item)
        walker: UriNode | None = holder
        level = depth
        while walker is not None and walker not in depth_of:
            depth_of[walker] = level
            visible.add(walker)
            walker = walker.parent
            level -= 1
    counts: dict[UriNode, int] = dict.fromkeys(depth_of, 0)
    for node, value in own.items():
        counts[node] = value
    for deep in sorted(depth_of, key=depth_of.__getitem__, reverse=True):
        parent = deep.parent
        if parent is not None:
            counts[parent] += counts[deep]
    total = counts.get(tree.root, 0)
    opened: dict[UriNode, None] = {}
    for item, holder in zip(records.items[:expand_limit], records.holders[:expand_limit], strict=True):
        start = holder if isinstance(item, PatternNode) or item is not holder else holder.parent
        for ancestor in _ancestors_top_down(start) if start is not None else ():
            opened[ancestor] = None
    ordered = sorted(opened, key=depth_of.__getitem__)
    whole_set = frozenset(whole)
    listed = dict(full)  # a running scan goes on adding to its own
    full_set = frozenset(listed)
    return FilterResult(
        text,
        "substring",
        version,
        frozenset(visible),
        whole_set,
        _WholeCounts(counts, whole_set, listed) if full_set else counts,
        total,
        tuple(ordered),
        records.items[0] if records.items else None,
        truncated=truncated,
        cancelled=stopped,
        matched=frozenset(records.items),
        full=full_set,
        shown_children=listed,
    )
