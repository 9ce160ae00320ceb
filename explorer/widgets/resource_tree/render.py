"""Painting `ResourceTree` rows: the style palette, label limits, and `RowPainter` (a row to a `Strip`).

They exist apart from the widget so the text-to-segment steps (sanitizing, match highlighting, badges,
markers) read and change on their own: the painter needs a `Row` and the row model, not the widget.
Every server string goes through `sanitize_line` and becomes `Segment`s with explicit styles: nothing here
parses markup.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
from typing import NamedTuple

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget

from explorer.model.templates import TemplateError, malformed, too_large
from explorer.model.templates.percent import URI_CHARS, is_triplet, pct
from explorer.model.tree_view import Row, TreeRows
from explorer.model.uri_tree import PatternNode
from explorer.sanitize import is_clean, sanitize_line
from explorer.widgets.server_labels import distinct_labels

_DIRECTORY_MIME = "inode/directory"
_LABEL_LIMIT = 200
_NAME_LIMIT = 80
BADGE_CELLS = 12
"""A server badge's cells in a tree up to `BADGE_FROM` columns wide (`badge_cells`)."""
WIDE_BADGE_CELLS = 28
"""A server badge's cells at most, however wide the tree."""
BADGE_FROM = 60
"""Tree columns from which badges grow, a cell every two columns: 28 cells from a 92-column tree. The
main screen gives the tree 45% of the terminal, so a badge grows from about 135 terminal columns, and at
200 (an 89-column tree, 26 cells) `filesystem-production-eu` shows whole. A row whose badges would not
fit at that width keeps them at `BADGE_CELLS` (`RowPainter.room`)."""


