"""Row records of `ResourceTree`: the materialized lines, their blocks, and helpers ordering them.

They exist apart from the widget so the flat-row data model (what a line is, how an expanded row's
children are kept aligned with the model's lists) reads on its own, without the view around it.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

from explorer.model.uri_tree import PatternNode, UriNode

Node = UriNode | PatternNode

_get_node = attrgetter("node")


class _Block:
    """What an expanded row shows: the model lists it was built from and the child rows, aligned."""

    __slots__ = ("items", "kids", "npats", "pats", "src")

    def __init__(
        self,
        src: Sequence[UriNode],
        pats: tuple[PatternNode, ...],
        items: list[Node],
        kids: list[_Row],
        npats: int,
    ) -> None:
        self.src = src  # `UriTree.children(node)` as handed out (identity tells whether it changed)
        self.pats = pats  # `UriTree.patterns(node)` at that time
        self.items = items  # the nodes shown (patterns first), after the filter
        self.kids = kids  # one row per item
        self.npats = npats


class _Row:
    """One materialized line: `head` .. `node` is a chain of nodes shown as one label (usually one node)."""

    __slots__ = (
        "alive",
        "block",
        "depth",
        "full",
        "head",
        "label",
        "last",
        "node",
        "parent",
        "size",
        "version",
    )

    def __init__(
        self, head: Node, node: Node, label: str, depth: int, parent: _Row | None, full: bool, version: int
    ) -> None:
        self.head = head
        self.node = node  # the chain end: what the row stands for, whose children it expands to
        self.label = label  # raw text (sanitized when painted)
        self.depth = depth
        self.parent = parent
        self.full = full  # no filter applies below this row (no filter, or inside a whole match)
        self.version = version  # tree version the label was checked against
        self.last = False  # last child of its parent (guides)
        self.alive = True
        self.size = 0  # materialized rows below this one
        self.block: _Block | None = None  # set while expanded


def _order_key(item: Node) -> tuple[int, str]:
    """Display order inside one block: patterns by label, then children by segment."""
    if isinstance(item, PatternNode):
        return (0, item.label)
    return (1, item.segment)


def _run_length(old: list[Node], i: int, new: list[Node], j: int) -> int:
    """Length of the common run ``old[i:] / new[j:]`` (identity), given ``old[i] is new[j]``.

    Galloping with list-slice comparisons: list equality checks identity first, so each probe is a
    C-level loop and the whole search costs about two passes over the run.
    """
    limit = min(len(old) - i, len(new) - j)
    lo = 1
    hi = lo
    while lo < limit:
        hi = min(lo * 2, limit)
        if old[i + lo : i + hi] == new[j + lo : j + hi]:
            lo = hi
        else:
            break
    else:
        return lo
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if old[i + lo : i + mid] == new[j + lo : j + mid]:
            lo = mid
        else:
            hi = mid
    return lo


def _ancestors(node: Node) -> list[Node]:
    """`node` and its ancestors, root first."""
    chain: list[Node] = [node]
    parent: UriNode | None = node.parent
    while parent is not None:
        chain.append(parent)
        parent = parent.parent
    chain.reverse()
    return chain
