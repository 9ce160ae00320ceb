"""Which nodes the tree view keeps expanded (`Expansions`): the user's, and the filter's.

Why by URI prefix: a refresh may replace every `UriNode` of a server with new objects, and what the user
opened must stay open. A remembered expansion is (prefix, depth); the depth because an empty segment glued
to its parent (``file://`` + empty authority) repeats the parent's prefix. The filter's expansions
(`auto`) are nodes of the tree it was computed on, dropped when the filter changes or is cleared.

A collapsed single-child chain is one row, so a remembered inner node of a chain stands for the chain's
last node: `open_nodes` holds chain ends. `heads` groups them by the node whose block shows them, so a
block being built finds its open items by lookup instead of scanning its (maybe 10^6) children.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from explorer.model.uri_tree import UriNode, UriTree

__all__ = ["Expansions"]

ExpansionKey = tuple[str, int]


def _interior(node: UriNode) -> bool:
    """Inside a chain: `UriTree.chain_end` walks through it (nothing of its own, exactly one child)."""
    return not node.has_resource and not node.pattern_count and node.child_count == 1


class Expansions:
    """The expanded nodes of one view of `tree`: remembered by prefix, resolved per tree version."""

    def __init__(self, tree: UriTree) -> None:
        self._tree = tree
        self._kept: set[ExpansionKey] = set()
        self._auto: set[UriNode] = set()
        self.root_open = True
        self._generation = 0
        self._cache: tuple[tuple[int, int], frozenset[UriNode], dict[UriNode, list[UriNode]]] | None = None

    @staticmethod
    def key(node: UriNode) -> ExpansionKey:
        return node.prefix, node.depth

    @property
    def remembered(self) -> frozenset[ExpansionKey]:
        """(prefix, depth) of every node the user keeps expanded (the root aside: `root_open`)."""
        return frozenset(self._kept)

    def remember(self, node: UriNode) -> None:
        if node.parent is None:
            self.root_open = True
            return
        key = self.key(node)
        if key not in self._kept:
            self._kept.add(key)
            self._generation += 1

    def forget(self, node: UriNode) -> None:
        if node.parent is None:
            self.root_open = False
            return
        if node in self._auto:
            self._auto.discard(node)
            self._generation += 1
        key = self.key(node)
        if key in self._kept:
            self._kept.discard(key)
            self._generation += 1

    def forget_chain(self, head: UriNode, end: UriNode) -> None:
        """Forget every node of a chain row (a remembered inner node would open it again)."""
        node: UriNode | None = end
        while node is not None:
            self.forget(node)
            if node is head:
                break
            node = node.parent

    def clear(self) -> None:
        """Forget everything: only the root stays open."""
        self._kept.clear()
        self._auto.clear()
        self.root_open = True
        self._generation += 1

    def set_auto(self, nodes: Iterable[UriNode]) -> None:
        """The filter's expansions (replacing the previous filter's)."""
        self._auto = set(nodes)
        self._generation += 1

    def add_auto(self, nodes: Iterable[UriNode]) -> None:
        """More expansions of the filter's (the matched folders it opens), dropped with the others."""
        self._auto.update(nodes)
        self._generation += 1

    def resolve(self, key: ExpansionKey) -> UriNode | None:
        """The node of a remembered key in the current tree (None when it is gone)."""
        tree = self._tree
        prefix, depth = key
        node = tree.node_for(prefix)
        while node is not None and node.depth < depth:  # down the empty segments that add no text
            kids = tree.children(node)
            node = kids[0] if kids and kids[0].segment == "" else None
        return node if node is not None and node.depth == depth else None

    def open_nodes(self) -> frozenset[UriNode]:
        """The chain ends to keep expanded in the current tree (cached per tree version and change)."""
        return self._resolved()[0]

    def heads(self) -> Mapping[UriNode, list[UriNode]]:
        """Block node -> the items of its block (chain heads) whose rows are to be expanded."""
        return self._resolved()[1]

    def _resolved(self) -> tuple[frozenset[UriNode], dict[UriNode, list[UriNode]]]:
        tree = self._tree
        stamp = (tree.version, self._generation)
        cached = self._cache
        if cached is not None and cached[0] == stamp:
            return cached[1], cached[2]
        chain_end = tree.chain_end
        ends: set[UriNode] = set()
        for key in self._kept:
            node = self.resolve(key)
            if node is not None:
                ends.add(chain_end(node))
        # The root row is never part of a chain: the filter's root must not open the root's chain end.
        ends.update(chain_end(node) for node in self._auto if node.parent is not None)
        heads: dict[UriNode, list[UriNode]] = {}
        for end in ends:
            head = end
            parent = head.parent
            while parent is not None and parent.parent is not None and _interior(parent):
                head = parent
                parent = head.parent
            if parent is not None and chain_end(head) is end:
                heads.setdefault(parent, []).append(head)
        frozen = frozenset(ends)
        self._cache = (stamp, frozen, heads)
        return frozen, heads