def badge_cells(width: int) -> int:
    """The cells of a server badge in a tree `width` columns wide: `BADGE_CELLS` up to `BADGE_FROM`
    columns, then one more every two columns, at most `WIDE_BADGE_CELLS`. A narrow tree keeps its room
    for the labels; a wide one has room to show a whole name (the cut one reads only near its ends)."""
    return max(BADGE_CELLS, min(WIDE_BADGE_CELLS, BADGE_CELLS + (width - BADGE_FROM) // 2))


class Palette(NamedTuple):
    base: Style
    guides: Style
    label: Style
    folder: Style
    muted: Style
    number: Style
    pattern: Style
    badge: Style
    match: Style
    incomplete: Style
    cursor: Style


def palette_of(widget: Widget) -> Palette:
    """The styles of the `resource-tree--*` component classes, each over the widget's own style."""
    base = widget.rich_style

    def part(name: str) -> Style:
        return base + widget.get_component_rich_style(f"resource-tree--{name}", partial=True)

    def blended(name: str) -> Style:
        """`part`, its colour laid over the widget's background when it is translucent: a rich style has
        no alpha, so `$foreground-muted` (the foreground at 60%) came out as the foreground itself, and a
        failed server's rows (muted) looked as live as the others."""
        color = widget.get_component_styles(f"resource-tree--{name}").color
        if color.a >= 1:
            return part(name)
        return part(name) + Style(color=(widget.background_colors[1] + color).rich_color)

    return Palette(
        base,
        blended("guides"),
        part("label"),
        part("folder"),
        blended("muted"),
        part("count"),
        part("pattern"),
        part("badge"),
        widget.get_component_rich_style("resource-tree--match", partial=True),
        part("incomplete"),
        widget.get_component_rich_style("resource-tree--cursor", partial=True),
    )


def _find_all(haystack: str, needle: str) -> list[tuple[int, int]]:
    """Case-insensitive occurrences of `needle` (already lowered) in `haystack`, as (start, end) spans."""
    if not needle:
        return []
    low = haystack.lower()
    if len(low) != len(haystack):  # lowering changed the length: offsets would not line up
        return []
    spans: list[tuple[int, int]] = []
    at = low.find(needle)
    while at >= 0:
        spans.append((at, at + len(needle)))
        at = low.find(needle, at + len(needle))
    return spans


def _add_text(
    segments: list[Segment], raw: str, style: Style, match: Style, spans: list[tuple[int, int]]
) -> None:
    """Append a sanitized label; `spans` (offsets in `raw`, used only when it needs no escaping)."""
    text = sanitize_line(raw, _LABEL_LIMIT)
    if not spans or text != raw:
        segments.append(Segment(text, style))
        return
    at = 0
    for start, end in spans:
        if start > at:
            segments.append(Segment(text[at:start], style))
        segments.append(Segment(text[start:end], style + match))
        at = end
    if at < len(text):
        segments.append(Segment(text[at:], style))


def _placed_span(raw: str, placed: str, label: str, common: int) -> list[tuple[int, int]]:
    """The span of `label` (the end of the server's template text `raw`) that `placed[:common]` covers,
    where `placed` is `raw` with its literal prefix pct-encoded (`template_placed_text`)."""
    return _placed_spans(raw, placed, label, [(0, common)])


def _placed_spans(
    raw: str, placed: str, label: str, spans: Iterable[tuple[int, int]]
) -> list[tuple[int, int]]:
    """The spans of `label` (the end of the server's template text `raw`) that `spans` of `placed` cover,
    where `placed` is `raw` with its literal prefix pct-encoded (`template_placed_text`): the label's
    literal characters are walked as `encode_keeping` encodes them, so a character whose encoding is
    matched in part is highlighted whole, and a span in the ancestors' segments shows nothing. O(label)
    plus a bisection a span."""
    if not raw.endswith(label):  # never expected: a template's label is the end of its text
        return []
    # The label starts at a segment boundary within the literal prefix (never inside a triplet), so its
    # part before the first `{` is what is encoded, and the rest is the same text in both.
    brace = label.find("{")
    literal_end = len(label) if brace < 0 else brace
    ends: list[int] = []  # the label's literal part, a character (or a kept triplet) each: its end in label
    upto: list[int] = []  # ... and its end as written
    written = 0
    i = 0
    while i < literal_end:
        if is_triplet(label, i):  # kept as it is, and highlighted whole
            written += 3
            i += 3
        else:
            written += 1 if label[i] in URI_CHARS else len(pct(label[i]))
            i += 1
        ends.append(i)
        upto.append(written)
    rest = len(label) - literal_end
    label_at = len(placed) - rest - written  # where the label begins in `placed`
    if label_at < 0 or placed[label_at + written :] != label[literal_end:]:  # never expected
        return []

    def at(offset: int, up: bool) -> int:
        """The label offset of `offset` in `placed` (relative to the label), rounded out to whole
        characters: `up` for a span's end, down for its start."""
        if offset <= 0:
            return 0
        if offset >= written:
            return min(len(label), literal_end + offset - written)
        if up:
            return ends[bisect_left(upto, offset)]
        index = bisect_right(upto, offset)
        return ends[index - 1] if index else 0

    found: list[tuple[int, int]] = []
    for start, end in spans:
        if end - label_at <= 0:  # the match ends in the ancestors' segments
            continue
        shown = (at(start - label_at, False), at(end - label_at, True))
        if shown[1] > shown[0]:
            found.append(shown)
    return found


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """`spans` in order, overlapping ones joined (`_add_text` takes them in order, apart)."""
    joined: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if joined and start <= joined[-1][1]:
            joined[-1] = (joined[-1][0], max(end, joined[-1][1]))
        else:
            joined.append((start, end))
    return joined


class RowPainter:
    """One row as segments: guides, marker, label, name, count, badges (and the root's markers)."""

    def __init__(self, rows: TreeRows, root_label: str) -> None:
        self._rows = rows
        self._root_label = sanitize_line(root_label, _LABEL_LIMIT)
        self.show_servers = False
        self.incomplete: frozenset[str] = frozenset()
        self.listing: dict[str, int] = {}  # servers still listing: items so far (the root says so)
        self.stale: frozenset[str] = frozenset()  # failed servers: what only they list is dimmed
        self.marks: dict[str, str] = {}  # uri -> "following" or "changed"
        self.badge_cells = BADGE_CELLS  # set by the view when its width changes (`badge_cells`)
        self.room = 0  # the columns a row shows, set with `badge_cells`: wider badges only on a row they fit
        # Badge texts and their cells, by server, for the servers in `_badge_names`, by badge width: at
        # most `BADGE_CELLS` and the current `badge_cells`.
        self._badge_sets: dict[int, dict[str, tuple[str, int]]] = {}
        self._badge_names: frozenset[str] = frozenset()

    def paint(self, row: Row, cursor: bool, palette: Palette) -> Strip:
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
        rows = self._rows
        tree = rows.tree
        active = rows.filter
        needle = active.text.lower() if active is not None and active.mode == "substring" else ""
        match = palette.match  # partial (colour, bold, underline): laid over any part, cursor included

        if row.virtual:
            self._paint_virtual(row, segments, styled, palette)
            return Strip(segments)
        if isinstance(node, PatternNode):
            if row.block is not None:
                marker = "▾ "
            elif node.templates and rows.drills.drillable(node):
                marker = "▸ "
            else:
                marker = "  "
            add(Segment(marker, styled(palette.guides)))
            add(Segment("⟨T⟩ ", styled(palette.pattern)))
            if too_large(node.uri_template) is not None:  # before the label, which may be very long
                add(Segment("⚠ too large to use  ", styled(palette.incomplete)))
            elif malformed(node.uri_template) is not None:
                add(Segment("⚠ malformed  ", styled(palette.incomplete)))
            _add_text(segments, row.label, styled(palette.pattern), match, self._spans(row, needle))
            names = node.templates
            if names:
                first = names[min(names)]
                self._add_name(segments, first.name, row.label, styled(palette.muted), match, needle)
            owners = tree.servers(node)
            cells = self._add_badges(segments, owners, styled(palette.badge), styled(palette.base))
            return Strip(segments, cells)

        is_root = row.parent is None
        has_items = bool(node.child_count or node.pattern_count)
        entries = node.resources
        directory = any(entry.mime_type == _DIRECTORY_MIME for entry in entries.values())
        if row.block is not None:
            marker = "▾ "
        elif has_items and rows.expandable(row):
            marker = "▸ "
        elif directory:
            marker = "▹ "
        else:
            marker = "  "
        add(Segment(marker, styled(palette.guides)))
        label_style = styled(palette.folder if has_items or directory or is_root else palette.label)
        if self.stale and not is_root:
            owners = tree.subtree_servers(node) if has_items else tree.servers(node)
            if owners and owners <= self.stale:
                label_style = styled(palette.muted)  # kept, but its server is gone: not shown as live
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
            mark = self.marks.get(first_entry.uri)
            if mark is not None:
                add(
                    Segment(
                        "  ◉ following" if mark == "following" else "  ✱ changed", styled(palette.incomplete)
                    )
                )
        if has_items or is_root:
            count = None
            if active is not None and not row.full:
                count = active.count_below(node)
                if count is None and is_root and not active.partial:
                    count = 0  # nothing matched: not the whole tree's count, which reads as "all of it"
            if count is None:
                count = node.items_below
            add(Segment(f"  {count:,}", styled(palette.number)))
            if is_root and count == 0 and active is not None and not active.partial:
                add(Segment("  no match", styled(palette.muted)))
        if self.show_servers and not is_root:
            # A prefix: every server with something below it; a leaf: the servers that list it. The last
            # segments of a row that is not the root: their cells, when measured, are the row's.
            owners = tree.subtree_servers(node) if has_items else tree.servers(node)
            cells = self._add_badges(segments, owners, styled(palette.badge), styled(palette.base))
            return Strip(segments, cells)
        if is_root and self.listing:
            items = sum(self.listing.values())
            add(Segment(f"  listing… ({items:,} items)", styled(palette.muted)))
        if is_root and self.incomplete:
            servers = ", ".join(sanitize_line(server, 40) for server in sorted(self.incomplete))
            add(Segment(f"  ⚠ incomplete: {servers}", styled(palette.incomplete)))
        return Strip(segments)

    def _paint_virtual(
        self, row: Row, segments: list[Segment], styled: Callable[[Style], Style], palette: Palette
    ) -> None:
        """A drill row: a candidate (`{region} = eu-west`, with its URI once concrete) or a muted note."""
        drill = row.drill
        assert drill is not None
        if row.block is not None:
            marker = "▾ "
        elif row.kind == "value" and drill.children_drill is not None:
            marker = "▸ "
        else:
            marker = "  "
        segments.append(Segment(marker, styled(palette.guides)))
        if row.kind != "value":
            note = self._rows.drill_note(row) if row.kind == "note" else None
            label = row.label
            if note:
                # The reason goes first, next to what it explains, so a narrow pane cuts the key hint
                # after it, never the reason: "no completions (why): press enter for the form".
                head, sep, tail = label.partition(": ")
                why = sanitize_line(
                    note, _LABEL_LIMIT
                )  # the server's words, sanitized; the pane cuts the rest
                head = sanitize_line(head, _NAME_LIMIT)
                text = f"{head} ({why}): {sanitize_line(tail, _NAME_LIMIT)}" if sep else f"{head} ({why})"
                segments.append(Segment(text, styled(palette.muted)))
                return
            segments.append(Segment(sanitize_line(label, _LABEL_LIMIT), styled(palette.muted)))
            return
        segments.append(Segment(sanitize_line(row.label, _LABEL_LIMIT), styled(palette.pattern)))
        if drill.is_concrete:
            try:
                uri = drill.uri
            except (TypeError, TemplateError):
                return
            segments.append(Segment("  " + sanitize_line(uri, _LABEL_LIMIT), styled(palette.muted)))

    def _spans(self, row: Row, needle: str) -> list[tuple[int, int]]:
        """Spans of the raw label to highlight for the active filter."""
        active = self._rows.filter
        label = row.label
        if active is None or not label or row.virtual or not is_clean(label, multiline=False):
            return []
        node = row.node
        if needle:
            spans = _find_all(label, needle)
            if isinstance(node, PatternNode) and node.placed_text is not node.uri_template:
                # A template is matched by its placed text too (``a%20b`` in ``t://x/a b{y}``): a hit there
                # lights the characters of the label it stands for, none when it is in the ancestors'.
                placed = node.placed_text
                hits = _find_all(placed, needle)
                if hits:
                    spans = _merged(spans + _placed_spans(node.uri_template, placed, label, hits))
            return spans
        # A template is matched by its placed text (its literal prefix as expansions write it).
        full = node.placed_text if isinstance(node, PatternNode) else node.prefix
        text = active.text
        if full.startswith(text):
            common = len(text)
        elif text.startswith(full):
            common = len(full)
        else:
            return []
        if isinstance(node, PatternNode) and full is not node.uri_template:
            return _placed_span(node.uri_template, full, label, common)
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

    def _add_badges(
        self, segments: list[Segment], servers: Iterable[str], badge: Style, gap: Style
    ) -> int | None:
        """Append the badges of `servers`, each `badge_cells` wide at most when all of them fit in `room`
        after the row so far, else `BADGE_CELLS` (a prefix row has one a server below it: four wide ones
        overflowed an 80-column tree where four narrow ones fit). Returns the row's cells when it measured
        them (the `Strip` then need not again), else None: a narrow tree's rows are not measured here."""
        if not self.show_servers:
            return None
        names = sorted(servers)
        cells = self.badge_cells
        used: int | None = None
        if cells > BADGE_CELLS and names:
            badges = [self._badge(server, cells) for server in names]
            used = sum(segment.cell_length for segment in segments)
            wide = used + sum(1 + width for _text, width in badges)  # a gap before each
            if wide > self.room:
                badges = [self._badge(server, BADGE_CELLS) for server in names]
                wide = used + sum(1 + width for _text, width in badges)
            used = wide
        else:
            badges = [self._badge(server, BADGE_CELLS) for server in names]
        for text, _width in badges:
            segments.append(Segment(" ", gap))
            segments.append(Segment(text, badge))
        return used

    def _badge(self, server: str, cells: int) -> tuple[str, int]:
        """`server`'s badge and its cells, at most `cells` wide, cut so that it never reads like another's
        (`raw_se…er.py`, `raw_se….py-2`): labelled among every server in the tree, again when that set
        changes (a line painted before is painted anew when the rows change, and compared; the view drops
        its painted lines when its width changes). A set of labels a width, for two widths at most."""
        tree = self._rows.tree
        names = tree.subtree_servers(tree.root)
        if server not in names:  # never expected: a badge is of a server in the tree
            names = names | {server}
        if names is not self._badge_names and names != self._badge_names:
            self._badge_names = names
            self._badge_sets.clear()
        badges = self._badge_sets.get(cells)
        if badges is None:
            kept = (BADGE_CELLS, self.badge_cells)
            for width in [width for width in self._badge_sets if width not in kept]:
                del self._badge_sets[width]
            labels = distinct_labels(names, cells)
            badges = {name: (f" {label} ", cell_len(label) + 2) for name, label in labels.items()}
            self._badge_sets[cells] = badges
        return badges[server]
