"""The URI tree in display order, walked with its public API: an oracle for the row model and the CLI.

Kept out of the product on purpose: the widget's row model and `tree`'s text are built their own ways,
and this plain walk (patterns first, then children, an explicit stack) is what they must agree with.
"""

from __future__ import annotations

from typing import NamedTuple

from explorer.model.uri_tree import PatternNode, UriNode, UriTree


class Row(NamedTuple):
    """One line of the walk; `label` is the (possibly collapsed) segment text."""

    depth: int
    node: UriNode | PatternNode
    label: str


def depth_first(tree: UriTree, *, collapse: bool = False) -> list[Row]:
    """Rows below the root (depth 0 = its children); `collapse` makes a chain of single children one row."""

    def items(node: UriNode) -> list[UriNode | PatternNode]:
        return [*tree.patterns(node), *tree.children(node)]

    rows: list[Row] = []
    stack: list[tuple[int, UriNode | PatternNode]] = [(0, item) for item in items(tree.root)[::-1]]
    while stack:
        depth, item = stack.pop()
        if isinstance(item, PatternNode):
            rows.append(Row(depth, item, item.label))
            continue
        label = item.segment
        if collapse:
            label = tree.chain_label(item)
            item = tree.chain_end(item)
        rows.append(Row(depth, item, label))
        stack.extend((depth + 1, child) for child in items(item)[::-1])
    return rows
