"""`ResourceTree`: the merged URI-prefix tree of every server, as a virtualized, keyboard-driven view.

Why not Textual's `Tree`: it keeps a widget-side node per item and rebuilds its line list on changes, so
with 10^4 to 10^6 resources expanding a node and even moving the cursor get slow. This widget is a
`ScrollView` using the Line API over the core `UriTree`:

- It keeps a flat list of *materialized* rows: the root and the items of expanded nodes only (a row is a
  small slotted object: node, depth, label and a few flags). `render_line` paints only the visible rows
  and caches their strips per (row, cursor, generation); a strip is kept at its natural width and
  cropped / padded to the viewport when painted, so the width is not part of the key. The generation
  grows on a theme or focus change and on structural changes (guides of other rows may change).
- Expanding a node splices its children's rows in (cost O(children shown)); collapsing removes its
  descendants' rows. A single-child chain with nothing of its own is one row (`src/explorer/model`).
- `model_changed()`, called after a page was merged into the tree, visits only the expanded nodes: for
  each whose children list (the model hands out a new list whenever children change) or patterns changed,
  it merges the old rows with the new children in one pass (runs of unchanged children are compared and
  copied as C-level list slices), so a 100-item page costs about the number of new rows plus a memcpy
  of the changed block, even with 10^6 resources loaded. Expanded nodes are remembered by URI prefix
  and depth (`UriNode` objects may be replaced by a refresh), the cursor by its row and, when that row
  went away, by its node's prefix. A collapsed row whose chain changed is fixed when it is next painted.
  The rule: a row is expanded when its node is remembered and has something to show; the result always
  equals what `rebuild()` materializes from scratch (the tests check it after random changes).
- The filter (`set_filter`) is computed by `explorer.model.tree_filter`: prefix queries from the trie
  directly, substring queries by a scan that runs in a thread worker when the tree is large (results of
  a stale scan are dropped), so the view stays responsive while it runs.

Every server string (segments, names, titles, server names) goes through `sanitize_line` and is painted as
`rich.segment.Segment`s with explicit styles: nothing here parses markup.

Server badges (`show_servers`): a prefix row shows every server with something below it
(`UriTree.subtree_servers`, O(1) from the model's bitmasks), a leaf or template row its own servers.

Incomplete listings: `incomplete_servers` names the servers whose listing stopped early; the root row
(the top line, "All resources") then carries a `⚠ incomplete: <servers>` marker.

Template drill-down (`explorer.model.drilldown`): `→`/`l`/`space` on a template row posts
`DrillRequested(pattern, drill)`; the app asks completion for `drill.next_variable` and answers with
`set_drill_children`. The candidates are *virtual* rows (`_VRow`, never in the `UriTree`) below the
template, each expandable to the next variable (or, for a folder-like path value, to a refinement of
the same variable) until the URI is concrete: `enter` then posts `DrillSelected(drill)`. While waiting
a `…` row shows; no completions (an error, no capability, nothing suggested) gives one muted row, where
`enter` opens the form (`NodeSelected` for the template). Open drills are remembered by template text
and chosen values (`Drill.key`), not by row: they survive `model_changed()` and `rebuild()` (dropped
when their template disappears from the model) and are rebuilt wherever their template row appears.
A template row's virtual rows count in its `size` like children do, so the row machinery (splicing,
merging, collapsing) carries them without knowing what they are; normal rows pay nothing while no
drill is open.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence, Set
from contextlib import suppress
from operator import attrgetter
from typing import ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events, work
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer
from textual.worker import get_current_worker

from explorer.model.drilldown import Drill, DrillKey
from explorer.model.templates import TemplateError, too_large
from explorer.model.tree_filter import FilterResult, FilterSummary, compute_filter, is_prefix_query
from explorer.model.uri_tree import PatternNode, UriNode, UriTree
from explorer.sanitize import is_clean, sanitize_line
from explorer.widgets.resource_tree.drill import (
    DRILL_LIMIT,
    NO_COMPLETIONS,
    NO_SUGGESTIONS,
    _DrillState,
    _VRow,
)
from explorer.widgets.resource_tree.render import (
    _BADGE_CELLS,
    _DIRECTORY_MIME,
    _LABEL_LIMIT,
    _NAME_LIMIT,
    _add_text,
    _find_all,
    _Palette,
)
from explorer.widgets.resource_tree.rows import (
    Node,
    _ancestors,
    _Block,
    _get_node,
    _order_key,
    _Row,
    _run_length,
)

__all__ = ["ResourceTree"]

_EXPAND_CHILDREN_LIMIT = 1000


class _TreeMessage(Message):
    """A message about a `ResourceTree`; `control` is the tree, as with Textual's own Tree."""

    def __init__(self, tree: ResourceTree) -> None:
        self._tree = tree
        super().__init__()

    @property
    def control(self) -> ResourceTree:
        return self._tree


