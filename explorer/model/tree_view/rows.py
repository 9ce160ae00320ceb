"""Row records of the tree view: a line (`Row`) and what an open line shows below it (a block).

Why blocks and not a flat list of lines: a node may have 50,000 children or more, and making one row
object per child costs about a microsecond each, so expanding it would take far longer than a frame. An
open row holds a block instead: the items it shows (for a node, the model's own sorted children list, not
a copy) and row objects for its *open* items only (expanded nodes, drilled templates and candidates),
sorted by position, each with the number of lines it shows. Every other line is made on demand from
(block, position). So opening a node costs what opens below it, not its fan-out, and finding line `i`
costs O(depth * log(open items)).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from operator import attrgetter
from typing import Literal, NamedTuple

from explorer.model.drilldown import Drill
from explorer.model.uri_tree import PatternNode, UriNode, child_order_key

__all__ = ["Block", "DrillBlock", "Node", "NodeBlock", "Row", "RowKind", "VirtualItem", "release"]

Node = UriNode | PatternNode

RowKind = Literal["node", "template", "value", "wait", "note", "more"]
"""A `UriNode` row, a template (`PatternNode`) row, or a virtual row below a drilled template: a candidate
value, the "waiting" line, a note (no completions) or the "+N more" line."""

_get_pos = attrgetter("pos")


class VirtualItem(NamedTuple):
    """One line below a drilled template: `drill` is the position with this candidate fixed ("value"), or
    the drill whose candidates are listed (the other kinds)."""

    kind: RowKind
    label: str
    drill: Drill


class Row:
    """One line: `head` .. `node` is a chain of nodes shown as one label (usually one node).

    Open rows (`block` set) are kept by their parent's block and live as long as they stay open; any other
    row is made when asked for and describes the line at that moment (do not keep it across changes).
    """

    __slots__ = ("block", "depth", "drill", "full", "head", "kind", "label", "last", "node", "parent", "pos")

    def __init__(
        self,
        head: Node,
        node: Node,
        label: str,
        depth: int,
        parent: Row | None,
        pos: int,
        last: bool,
        full: bool,
        kind: RowKind = "node",
        drill: Drill | None = None,
    ) -> None:
        self.head = head
        self.node = node  # the chain end: what the row stands for (a virtual row: its template)
        self.label = label  # raw text (sanitized when painted)
        self.depth = depth
        self.parent = parent
        self.pos = pos  # position among the parent block's items
        self.last = last  # last item of its parent (guides)
        self.full = full  # no filter applies below this row (no filter, or inside a whole match)
        self.kind: RowKind = kind
        self.drill = drill  # virtual rows only
        self.block: NodeBlock | DrillBlock | None = None  # set while open (expanded or drilled)

    def __repr__(self) -> str:
        return f"Row({self.kind}, depth={self.depth}, label={self.label!r}, open={self.block is not None})"

    @property
    def virtual(self) -> bool:
        """A row below a drilled template, not in the `UriTree`."""
        return self.drill is not None

    @property
    def size(self) -> int:
        """Lines shown below this row (0 when closed)."""
        return 0 if self.block is None else self.block.size


class Block:
    """What an open row shows: `count` items, the open ones as rows (`kids`, by position); `size` lines."""

    __slots__ = ("_starts", "count", "kid_pos", "kids", "size")

    def __init__(self, count: int) -> None:
        self.count = count
        self.kids: list[Row] = []
        self.kid_pos: list[int] = []
        self.size = count  # lines below the owner: the items plus what the open kids show
        self._starts: list[int] | None = None

    def set_kids(self, kids: list[Row]) -> None:
        """Set the open items (any order) and the size, from their sizes."""
        kids.sort(key=_get_pos)
        self.kids = kids
        self.kid_pos = [kid.pos for kid in kids]
        self.size = self.count + sum(kid.size for kid in kids)
        self._starts = None

    def add_kid(self, kid: Row) -> None:
        """A kid opened (the caller adds its size up the ancestors)."""
        at = bisect_left(self.kid_pos, kid.pos)
        self.kid_pos.insert(at, kid.pos)
        self.kids.insert(at, kid)
        self._starts = None

    def remove_kid(self, kid: Row) -> None:
        at = bisect_left(self.kid_pos, kid.pos)
        assert self.kids[at] is kid
        del self.kid_pos[at]
        del self.kids[at]
        self._starts = None

    def sizes_changed(self) -> None:
        self._starts = None

    def kid_at(self, pos: int) -> Row | None:
        kid_pos = self.kid_pos
        at = bisect_left(kid_pos, pos)
        return self.kids[at] if at < len(kid_pos) and kid_pos[at] == pos else None

    def starts(self) -> list[int]:
        """Offset (lines below the owner, from 0) of each open kid's line; rebuilt after sizes changed."""
        starts = self._starts
        if starts is None:
            starts = []
            before = 0
            for pos, kid in zip(self.kid_pos, self.kids, strict=True):
                starts.append(pos + before)
                before += kid.size
            self._starts = starts
        return starts

    def offset_of(self, pos: int) -> int:
        """Offset (lines below the owner, from 0) of the line of item `pos`."""
        kid_pos = self.kid_pos
        at = bisect_left(kid_pos, pos)
        if at < len(kid_pos):
            return pos + self.starts()[at] - kid_pos[at]
        return pos + self.size - self.count


class NodeBlock(Block):
    """An expanded `UriNode`: its shown patterns, then its shown children (unfiltered: the model's list)."""

    __slots__ = ("nodes", "npats", "pats", "shown", "src")

    def __init__(
        self,
        src: Sequence[UriNode],
        pats: tuple[PatternNode, ...],
        shown: Sequence[PatternNode],
        nodes: Sequence[UriNode],
    ) -> None:
        super().__init__(len(shown) + len(nodes))
        self.src = src  # `UriTree.children(node)` as handed out (identity tells whether it changed)
        self.pats = pats  # `UriTree.patterns(node)` at that time
        self.shown = shown  # the patterns shown (after the filter)
        self.nodes = nodes  # the children shown (`src` itself when nothing is filtered)
        self.npats = len(shown)

    def item(self, pos: int) -> Node:
        npats = self.npats
        return self.shown[pos] if pos < npats else self.nodes[pos - npats]

    def position(self, item: Node) -> int | None:
        """Where `item` (by identity) is shown, or None. Children are found by bisection, O(log n)."""
        if isinstance(item, PatternNode):
            for at, pattern in enumerate(self.shown):
                if pattern is item:
                    return at
            return None
        nodes = self.nodes
        at = bisect_left(nodes, child_order_key(item), key=child_order_key)
        return self.npats + at if at < len(nodes) and nodes[at] is item else None


class DrillBlock(Block):
    """A drilled template or candidate: the virtual lines below it."""

    __slots__ = ("items",)

    def __init__(self, items: Sequence[VirtualItem]) -> None:
        super().__init__(len(items))
        self.items = items


def release(row: Row) -> None:
    """Close `row` and every open row below it, for a row that leaves the lines (with what is open below).

    Why: an open row and its open kids point at each other (`block.kids`, `parent`), a reference cycle
    that only the cyclic collector frees. A change to a big tree freezes what is alive at its end
    (`heap.big_change`), unreachable cycles included, and frozen objects are never collected: a filter
    keystroke in a node of 300,000 children kept its 1.2 MB list of shown children for good that way.
    Cutting each open row's `block` lets reference counting free the blocks and rows at once.
    """
    stack = [row]
    while stack:
        below = stack.pop()
        block = below.block
        if block is not None:
            below.block = None
            stack.extend(block.kids)
