"""`TreeRows`: the lines of the URI tree view, kept up to date incrementally; no UI in it.

Every operation that changes lines takes the cursor line and returns a `Change`: where the cursor is now,
whether lines changed, which nodes were expanded or collapsed and which drills want completion. The view
turns that into messages and repaints. The rules the lines keep (see also the package docstring):

- The root row is line 0. A row is expanded when its node is remembered (`Expansions`) and has something
  to show; a template row is drilled when its drill position is open (`DrillBook`).
- `model_changed()` visits the open rows only. A block whose children list is the one it was built from
  (the model hands out a new list whenever children change) and whose patterns are the same costs O(1);
  otherwise its open items are found again in the new list by bisection (O(open items * log n)), and
  items newly to open are opened. The result always equals what `rebuild()` makes from scratch.
- The cursor follows its row: by line arithmetic for an expand or collapse, by its node otherwise (a
  refresh may replace node objects: then by prefix, or the nearest surviving ancestor); a virtual row by
  its drill position.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from explorer.model.drilldown import Drill, DrillKey
from explorer.model.tree_filter import FilterResult, compute_filter
from explorer.model.tree_view.expansions import Expansions
from explorer.model.tree_view.layout import RowLayout, ancestors
from explorer.model.tree_view.rows import DrillBlock, Node, NodeBlock, Row, RowKind, release
from explorer.model.uri_tree import PatternNode, UriNode

__all__ = ["EXPAND_CHILDREN_LIMIT", "FILTER_OPEN_LINES", "Change", "TreeRows"]

EXPAND_CHILDREN_LIMIT = 1000
"""`expand_children` opens at most this many children."""
FILTER_OPEN_LINES = 256
"""The most lines of a view that a filter opens matched folders to fill (`TreeRows.apply_filter`),
whatever the view's height: what opening them costs a keystroke stays bounded."""


@dataclass(slots=True)
class Change:
    """What an operation did, for the view to act on."""

    cursor: int
    """The cursor line after the operation."""
    structure: bool = False
    """Lines were added, removed or replaced: repaint, and the number of lines may differ."""
    expanded: list[UriNode] = field(default_factory=list)
    collapsed: list[UriNode] = field(default_factory=list)
    drills: list[tuple[PatternNode, Drill]] = field(default_factory=list)
    """Drill positions opened: ask completion for `drill.next_variable`, then call `answer_drill`."""
    refilter: bool = False
    """A substring filter is stale after a model change: run it again (off the UI thread if large)."""


class _Anchor(NamedTuple):
    """What the cursor was on, to find it again after the lines changed."""

    node: Node
    kind: RowKind
    drill: Drill | None


def _covers(row: Row, node: Node) -> bool:
    """Whether `node` is one of the chain of nodes `row` shows."""
    current: Node | None = row.node
    while current is not None:
        if current is node:
            return True
        if current is row.head:
            return False
        current = current.parent
    return False


