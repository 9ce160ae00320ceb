"""The nodes of the URI prefix tree (`explorer.model.uri_tree`): a segment node and a template's pattern node.

Why the storage looks the way it does: a million-resource tree is mostly leaves, so a leaf holds its
resource entry itself (a dict only when two servers list the same URI) and nothing else; everything a
node needs only once it has children (`NodeKids`: children, patterns, the sorted caches, subtree counts
and the server mask) lives in one object that leaves never get. `UriTree` is the only writer of that
storage (the underscore attributes are its, in this module's friend `uri_tree`); everyone else reads
through the properties.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from itertools import compress, count, islice, repeat
from operator import attrgetter, is_not, le
from types import MappingProxyType
from typing import Any, NamedTuple, TypeAlias

from explorer.model.entries import ResourceEntry, TemplateEntry
from explorer.model.natural import (
    code_length,
    has_digits,
    has_leading_zero,
    length_code,
    natural_key,
    natural_keys,
    natural_sort_keys,
    number_keys,
    number_span,
    prefix_head,
)
from explorer.model.natural_order import WIDE, ChildSeq, NaturalOrder
from explorer.model.sharded import ShardedDict
from explorer.model.uri_segments import (
    TAILS,
    is_scheme_segment,
    template_literal_prefix,
    template_placed_text,
)

__all__ = [
    "Children",
    "Counts",
    "NodeKids",
    "PatternNode",
    "UriNode",
    "child_order_key",
    "items_in",
    "leaf_entries",
    "natural_sorted",
    "segment_range",
    "sorted_entries",
    "sorted_patterns",
    "starting_with",
]

_EMPTY: Mapping[str, Any] = MappingProxyType({})
SHARD_FROM = 1 << 12  # children from which a node's children dict is split (`sharded`) while a view may
# watch (`keep_order`): growing one dict of 700,000 children is 25 to 120 ms in one step; the split itself
# about 1 ms at this size
Children: TypeAlias = dict[str, "UriNode"] | ShardedDict[str, "UriNode"]

_MERGE_ONE_BY_ONE = 64  # at most this many new children are inserted into a sorted cache one by one
_segment = attrgetter("segment")
# Fewer nodes than this sort one key at a time: the keys of names that repeat from folder to folder
# (`item0` .. `item99`) come from `natural_key`'s cache, cheaper than computing them all in bulk.
_BULK_FROM = 1024
_CHECK_CHUNK = 1 << 14  # keys made at a time to see whether many nodes are in natural order already
_FIRST_LOOK = 64  # nodes whose order is checked before the first chunk (see `_in_natural_order`)
# From this many nodes the sort takes the smaller keys of `natural_sort_keys` (24 MB less at 10^6), which
# a sort compares 15% slower than str keys: below it, a few MB at most are not worth the time.
_SMALL_KEYS_FROM = 1 << 16
_kids_of = attrgetter("_kids")
_res_of = attrgetter("_res")
_FIRST_RUN = 64  # nodes `leaf_entries` looks at first: a run of leaves ends early in a tree of folders


def child_order_key(node: UriNode | PatternNode) -> str:
    """The key `UriTree.children` sorts by: a view bisects a sorted child list (or a filtered part of it)."""
    return natural_key(node.segment)


def natural_sorted(nodes: Iterable[UriNode]) -> list[UriNode]:
    """`sorted(nodes, key=child_order_key)` with the keys computed in bulk: ints when every segment is a
    head, a number and a tail shared by all (`number_keys`), else `natural_keys` (or the smaller
    `natural_sort_keys` for very many). 10^6 children out of order: 1.3 s one key at a time, 0.85 s with
    bulk keys, 0.45 s with ints; the same order (stable, keys that compare alike)."""
    items = list(nodes)
    if len(items) < _BULK_FROM:
        items.sort(key=child_order_key)
        return items
    segments = list(map(_segment, items))
    number = number_span(segments)  # the check and the sort both need it: made once (0.13 s at 10^6)
    if _in_natural_order(segments, number):
        return items
    keys: list[Any] | None = None if number is None else number_keys(segments, number)  # int, str or bytes
    if keys is None:
        keys = natural_sort_keys(segments) if len(items) >= _SMALL_KEYS_FROM else natural_keys(segments)
    del segments
    # `list.sort` asks for the keys one by one in list order, before it compares (CPython's `list_sort`,
    # 3.11 to 3.14; the tests compare with a plain sort): the precomputed keys are handed out in that
    # order, by `next(keys, node)`, a C-level call (a lambda's frame each was 40 ms more at 10^6).
    # Sorting the indices instead made 10^6 int objects and two more lists (44 MB at 10^6).
    items.sort(key=partial(next, iter(keys)))
    return items


def _in_natural_order(segments: list[str], number: slice | None) -> bool:
    """Whether `segments` are in natural order already (a server that lists by id, as many do): checked
    `_CHECK_CHUNK` keys at a time, so the keys of all of them are never alive at once (about 70 MB at
    10^6, the peak of a CLI listing of that many children of one node). The first `_FIRST_LOOK` come
    first on their own: children in another order are nearly always found out there, for some 50 us
    (a whole first chunk cost 2.4 ms more than the sort of 4,095 scrambled children, in the TUI after a
    page). The first chunk out of order ends the check: a list out of order only at its end pays for all
    of its keys twice. Numbered names (`number` from `number_span`) are checked by their ints, the rest by
    their keys."""
    first = natural_keys(segments[:_FIRST_LOOK])
    if not all(map(le, first, islice(first, 1, None))):
        return False
    last: list[Any] = []
    for start in range(0, len(segments), _CHECK_CHUNK):
        chunk = segments[start : start + _CHECK_CHUNK]
        numbers = None if number is None else number_keys(chunk, number)
        if numbers is None and number is not None:  # a name without a plain number: keys for all
            number, last = None, natural_keys(segments[start - 1 : start]) if start else []
        keys: list[Any] = last + (numbers if numbers is not None else natural_keys(chunk))
        if not all(map(le, keys, islice(keys, 1, None))):
            return False
        last = keys[-1:]
    return True


def _merged(cached: list[UriNode], pending: list[UriNode]) -> list[UriNode]:
    """`cached` (in natural order) with `pending` merged in, as `extend` then `sort` would order them.

    Why not sort again: a sort computes every child's key (a regex pass each), 1.5 s for 10^6 children,
    and a page merged below an open node asks for this order at every flush while a listing runs. Here
    only the new children's keys are computed, plus about 20 probed ones each (bisection), and the rest
    is copied by C-level slices: about 30 ms for a page of 1,000 into 10^6.
    """
    merged: list[UriNode] = []
    start = 0
    for child in natural_sorted(pending):
        at = bisect_right(cached, child_order_key(child), start, key=child_order_key)
        merged.extend(cached[start:at])
        merged.append(child)
        start = at
    merged.extend(cached[start:])
    return merged


def items_in(nodes: Sequence[UriNode]) -> int:
    """The resources and templates in the subtrees of `nodes` (whole subtrees a filter matched): a leaf
    holds one resource, so the 10^6 leaves of a wide node are counted by one C-level `count`."""
    kids = list(map(_kids_of, nodes))
    leaves = kids.count(None)
    if leaves == len(kids):
        return leaves
    return leaves + sum(node.resource_count + node.template_count for node in compress(nodes, kids))


def leaf_entries(nodes: Sequence[UriNode], start: int, limit: int) -> list[ResourceEntry]:
    """The resources of the run of `nodes` from `start` on that are leaves listed by one server (at most
    `limit`, up to the first node with children or a URI two servers list): the renderers write such a
    run in bulk, most of a big tree. C-level passes over slices that grow from `_FIRST_RUN`, so a run that
    ends at once costs little."""
    found: list[ResourceEntry] = []
    size = _FIRST_RUN
    while len(found) < limit:
        at = start + len(found)
        chunk = nodes[at : at + min(size, limit - len(found))]
        if not chunk:
            break
        leaves = next(compress(count(), map(_kids_of, chunk)), len(chunk))  # the first with children
        entries = list(map(_res_of, chunk[:leaves] if leaves < len(chunk) else chunk))
        shared = next(compress(count(), map(is_not, map(type, entries), repeat(ResourceEntry))), None)
        if shared is not None:  # a dict of entries: a URI two servers list
            found += entries[:shared]
            break
        found += entries
        if leaves < len(chunk):
            break
        size *= 4
    return found


def _span(
    nodes: Sequence[UriNode], start: str, key: Callable[[UriNode], str], lo: int = 0, hi: int | None = None
) -> tuple[int, int]:
    """The index range, within `lo:hi` of `nodes` (sorted by `key`), of the nodes whose key starts with
    `start`: from `start` up to the first string past all its extensions."""
    end = len(nodes) if hi is None else hi
    first = bisect_left(nodes, start, lo, end, key=key)
    if not start:
        return first, end
    last = ord(start[-1])
    if last < 0x10FFFF:
        return first, bisect_left(nodes, start[:-1] + chr(last + 1), first, end, key=key)
    stop = first
    while stop < end and key(nodes[stop]).startswith(start):
        stop += 1
    return first, stop


def segment_range(nodes: Sequence[UriNode], text: str) -> tuple[int, int]:
    """The index range of `nodes` (in natural order) whose segment string-starts with `text`, which must
    hold no digit: then string order and natural order agree on which side of `text` a segment falls, so
    those segments sit together and a bisection by the plain segment finds them."""
    return _span(nodes, text, _segment)


def starting_with(nodes: Sequence[UriNode], text: str) -> Sequence[UriNode]:
    """The nodes of `nodes` (in natural order) whose segment string-starts with `text`, in that order
    (`nodes` itself when all of them do, never to be mutated).

    Without digits in `text` they sit together (`segment_range`). With digits they may not: `item5` takes
    `item5` and `item50` but not `item6`, which sorts between them. Their keys do sit together per length
    of the digit run that `text` ends in (`item5`: one digit, then two, ...), so one bisection per length
    the children have there finds them, O(lengths * log n + k), no sort and no second index.

    Leading zeros: a text that differs only in them can share a key range (`item04` and `item4`). When
    neither `text` nor any key of a wide node's order (`ChildSeq.tie_broken`) has them, every node in the
    ranges matches and they are taken by C-level slices; otherwise each segment is checked (a text such as
    `item0` then checks every `item` child: 0.1 s for 10^6, against 0.1 ms from its one range).
    """
    if not has_digits(text):
        lo, hi = segment_range(nodes, text)
        return nodes if lo == 0 and hi == len(nodes) else nodes[lo:hi]  # all of them: no copy of 10^6
    exact = isinstance(nodes, ChildSeq) and not nodes.tie_broken and not has_leading_zero(text)
    head, run = prefix_head(text)
    spans: list[tuple[int, int]]
    if run is None:  # `text` ends with a non-digit: one range of keys
        spans = [_span(nodes, head, child_order_key)]
    elif exact and not run:  # the run is one zero and nothing has leading zeros: keys go on "10"
        spans = [_span(nodes, head + length_code(1) + "0", child_order_key)]
    else:  # keys go on with a length code ("1" to "9..."), then digits
        lo = bisect_left(nodes, head + "1", key=child_order_key)
        hi = bisect_left(nodes, head + ":", lo, key=child_order_key)
        if lo == hi:
            return []
        if not run:  # the run is all zeros: any length may follow, check each
            spans = [(lo, hi)]
        else:
            longest = code_length(child_order_key(nodes[hi - 1]), len(head))
            spans = [
                _span(nodes, head + length_code(size) + run, child_order_key, lo, hi)
                for size in range(len(run), longest + 1)
            ]
    found: list[UriNode] = []
    for first, end in spans:
        part = nodes[first:end]
        if exact:
            found.extend(part)
        else:
            found.extend(compress(part, map(str.startswith, map(_segment, part), repeat(text))))
    if exact and len(found) == len(nodes):
        return nodes
    return found


class Counts(NamedTuple):
    """Distinct URIs and distinct template texts."""

    resources: int
    templates: int

    @property
    def total(self) -> int:
        return self.resources + self.templates


class NodeKids:
    """Everything a node needs only once it has children: kept out of leaves to keep leaves small."""

    __slots__ = (
        "below_res",
        "below_tpl",
        "children",
        "mask",
        "order",
        "patterns",
        "pending",
        "sorted",
    )

    def __init__(self) -> None:
        self.children: Children = {}  # sharded from `SHARD_FROM` children on
        self.patterns: dict[str, PatternNode] | None = None  # by template text
        self.sorted: list[UriNode] | None = None  # natural order; cache, replaced (never mutated) when stale
        self.pending: list[UriNode] | None = None  # children added since `sorted` was built (or `order` fed)
        self.order: NaturalOrder[UriNode] | None = None  # from `WIDE` children on, instead of `sorted`
        self.below_res = 0  # distinct URIs in descendants
        self.below_tpl = 0  # pattern nodes in the subtree (own patterns included)
        self.mask = 0  # servers (bits) of the descendants and the patterns; not of the node itself

    def children_as_ordered(self) -> Sequence[UriNode]:
        """The order as it was last brought up to date, for a reader in another thread: it changes nothing
        (folding newcomers in there could lose a child the writer adds meanwhile). Children added since
        (a page being merged) are missing; a node never ordered yet is sorted into a list kept by no one.
        """
        if self.order is not None:
            return self.order.snapshot()
        cached = self.sorted
        return cached if cached is not None else natural_sorted(list(self.children.values()))

    def sorted_children(self) -> Sequence[UriNode]:
        """In natural order, never mutated once handed out. A wide node's order is kept page by page
        (`order`); otherwise a cache: a few new children are inserted into a copy, more are merged."""
        if self.order is not None:
            return self.order.snapshot()
        cached = self.sorted
        pending = self.pending
        if cached is None:
            cached = natural_sorted(self.children.values())
        elif pending:
            cached = list(cached)
            if len(pending) <= _MERGE_ONE_BY_ONE:
                for child in pending:
                    insort(cached, child, key=child_order_key)
            elif len(pending) * 8 < len(cached):
                cached = _merged(cached, pending)
            else:
                cached = natural_sorted([*cached, *pending])
        else:
            return cached
        self.sorted = cached
        self.pending = None
        return cached

    def add_child(self, child: UriNode, keep_order: bool) -> None:
        """Store a new child. With `keep_order` the caller has `feed_order` called once the page is in.

        `keep_order` (a view may open any node at any time): a wide node keeps its order page by page
        (`NaturalOrder`), others have their sorted list brought up to date after each page, so no
        keystroke pays for sorting what a listing brought. Without it (a CLI run, which reads the order
        once at the end) the order is sorted when asked, and the children stay in one dict: no frame waits
        for its growth there, and its lookups are C-level, a `ShardedDict`'s are Python calls (half a
        second in a CLI listing of 10^6 children of one node)."""
        children = self.children
        children[child.segment] = child
        if keep_order and type(children) is dict and len(children) >= SHARD_FROM:
            self.children = ShardedDict(children.items())
        if self.order is None and keep_order and len(self.children) >= WIDE:  # wide from now on
            nodes = list(self.children.values())
            self.order = NaturalOrder(nodes, natural_keys(list(map(_segment, nodes))))
            self.sorted = self.pending = None
        elif self.order is not None or self.sorted is not None:  # merged into the order or the cache later
            if self.pending is None:
                self.pending = [child]
            else:
                self.pending.append(child)

    def feed_order(self) -> None:
        """Bring the order up to date with the children added since the last call: into a wide node's
        order (keys computed in bulk), or the sorted list made or merged (`sorted_children`)."""
        if self.order is None:
            self.sorted_children()
            return
        pending = self.pending
        self.pending = None
        if pending:
            self.order.insert(pending, natural_keys(list(map(_segment, pending))))

    def drop_child(self, child: UriNode) -> None:
        """Forget a child (emptied, pruned) in the children and in the order or the cache."""
        del self.children[child.segment]
        if self.order is not None:
            self.feed_order()
            if not self.order.remove(child, natural_key(child.segment)):  # not where its key says: rebuild
                nodes = list(self.children.values())
                self.order = NaturalOrder(nodes, natural_keys(list(map(_segment, nodes))))
        else:
            self.sorted = self.pending = None


class UriNode:
    """One segment of the trie; holds the resources whose URI is exactly this node's prefix."""

    __slots__ = ("_kids", "_res", "parent", "segment")

    def __init__(self, segment: str, parent: UriNode | None) -> None:
        self.segment = segment
        self.parent = parent
        # One server is the common case: store the entry itself, a dict only on a collision.
        self._res: ResourceEntry | dict[str, ResourceEntry] | None = None
        self._kids: NodeKids | None = None

    @property
    def entries(self) -> list[ResourceEntry]:
        """The node's own resources, one per server, ordered by server name (cheaper than `resources`)."""
        return sorted_entries(self)

    @property
    def first_entry(self) -> ResourceEntry | None:
        """The node's own resource from the server that listed it first (None without one)."""
        res = self._res
        if res is None or isinstance(res, ResourceEntry):
            return res
        return next(iter(res.values()))

    @property
    def is_leaf(self) -> bool:
        """No children and no patterns (a leaf always holds a resource: empty nodes are pruned)."""
        return self._kids is None

    def glues_children(self) -> bool:
        """True for the root and a top-level scheme node: a child's text follows theirs without a "/"."""
        return self._glues_children()

    def __repr__(self) -> str:
        return f"UriNode({self.prefix!r}, resources={self.resource_count}, templates={self.template_count})"

    @property
    def prefix(self) -> str:
        """Exact URI text up to this segment: a stored URI when there is one, else built up the chain."""
        chain: list[UriNode] = []
        node: UriNode = self
        base = ""
        while node.parent is not None:
            uri = node._own_uri()
            if uri is not None:
                base = uri
                break
            chain.append(node)
            node = node.parent
        if not chain:
            return base
        parts = [base]
        for child in reversed(chain):
            parent = child.parent
            assert parent is not None
            if not (parent._glues_children() or child.segment.startswith(TAILS)):
                parts.append("/")
            parts.append(child.segment)
        return "".join(parts)

    def _own_uri(self) -> str | None:
        res = self._res
        if res is None:
            return None
        if isinstance(res, ResourceEntry):
            return res.uri
        return next(iter(res.values())).uri

    def _glues_children(self) -> bool:
        """True for the root and a top-level scheme node: their children follow without a "/"."""
        parent = self.parent
        return parent is None or (parent.parent is None and is_scheme_segment(self.segment))

    @property
    def depth(self) -> int:
        depth = 0
        node = self.parent
        while node is not None:
            depth += 1
            node = node.parent
        return depth

    @property
    def is_root(self) -> bool:
        return self.parent is None

    @property
    def resources(self) -> Mapping[str, ResourceEntry]:
        """server -> entry for the URI equal to this prefix (read-only)."""
        res = self._res
        if res is None:
            return _EMPTY
        if isinstance(res, ResourceEntry):
            return MappingProxyType({res.server: res})
        return MappingProxyType(res)

    @property
    def has_resource(self) -> bool:
        return self._res is not None

    @property
    def resource_count(self) -> int:
        """Distinct URIs in the subtree, this node included."""
        own = 0 if self._res is None else 1
        return own if self._kids is None else own + self._kids.below_res

    @property
    def template_count(self) -> int:
        """Distinct templates (pattern nodes) in the subtree."""
        return 0 if self._kids is None else self._kids.below_tpl

    @property
    def items_below(self) -> int:
        """The count shown next to a prefix, everywhere (tree rows, `tree` text and JSON, the details pane):
        the resources and templates below it, not the node's own resource, which its line already is."""
        return self.resource_count + self.template_count - (0 if self._res is None else 1)

    @property
    def child_count(self) -> int:
        return 0 if self._kids is None else len(self._kids.children)

    @property
    def pattern_count(self) -> int:
        kids = self._kids
        return 0 if kids is None or kids.patterns is None else len(kids.patterns)

    def child(self, segment: str) -> UriNode | None:
        return None if self._kids is None else self._kids.children.get(segment)

    def pattern(self, label: str) -> PatternNode | None:
        """The pattern child labelled `label`; of two with one label (see `PatternNode`), the first."""
        return next((pattern for pattern in sorted_patterns(self) if pattern.label == label), None)

    def pattern_of(self, uri_template: str) -> PatternNode | None:
        """The pattern child of this template text (a node's patterns are keyed by text)."""
        kids = self._kids
        return None if kids is None or kids.patterns is None else kids.patterns.get(uri_template)


