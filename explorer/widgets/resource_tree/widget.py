"""`ResourceTree`: the merged URI-prefix tree of every server, as a virtualized, keyboard-driven view.

Why not Textual's `Tree`: it keeps a widget-side node per item and rebuilds its line list on changes, so
with 10^4 to 10^6 resources expanding a node and even moving the cursor get slow. This widget is a
`ScrollView` using the Line API over the core row model `explorer.model.tree_view.TreeRows`, which knows
what lines there are, what is expanded or drilled and how lines follow model changes (its docstrings state
the rules; it is tested without an App). The widget keeps what is Textual's:

- Keys, clicks and messages. Every operation on the row model takes the cursor line and returns a
  `Change`; `_apply` repaints, moves the cursor and posts the messages it names.
- The cursor: `cursor`, a `var` holding the line, validated against the number of lines; its watcher
  repaints the two lines, sets `highlighted` and posts `NodeHighlighted` when the node under it changed.
- Painting: `render_line` paints only the visible lines (`RowPainter`) and caches their strips per
  (line, cursor) in a cache of the current state; a strip is kept at its natural width and cropped /
  padded to the viewport when painted, so the width is not part of the key. A theme or focus change, and
  every change of the lines, starts a new cache (the last one is kept to find the lines that changed).
- Scheduling: `model_changed()` is called after pages were merged into the tree. The filter
  (`set_filter`) is computed by `explorer.model.tree_filter`: prefix queries from the trie directly,
  substring queries by a scan that runs in a thread worker when the tree is large (results of a stale
  scan are dropped; what a running scan found so far is shown as it comes, `FilterResult.partial`, and
  `FilterApplied` is posted for the complete result only), re-run at most every `REFILTER_DELAY` while
  pages arrive. When and where a filter runs is `filter_runs.FilterRuns`; the widget shows the result.

Every server string (segments, names, titles, server names) goes through `sanitize_line` and is painted as
`rich.segment.Segment`s with explicit styles: nothing here parses markup.

Server badges (`show_servers`): a prefix row shows every server with something below it
(`UriTree.subtree_servers`, O(1) from the model's bitmasks), a leaf or template row its own servers. A
badge is as wide as the view allows (`render.badge_cells`: 12 cells in a narrow tree, up to 28 in a wide
one) on a row whose badges all fit that wide, else 12 cells; set on a resize, which then paints the lines
anew.

Incomplete listings: `incomplete_servers` names the servers whose listing on screen misses resources
(`ServerStatus.listing_incomplete`: stopped early, or cut by a failure; not a server that failed after
its listing completed); the root row (the top line, "All resources") then carries a
`⚠ incomplete: <servers>` marker.

Template drill-down (`explorer.model.drilldown`): `→`/`l`/`space` on a template row posts
`DrillRequested(pattern, drill)`; the app asks completion for `drill.next_variable` and answers with
`set_drill_children`. The candidates are virtual rows (never in the `UriTree`) below the template, each
expandable to the next variable (or, for a folder-like path value, to a refinement of the same
variable) until the URI is concrete: `enter` then posts `DrillSelected(drill)`. While waiting a `…` row
shows; no completions (an error, no capability, nothing suggested) gives one muted row, where `enter`
opens the form (`NodeSelected` for the template).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence, Set
from typing import ClassVar, ParamSpec, TypeAlias

from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.reactive import reactive, var
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.style import Style as TextualStyle

from explorer.model.drilldown import Drill, DrillKey
from explorer.model.heap import big_change
from explorer.model.tree_filter import FilterResult, FilterSummary
from explorer.model.tree_view import Change, Node, TreeRows
from explorer.model.uri_tree import PatternNode, UriNode, UriTree
from explorer.widgets.line_cache import LineCache
from explorer.widgets.resource_tree import messages
from explorer.widgets.resource_tree.filter_runs import FilterRuns
from explorer.widgets.resource_tree.render import BADGE_CELLS, Palette, RowPainter, badge_cells, palette_of
from explorer.widgets.resource_tree.scroll_bar import TreeScrollBar

__all__ = ["ResourceTree"]


P = ParamSpec("P")


STRIP_CACHE = 256  # painted rows kept per state of the rows (see `_new_strip_cache`)


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

    SYNC_FILTER_LIMIT: ClassVar[int] = 4_096
    """Substring filters over trees with at most this many resources + templates run synchronously. Above
    it a scan runs in a thread, and its first result shows within the keystroke's wait: at 10^4 a scan
    on the UI thread (15-30 ms) held the keystroke's echo back with it."""
    FILTER_LIMIT: ClassVar[int] = 100_000
    """Match records a substring filter collects before it stops (`FilterSummary.truncated`)."""
    FILTER_EXPAND: ClassVar[int] = 500
    """A filter expands the ancestors of this many matches (in tree order)."""
    REFILTER_DELAY: ClassVar[float] = 1.0
    """Seconds between re-runs of a substring filter while pages keep arriving."""

    show_servers: reactive[bool] = reactive(False)
    """Show server badges on rows (worth it when several servers are connected)."""
    cursor: var[int] = var(0, init=False)
    """The cursor's line (0 is the root row), kept within the lines by `validate_cursor`."""
    highlighted: var[Node | None] = var(None, init=False, always_update=True)
    """The node under the cursor, set as the cursor moves (or the node on its line changes).

    Watch it (`self.watch(tree, "highlighted", ...)`) to show something about the node in the frame that
    moves the cursor: `NodeHighlighted` reaches a screen after the tree's repaint (a message climbs one
    container at a time, the repaint goes straight to the screen), so what its handler changes is painted
    in a frame of its own, up to 16.7 ms later, and the next key waits for that frame."""

    # ------------------------------------------------------------------------------------ messages

    NodeHighlighted: TypeAlias = messages.NodeHighlighted
    NodeSelected: TypeAlias = messages.NodeSelected
    NodeExpanded: TypeAlias = messages.NodeExpanded
    NodeCollapsed: TypeAlias = messages.NodeCollapsed
    DrillRequested: TypeAlias = messages.DrillRequested
    DrillSelected: TypeAlias = messages.DrillSelected
    FilterApplied: TypeAlias = messages.FilterApplied
    FilterDropped: TypeAlias = messages.FilterDropped

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
        self._rows = TreeRows(tree, filter_expand=self.FILTER_EXPAND)
        self._painter = RowPainter(self._rows, root_label)
        self._painter.show_servers = show_servers
        self._filters = FilterRuns(self)
        self._palette: Palette | None = None
        self._strips = self._new_strip_cache()
        self._content_width = 0
        self._width_pending = False
        self.set_reactive(ResourceTree.show_servers, show_servers)

    def on_mount(self) -> None:
        self._update_virtual_size()
        self._post_highlight()

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        """Textual's own property (the pinned version's code), with a bar painted from cached strips
        (`TreeScrollBar`): a key that scrolls repaints the whole bar."""
        if self._vertical_scrollbar is None:
            bar = TreeScrollBar(vertical=True, name="vertical", thickness=self.scrollbar_size_vertical)
            bar.display = False
            self._vertical_scrollbar = bar
            self.app._start_widget(self, bar)
        return self._vertical_scrollbar

    def on_resize(self, event: events.Resize) -> None:
        self._fit_badges()
        self._update_virtual_size()

    def _fit_badges(self) -> None:
        """Size the server badges to the view's width (`render.badge_cells`), once a resize: a new width
        drops the painted lines (their badges were cut to the old one, or chosen for the old room) and the
        widest line seen. The room is the width less the vertical scrollbar, there or not: a row fits
        either way (one a few columns short of the room keeps narrow badges)."""
        width = self.content_region.width
        cells = badge_cells(width)
        room = width - self.styles.scrollbar_size_vertical
        painter = self._painter
        old_cells, old_room = painter.badge_cells, painter.room
        painter.badge_cells = cells
        painter.room = room
        if cells == old_cells and (room == old_room or cells == BADGE_CELLS):
            return  # a narrow tree's badges do not depend on the room
        if self.show_servers:
            self._content_width = 0  # narrower badges make narrower lines: measured again as painted
            self._invalidate()

    # -------------------------------------------------------------------------------- public API

    @property
    def rows(self) -> TreeRows:
        """The row model (read it; change it through this widget, which keeps the cursor and repaints)."""
        return self._rows

    @property
    def uri_tree(self) -> UriTree:
        """The model this view shows."""
        return self._rows.tree

    @property
    def cursor_node(self) -> Node:
        """The node under the cursor (for a collapsed chain row, the chain's last node)."""
        return self._rows.row(self.cursor).node

    @property
    def cursor_line(self) -> int:
        """The cursor's line (the same as `cursor`)."""
        return self.cursor

    @property
    def row_count(self) -> int:
        """Number of lines (the virtual height)."""
        return len(self._rows)

    @property
    def filter_text(self) -> str:
        return self._filters.text

    @property
    def filter_result(self) -> FilterResult | None:
        """The filter on screen (None when not filtering; may lag `filter_text` while a scan runs, and be
        what the running scan found so far: `FilterResult.partial`)."""
        return self._rows.filter

    @property
    def filter_pending(self) -> bool:
        """A substring scan is running in the background."""
        return self._filters.pending

    @property
    def incomplete_servers(self) -> frozenset[str]:
        """Servers whose listing is incomplete; named on the root row."""
        return self._painter.incomplete

    @incomplete_servers.setter
    def incomplete_servers(self, servers: Set[str] | Iterable[str]) -> None:
        value = frozenset(servers)
        if value != self._painter.incomplete:
            self._painter.incomplete = value
            self._invalidate()

    def set_markers(
        self,
        *,
        listing: dict[str, int] | None = None,
        stale: Iterable[str] | None = None,
        marks: dict[str, str] | None = None,
    ) -> None:
        """What the rows say besides the model: servers still listing (on the root row), failed servers
        (what only they list is dimmed), and resources followed or changed (uri -> mark)."""
        painter = self._painter
        changed = root_changed = False
        if listing is not None and listing != painter.listing:
            painter.listing, root_changed = dict(listing), True
        if stale is not None and frozenset(stale) != painter.stale:
            painter.stale, changed = frozenset(stale), True
        if marks is not None and marks != painter.marks:
            painter.marks, changed = dict(marks), True
        if changed:
            self._invalidate()
        elif root_changed:
            self._repaint_root()

    def _repaint_root(self) -> None:
        """Only the root row says how many items are listed so far: repaint that line alone. The count
        changes with every page, and a whole repaint then (50 ms measured while pages streamed at 10^5,
        with the styles looked up again) was the frame a key pressed meanwhile waited for."""
        if not self._rows or self._rows.row(0).parent is not None:
            self._invalidate()  # no root row on line 0 (never expected): repaint everything
            return
        self._strips.discard((0, False))
        self._strips.discard((0, True))
        self.refresh_line(0)

    def is_expanded(self, node: UriNode) -> bool:
        """Whether `node`'s row is on screen and expanded."""
        return self._rows.is_expanded(node)

    def visible_rows(self) -> list[tuple[int, str, Node]]:
        """(depth, raw label, node) of every line, top to bottom (tests and tools; O(lines))."""
        return [(row.depth, row.label, row.node) for row in self._rows]

    def rebuild(self) -> None:
        """Make every line again from the model, keeping expansions, filter and cursor (see `TreeRows`)."""
        self._change(self._rows.rebuild, self.cursor)

    def model_changed(self) -> None:
        """Bring the lines up to date after the tree changed (a page merged, a server refreshed or removed).

        Visits the expanded nodes only; expanded nodes stay expanded (by prefix), new children of expanded
        nodes get lines, the cursor stays on its node (or moves to the nearest surviving ancestor).
        """
        self._change(self._rows.model_changed, self.cursor)

    def select_prefix(self, prefix: str) -> bool:
        """Move the cursor to the node for `prefix` (or the pattern whose template text it is), expanding
        its ancestors and scrolling it into view. False if unknown.

        A filter whose results so far do not show it (none yet, while its scan runs) is cleared as the
        filter box clears it (a running scan is dropped, its text forgotten), and `FilterDropped` is
        posted: the box still holding the text would name a filter the tree no longer applies."""
        rows = self._rows
        target = rows.target_for(prefix)
        if target is None:
            return False
        text = self._filters.text
        if text and (rows.filter is None or not rows.filter_shows(target)):
            self._filters.set("")
            self.post_message(self.FilterDropped(self, text, target))
        self._change(rows.reveal, target, self.cursor)
        self._scroll_to_line(self.cursor, center=True)
        return True

    def expand_node(self, node: UriNode) -> None:
        """Expand `node` (its ancestors too, so it is on screen)."""
        self._change(self._rows.expand_node, node, self.cursor)

    def collapse_node(self, node: UriNode) -> None:
        """Collapse `node` if its row is expanded."""
        self._change(self._rows.collapse_node, node, self.cursor)

    def set_filter(self, text: str) -> FilterSummary | None:
        """Filter the tree ("" clears): prefix query when `text` starts with a scheme, else substring.

        Returns the summary when the result is already on screen; None when cleared or when a substring
        scan of a large tree was started in a worker (`FilterApplied` is posted when it lands; stale
        results are dropped). See `explorer.model.tree_filter` for the matching rules and costs.
        """
        return self._filters.set(text)

    @property
    def cursor_drill(self) -> Drill | None:
        """The drill position of the candidate row under the cursor (None on any other row)."""
        row = self._rows.row(self.cursor)
        return row.drill if row.kind == "value" else None

    @property
    def open_drills(self) -> list[DrillKey]:
        """Keys (template text, chosen values) of the open drill positions."""
        return self._rows.open_drills

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
        change = self._rows.answer_drill(drill, values, note, self.cursor, total=total, has_more=has_more)
        if change is None:
            return False
        self._apply(change)
        return True

    # ------------------------------------------------------------------------------------ cursor

    def validate_cursor(self, line: int) -> int:
        return max(0, min(line, len(self._rows) - 1))

    def watch_cursor(self, previous: int, line: int) -> None:
        self.refresh_line(previous)
        self.refresh_line(line)
        self._post_highlight()

    def _move(self, line: int, *, center: bool = False) -> None:
        self.cursor = line
        self._scroll_to_line(self.cursor, center=center)

    def _change(self, operation: Callable[P, Change], *args: P.args, **kwargs: P.kwargs) -> None:
        """Run one operation of the row model and act on what it did; in a big tree what it leaves alive
        is kept away from the collector (`heap.big_change`)."""
        root = self._rows.tree.root
        with big_change(root.resource_count + root.template_count):
            change = operation(*args, **kwargs)
        self._apply(change)

    def _apply(self, change: Change) -> None:
        """Act on what an operation of the row model did: repaint, cursor, messages (in the order the
        tree has always posted them: expanded nodes, then the highlight, then collapsed ones)."""
        if change.structure:
            self._repaint_changed()
            self._update_virtual_size()
        for node in change.expanded:
            self.post_message(self.NodeExpanded(self, node))
        self.cursor = change.cursor
        self._post_highlight()  # the same line may hold another node now
        for node in change.collapsed:
            self.post_message(self.NodeCollapsed(self, node))
        for pattern, drill in change.drills:
            self.post_message(self.DrillRequested(self, pattern, drill))
        if change.refilter:
            self._filters.schedule_refilter()

    def _post_highlight(self) -> None:
        node = self.cursor_node
        if node is not self.highlighted:
            self.highlighted = node
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
        self._move(self.cursor - 1)

    def action_cursor_down(self) -> None:
        self._move(self.cursor + 1)

    def action_cursor_home(self) -> None:
        self._move(0)

    def action_cursor_end(self) -> None:
        self._move(len(self._rows) - 1)

    def action_page_up(self) -> None:
        self._move(self.cursor - max(1, self.scrollable_content_region.height - 1))

    def action_page_down(self) -> None:
        self._move(self.cursor + max(1, self.scrollable_content_region.height - 1))

    def action_collapse_or_parent(self) -> None:
        rows, line = self._rows, self.cursor
        row = rows.row(line)
        if row.block is not None:  # close a drill, or collapse
            self._change(rows.collapse if row.kind == "node" else rows.close_drill, line, line)
        elif row.parent is not None:
            self._move(rows.line_of(row.parent))

    def action_expand_or_child(self) -> None:
        rows, line = self._rows, self.cursor
        row = rows.row(line)
        if row.block is None:  # expand, or drill a template or candidate
            self._change(rows.expand if row.kind == "node" else rows.open_drill, line, line)
        elif row.size:
            self._move(line + 1)

    def action_toggle_node(self) -> None:
        rows, line = self._rows, self.cursor
        row = rows.row(line)
        if row.kind == "node":
            self._change(rows.collapse if row.block is not None else rows.expand, line, line)
        else:
            self._change(rows.close_drill if row.block is not None else rows.open_drill, line, line)

    def form_on_select(self) -> PatternNode | None:
        """The template whose form `select` (enter) asks for on the cursor's row, as `action_select`
        decides (None: it reads, opens or closes instead): the screen holds the keys typed behind it."""
        row = self._rows.row(self.cursor)
        node = row.node
        if not isinstance(node, PatternNode) or (row.drill is not None and row.kind == "value"):
            return None
        return node

    def action_select(self) -> None:
        row = self._rows.row(self.cursor)
        node = row.node
        if row.drill is not None:  # a virtual row below a drilled template
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
        line = self.cursor
        self._change(self._rows.expand_children, line, line)

    def action_collapse_all(self) -> None:
        self._change(self._rows.collapse_all, self.cursor)
        self._scroll_to_line(self.cursor, center=True)

    async def _on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        line = offset.y + self.scroll_offset.y
        if not 0 <= line < len(self._rows):
            return
        marker = 2 * self._rows.row(line).depth
        x = offset.x + self.scroll_offset.x
        self._move(line)
        if marker <= x < marker + 2:
            self.action_toggle_node()
        elif event.chain >= 2:
            self.action_select()

    # ------------------------------------------------------------------------------------ filter

    def show_filter(self, result: FilterResult, *, final: bool = True) -> None:
        """Show a filter's result; a final one (not a running scan's partial one) is announced. Matched
        folders open when their children fit on the screen with the other matches (`apply_filter`)."""
        self._rows.filter_room = self.scrollable_content_region.height
        self._change(self._rows.apply_filter, result, self.cursor)
        self._scroll_to_line(self.cursor, center=True)
        if final:
            self.post_message(self.FilterApplied(self, result.summary))

    def drop_filter(self) -> None:
        """Show the whole tree again (the filter's own state is `FilterRuns`')."""
        self._change(self._rows.clear_filter, self.cursor)
        self._scroll_to_line(self.cursor, center=True)

    # -------------------------------------------------------------------------------- rendering

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._palette = None
        self._strips = self._new_strip_cache()

    def _on_unmount(self) -> None:
        self._filters.stop()

    def _on_focus(self, event: events.Focus) -> None:
        self._invalidate()

    def _on_blur(self, event: events.Blur) -> None:
        self._invalidate()

    def watch_show_servers(self, show: bool) -> None:
        self._painter.show_servers = show
        self._invalidate()

    def _invalidate(self) -> None:
        """Drop cached strips and styles (content or theme changed) and repaint."""
        self._strips = self._new_strip_cache()
        self._palette = None
        self.refresh()

    def _update_virtual_size(self) -> None:
        self._width_pending = False
        # The widest line painted when it does not fit, else 0 (a width that stays put: a new widest line
        # that still fits asks for no new layout). The room is the view's width less the vertical
        # scrollbar when the rows outgrow the view: a width taken before that scrollbar came asked for a
        # horizontal one (a line of the view) to scroll by its two columns.
        rows = len(self._rows)
        content = self.content_region.size
        room = content.width - (self.styles.scrollbar_size_vertical if rows > content.height else 0)
        size = Size(self._content_width if self._content_width > room else 0, rows)
        old = self.virtual_size
        if size == old:
            return
        height = self.container_size.height
        if height and size.width == old.width and old.height > height and size.height > height:
            # Taller than the view before and after: the scrollbars stay as they are, so only the scroll
            # range changes. Setting `virtual_size` would ask for a new layout, which repaints the whole
            # screen (about 25 ms at 160x45): the price of every filter keystroke and of every page merged
            # below an open node.
            self.set_reactive(ResourceTree.virtual_size, size)
            self._scroll_update(size)  # the lines that changed were refreshed by `_repaint_changed`
        else:
            self.virtual_size = size

    def _get_palette(self) -> Palette:
        palette = self._palette
        if palette is None:
            palette = self._palette = palette_of(self)
        return palette

    def _repaint_changed(self) -> None:
        """The rows changed: repaint the lines on screen whose look changed, and only those. A page merged
        below them changes none (a whole repaint costs 10 to 25 ms at 160x45, and a key pressed meanwhile
        waits for it); a filter keystroke changes most. Each line is painted anew and compared with what
        it showed; a line never painted counts as changed."""
        old_strips = self._strips
        old_count = self.virtual_size.height  # rows before the change (`_update_virtual_size` follows)
        self._strips = self._new_strip_cache()
        height = self.scrollable_content_region.height
        if height <= 0 or not self.is_attached or not self.screen.is_current:
            self.refresh()  # not on screen: painted when it is
            return
        top = self.scroll_offset.y
        palette = self._get_palette()
        count = len(self._rows)
        changed: list[int] = []
        strips = self._strips
        for line in range(top, top + height):
            cursor = line == self.cursor
            key = (line, cursor)
            old = old_strips.get(key)
            if line < count:
                if old is None or self._strip(line, cursor, palette) != old:
                    changed.append(line)
                else:
                    # The same look: keep the old strip, whose caches (Textual's crops and divisions of it
                    # for the screen) are warm; the next frame that shows it costs less.
                    strips[key] = old
            elif line < old_count:  # a line that held a row is blank now
                changed.append(line)
        start = 0
        for index, line in enumerate(changed):  # one refresh per run of changed lines
            if index + 1 == len(changed) or changed[index + 1] != line + 1:
                self.refresh_lines(changed[start], line - changed[start] + 1)
                start = index + 1

    @staticmethod
    def _new_strip_cache() -> LineCache[tuple[int, bool], Strip]:
        """The painted rows of one state of the rows and styles, by (line, cursor): a change starts a new one.

        Why so small, and never shared between states: a strip is a dozen objects the cyclic collector
        tracks (Textual gives each its own caches), and a cache of 1,024 strips over every state was about
        a quarter of what each full collection walked while browsing. A screen is at most a few hundred
        lines; the last state's strips are kept only to compare the next one with."""
        return LineCache(STRIP_CACHE)

    def _strip(self, line: int, cursor: bool, palette: Palette) -> Strip:
        """The painted row of `line` (cached per line and cursor, for the current state)."""
        key = (line, cursor)
        strip = self._strips.get(key)
        if strip is None:
            strip = self._painter.paint(self._rows.row(line), cursor, palette)
            self._strips[key] = strip
            if strip.cell_length > self._content_width:
                self._content_width = strip.cell_length
                if not self._width_pending:
                    self._width_pending = True
                    self.call_later(self._update_virtual_size)
        return strip

    def render_lines(self, crop: Region) -> list[Strip]:
        """The view's lines in `crop`, straight from `render_line`, when nothing in the widget's styles would
        change them (no padding, border, outline, tint, opacity or hatch; the tree's own CSS has none).

        Why: Textual's styles pipeline processes every line of a repainted widget again (about 50 us a
        line), and a key that scrolls repaints the whole view: 2 ms of its frame at 45 rows, measured.
        The lines are the ones that pipeline makes (a test compares them); CSS that sets any of these
        styles (a theme's, a user's) sends the tree down the pipeline."""
        styles = self.styles
        if (
            styles.gutter
            or any(edge for edge, _ in styles.outline)
            or styles.tint.a
            or self.opacity != 1.0
            or styles.text_opacity != 1.0
            or styles.has_rule("hatch")
            or self.border_title
            or self.border_subtitle
        ):
            return super().render_lines(crop)
        filters = self.get_line_filters()
        base_background, background = self.background_colors
        under = TextualStyle(background=base_background + background).rich_style  # under the scrollbars
        width = self.content_region.width  # the scrollbars are drawn over the lines' ends
        x1, x2 = crop.column_span
        whole = x1 == 0 and x2 == width
        strips: list[Strip] = []
        for y in crop.line_range:
            strip = self.render_line(y)
            if strip.cell_length != width:
                strip = strip.adjust_cell_length(width, under)
            for line_filter in filters:
                strip = strip.apply_filter(line_filter, background)
            strips.append(strip if whole else strip.crop(x1, x2))
        return strips

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        line = scroll_y + y
        palette = self._get_palette()
        if not 0 <= line < len(self._rows):
            return Strip.blank(width, palette.base)
        cursor = line == self.cursor
        strip = self._strip(line, cursor, palette)
        line_style = palette.base + palette.cursor if cursor else palette.base
        return strip.crop_extend(scroll_x, scroll_x + width, line_style)
