"""The messages `ResourceTree` posts, reached as `ResourceTree.NodeHighlighted` and so on.

Apart from the widget so its module holds behaviour. Each is declared in the ``resource_tree`` namespace,
so handlers keep the names they have for messages nested in the widget class:
``on_resource_tree_node_highlighted``, ``@on(ResourceTree.NodeHighlighted)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

from explorer.model.drilldown import Drill
from explorer.model.tree_filter import FilterSummary
from explorer.model.tree_view import Node
from explorer.model.uri_tree import PatternNode, UriNode

if TYPE_CHECKING:
    from explorer.widgets.resource_tree.widget import ResourceTree

__all__ = [
    "DrillRequested",
    "DrillSelected",
    "FilterApplied",
    "FilterDropped",
    "NodeCollapsed",
    "NodeExpanded",
    "NodeHighlighted",
    "NodeSelected",
]


class _TreeMessage(Message):
    """A message about a `ResourceTree`; `control` is the tree, as with Textual's own Tree."""

    def __init__(self, tree: ResourceTree) -> None:
        self._tree = tree
        super().__init__()

    @property
    def control(self) -> ResourceTree:
        return self._tree


class NodeHighlighted(_TreeMessage, namespace="resource_tree"):
    """The cursor moved to another node (posted once per move; nothing is read)."""

    def __init__(self, tree: ResourceTree, node: Node) -> None:
        self.node: Node = node
        super().__init__(tree)


class NodeSelected(_TreeMessage, namespace="resource_tree"):
    """`enter` (or a double click) on a node: open it."""

    def __init__(self, tree: ResourceTree, node: Node) -> None:
        self.node: Node = node
        super().__init__(tree)


class NodeExpanded(_TreeMessage, namespace="resource_tree"):
    """A node was expanded by the user or through the API."""

    def __init__(self, tree: ResourceTree, node: UriNode) -> None:
        self.node: UriNode = node
        super().__init__(tree)


class NodeCollapsed(_TreeMessage, namespace="resource_tree"):
    """A node was collapsed by the user or through the API."""

    def __init__(self, tree: ResourceTree, node: UriNode) -> None:
        self.node: UriNode = node
        super().__init__(tree)


class DrillRequested(_TreeMessage, namespace="resource_tree"):
    """A template (or one of its candidates) was drilled: complete `drill.next_variable`, with
    `drill.typed` as the value and `drill.context()` as context, then call `set_drill_children`."""

    def __init__(self, tree: ResourceTree, node: PatternNode, drill: Drill) -> None:
        self.node: PatternNode = node
        self.drill: Drill = drill
        super().__init__(tree)


class DrillSelected(_TreeMessage, namespace="resource_tree"):
    """`enter` on a drilled candidate whose URI is concrete: read `drill.uri` on `drill.server`."""

    def __init__(self, tree: ResourceTree, node: PatternNode, drill: Drill) -> None:
        self.node: PatternNode = node
        self.drill: Drill = drill
        super().__init__(tree)


class FilterApplied(_TreeMessage, namespace="resource_tree"):
    """A filter result is on screen (`summary` None: the filter was cleared)."""

    def __init__(self, tree: ResourceTree, summary: FilterSummary | None) -> None:
        self.summary = summary
        super().__init__(tree)


class FilterDropped(_TreeMessage, namespace="resource_tree"):
    """A jump (`select_prefix`) cleared the filter `text`, whose results did not show its target `node`:
    whatever shows the filter's text (the screen's filter box) clears it too, or it names a filter the
    tree no longer applies."""

    def __init__(self, tree: ResourceTree, text: str, node: Node) -> None:
        self.text = text
        self.node: Node = node
        super().__init__(tree)
