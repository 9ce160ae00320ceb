"""`RowLayout`: the lines of the URI tree view and how they are built from the model; no UI in it.

The base of `TreeRows` (which adds the operations that change lines and keep the cursor): reading a line
(`row`, `line_of`, iteration), finding a node's row, and building the blocks of open rows (`_build`),
which opens below a row exactly what is to be open: remembered expansions that have something to show,
and open drill positions. See the package docstring for the rules.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence

from explorer.model.drilldown import Drill, DrillKey
from explorer.model.tree_filter import FilterResult
from explorer.model.tree_view.drills import DrillBook
from explorer.model.tree_view.expansions import Expansions
from explorer.model.tree_view.rows import DrillBlock, Node, NodeBlock, Row, release
from explorer.model.uri_tree import PatternNode, UriNode, UriTree, natural_sorted

__all__ = ["RowLayout", "ancestors"]


def ancestors(node: Node) -> list[Node]:
    """`node` and its ancestors, root first."""
    chain: list[Node] = [node]
    parent: UriNode | None = node.parent
    while parent is not None:
        chain.append(parent)
        parent = parent.parent
    chain.reverse()
    return chain


_MADE_LIMIT = 4096
"""Rows made for lines kept at most (painting asks for a screenful; the rest is made again)."""


class RowLayout:
    """The lines of a view of `tree`: root, expanded nodes' items, drilled templates' candidates."""

    def __init__(
        self,
        tree: UriTree,
        *,
        filter_expand: int = 500,
        expansions: Expansions | None = None,
        drills: DrillBook | None = None,
        filter_result: FilterResult | None = None,
    ) -> None:
        """Lines of `tree` from scratch; given `expansions`, `drills` and a filter (shared, not copied),
        the lines another view with that state shows (what `rebuild` makes)."""
        self.tree = tree
        self.version = tree.version
        self.expansions = Expansions(tree) if expansions is None else expansions
        self.drills = DrillBook() if drills is None else drills
        self.filter: FilterResult | None = filter_result
        self.filter_expand = filter_expand
        """How many matches a prefix filter recomputed by `model_changed` expands (see `compute_filter`)."""
        self.filter_room = 0
        """The lines the view shows, which the matched folders a new filter text opens must fit in (0:
        none opens; see `TreeRows.apply_filter`)."""
        self._made: dict[int, Row] = {}  # line -> row made for it since lines last changed
        self._grouped: tuple[FilterResult, dict[UriNode, list[UriNode]]] | None = None  # see `_visible`
        self.root = self._rebuild()

    # ------------------------------------------------------------------------------------- reading

    def __len__(self) -> int:
        return 1 + self.root.size

    def row(self, line: int) -> Row:
        """The row on `line` (0 is the root). O(depth * log(open items)), O(1) when asked again.

        A row made for a line is kept until lines change or `model_changed`: a line keeps standing for
        what it showed, even after the tree changed (the cursor is found again by that).
        """
        if line == 0:
            return self.root
        cached = self._made.get(line)
        if cached is not None:
            return cached
        row = self.root
        offset = line - 1
        while True:
            block = row.block
            if block is None or not 0 <= offset < block.size:
                raise IndexError(line)
            kid_pos = block.kid_pos
            pos = offset
            if kid_pos:
                starts = block.starts()
                at = bisect_right(starts, offset) - 1
                if at >= 0:
                    start = starts[at]
                    kid = block.kids[at]
                    if offset == start:
                        return kid
                    size = kid.size
                    if offset <= start + size:
                        row = kid
                        offset -= start + 1
                        continue
                    pos = kid_pos[at] + offset - start - size
            made = self._made
            if len(made) >= _MADE_LIMIT:
                made.clear()
            made[line] = found = self._make_row(row, pos)
            return found

    def line_of(self, row: Row) -> int:
        """The line of a row that is on screen now (an open row, or one just returned by `row`/`find`)."""
        line = 0
        while row.parent is not None:
            parent = row.parent
            assert parent.block is not None
            line += parent.block.offset_of(row.pos) + 1
            row = parent
        return line

    def __iter__(self) -> Iterator[Row]:
        """Every row, top to bottom (O(lines): tests and tools)."""
        yield self.root
        if self.root.block is None:
            return
        stack: list[tuple[Row, int, int]] = [(self.root, 0, 0)]
        while stack:
            row, pos, at = stack.pop()
            block = row.block
            assert block is not None
            if pos >= block.count:
                continue
            if at < len(block.kids) and block.kid_pos[at] == pos:
                kid = block.kids[at]
                yield kid
                stack.append((row, pos + 1, at + 1))
                stack.append((kid, 0, 0))
            else:
                yield self._make_row(row, pos)
                stack.append((row, pos + 1, at))

    def expandable(self, row: Row) -> bool:
        """Whether a node row has something to show (under the filter, something that matches)."""
        node = row.node
        if row.kind != "node" or not isinstance(node, UriNode):
            return False
        if not (node.child_count or node.pattern_count):
            return False
        active = self.filter
        if active is None or row.full or node in active.full:
            return True
        visible = active.visible
        if any(pattern in visible for pattern in self.tree.patterns(node)):
            return True
        if node.child_count > len(visible):
            return any(True for _ in self._visible_children(node))
        return not visible.isdisjoint(self.tree.children(node))

    def find(self, target: Node) -> Row:
        """The row showing `target`, or the row of its deepest ancestor on screen."""
        return self._walk(target, None)

    def is_expanded(self, node: UriNode) -> bool:
        row = self.find(node)
        return row.node is node and row.block is not None

    def target_for(self, prefix: str) -> Node | None:
        """The node of a URI prefix, or the pattern whose template text it is; None if unknown."""
        tree = self.tree
        node = tree.node_for(prefix)
        if node is not None:
            return node
        return tree.pattern_for(prefix)  # where it sits: `t://a b/{x}` under `t://a%20b`, not `t://a b`

    def filter_shows(self, node: Node) -> bool:
        active = self.filter
        return active is None or active.covers(node)

    def drill_note(self, row: Row) -> str | None:
        """Why a drilled position has no candidates (an error, no capability), for its note row."""
        parent = row.parent
        key = None if parent is None else self._row_key(parent)
        state = None if key is None else self.drills.get(key)
        return None if state is None else state.note

    # ------------------------------------------------------------------------------ building rows

    def _root_full(self) -> bool:
        return self.filter is None or self.filter.is_whole(self.tree.root)

    def _renew_root(self) -> None:
        """Make every line again (`_rebuild`), releasing the old ones (see `rows.release`)."""
        old = self.root
        self.root = self._rebuild()
        release(old)

    def _rebuild(self) -> Row:
        self._made.clear()
        root = self.tree.root
        row = Row(root, root, "", 0, None, 0, True, self._root_full())
        if self.expansions.root_open:
            self._build(row)
        return row

    def _make_row(self, parent: Row, pos: int) -> Row:
        """A fresh row for item `pos` of `parent`'s block (the caller knows it is not an open one)."""
        block = parent.block
        depth = parent.depth + 1
        last = pos == block.count - 1 if block is not None else True
        if isinstance(block, DrillBlock):
            item = block.items[pos]
            pattern = parent.node
            return Row(
                pattern, pattern, item.label, depth, parent, pos, last, parent.full, item.kind, item.drill
            )
        assert isinstance(block, NodeBlock)
        npats = block.npats
        if pos < npats:
            pattern = block.shown[pos]
            return Row(pattern, pattern, pattern.segment, depth, parent, pos, last, parent.full, "template")
        head = block.nodes[pos - npats]
        tree = self.tree
        end = tree.chain_end(head)
        label = head.segment if end is head else tree.chain_label(head)
        full = parent.full or self._in_whole(head, end)
        return Row(head, end, label, depth, parent, pos, last, full)

    def _item_row(self, parent: Row, pos: int) -> Row:
        assert parent.block is not None
        return parent.block.kid_at(pos) or self._make_row(parent, pos)

    def _in_whole(self, head: UriNode, end: UriNode) -> bool:
        """Whether a node of the chain `head` .. `end` is the top of a whole matching subtree."""
        active = self.filter
        if active is None:
            return False
        node: UriNode | None = end
        while node is not None:
            if active.is_whole(node):
                return True
            if node is head:
                return False
            node = node.parent
        return False

    def _visible(
        self, row: Row, src: Sequence[UriNode], pats: tuple[PatternNode, ...]
    ) -> tuple[Sequence[PatternNode], Sequence[UriNode]]:
        """The patterns and children a node row shows: all of them, or those the filter shows.

        Filtered, the cheaper of two ways: scan the children (fewer children than visible nodes), or take
        the filter's visible nodes under this one (grouped once per filter) in the children's order.
        """
        active = self.filter
        if active is None or row.full:
            return pats, src
        visible = active.visible
        shown = [p for p in pats if p in visible]
        node = row.node
        current = active.version == self.tree.version
        in_order = active.shown_children.get(node) if isinstance(node, UriNode) else None
        if in_order is not None:
            if current:  # found in this very tree (every child of a `full` node: the model's own list)
                return shown, in_order
            if node in active.full:  # pages came since: those of them still there, never a newcomer
                return shown, list(filter(frozenset(in_order).__contains__, src))
        if len(src) > len(visible) and isinstance(node, UriNode):
            return shown, natural_sorted(self._visible_children(node))
        return shown, list(filter(visible.__contains__, src))

    def _visible_children(self, node: UriNode) -> Iterator[UriNode]:
        """Children of `node` (in the current tree) the filter lists as visible, in no order."""
        active = self.filter
        assert active is not None
        grouped = self._grouped
        if grouped is None or grouped[0] is not active:
            groups: dict[UriNode, list[UriNode]] = {}
            for item in active.visible:
                if isinstance(item, UriNode) and item.parent is not None:
                    groups.setdefault(item.parent, []).append(item)
            self._grouped = grouped = (active, groups)
        for child in grouped[1].get(node, ()):
            if node.child(child.segment) is child:  # a filter of an older version may list removed nodes
                yield child

    def _build(self, top: Row) -> None:
        """Open `top` (a node, or a drill position that is open) and below it everything to keep open.

        Iterative (a hostile server may nest deeply); sizes are summed bottom-up at the end.
        """
        opened: list[Row] = []
        stack = [top]
        while stack:
            row = stack.pop()
            kids = self._fill_node(row) if row.kind == "node" else self._fill_drill(row)
            opened.append(row)
            stack.extend(kids)
        for row in reversed(opened):  # kids come after their parent: their sizes are final here
            block = row.block
            assert block is not None
            block.size = block.count + sum(kid.size for kid in block.kids)
            block.sizes_changed()

    def _fill_node(self, row: Row) -> list[Row]:
        """Give a node row its block; return the items to open below it (their blocks not built yet)."""
        node = row.node
        assert isinstance(node, UriNode)
        tree = self.tree
        src = tree.children(node)
        pats = tuple(tree.patterns(node))
        shown, nodes = self._visible(row, src, pats)
        block = row.block = NodeBlock(src, pats, shown, nodes)
        kids: list[Row] = []
        drills = self.drills
        if drills:
            for pos, pattern in enumerate(shown):
                if (pattern.uri_template, ()) in drills:
                    kids.append(self._make_row(row, pos))
        wanted = self.expansions.heads().get(node)
        if wanted:
            open_nodes = self.expansions.open_nodes()
            for head in wanted:
                at = block.position(head)
                if at is not None:
                    kid = self._make_row(row, at)
                    if kid.node in open_nodes and self.expandable(kid):
                        kids.append(kid)
        block.set_kids(kids)
        return kids

    def _fill_drill(self, row: Row) -> list[Row]:
        key = self._row_key(row)
        state = None if key is None else self.drills.get(key)
        assert state is not None
        block = row.block = DrillBlock(state.items())
        drills = self.drills
        kids = [
            self._make_row(row, pos)
            for pos, item in enumerate(block.items)
            if item.kind == "value" and item.drill.key in drills
        ]
        block.set_kids(kids)
        return kids

    def _grow(self, row: Row, delta: int) -> None:
        """Add `delta` lines to the blocks of every ancestor of `row` (lines changed: rows made go)."""
        self._made.clear()
        parent = row.parent
        while parent is not None:
            block = parent.block
            assert block is not None
            block.size += delta
            block.sizes_changed()
            parent = parent.parent

    def _attach(self, row: Row) -> None:
        """A row just built (`_build`) takes its place: its lines count in every ancestor."""
        self._made.clear()
        parent = row.parent
        if parent is not None:
            assert parent.block is not None
            parent.block.add_kid(row)
            self._grow(row, row.size)

    def _walk(self, target: Node, expand: Callable[[Row], bool] | None) -> Row:
        """The row showing `target`, opening its ancestors with `expand` on the way; without `expand`
        (or when it cannot open one), the row of the deepest ancestor on screen."""
        path = ancestors(target)
        row = self.root
        if path[0] is not row.node:
            return row
        k = 1
        while k < len(path):
            if row.block is None and (expand is None or not expand(row)):
                return row
            block = row.block
            if not isinstance(block, NodeBlock):
                return row
            pos = block.position(path[k])
            if pos is None:
                return row
            row = self._item_row(row, pos)
            end = row.node
            while k < len(path) and path[k] is not end:
                k += 1
            k += 1
        return row

    # ------------------------------------------------------------------------------ drill helpers

    def _row_key(self, row: Row) -> DrillKey | None:
        """The drill position a row stands for: a template row (nothing chosen) or a candidate row."""
        if row.drill is not None:
            return row.drill.key if row.kind == "value" else None
        node = row.node
        return (node.uri_template, ()) if row.kind == "template" and isinstance(node, PatternNode) else None

    def _children_drill(self, row: Row) -> Drill | None:
        """The drill whose candidates go below `row`; None when the row cannot be drilled."""
        if row.drill is not None:
            return row.drill.children_drill if row.kind == "value" else None
        node = row.node
        if row.kind != "template" or not isinstance(node, PatternNode):
            return None
        return self.drills.template_drill(node)

    def _virtual_child(self, row: Row, value: str) -> Row | None:
        block = row.block
        if not isinstance(block, DrillBlock):
            return None
        for pos, item in enumerate(block.items):
            if item.kind == "value" and item.drill.trail[-1] == value:
                return self._item_row(row, pos)
        return None

    def _drill_row(self, key: DrillKey) -> Row | None:
        """The row of a drill position (None when it is not on screen)."""
        template, trail = key
        pattern = self.tree.pattern_for(template)
        if pattern is None:
            return None
        row: Row | None = self.find(pattern)
        if row is None or row.node is not pattern or row.kind != "template":
            return None
        for value in trail:
            row = self._virtual_child(row, value)
            if row is None:
                return None
        return row