class ResourceTree(ScrollView, can_focus=True):
    """The merged URI-prefix tree (see the module docstring): Tree-like keys and messages."""

    HELP = """
## URI tree

The resources and templates of every connected server, merged by URI prefix.

| Key | Action |
| :- | :- |
| `↑` `k` / `↓` `j` | Move the cursor |
| `←` `h` | Collapse, or go to the parent |
| `→` `l` | Expand, or go to the first child; on a template, drill it by completion |
| `space` | Expand or collapse (a template: drill or close) |
| `enter` | Open: read the resource or a drilled URI, fill the template in a form (a plain prefix expands) |
| `home` / `end` | First / last line |
| `pageup` / `pagedown` | One screen up / down |
| `*` `shift+→` | Expand the node and each of its children (one level) |
| `-` | Collapse everything |

`▸` / `▾` a prefix (collapsed / expanded) with the number of resources and templates below it (the
number of matches while filtering), `⟨T⟩` a template, `▹` a directory resource. Drilling a template
lists the server's suggestions for its first variable (`{region} = eu-west`); each expands to the next
variable until the URI is complete, and `enter` reads it. Server badges appear when several servers
are connected (on a prefix: every server with something below it); `⚠ incomplete` on the top line names
servers whose listing stopped early. Names are shown with control characters escaped (`\\x1b`),
exactly as the server sent them.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor_up", "Up", show=False, id="tree.cursor_up"),
        Binding("down,j", "cursor_down", "Down", show=False, id="tree.cursor_down"),
        Binding("left,h", "collapse_or_parent", "Collapse", show=False, id="tree.collapse"),
        Binding("right,l", "expand_or_child", "Expand", show=False, id="tree.expand"),
        Binding("space", "toggle_node", "Toggle", show=False, id="tree.toggle"),
        Binding("enter", "select", "Open", show=False, id="tree.select"),
        Binding("home", "cursor_home", "First", show=False, id="tree.cursor_home"),
        Binding("end", "cursor_end", "Last", show=False, id="tree.cursor_end"),
        Binding("pageup", "page_up", "Page up", show=False, id="tree.page_up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="tree.page_down"),
        Binding(
            "shift+right,asterisk",
            "expand_children",
            "Expand children",
            show=False,
            id="tree.expand_children",
        ),
        Binding("minus", "collapse_all", "Collapse all", show=False, id="tree.collapse_all"),
    ]
    """
    | Key(s) | Id | Description |
    | :- | :- | :- |
    | up, k | `tree.cursor_up` | Move the cursor up. |
    | down, j | `tree.cursor_down` | Move the cursor down. |
    | left, h | `tree.collapse` | Collapse the node (or drill), or move to its parent. |
    | right, l | `tree.expand` | Expand the node or drill the template, or move to its first child. |
    | space | `tree.toggle` | Expand or collapse the node; drill or close a template. |
    | enter | `tree.select` | `NodeSelected` (a prefix also toggles); `DrillSelected` on a drilled URI. |
    | home, end | `tree.cursor_home`, `tree.cursor_end` | First / last line. |
    | pageup, pagedown | `tree.page_up`, `tree.page_down` | Move by one screen. |
    | shift+right, * | `tree.expand_children` | Expand the node and its children, one level. |
    | - | `tree.collapse_all` | Collapse every node. |
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "resource-tree--cursor",
        "resource-tree--guides",
        "resource-tree--label",
        "resource-tree--folder",
        "resource-tree--muted",
        "resource-tree--count",
        "resource-tree--pattern",
        "resource-tree--badge",
        "resource-tree--match",
        "resource-tree--incomplete",
    }
    """
    | Class | Description |
    | :- | :- |
    | `resource-tree--cursor` | The line under the cursor. |
    | `resource-tree--guides` | Indentation guides and expand markers. |
    | `resource-tree--label` | The label of a resource (a leaf). |
    | `resource-tree--folder` | The label of a prefix with children, or of an `inode/directory` resource. |
    | `resource-tree--muted` | Names and titles next to labels, empty segments. |
    | `resource-tree--count` | The number of resources and templates (or matches) below a prefix. |
    | `resource-tree--pattern` | Template (pattern) rows and their `⟨T⟩` marker. |
    | `resource-tree--badge` | Server badges. |
    | `resource-tree--match` | Text matching the filter. |
    | `resource-tree--incomplete` | The marker of servers whose listing is incomplete. |
    """

    DEFAULT_CSS = """
    ResourceTree {
        background: $surface;
        color: $foreground;
        & > .resource-tree--guides { color: $foreground-muted; }
        & > .resource-tree--label { }
        & > .resource-tree--folder { text-style: bold; }
        & > .resource-tree--muted { color: $foreground-muted; }
        & > .resource-tree--count { color: $tree-count; }
        & > .resource-tree--pattern { color: $tree-pattern; text-style: italic; }
        & > .resource-tree--badge { color: $tree-badge; text-style: reverse; }
        & > .resource-tree--match { color: $tree-match; text-style: bold underline; }
        & > .resource-tree--incomplete { color: $tree-incomplete; text-style: bold; }
        & > .resource-tree--cursor {
            background: $block-cursor-blurred-background;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus {
            background-tint: $foreground 5%;
            & > .resource-tree--cursor {
                color: $block-cursor-foreground;
                background: $block-cursor-background;
                text-style: $block-cursor-text-style;
            }
        }
    }
    """

    SYNC_FILTER_LIMIT: ClassVar[int] = 20_000
    """Substring filters over trees with at most this many resources + templates run synchronously."""
    FILTER_LIMIT: ClassVar[int] = 100_000
    """Match records a substring filter collects before it stops (`FilterSummary.truncated`)."""
    FILTER_EXPAND: ClassVar[int] = 500
    """A filter expands the ancestors of this many matches (in tree order)."""
    REFILTER_DELAY: ClassVar[float] = 1.0
    """Seconds between re-runs of a substring filter while pages keep arriving."""

    show_servers: reactive[bool] = reactive(False)
    """Show server badges on rows (worth it when several servers are connected)."""

    # ------------------------------------------------------------------------------------ messages

    class NodeHighlighted(_TreeMessage):
        """The cursor moved to another node (posted once per move; nothing is read)."""

        def __init__(self, tree: ResourceTree, node: Node) -> None:
            self.node: Node = node
            super().__init__(tree)

    class NodeSelected(_TreeMessage):
        """`enter` (or a double click) on a node: open it."""

        def __init__(self, tree: ResourceTree, node: Node) -> None:
            self.node: Node = node
            super().__init__(tree)

    class NodeExpanded(_TreeMessage):
        """A node was expanded by the user or through the API."""

        def __init__(self, tree: ResourceTree, node: UriNode) -> None:
            self.node: UriNode = node
            super().__init__(tree)

    class NodeCollapsed(_TreeMessage):
        """A node was collapsed by the user or through the API."""

        def __init__(self, tree: ResourceTree, node: UriNode) -> None:
            self.node: UriNode = node
            super().__init__(tree)

    class DrillRequested(_TreeMessage):
        """A template (or one of its candidates) was drilled: complete `drill.next_variable`, with
        `drill.typed` as the value and `drill.context()` as context, then call `set_drill_children`."""

        def __init__(self, tree: ResourceTree, node: PatternNode, drill: Drill) -> None:
            self.node: PatternNode = node
            self.drill: Drill = drill
            super().__init__(tree)

    class DrillSelected(_TreeMessage):
        """`enter` on a drilled candidate whose URI is concrete: read `drill.uri` on `drill.server`."""

        def __init__(self, tree: ResourceTree, node: PatternNode, drill: Drill) -> None:
            self.node: PatternNode = node
            self.drill: Drill = drill
            super().__init__(tree)

    class FilterApplied(_TreeMessage):
        """A filter result is on screen (`summary` None: the filter was cleared)."""

        def __init__(self, tree: ResourceTree, summary: FilterSummary | None) -> None:
            self.summary = summary
            super().__init__(tree)

    # ---------------------------------------------------------------------------------- lifecycle

    def __init__(
        self,
        tree: UriTree,
        *,
        show_servers: bool = False,
        root_label: str = "All resources",
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self._tree = tree
        self._root_label = sanitize_line(root_label, _LABEL_LIMIT)
        self._version = tree.version
        self._expanded: set[tuple[str, int]] = set()  # (prefix, depth) of expanded nodes (see `_key`)
        self._expanded_gen = 0
        self._auto: set[UriNode] = set()  # expanded by the filter (dropped when it is cleared)
        self._root_open = True
        self._auto_gen = 0
        self._open_cache: tuple[tuple[int, int, int], frozenset[UriNode]] | None = None
        self._open_rows: set[_Row] = set()
        self._filter: FilterResult | None = None
        self._filter_text = ""
        self._filter_token = 0
        self._filter_pending = False
        self._refilter_timer: Timer | None = None
        self._incomplete: frozenset[str] = frozenset()
        self._gen = 0  # style / content generation of cached strips
        self._palette: _Palette | None = None
        self._strips: LRUCache[tuple[_Row, bool, int], Strip] = LRUCache(1024)
        self._badges: dict[str, str] = {}
        self._content_width = 0
        self._width_pending = False
        self._rows: list[_Row] = []
        self._cursor = 0
        self._highlighted: Node | None = None
        self._drills: dict[DrillKey, _DrillState] = {}  # open drill positions (the truth; see docstring)
        self._vkids: dict[_Row, list[_VRow]] = {}  # materialized drilled rows -> their virtual rows
        self._drillable: dict[str, bool] = {}  # template text -> it parses and has a variable
        self.set_reactive(ResourceTree.show_servers, show_servers)
        self._rebuild()
        self._cursor_row = self._rows[0]

    def on_mount(self) -> None:
        self._update_virtual_size()
        self._post_highlight()

    def on_resize(self, event: events.Resize) -> None:
        self._update_virtual_size()

    # -------------------------------------------------------------------------------- public API

    @property
    def uri_tree(self) -> UriTree:
        """The model this view shows."""
        return self._tree

    @property
    def cursor_node(self) -> Node:
        """The node under the cursor (for a collapsed chain row, the chain's last node)."""
        return self._cursor_row.node

    @property
    def cursor_line(self) -> int:
        """Index of the cursor's row among the materialized rows."""
        return self._cursor

    @property
    def row_count(self) -> int:
        """Number of materialized rows (the virtual height)."""
        return len(self._rows)

    @property
    def filter_text(self) -> str:
        return self._filter_text

    @property
    def filter_result(self) -> FilterResult | None:
        """The filter on screen (None when not filtering; may lag `filter_text` while a scan runs)."""
        return self._filter

    @property
    def filter_pending(self) -> bool:
        """A substring scan is running in the background."""
        return self._filter_pending

    @property
    def incomplete_servers(self) -> frozenset[str]:
        """Servers whose listing is incomplete; named on the root row."""
        return self._incomplete

    @incomplete_servers.setter
    def incomplete_servers(self, servers: Set[str] | Iterable[str]) -> None:
        value = frozenset(servers)
        if value != self._incomplete:
            self._incomplete = value
            self._invalidate()

    def is_expanded(self, node: UriNode) -> bool:
        """Whether `node`'s row is materialized and expanded."""
        row = self._find_row(node, expand=False)
        return row.node is node and row.block is not None

    def visible_rows(self) -> list[tuple[int, str, Node]]:
        """(depth, raw label, node) of every materialized row, top to bottom (tests and tools; O(rows))."""
        index = 0
        while index < len(self._rows):  # a revalidated row may expand, inserting rows after it
            self._revalidate(self._rows[index], defer=False)
            index += 1
        return [(row.depth, row.label, row.node) for row in self._rows]

    def rebuild(self) -> None:
        """Materialize every row again from the model, keeping expansions, filter and cursor.

        `model_changed` does the same incrementally; this is the reference (and a way out if a caller
        changed the model without telling). Cost O(rows of expanded nodes).
        """
        self._version = self._tree.version
        before = self._cursor_row
        target = self._reanchor_target(before.node)
        self._rebuild()
        found = self._relocate(before, self._find_row(target, expand=False))
        self._cursor_row = found
        self._cursor = self._rows.index(found)
        self._after_structure_change()

    def model_changed(self) -> None:
        """Bring the rows up to date after the tree changed (a page merged, a server refreshed or removed).

        Visits the expanded nodes only; a block whose children did not change costs O(1). Expanded
        nodes stay expanded (by prefix), new children of expanded nodes get rows, the cursor stays on
        its node (or moves to the nearest surviving ancestor).
        """
        version = self._tree.version
        if version == self._version:
            return
        self._version = version
        if self._drills:
            self._prune_drills()
        force = False
        active = self._filter
        if active is not None:
            if active.mode == "prefix":
                self._filter = compute_filter(self._tree, active.text, expand=self.FILTER_EXPAND)
                force = True
            else:
                self._schedule_refilter()
        for row in sorted(self._open_rows, key=attrgetter("depth")):
            if row.alive and row.block is not None:
                self._sync_open_row(row, force)
        self._revalidate(self._cursor_row, defer=False)
        self._after_structure_change()

    def select_prefix(self, prefix: str) -> bool:
        """Move the cursor to the node for `prefix` (or the pattern whose template text it is), expanding
        its ancestors and scrolling it into view. A filter that hides it is cleared. False if unknown."""
        target = self._target_for(prefix)
        if target is None:
            return False
        if self._filter is not None and not self._filter_shows(target):
            self._clear_filter()
        row = self._find_row(target, expand=True)
        self._set_cursor(self._rows.index(row), center=True)
        return True

    def expand_node(self, node: UriNode) -> None:
        """Expand `node` (its ancestors too, so it is on screen)."""
        row = self._find_row(node, expand=True)
        if self._covers(row, node):
            self._expand_row(row)

    def collapse_node(self, node: UriNode) -> None:
        """Collapse `node` if its row is expanded."""
        row = self._find_row(node, expand=False)
        if self._covers(row, node):
            self._collapse_row(row)

    def set_filter(self, text: str) -> FilterSummary | None:
        """Filter the tree ("" clears): prefix query when `text` starts with a scheme, else substring.

        Returns the summary when the result is already on screen; None when cleared or when a substring
        scan of a large tree was started in a worker (`FilterApplied` is posted when it lands; stale
        results are dropped). See `explorer.model.tree_filter` for the matching rules and costs.
        """
        self._filter_token += 1
        self._filter_text = text
        if self._refilter_timer is not None:
            self._refilter_timer.stop()
            self._refilter_timer = None
        if not text.strip():
            self._filter_text = ""
            self._filter_pending = False
            if self._filter is not None:
                self._clear_filter()
                self.post_message(self.FilterApplied(self, None))
            return None
        root = self._tree.root
        if is_prefix_query(text) or root.resource_count + root.template_count <= self.SYNC_FILTER_LIMIT:
            result = compute_filter(self._tree, text, limit=self.FILTER_LIMIT, expand=self.FILTER_EXPAND)
            self._filter_pending = False
            self._apply_filter(result)
            return result.summary
        self._filter_pending = True
        self._filter_worker(text, self._filter_token)
        return None

    @property
    def cursor_drill(self) -> Drill | None:
        """The drill position of the candidate row under the cursor (None on any other row)."""
        row = self._cursor_row
        return row.drill if isinstance(row, _VRow) and row.kind == "value" else None

    @property
    def open_drills(self) -> list[DrillKey]:
        """Keys (template text, chosen values) of the open drill positions."""
        return list(self._drills)

    def set_drill_children(
        self,
        pattern_node: PatternNode,
        drill: Drill,
        values: Sequence[str],
        note: str | None = None,
        *,
        total: int | None = None,
        has_more: bool = False,
    ) -> bool:
        """Show completion `values` below the drilled row of `drill` (the drill of `DrillRequested`, maybe
        on another server); `note` says why there are none (an error, no completions capability).

        Values are deduplicated, empty ones (and a refinement's own text) dropped, at most `DRILL_LIMIT`
        shown; `total` and `has_more` (as the server sent them) add a "+N more" row. False when that
        position was closed meanwhile (the answer is dropped). `pattern_node` may be stale: the template
        text is the key.
        """
        state = self._drills.get(drill.key)
        if state is None:
            return False
        # A refinement's own text (`src/` completing `src/`) would only repeat the row: left out.
        typed = drill.typed
        candidates = list(
            dict.fromkeys(value for value in values if isinstance(value, str) and value and value != typed)
        )
        if typed and total is not None and typed in values:
            total -= 1
        shown = candidates[:DRILL_LIMIT]
        extra = len(candidates) - len(shown)
        if total is not None and total > len(candidates):
            extra = max(extra, total - len(shown))
        state.drill = drill
        state.values = tuple(shown)
        state.more = extra if extra > 0 else (0 if has_more else None)
        state.note = note
        state.waiting = False
        row = self._drill_row(drill.key)
        if row is not None:
            self._splice_drill(row)
        return True

    # --------------------------------------------------------------------------------- rows: drill

    def _drillable_template(self, pattern: PatternNode) -> bool:
        text = pattern.uri_template
        known = self._drillable.get(text)
        if known is None:
            try:
                known = Drill.start(text, "").children_drill is not None
            except TemplateError:
                known = False
            self._drillable[text] = known
        return known

    def _row_key(self, row: _Row) -> DrillKey | None:
        """The drill position a row stands for: a template row (nothing chosen) or a candidate row."""
        if isinstance(row, _VRow):
            return row.drill.key if row.kind == "value" else None
        node = row.node
        return (node.uri_template, ()) if isinstance(node, PatternNode) else None

    def _children_drill(self, row: _Row) -> Drill | None:
        """The drill whose candidates go below `row`; None when the row cannot be drilled."""
        if isinstance(row, _VRow):
            return row.drill.children_drill if row.kind == "value" else None
        node = row.node
        if not isinstance(node, PatternNode) or not node.templates or not self._drillable_template(node):
            return None
        return Drill.start(node.uri_template, min(node.templates)).children_drill

    def _is_drilled(self, row: _Row) -> bool:
        return row in self._vkids

    def _wants_drill(self, row: _Row) -> bool:
        """A template row made while its drill is open (after a rebuild, a refresh, an expand)."""
        node = row.node
        return isinstance(node, PatternNode) and (node.uri_template, ()) in self._drills

    def _drill_kids(self, row: _Row, state: _DrillState) -> list[_VRow]:
        pattern = row.node
        assert isinstance(pattern, PatternNode)
        depth = row.depth + 1
        version = self._version
        drill = state.drill
        kids: list[_VRow] = []

        def add(kind: str, label: str, position: Drill) -> None:
            kids.append(_VRow(pattern, label, depth, row, kind, position, version))

        variable = drill.next_variable
        label = "" if variable is None else drill.field(variable).label
        if state.waiting:
            add("wait", f"… {label}", drill)
        else:
            if variable is not None:
                for value in state.values:
                    add("value", f"{label} = {value}", drill.with_value(value))
            if state.more is not None:
                more = f"+{state.more:,} more" if state.more else "+ more"
                add("more", f"{more}: type in the form to narrow", drill)
            if state.note is not None:
                add("note", NO_COMPLETIONS, drill)
            elif not state.values:
                add("note", NO_SUGGESTIONS, drill)
        kids[-1].last = True
        return kids

    def _drill_region(self, row: _Row) -> list[_Row]:
        """The virtual rows below a drilled `row` (open positions below it included); sets sizes."""
        key = self._row_key(row)
        state = None if key is None else self._drills.get(key)
        if state is None:
            self._vkids.pop(row, None)
            row.size = 0
            return []
        kids = self._drill_kids(row, state)
        self._vkids[row] = kids
        region: list[_Row] = []
        drills = self._drills
        for kid in kids:
            region.append(kid)
            if kid.kind == "value" and kid.drill.key in drills:
                region.extend(self._drill_region(kid))
        row.size = len(region)
        return region

    def _splice_drill(self, row: _Row) -> None:
        """Replace `row`'s virtual rows by rows built from the drill states (opened, answered, closed)."""
        rows = self._rows
        index = rows.index(row)
        old = row.size
        self._kill(rows[index + 1 : index + 1 + old])
        region = self._drill_region(row)
        rows[index + 1 : index + 1 + old] = region
        self._grow(row, len(region) - old)
        self._after_structure_change()

    def _open_drill(self, row: _Row) -> bool:
        if not row.alive or self._is_drilled(row):
            return False
        drill = self._children_drill(row)
        key = self._row_key(row)
        if drill is None or key is None:
            return False
        pattern = row.node
        assert isinstance(pattern, PatternNode)
        self._drills[key] = _DrillState(drill)
        self._splice_drill(row)
        self.post_message(self.DrillRequested(self, pattern, drill))
        return True

    def _close_drill(self, row: _Row) -> bool:
        key = self._row_key(row)
        if key is None or not self._is_drilled(row):
            return False
        self._drop_drills(key)
        self._splice_drill(row)
        return True

    def _drop_drills(self, key: DrillKey) -> None:
        """Forget an open position and every position below it."""
        template, trail = key
        depth = len(trail)
        for other in [k for k in self._drills if k[0] == template and k[1][:depth] == trail]:
            del self._drills[other]

    def _prune_drills(self) -> None:
        """Forget the drills of templates no server lists any more."""
        tree = self._tree
        gone = {template for template, _ in self._drills if tree.pattern_for(template) is None}
        for key in [k for k in self._drills if k[0] in gone]:
            del self._drills[key]

    def _drill_row(self, key: DrillKey) -> _Row | None:
        """The materialized row of a drill position (None when it is not on screen)."""
        template, trail = key
        pattern = self._tree.pattern_for(template)
        if pattern is None:
            return None
        row = self._find_row(pattern, expand=False)
        if row.node is not pattern:
            return None
        for value in trail:
            row_next = self._virtual_child(row, value)
            if row_next is None:
                return None
            row = row_next
        return row

    def _virtual_child(self, row: _Row, value: str) -> _VRow | None:
        for kid in self._vkids.get(row, ()):
            if kid.kind == "value" and kid.drill.trail[-1] == value:
                return kid
        return None

    def _relocate(self, old: _Row, found: _Row) -> _Row:
        """`found` stands for `old`'s node; for a virtual `old`, go down to the same drill position."""
        if not isinstance(old, _VRow) or isinstance(found, _VRow):
            return found
        node = found.node
        if not isinstance(node, PatternNode) or node.uri_template != old.drill.template:
            return found
        row = found
        for value in old.drill.trail:
            kid = self._virtual_child(row, value)
            if kid is None:
                return row
            row = kid
        if old.kind != "value":
            kids = self._vkids.get(row, ())
            for kid in kids:
                if kid.kind == old.kind:
                    return kid
            if kids:  # the `…` row was answered: the first candidate takes its place
                return kids[0]
        return row

    # --------------------------------------------------------------------------------- rows: build

    def _rebuild(self) -> None:
        """Materialize every row again from the root (the expanded nodes only)."""
        for row in self._open_rows:
            row.alive = False
        self._open_rows = set()
        self._vkids = {}
        tree = self._tree
        root = tree.root
        full = self._filter is None or root in self._filter.whole
        root_row = _Row(root, root, "", 0, None, full, self._version)
        root_row.last = True
        rows = [root_row]
        if self._root_open:
            rows.extend(self._build_region(root_row, self._open_nodes()))
        for row in self._rows:
            row.alive = False
        self._rows = rows

    def _open_nodes(self) -> frozenset[UriNode]:
        """The nodes that should be expanded: remembered prefixes resolved in the current tree, plus the
        filter's; an inner node of a collapsed chain stands for the chain's last node. Cached."""
        key = (self._version, self._expanded_gen, self._auto_gen)
        cached = self._open_cache
        if cached is not None and cached[0] == key:
            return cached[1]
        tree = self._tree
        chain_end = tree.chain_end
        nodes: set[UriNode] = set()
        for remembered in self._expanded:
            node = self._resolve(remembered)
            if node is not None:
                nodes.add(chain_end(node))
        nodes.update(chain_end(node) for node in self._auto)
        frozen = frozenset(nodes)
        self._open_cache = (key, frozen)
        return frozen

    def _visible_items(
        self, row: _Row, src: Sequence[UriNode], pats: tuple[PatternNode, ...]
    ) -> tuple[list[Node], int]:
        active = self._filter
        if active is None or row.full:
            items: list[Node] = [*pats, *src]
            return items, len(pats)
        visible = active.visible
        shown_pats = [pattern for pattern in pats if pattern in visible]
        items = [*shown_pats, *filter(visible.__contains__, src)]
        return items, len(shown_pats)

    def _fill(self, row: _Row) -> list[_Row]:
        """Give `row` its block (it becomes expanded) and return its child rows."""
        node = row.node
        assert isinstance(node, UriNode)
        tree = self._tree
        src = tree.children(node)
        pats = tuple(tree.patterns(node))
        items, npats = self._visible_items(row, src, pats)
        kids = self._make_rows(items, npats, row)
        row.block = _Block(src, pats, items, kids, npats)
        self._open_rows.add(row)
        return kids

    def _make_rows(self, items: Sequence[Node], npats: int, parent: _Row) -> list[_Row]:
        tree = self._tree
        chain_end = tree.chain_end
        depth = parent.depth + 1
        version = self._version
        full = parent.full
        whole = None if full or self._filter is None else self._filter.whole
        rows: list[_Row] = []
        append = rows.append
        for pattern in items[:npats]:
            append(_Row(pattern, pattern, pattern.segment, depth, parent, full, version))
        for item in items[npats:]:
            assert isinstance(item, UriNode)
            end = chain_end(item)
            label = item.segment if end is item else tree.chain_label(item)
            row_full = full or (whole is not None and self._in_whole(item, end, whole))
            append(_Row(item, end, label, depth, parent, row_full, version))
        if rows:
            rows[-1].last = True
        return rows

    @staticmethod
    def _in_whole(head: UriNode, end: UriNode, whole: frozenset[UriNode]) -> bool:
        node: UriNode | None = end
        while node is not None:
            if node in whole:
                return True
            if node is head:
                return False
            node = node.parent
        return False

    def _make_row(self, item: Node, parent: _Row) -> _Row:
        return self._make_rows([item], 1 if isinstance(item, PatternNode) else 0, parent)[0]

    def _build_region(self, row: _Row, open_nodes: Set[UriNode]) -> list[_Row]:
        """Expand `row` and return the rows below it, expanding descendants found in `open_nodes`."""
        kids = self._fill(row)
        drills = bool(self._drills)
        block = row.block
        assert block is not None
        drilled = drills and any(self._wants_drill(kid) for kid in kids[: block.npats])
        if not drilled and open_nodes.isdisjoint(map(_get_node, kids)):
            row.size = len(kids)
            return list(kids)
        region: list[_Row] = []
        # Iterative depth-first walk (a hostile server may nest deeply): (row, its kids, next, start).
        stack: list[tuple[_Row, list[_Row], int, int]] = [(row, kids, 0, 0)]
        while stack:
            parent, children, index, start = stack[-1]
            if index >= len(children):
                parent.size = len(region) - start
                stack.pop()
                continue
            stack[-1] = (parent, children, index + 1, start)
            kid = children[index]
            region.append(kid)
            if kid.node in open_nodes and self._expandable(kid):
                stack.append((kid, self._fill(kid), 0, len(region)))
            elif drills and self._wants_drill(kid):
                region.extend(self._drill_region(kid))
        return region

    def _expandable(self, row: _Row) -> bool:
        node = row.node
        if isinstance(node, PatternNode):
            return False
        if not (node.child_count or node.pattern_count):
            return False
        active = self._filter
        if active is None or row.full:
            return True
        visible = active.visible
        if any(pattern in visible for pattern in self._tree.patterns(node)):
            return True
        return not visible.isdisjoint(self._tree.children(node))

    # ------------------------------------------------------------------------------- rows: change

    def _grow(self, row: _Row, delta: int) -> None:
        """Add `delta` to the size of every ancestor of `row` (not `row` itself)."""
        parent = row.parent
        while parent is not None:
            parent.size += delta
            parent = parent.parent

    def _kill(self, rows: Sequence[_Row]) -> None:
        open_rows = self._open_rows
        for row in rows:
            row.alive = False
            if row.block is not None:
                open_rows.discard(row)
        vkids = self._vkids
        if vkids:
            for row in rows:
                vkids.pop(row, None)

    def _expand_row(self, row: _Row, extra: Set[UriNode] = frozenset(), *, notify: bool = True) -> bool:
        if row.block is not None or not row.alive or not self._expandable(row):
            return False
        index = self._rows.index(row)
        open_nodes = self._open_nodes()
        if extra:
            open_nodes = open_nodes | extra
        region = self._build_region(row, open_nodes)
        self._rows[index + 1 : index + 1] = region
        self._grow(row, len(region))
        if self._cursor > index:
            self._cursor += len(region)
        node = row.node
        assert isinstance(node, UriNode)
        self._remember(node)
        self._after_structure_change()
        if notify:
            self.post_message(self.NodeExpanded(self, node))
        return True

    def _collapse_row(self, row: _Row, *, forget: bool = True, notify: bool = True) -> bool:
        block = row.block
        if block is None:
            return False
        index = self._rows.index(row)
        size = row.size
        removed = self._rows[index + 1 : index + 1 + size]
        del self._rows[index + 1 : index + 1 + size]
        if forget and self._vkids:  # closing a prefix closes the drills below it, like its expansions
            for dead in removed:
                if dead in self._vkids:
                    key = self._row_key(dead)
                    if key is not None:
                        self._drop_drills(key)
        self._kill(removed)
        row.block = None
        self._open_rows.discard(row)
        row.size = 0
        self._grow(row, -size)
        if index < self._cursor <= index + size:
            self._cursor = index
            self._cursor_row = row
        elif self._cursor > index + size:
            self._cursor -= size
        node = row.node
        assert isinstance(node, UriNode)
        if forget:
            self._forget_row(row)
            for dead in removed:
                if dead.block is not None:
                    self._forget_row(dead)
        self._after_structure_change()
        if notify:
            self.post_message(self.NodeCollapsed(self, node))
        return True

    @staticmethod
    def _key(node: UriNode) -> tuple[str, int]:
        """How an expansion is remembered: nodes may be replaced by a refresh, so by URI prefix; with the
        depth, because an empty segment glued to its parent (``file://`` + empty authority) repeats the
        parent's prefix."""
        return node.prefix, node.depth

    def _resolve(self, key: tuple[str, int]) -> UriNode | None:
        prefix, depth = key
        node = self._tree.node_for(prefix)
        while node is not None and node.depth < depth:  # down the empty segments that add no text
            kids = self._tree.children(node)
            node = kids[0] if kids and kids[0].segment == "" else None
        return node if node is not None and node.depth == depth else None

    def _remember(self, node: UriNode) -> None:
        if node.parent is None:
            self._root_open = True
            return
        key = self._key(node)
        if key not in self._expanded:
            self._expanded.add(key)
            self._expanded_gen += 1

    def _forget_row(self, row: _Row) -> None:
        """Forget the expansion of a row: every node of its chain (a remembered inner node maps to it)."""
        node: Node | None = row.node
        while isinstance(node, UriNode):
            self._forget(node)
            if node is row.head:
                break
            node = node.parent

    def _forget(self, node: UriNode) -> None:
        if node.parent is None:
            self._root_open = False
            return
        if node in self._auto:
            self._auto.discard(node)
            self._auto_gen += 1
        key = self._key(node)
        if key in self._expanded:
            self._expanded.discard(key)
            self._expanded_gen += 1

    def _sync_open_row(self, row: _Row, force: bool) -> None:
        """Bring one expanded row's block up to date with the model."""
        tree = self._tree
        head = row.head
        if row.parent is not None and isinstance(head, UriNode):
            end = tree.chain_end(head)
            if end is not row.node:
                self._replace_row(row, end)
                return
        block = row.block
        assert block is not None
        node = row.node
        assert isinstance(node, UriNode)
        src = tree.children(node)
        pats = tuple(tree.patterns(node))
        if not force and src is block.src and pats == block.pats:
            return
        items, npats = self._visible_items(row, src, pats)
        block.src = src
        block.pats = pats
        if items == block.items:
            return
        self._merge_block(row, items, npats)

    def _merge_block(self, row: _Row, items: list[Node], npats: int) -> None:
        """Replace `row`'s child rows by rows for `items`, reusing the rows (and subtrees) of kept nodes."""
        block = row.block
        assert block is not None
        old_items, old_kids = block.items, block.kids
        new_kids: list[_Row] = []
        created: list[_Row] = []
        removed: list[_Row] = []
        i = j = 0
        n_old, n_new = len(old_items), len(items)
        while i < n_old and j < n_new:
            if old_items[i] is items[j]:
                run = _run_length(old_items, i, items, j)
                new_kids.extend(old_kids[i : i + run])
                i += run
                j += run
                continue
            old_key, new_key = _order_key(old_items[i]), _order_key(items[j])
            if new_key <= old_key:
                kid = self._make_row(items[j], row)
                kid.last = False
                new_kids.append(kid)
                created.append(kid)
                j += 1
            if old_key <= new_key:
                removed.append(old_kids[i])
                i += 1
        removed.extend(old_kids[i:])
        if j < n_new:
            tail = self._make_rows(items[j:], max(0, npats - j), row)
            new_kids.extend(tail)
            created.extend(tail)
        # Only the old last row and the tail's last row can carry `last`; the new last row gets it.
        if old_kids:
            old_kids[-1].last = False
        if new_kids:
            new_kids[-1].last = True

        rows = self._rows
        start = rows.index(row) + 1
        end = start + row.size
        open_nodes: Set[UriNode] = self._open_nodes() if created else frozenset()
        drills = bool(self._drills)
        opening = [
            kid
            for kid in created
            if (kid.node in open_nodes and self._expandable(kid)) or (drills and self._wants_drill(kid))
        ]
        # Dead subtrees first (positions are those of the old region).
        for kid in removed:
            if kid.size:
                at = rows.index(kid, start, end)
                self._kill(rows[at + 1 : at + 1 + kid.size])
        self._kill(removed)
        if row.size == len(old_kids) and not opening:
            region = list(new_kids)  # no expanded children: the region is the child rows themselves
        else:
            opening_set = set(opening)
            region = []
            for kid in new_kids:
                region.append(kid)
                if kid.size:
                    at = rows.index(kid, start, end)
                    region.extend(rows[at + 1 : at + 1 + kid.size])
                elif kid in opening_set:
                    if isinstance(kid.node, PatternNode):
                        region.extend(self._drill_region(kid))
                    else:
                        region.extend(self._build_region(kid, open_nodes))
        rows[start:end] = region
        delta = len(region) - row.size
        row.size = len(region)
        self._grow(row, delta)
        block.items = items
        block.kids = new_kids
        block.npats = npats

    def _replace_row(self, row: _Row, new_end: UriNode) -> None:
        """An expanded chain row whose chain changed: a fresh row for its head, expansion carried over."""
        old_end = row.node
        assert isinstance(old_end, UriNode)
        # The chain got shorter (a node inside it gained a child): the user saw `old_end` expanded, so
        # the nodes from the new end down to it stay expanded too.
        between: list[UriNode] = []
        node: UriNode | None = old_end
        stop = row.head.parent
        while node is not None and node is not new_end and node is not stop:
            between.append(node)
            node = node.parent
        if node is new_end:
            for inner in between:
                self._remember(inner)
        self._remember(new_end)
        rows = self._rows
        index = rows.index(row)
        size = row.size
        self._kill(rows[index : index + 1 + size])
        parent = row.parent
        assert parent is not None and parent.block is not None
        fresh = self._make_row(row.head, parent)
        fresh.last = row.last
        kids = parent.block.kids
        kids[kids.index(row)] = fresh
        region = [fresh]
        if self._expandable(fresh):
            region.extend(self._build_region(fresh, self._open_nodes()))
        rows[index : index + 1 + size] = region
        self._grow(fresh, len(region) - 1 - size)

    def _revalidate(self, row: _Row, *, defer: bool = True) -> None:
        """Fix a collapsed row whose chain changed since it was made (cheap; done when painted).

        A row whose node is one to keep expanded (and now has something to show) is expanded, as
        `rebuild` would: later when `defer` (while painting).
        """
        if row.version == self._version or not row.alive:
            return
        row.version = self._version
        head = row.head
        if row.block is not None or row.parent is None or not isinstance(head, UriNode):
            return
        tree = self._tree
        end = tree.chain_end(head)
        if end is not row.node:
            row.node = end
            row.label = head.segment if end is head else tree.chain_label(head)
            parent = row.parent
            active = self._filter
            row.full = parent.full or (active is not None and self._in_whole(head, end, active.whole))
        # A remembered node whose row was made while it had nothing to show (or hidden in a chain).
        if end in self._open_nodes() and self._expandable(row):
            if defer:
                self.call_later(self._expand_if_wanted, row)
            else:
                self._expand_row(row, notify=False)

    def _expand_if_wanted(self, row: _Row) -> None:
        if row.alive and row.block is None and row.node in self._open_nodes():
            self._expand_row(row, notify=False)

    def _after_structure_change(self) -> None:
        """Rows were added, removed or changed: fix the cursor, the virtual size, repaint."""
        rows = self._rows
        if not rows:
            return
        cursor_row = self._cursor_row
        if cursor_row.alive:
            if not (self._cursor < len(rows) and rows[self._cursor] is cursor_row):
                self._cursor = rows.index(cursor_row)
        else:
            target = self._reanchor_target(cursor_row.node)
            found = self._relocate(cursor_row, self._find_row(target, expand=False))
            self._cursor = rows.index(found)
            self._cursor_row = found
        self._invalidate()
        self._update_virtual_size()
        self._post_highlight()

    def _reanchor_target(self, node: Node) -> Node:
        """The node standing for `node` (maybe replaced or removed) in the current tree."""
        tree = self._tree
        if isinstance(node, PatternNode):
            parent = self._reanchor_target(node.parent)
            assert isinstance(parent, UriNode)
            for pattern in tree.patterns(parent):
                if pattern.uri_template == node.uri_template:
                    return pattern
            return parent
        if node.parent is None or tree.attached(node):
            return node if node.parent is not None else tree.root
        return self._resolve(self._key(node)) or tree.nearest(node.prefix)

    def _target_for(self, prefix: str) -> Node | None:
        tree = self._tree
        node = tree.node_for(prefix)
        if node is not None:
            return node
        candidate: UriNode | None = tree.nearest(prefix)
        while candidate is not None:
            for pattern in tree.patterns(candidate):
                if pattern.uri_template == prefix:
                    return pattern
            candidate = candidate.parent
        return None

    def _find_row(self, target: Node, *, expand: bool) -> _Row:
        """The row showing `target`, expanding its ancestors if `expand`; else the deepest ancestor row."""
        path = _ancestors(target)
        rows = self._rows
        row = rows[0]
        if path[0] is not row.node:
            return row
        k = 1
        while k < len(path):
            if row.block is None and not (expand and self._expand_row(row, notify=True)):
                return row
            block = row.block
            assert block is not None
            try:
                index = block.items.index(path[k])
            except ValueError:
                return row
            row = block.kids[index]
            end = row.node
            while k < len(path) and path[k] is not end:
                k += 1
            k += 1
        return row

    @staticmethod
    def _covers(row: _Row, node: Node) -> bool:
        current: Node | None = row.node
        while current is not None:
            if current is node:
                return True
            if current is row.head:
                return False
            current = current.parent
        return False

    # ------------------------------------------------------------------------------------ cursor

    def _set_cursor(self, line: int, *, center: bool = False) -> None:
        rows = self._rows
        line = max(0, min(line, len(rows) - 1))
        previous = self._cursor
        self._cursor = line
        self._cursor_row = rows[line]
        if previous != line:
            self.refresh_line(previous)
            self.refresh_line(line)
        self._scroll_to_line(line, center=center)
        self._post_highlight()

    def _post_highlight(self) -> None:
        node = self._cursor_row.node
        if node is not self._highlighted:
            self._highlighted = node
            if self.is_attached:
                self.post_message(self.NodeHighlighted(self, node))

    def _scroll_to_line(self, line: int, *, center: bool = False) -> None:
        height = self.scrollable_content_region.height
        if height <= 0:
            return
        top = self.scroll_offset.y
        if center and not top <= line < top + height:
            target = line - height // 2
        elif line < top:
            target = line
        elif line >= top + height:
            target = line - height + 1
        else:
            return
        self.scroll_to(y=max(0, target), animate=False, force=True)

    # ----------------------------------------------------------------------------------- actions

    def action_cursor_up(self) -> None:
        self._set_cursor(self._cursor - 1)

    def action_cursor_down(self) -> None:
        self._set_cursor(self._cursor + 1)

    def action_cursor_home(self) -> None:
        self._set_cursor(0)

    def action_cursor_end(self) -> None:
        self._set_cursor(len(self._rows) - 1)

    def action_page_up(self) -> None:
        self._set_cursor(self._cursor - max(1, self.scrollable_content_region.height - 1))

    def action_page_down(self) -> None:
        self._set_cursor(self._cursor + max(1, self.scrollable_content_region.height - 1))

    def action_collapse_or_parent(self) -> None:
        row = self._cursor_row
        if self._is_drilled(row):
            self._close_drill(row)
        elif row.block is not None:
            self._collapse_row(row)
        elif row.parent is not None:
            self._set_cursor(self._rows.index(row.parent))

    def action_expand_or_child(self) -> None:
        row = self._cursor_row
        if isinstance(row.node, PatternNode):  # a template or one of its virtual rows: drill
            if not self._is_drilled(row):
                self._open_drill(row)
            elif row.size:
                self._set_cursor(self._cursor + 1)
        elif row.block is None:
            self._expand_row(row)
        elif row.size:
            self._set_cursor(self._cursor + 1)

    def action_toggle_node(self) -> None:
        row = self._cursor_row
        if isinstance(row.node, PatternNode):
            if not self._close_drill(row):
                self._open_drill(row)
        elif row.block is not None:
            self._collapse_row(row)
        else:
            self._expand_row(row)

    def action_select(self) -> None:
        row = self._cursor_row
        node = row.node
        if isinstance(row, _VRow):
            assert isinstance(node, PatternNode)
            if row.kind != "value":  # waiting, no completions, more: the form
                self.post_message(self.NodeSelected(self, node))
            elif row.drill.is_concrete:
                self.post_message(self.DrillSelected(self, node, row.drill))
            else:
                self.action_toggle_node()
            return
        self.post_message(self.NodeSelected(self, node))
        if isinstance(node, UriNode) and not node.has_resource and row.parent is not None:
            self.action_toggle_node()

    def action_expand_children(self) -> None:
        """Expand the cursor's node and (up to 1,000 of) its children, one level."""
        row = self._cursor_row
        if isinstance(row.node, PatternNode):
            return
        if row.block is None and not self._expand_row(row):
            return
        block = row.block
        assert block is not None
        extra: set[UriNode] = set()
        for kid in block.kids:
            if kid.block is None and self._expandable(kid):
                node = kid.node
                assert isinstance(node, UriNode)
                extra.add(node)
                self._remember(node)
                if len(extra) >= _EXPAND_CHILDREN_LIMIT:
                    break
        if extra:
            self._collapse_row(row, forget=False, notify=False)
            self._expand_row(row, extra, notify=False)

    def action_collapse_all(self) -> None:
        self._drills.clear()
        self._expanded.clear()
        self._expanded_gen += 1
        self._auto.clear()
        self._auto_gen += 1
        self._root_open = True
        target = self._cursor_row.node
        self._rebuild()
        found = self._find_row(target, expand=False)
        self._cursor_row = found
        self._cursor = self._rows.index(found)
        self._after_structure_change()
        self._scroll_to_line(self._cursor, center=True)

    async def _on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        line = offset.y + self.scroll_offset.y
        if not 0 <= line < len(self._rows):
            return
        row = self._rows[line]
        x = offset.x + self.scroll_offset.x
        marker = 2 * row.depth
        self._set_cursor(line)
        if marker <= x < marker + 2:
            self.action_toggle_node()
        elif event.chain >= 2:
            self.action_select()

    # ------------------------------------------------------------------------------------ filter

    def _filter_shows(self, node: Node) -> bool:
        active = self._filter
        if active is None or node in active.visible:
            return True
        parent = node.parent
        while parent is not None:
            if parent in active.whole:
                return True
            parent = parent.parent
        return False

    def _apply_filter(self, result: FilterResult) -> None:
        same_text = self._filter is not None and self._filter.text == result.text
        before = self._cursor_row
        target = before.node
        self._filter = result
        if not same_text:
            self._auto = set(result.expand)
            self._auto_gen += 1
        self._rebuild()
        # A new text takes the cursor to the first match (unless it is on a match); a re-run keeps it.
        on_match = target in result.matched or any(node in result.whole for node in _ancestors(target))
        if result.first is not None and (not self._filter_shows(target) or not (same_text or on_match)):
            target = result.first
        found = self._relocate(before, self._find_row(target, expand=False))
        self._cursor_row = found
        self._cursor = self._rows.index(found)
        self._after_structure_change()
        self._scroll_to_line(self._cursor, center=True)
        self.post_message(self.FilterApplied(self, result.summary))

    def _clear_filter(self) -> None:
        before = self._cursor_row
        target = before.node
        self._filter = None
        self._auto = set()
        self._auto_gen += 1
        self._root_open = True
        for ancestor in _ancestors(target)[1:-1]:
            assert isinstance(ancestor, UriNode)
            self._remember(ancestor)
        self._rebuild()
        found = self._relocate(before, self._find_row(target, expand=False))
        self._cursor_row = found
        self._cursor = self._rows.index(found)
        self._after_structure_change()
        self._scroll_to_line(self._cursor, center=True)

    def _schedule_refilter(self) -> None:
        if self._refilter_timer is None and self.is_attached:
            self._refilter_timer = self.set_timer(self.REFILTER_DELAY, self._refilter)

    def _refilter(self) -> None:
        self._refilter_timer = None
        active = self._filter
        if active is None or active.version == self._tree.version or self._filter_pending:
            return
        self._filter_token += 1
        root = self._tree.root
        if root.resource_count + root.template_count <= self.SYNC_FILTER_LIMIT:
            self._apply_filter(
                compute_filter(self._tree, active.text, limit=self.FILTER_LIMIT, expand=self.FILTER_EXPAND)
            )
        else:
            self._filter_pending = True
            self._filter_worker(active.text, self._filter_token)

    @work(thread=True, exclusive=True, group="tree-filter")
    def _filter_worker(self, text: str, token: int) -> None:
        """Substring scan off the UI thread; a newer `set_filter` makes this result stale."""
        worker = get_current_worker()

        def stale() -> bool:
            time.sleep(0)  # let the UI thread take the GIL now rather than after the switch interval
            return worker.is_cancelled or token != self._filter_token

        result = compute_filter(
            self._tree, text, limit=self.FILTER_LIMIT, expand=self.FILTER_EXPAND, cancelled=stale
        )
        if result.cancelled or stale():
            return
        with suppress(RuntimeError):  # the app is shutting down
            self.app.call_from_thread(self._deliver_filter, result, token)

    def _deliver_filter(self, result: FilterResult, token: int) -> None:
        if token != self._filter_token:
            return  # a newer filter (or a clear) came in meanwhile
        self._filter_pending = False
        self._apply_filter(result)

    # -------------------------------------------------------------------------------- rendering

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._palette = None
        self._gen += 1

    def _on_focus(self, event: events.Focus) -> None:
        self._invalidate()

    def _on_blur(self, event: events.Blur) -> None:
        self._invalidate()

    def watch_show_servers(self) -> None:
        self._invalidate()

    def _invalidate(self) -> None:
        """Drop cached strips and styles (content or theme changed) and repaint."""
        self._gen += 1
        self._palette = None
        self.refresh()

    def _update_virtual_size(self) -> None:
        self._width_pending = False
        width = max(self._content_width, self.scrollable_content_region.width)
        self.virtual_size = Size(width, len(self._rows))

    def _get_palette(self) -> _Palette:
        palette = self._palette
        if palette is None:
            base = self.rich_style

            def part(name: str) -> Style:
                return base + self.get_component_rich_style(f"resource-tree--{name}", partial=True)

            palette = self._palette = _Palette(
                base,
                part("guides"),
                part("label"),
                part("folder"),
                part("muted"),
                part("count"),
                part("pattern"),
                part("badge"),
                self.get_component_rich_style("resource-tree--match", partial=True),
                part("incomplete"),
                self.get_component_rich_style("resource-tree--cursor", partial=True),
            )
        return palette

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        index = scroll_y + y
        palette = self._get_palette()
        if not 0 <= index < len(self._rows):
            return Strip.blank(width, palette.base)
        row = self._rows[index]
        cursor = index == self._cursor
        key = (row, cursor, self._gen)
        strip = self._strips.get(key)
        if strip is None:
            self._revalidate(row)
            strip = self._render_row(row, cursor, palette)
            self._strips[key] = strip
            if strip.cell_length > self._content_width:
                self._content_width = strip.cell_length
                if not self._width_pending:
                    self._width_pending = True
                    self.call_later(self._update_virtual_size)
        line_style = palette.base + palette.cursor if cursor else palette.base
        return strip.crop_extend(scroll_x, scroll_x + width, line_style)

    def _badge(self, server: str) -> str:
        badge = self._badges.get(server)
        if badge is None:
            text = sanitize_line(server, None)
            if cell_len(text) > _BADGE_CELLS:
                text = text[: _BADGE_CELLS - 1] + "…"
            badge = self._badges[server] = f" {text} "
        return badge

    def _render_row(self, row: _Row, cursor: bool, palette: _Palette) -> Strip:
        """One row as segments: guides, marker, label, name, count, badges (and the root's markers)."""
        extra = palette.cursor if cursor else None

        def styled(style: Style) -> Style:
            return style + extra if extra is not None else style

        segments: list[Segment] = []
        add = segments.append
        if row.depth:
            flags: list[bool] = []
            ancestor = row.parent
            while ancestor is not None and ancestor.depth:
                flags.append(ancestor.last)
                ancestor = ancestor.parent
            guide = "".join("  " if last else "│ " for last in reversed(flags))
            add(Segment(guide + ("└╴" if row.last else "├╴"), styled(palette.guides)))
        node = row.node
        tree = self._tree
        active = self._filter
        needle = active.text.lower() if active is not None and active.mode == "substring" else ""
        match = palette.match  # partial (colour, bold, underline): laid over any part, cursor included

        if isinstance(row, _VRow):
            self._render_virtual(row, segments, styled, palette)
            return Strip(segments)
        if isinstance(node, PatternNode):
            if self._is_drilled(row):
                marker = "▾ "
            elif node.templates and self._drillable_template(node):
                marker = "▸ "
            else:
                marker = "  "
            add(Segment(marker, styled(palette.guides)))
            add(Segment("⟨T⟩ ", styled(palette.pattern)))
            if too_large(node.uri_template) is not None:  # before the label, which may be very long
                add(Segment("⚠ too large to use  ", styled(palette.incomplete)))
            _add_text(segments, row.label, styled(palette.pattern), match, self._spans(row, needle))
            names = node.templates
            if names:
                first = names[min(names)]
                self._add_name(segments, first.name, row.label, styled(palette.muted), match, needle)
            self._add_badges(segments, tree.servers(node), styled(palette.badge), styled(palette.base))
            return Strip(segments)

        is_root = row.parent is None
        has_items = bool(node.child_count or node.pattern_count)
        entries = node.resources
        directory = any(entry.mime_type == _DIRECTORY_MIME for entry in entries.values())
        if row.block is not None:
            marker = "▾ "
        elif has_items and self._expandable(row):
            marker = "▸ "
        elif directory:
            marker = "▹ "
        else:
            marker = "  "
        add(Segment(marker, styled(palette.guides)))
        label_style = styled(palette.folder if has_items or directory or is_root else palette.label)
        if is_root:
            add(Segment(self._root_label, label_style))
        elif row.label == "":
            add(Segment("(empty)", styled(palette.muted)))
        else:
            _add_text(segments, row.label, label_style, match, self._spans(row, needle))
        if entries:
            first_entry = entries[min(entries)]
            title = first_entry.raw.get("title")
            shown = title if isinstance(title, str) and title else first_entry.name
            if shown != node.segment:
                self._add_name(segments, shown, row.label, styled(palette.muted), match, needle)
        if has_items or is_root:
            count = None
            if active is not None and not row.full:
                count = active.counts.get(node)
            if count is None:
                count = node.resource_count + node.template_count
            add(Segment(f"  {count:,}", styled(palette.number)))
        if self.show_servers and not is_root:
            # A prefix: every server with something below it; a leaf: the servers that list it.
            owners = tree.subtree_servers(node) if has_items else tree.servers(node)
            self._add_badges(segments, owners, styled(palette.badge), styled(palette.base))
        if is_root and self._incomplete:
            servers = ", ".join(sanitize_line(server, 40) for server in sorted(self._incomplete))
            add(Segment(f"  ⚠ incomplete: {servers}", styled(palette.incomplete)))
        return Strip(segments)

    def _render_virtual(
        self, row: _VRow, segments: list[Segment], styled: Callable[[Style], Style], palette: _Palette
    ) -> None:
        """A drill row: a candidate (`{region} = eu-west`, with its URI once concrete) or a muted note."""
        if self._is_drilled(row):
            marker = "▾ "
        elif row.kind == "value" and row.drill.children_drill is not None:
            marker = "▸ "
        else:
            marker = "  "
        segments.append(Segment(marker, styled(palette.guides)))
        if row.kind != "value":
            segments.append(Segment(sanitize_line(row.label, _LABEL_LIMIT), styled(palette.muted)))
            if row.kind == "note":
                key = self._row_key(row.parent) if row.parent is not None else None
                state = None if key is None else self._drills.get(key)
                if state is not None and state.note:
                    why = sanitize_line(state.note, _NAME_LIMIT)
                    segments.append(Segment(f"  ({why})", styled(palette.muted)))
            return
        segments.append(Segment(sanitize_line(row.label, _LABEL_LIMIT), styled(palette.pattern)))
        drill = row.drill
        if drill.is_concrete:
            try:
                uri = drill.uri
            except (TypeError, TemplateError):
                return
            segments.append(Segment("  " + sanitize_line(uri, _LABEL_LIMIT), styled(palette.muted)))

    def _spans(self, row: _Row, needle: str) -> list[tuple[int, int]]:
        """Spans of the raw label to highlight for the active filter."""
        active = self._filter
        label = row.label
        if active is None or not label or isinstance(row, _VRow) or not is_clean(label, multiline=False):
            return []
        if needle:
            return _find_all(label, needle)
        node = row.node
        full = node.uri_template if isinstance(node, PatternNode) else node.prefix
        text = active.text
        if full.startswith(text):
            common = len(text)
        elif text.startswith(full):
            common = len(full)
        else:
            return []
        start = len(full) - len(label)
        end = min(len(label), common - start)
        return [(0, end)] if end > 0 else []

    def _add_name(
        self, segments: list[Segment], name: str, label: str, style: Style, match: Style, needle: str
    ) -> None:
        if not name or name == label:
            return
        text = sanitize_line(name, _NAME_LIMIT)
        segments.append(Segment("  ", style))
        _add_text(segments, text, style, match, _find_all(text, needle) if needle else [])

    def _add_badges(self, segments: list[Segment], servers: Iterable[str], badge: Style, gap: Style) -> None:
        if not self.show_servers:
            return
        for server in sorted(servers):
            segments.append(Segment(" ", gap))
            segments.append(Segment(self._badge(server), badge))