class PatternNode:
    """A template shown as a child of a concrete node; one node per template text, any number of servers.

    ``uri_template`` and ``label`` are the server's text; ``literal_prefix`` and ``placed_text`` write the
    literal prefix as expansions do (`uri_segments.template_literal_prefix`): what prefixes are compared
    with. Two templates may then sit under one node with one label (``a b/{x}`` and ``a%20b/{x}``): a
    node's patterns are keyed by template text.
    """

    __slots__ = ("_tpl", "label", "literal_prefix", "parent", "placed_text", "uri_template")

    def __init__(self, label: str, parent: UriNode, uri_template: str) -> None:
        self.label = label
        self.parent = parent
        self.uri_template = uri_template
        self.literal_prefix = template_literal_prefix(uri_template)
        self.placed_text = template_placed_text(uri_template)
        self._tpl: dict[str, TemplateEntry] = {}

    def __repr__(self) -> str:
        return f"PatternNode({self.uri_template!r}, servers={sorted(self._tpl)})"

    @property
    def segment(self) -> str:
        """Same name as on `UriNode`, so renderers can treat both alike."""
        return self.label

    @property
    def depth(self) -> int:
        return self.parent.depth + 1

    @property
    def templates(self) -> Mapping[str, TemplateEntry]:
        """server -> entry (read-only)."""
        return MappingProxyType(self._tpl)


def sorted_entries(node: UriNode) -> list[ResourceEntry]:
    """A node's own resources, one per server, by server name."""
    res = node._res
    if res is None:
        return []
    if isinstance(res, ResourceEntry):
        return [res]
    return [res[server] for server in sorted(res)]


def sorted_patterns(node: UriNode) -> list[PatternNode]:
    """A node's pattern children in natural order of their labels."""
    kids = node._kids
    if kids is None or not kids.patterns:
        return []
    return sorted(kids.patterns.values(), key=_pattern_order)


def _pattern_order(pattern: PatternNode) -> tuple[str, str]:
    return natural_key(pattern.label), pattern.uri_template