class TreeRows(RowLayout):
    """The lines of a view of a `UriTree`, and every operation on them (each returns a `Change`)."""

    # ---------------------------------------------------------------------------- expand, collapse

    def expand(self, line: int, cursor: int) -> Change:
        """Expand the node row on `line` (remembered until collapsed)."""
        change = Change(cursor)
        self._expand_row(self.row(line), change, line)
        return change

    def collapse(self, line: int, cursor: int) -> Change:
        """Collapse the node row on `line`, forgetting the expansions and drills below it."""
        change = Change(cursor)
        row = self.row(line)
        block = row.block
        if row.kind != "node" or block is None:
            return change
        stack = [row]
        while stack:
            below = stack.pop()
            head, node = below.head, below.node
            if isinstance(head, UriNode) and isinstance(node, UriNode):
                self.expansions.forget_chain(head, node)
            elif (key := self._row_key(below)) is not None:
                self.drills.drop(key)
            if below.block is not None:
                stack.extend(below.block.kids)
        self._close(row, line, change)
        assert isinstance(row.node, UriNode)
        change.collapsed.append(row.node)
        return change

    def expand_children(self, line: int, cursor: int) -> Change:
        """Expand the node row on `line` and (up to `EXPAND_CHILDREN_LIMIT` of) its children, one level."""
        change = Change(cursor)
        row = self.row(line)
        if row.kind != "node" or (row.block is None and not self._expand_row(row, change, line)):
            return change
        anchor = self._anchor(change.cursor) if change.cursor > line else None
        block = row.block
        assert isinstance(block, NodeBlock)
        chosen: list[Row] = []
        for pos in range(block.npats, block.count):
            item = block.item(pos)
            assert isinstance(item, UriNode)
            if not (item.child_count or item.pattern_count) or block.kid_at(pos) is not None:
                continue  # a leaf (the bulk of a wide node) costs no row
            kid = self._make_row(row, pos)
            if self.expandable(kid):
                assert isinstance(kid.node, UriNode)
                self.expansions.remember(kid.node)
                chosen.append(kid)
                if len(chosen) >= EXPAND_CHILDREN_LIMIT:
                    break
        for kid in chosen:
            self._build(kid)
            self._attach(kid)
        if chosen:
            change.structure = True
            if anchor is not None:
                change.cursor = self._locate(anchor)
        return change

    def collapse_all(self, cursor: int) -> Change:
        """Forget every expansion and drill; the root stays open. The cursor goes to its top-level row."""
        target = self.row(cursor).node
        self.drills.clear()
        self.expansions.clear()
        self._renew_root()
        return Change(self._cursor_line(self.find(target)), structure=True)

    def expand_node(self, node: UriNode, cursor: int) -> Change:
        """Expand `node`, and its ancestors so it is on screen."""
        change = Change(cursor)
        row = self._walk(node, lambda row: self._expand_row(row, change))
        if _covers(row, node):
            self._expand_row(row, change)
        return change

    def collapse_node(self, node: UriNode, cursor: int) -> Change:
        row = self.find(node)
        if _covers(row, node) and row.block is not None:
            return self.collapse(self.line_of(row), cursor)
        return Change(cursor)

    def reveal(self, target: Node, cursor: int) -> Change:
        """Expand the ancestors of `target` and put the cursor on its row."""
        change = Change(cursor)
        change.cursor = self._cursor_line(self._walk(target, lambda row: self._expand_row(row, change)))
        return change

    # ---------------------------------------------------------------------------------------- drill

    def open_drill(self, line: int, cursor: int) -> Change:
        """Drill the template or candidate row on `line`: a waiting line below it, and a request."""
        change = Change(cursor)
        row = self.row(line)
        if row.block is not None or row.kind == "node":
            return change
        drill = self._children_drill(row)
        key = self._row_key(row)
        if drill is None or key is None:
            return change
        self.drills.open(key, drill)
        self._build(row)
        self._attach(row)
        if cursor > line:
            change.cursor += row.size
        assert isinstance(row.node, PatternNode)
        change.structure = True
        change.drills.append((row.node, drill))
        return change

    def close_drill(self, line: int, cursor: int) -> Change:
        """Close the drilled row on `line` and every position below it (`structure` False if not drilled)."""
        change = Change(cursor)
        row = self.row(line)
        key = self._row_key(row)
        if key is None or row.block is None:
            return change
        self.drills.drop(key)
        self._close(row, line, change)
        return change

    def answer_drill(
        self,
        drill: Drill,
        values: Sequence[str],
        note: str | None,
        cursor: int,
        *,
        total: int | None = None,
        has_more: bool = False,
    ) -> Change | None:
        """Show completion's answer below the row of `drill` (see `DrillBook.answer`); None when that
        position was closed meanwhile (the answer is dropped)."""
        if not self.drills.answer(drill, values, note, total=total, has_more=has_more):
            return None
        change = Change(cursor)
        row = self._drill_row(drill.key)
        if row is None:
            return change
        anchor = self._anchor(cursor)
        size = row.size
        old = row.block
        was_open = old is not None
        row.block = None
        if old is not None:
            for kid in old.kids:
                release(kid)
        self._build(row)
        parent = row.parent
        assert parent is not None and parent.block is not None
        if not was_open:
            parent.block.add_kid(row)
        self._grow(row, row.size - size)
        change.cursor = self._locate(anchor)
        change.structure = True
        return change

    @property
    def open_drills(self) -> list[DrillKey]:
        return list(self.drills)

    # ------------------------------------------------------------------------------- model changes

    def model_changed(self, cursor: int) -> Change:
        """Bring the lines up to date after the tree changed (a page, a refresh, a removed server).

        Visits the open rows only (see the module docstring); expanded nodes stay expanded (by prefix),
        new children of open nodes get lines, the cursor stays on its node or moves to the nearest
        surviving ancestor. A prefix filter is recomputed; a substring filter is reported stale.
        """
        version = self.tree.version
        if version == self.version:
            return Change(cursor)
        anchor = self._anchor(cursor)
        self.version = version
        self._made.clear()  # rows made before the change may show chains that changed
        if self.drills:
            self.drills.prune(self.tree)
        change = Change(cursor, structure=True)
        force = False
        active = self.filter
        if active is not None:
            if active.mode == "prefix":
                self.filter = compute_filter(self.tree, active.text, expand=self.filter_expand)
                force = True
            else:
                change.refilter = True
        root = self.root
        if force:
            root.full = self._root_full()
        stack = [root] if isinstance(root.block, NodeBlock) else []
        while stack:
            stack.extend(self._sync_block(stack.pop(), force))
        change.cursor = self._locate(anchor)
        return change

    def rebuild(self, cursor: int) -> Change:
        """Make every line again from the model, keeping expansions, drills, filter and cursor.

        `model_changed` does the same incrementally; this is the reference (and a way out if a caller
        changed the model without telling). Cost O(open rows), not their fan-out.
        """
        self.version = self.tree.version
        anchor = self._anchor(cursor)
        self._renew_root()
        return Change(self._locate(anchor), structure=True)

    # -------------------------------------------------------------------------------------- filter

    def apply_filter(self, result: FilterResult, cursor: int) -> Change:
        """Show `result`. A new text takes the cursor to the first match (unless it is on a match); a scan's
        result after its partial ones opens the ancestors of its first matches too.

        A text that names a folder (``/docs``, ``demo://docs``) opens it one level, so what is under it
        is on screen, as a file picker lists the files under a matched folder: the matched folders (the
        tops of whole matching subtrees that have children) open when all the lines then fit in the
        view (`filter_room`, at most `FILTER_OPEN_LINES`). Otherwise none opens (each shows `▸` and its
        count; `→` opens it): every match stays in sight, none pushed off the screen by a folder's
        children, and a keystroke never opens a folder of 10^6 children. A text ending in ``/`` names a
        folder's contents, as a path typed into a file picker does: that folder is open (the filter's
        path) and its children, the matches, stay closed. These are the filter's own expansions, gone
        with it, and no `expanded` node is reported (the user's own expand of a node lists a bounded
        server's subtree).
        """
        previous = self.filter
        same_text = previous is not None and previous.text == result.text
        anchor = self._anchor(cursor)
        target = anchor.node
        self.filter = result
        opening = not same_text or (previous is not None and previous.partial)
        if opening:
            self.expansions.set_auto(result.expand)
        self._renew_root()
        if opening and self.filter_room > 0 and not result.text.endswith("/"):
            self._open_matched_folders(min(self.filter_room, FILTER_OPEN_LINES))
        on_match = target in result.matched or any(result.is_whole(node) for node in ancestors(target))
        if result.first is not None and (not self.filter_shows(target) or not (same_text or on_match)):
            target = result.first
        found = self._relocate(anchor, self.find(target))
        return Change(self._cursor_line(found), structure=True)

    def _open_matched_folders(self, room: int) -> None:
        """Open the matched folders one level when all the lines then fit in `room` (see `apply_filter`)."""
        free = room - len(self)
        if free <= 0:
            return
        folders: list[Row] = []
        for row in self:  # fewer than `room` lines
            parent = row.parent
            node = row.node
            if row.block is not None or not row.full or parent is None or parent.full:
                continue  # open already, not a match's top row, or inside a match
            if row.kind != "node" or not isinstance(node, UriNode):
                continue
            shown = node.child_count + node.pattern_count
            if shown:
                free -= shown
                if free < 0:
                    return
                folders.append(row)
        if not folders:
            return
        self.expansions.add_auto(row.node for row in folders if isinstance(row.node, UriNode))
        for row in folders:  # rows of the lines as they were: each keeps its position in its parent's block
            self._build(row)
            self._attach(row)

    def clear_filter(self, cursor: int) -> Change:
        """Drop the filter; the cursor's node stays on screen (its ancestors are remembered expanded: those
        above its row's chain, as a chain's inner node remembered opens the chain's row)."""
        anchor = self._anchor(cursor)
        target = anchor.node
        head = self.row(max(0, min(cursor, len(self) - 1))).head
        self.filter = None
        self.expansions.set_auto(())
        self.expansions.root_open = True
        for ancestor in ancestors(head)[1:-1]:
            assert isinstance(ancestor, UriNode)
            self.expansions.remember(ancestor)
        self._renew_root()
        found = self._relocate(anchor, self.find(target))
        return Change(self._cursor_line(found), structure=True)

    # ----------------------------------------------------------------------------- changing rows

    def _close(self, row: Row, line: int, change: Change) -> None:
        """Remove the lines below an open row; the cursor moves up with them, or onto the row."""
        self._made.clear()
        size = row.size
        parent = row.parent
        if parent is not None:
            assert parent.block is not None
            parent.block.remove_kid(row)
            self._grow(row, -size)
        release(row)
        if line < change.cursor <= line + size:
            change.cursor = line
        elif change.cursor > line + size:
            change.cursor -= size
        change.structure = True

    def _expand_row(self, row: Row, change: Change, line: int | None = None) -> bool:
        if row.block is not None or not self.expandable(row):
            return False
        node = row.node
        assert isinstance(node, UriNode)
        if line is None:
            line = self.line_of(row)
        self._build(row)
        self._attach(row)
        self.expansions.remember(node)
        if change.cursor > line:
            change.cursor += row.size
        change.structure = True
        change.expanded.append(node)
        return True

    def _sync_block(self, row: Row, force: bool) -> list[Row]:
        """Bring an expanded row's block up to date; return its open node rows still to visit."""
        block = row.block
        assert isinstance(block, NodeBlock)
        node = row.node
        assert isinstance(node, UriNode)
        tree = self.tree
        src = tree.children(node)
        pats = tuple(tree.patterns(node))
        changed = force or src is not block.src or pats != block.pats
        new = NodeBlock(src, pats, *self._visible(row, src, pats)) if changed else block
        before = block.size
        row.block = new  # kid rows are made from it below
        open_nodes = self.expansions.open_nodes()
        drills = self.drills
        keep: list[Row] = []
        replaced: list[Row] = []
        for kid in block.kids:
            if changed:
                pos = new.position(kid.head)
                if pos is None:
                    continue  # gone, or hidden by the filter: its lines go with it
                kid.pos = pos
            head = kid.head
            if isinstance(head, UriNode):
                if force:
                    assert isinstance(kid.node, UriNode)
                    kid.full = row.full or self._in_whole(head, kid.node)
                end = tree.chain_end(head)
                if end is not kid.node:
                    replaced.append(self._replacement(kid, end))
                elif kid.node in open_nodes and self.expandable(kid):
                    keep.append(kid)
            else:
                if force:
                    kid.full = row.full
                if (head.uri_template, ()) in drills:
                    keep.append(kid)
        taken = {kid.pos for kid in keep}
        taken.update(kid.pos for kid in replaced)
        opening = [kid for kid in replaced if self.expandable(kid)]
        for head in self.expansions.heads().get(node, ()):
            pos = new.position(head)
            if pos is not None and pos not in taken:
                kid = self._make_row(row, pos)
                if kid.node in open_nodes and self.expandable(kid):
                    opening.append(kid)
                    taken.add(pos)
        if drills:
            for pos, pattern in enumerate(new.shown):
                if pos not in taken and (pattern.uri_template, ()) in drills:
                    opening.append(self._make_row(row, pos))
        unchanged = not changed and not opening and len(keep) == len(block.kids)
        if unchanged:
            return [kid for kid in keep if kid.kind == "node"]
        for kid in opening:
            self._build(kid)
        old_kids = block.kids
        new.set_kids(keep + opening)
        kept = {id(kid) for kid in keep}
        for kid in old_kids:
            if id(kid) not in kept:
                release(kid)  # gone, hidden, replaced or no longer open (see `rows.release`)
        last = new.count - 1
        for kid in new.kids:
            kid.last = kid.pos == last
        self._grow(row, new.size - before)
        return [kid for kid in keep if kid.kind == "node"]

    def _replacement(self, row: Row, new_end: UriNode) -> Row:
        """An expanded chain row whose chain changed: a fresh row for its head, expansion carried over.

        The chain got shorter (a node inside it gained a child): the user saw the old end expanded, so
        the nodes from the new end down to it stay expanded too.
        """
        old_end = row.node
        assert isinstance(old_end, UriNode)
        between: list[UriNode] = []
        node: UriNode | None = old_end
        stop = row.head.parent
        while node is not None and node is not new_end and node is not stop:
            between.append(node)
            node = node.parent
        if node is new_end:
            for inner in between:
                self.expansions.remember(inner)
        self.expansions.remember(new_end)
        parent = row.parent
        assert parent is not None
        fresh = self._make_row(parent, row.pos)
        return fresh

    # ------------------------------------------------------------------------------------ cursor

    def _anchor(self, line: int) -> _Anchor:
        row = self.row(max(0, min(line, len(self) - 1)))
        return _Anchor(row.node, row.kind, row.drill)

    def _locate(self, anchor: _Anchor) -> int:
        """The line of what the cursor was on (see the module docstring)."""
        return self._cursor_line(self._relocate(anchor, self.find(self._reanchor_target(anchor.node))))

    def _cursor_line(self, row: Row) -> int:
        """The line of the row the cursor goes to, kept as made (see `row`) so it anchors the cursor."""
        line = self.line_of(row)
        if row.block is None and line:
            self._made[line] = row
        return line

    def _reanchor_target(self, node: Node) -> Node:
        """The node standing for `node` (maybe replaced or removed) in the current tree."""
        tree = self.tree
        if isinstance(node, PatternNode):
            parent = self._reanchor_target(node.parent)
            assert isinstance(parent, UriNode)
            for pattern in tree.patterns(parent):
                if pattern.uri_template == node.uri_template:
                    return pattern
            return parent
        if node.parent is None or tree.attached(node):
            return node if node.parent is not None else tree.root
        return self.expansions.resolve(Expansions.key(node)) or tree.nearest(node.prefix)

    def _relocate(self, anchor: _Anchor, found: Row) -> Row:
        """`found` stands for the anchor's node; for a virtual anchor, go down to the same drill position."""
        drill = anchor.drill
        if drill is None or found.virtual:
            return found
        node = found.node
        if (
            found.kind != "template"
            or not isinstance(node, PatternNode)
            or node.uri_template != drill.template
        ):
            return found
        row = found
        for value in drill.trail:
            kid = self._virtual_child(row, value)
            if kid is None:
                return row
            row = kid
        block = row.block
        if anchor.kind != "value" and isinstance(block, DrillBlock) and block.count:
            for pos, item in enumerate(block.items):
                if item.kind == anchor.kind:
                    return self._item_row(row, pos)
            return self._item_row(row, 0)  # the `…` row was answered: the first candidate takes its place
        return row
