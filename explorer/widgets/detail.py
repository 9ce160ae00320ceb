"""What the highlighted tree node is: URI, metadata, annotations, servers, counts below it.

Never reads anything: highlighting is free; reading happens on `enter`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from explorer.model.entries import ResourceEntry, TemplateEntry
from explorer.model.fields import typed_values
from explorer.model.listing import plural
from explorer.model.sizes import human_size
from explorer.model.uri_tree import PatternNode, UriNode, UriTree
from explorer.sanitize import sanitize, sanitize_line
from explorer.widgets.server_labels import middle_cut

if TYPE_CHECKING:
    from textual.css.styles import RulesMap

FIELD_STYLE = "$text-muted"
SHRINK_AFTER = 0.4  # seconds the cursor rests before the pane gives back rows its content no longer needs


def _field(label: str, value: str, style: str = "") -> Content:
    return Content.assemble((f"{label:<13}", FIELD_STYLE), (value, style))


def _children(node: UriNode) -> str:
    """The rows the tree shows when `node` is opened: `3 children`, `1 child (a template)`,
    `16 children (1 template)`. Its templates are children there too (a `⟨T⟩` row each)."""
    patterns = node.pattern_count
    total = node.child_count + patterns
    text = f"{total:,} {'child' if total == 1 else 'children'}"
    if patterns == total == 1:
        return f"{text} (a template)"
    if patterns == total:
        return f"{text} (all templates)"
    return f"{text} ({plural(patterns, 'template')})" if patterns else text


class DetailPane(VerticalScroll, can_focus=False):
    """Metadata of the highlighted resource, template or prefix."""

    HELP = """
## Details
Shows the highlighted node: its URI, name, title, description, MIME type, size, annotations
(audience, priority, lastModified) and the servers that list it; for a prefix, the counts below it.
Press `enter` in the tree to read a resource.
"""

    DEFAULT_CSS = """
    DetailPane {
        height: auto;
        max-height: 45%;
        padding: 0 1;
        border-bottom: solid $panel;
    }
    DetailPane > Static { width: 1fr; }
    """

    _shrink_handle: asyncio.TimerHandle | None = None  # a pending `_shrink`: the pane has rows to give back
    _shown: Content | None = None  # what the pane shows (before any padding)

    def compose(self) -> Any:
        yield Static(Content("Highlight a node in the tree."), id="detail-body")

    def show_node(
        self, tree: UriTree, node: UriNode | PatternNode | None, *, if_changed: bool = False
    ) -> None:
        """The details of `node`; `if_changed`: leave the pane alone when they read as they do (pages that
        merged elsewhere in the tree change nothing here, and repainting would cost a frame's share)."""
        if node is None:
            content = Content("Nothing here yet.")
        elif isinstance(node, PatternNode):
            content = Content("\n").join(self._pattern_lines(node))
        else:
            content = Content("\n").join(self._node_lines(tree, node))
        shown = self._shown
        if if_changed and shown is not None and shown.plain == content.plain and shown.spans == content.spans:
            return
        self._show(content)

    def show_target(
        self, uri: str, server: str, template: str | None, values: Mapping[str, object] | None
    ) -> None:
        """A URI the user went to that no node stands for (a template's URI): what produces it."""
        lines = [_field("URI", sanitize_line(uri, 2000), "bold"), _field("Server", middle_cut(server, 60))]
        if template is not None:
            lines.append(_field("Template", sanitize_line(template, 2000), "$tree-pattern"))
        typed = typed_values(template, values) if template is not None and values else {}
        for name, value in (values or {}).items():
            text = typed.get(name, str(value))  # as the form reads it: `q=a=1,a=2`, not a Python tuple
            lines.append(_field(f"  {sanitize_line(name, 10)}", sanitize_line(text, 500)))
        lines += [Content(""), Content.styled("c copies this URI, y copies it as a request.", FIELD_STYLE)]
        self._show(Content("\n").join(lines))

    def _show(self, content: Content) -> None:
        """Put `content` in the pane, asking for a new layout only when it needs more rows than it has.

        Why: every cursor key lands here, and a layout re-arranges and repaints the whole screen (about 3/4
        of each key's frame, measured). Nodes with and without a description alternate while browsing:
        shorter details keep the pane's rows (blank at the bottom) until the cursor rests, then the pane
        shrinks in a layout of its own, which no key waits for (and the preview below stops jumping)."""
        self._cancel_shrink()
        self._shown = content
        body = self.query_one("#detail-body", Static)
        width, height = body.content_size
        rules = cast("RulesMap", body.styles)  # as Textual's own `get_content_height` passes them
        needed = content.get_height(rules, width) if width > 0 else -1
        if needed <= 0 or needed > height or (needed < height and (self.scroll_y or self.max_scroll_y)):
            # Taller; or shorter in a pane that scrolls (padding would keep a scroll bar over blank rows,
            # or the new text above a view scrolled down): a layout, which scrolls the pane back.
            body.update(content, layout=True)
            return
        if needed < height:
            padded = Content("\n").join([content, *[Content("")] * (height - needed)])
            if padded.get_height(rules, width) != height:  # never show less than the content itself
                body.update(content, layout=True)
                return
            self._shrink_handle = asyncio.get_running_loop().call_later(
                SHRINK_AFTER, self.call_next, self._shrink, content
            )
            content = padded
        body.update(content, layout=False)

    def _shrink(self, content: Content) -> None:
        """The cursor rested: the pane takes the height of what it shows."""
        self._shrink_handle = None
        if self.is_attached and content is self._shown:  # not overtaken by a later node's details
            self.query_one("#detail-body", Static).update(content, layout=True)

    def _cancel_shrink(self) -> None:
        if self._shrink_handle is not None:
            self._shrink_handle.cancel()
            self._shrink_handle = None

    def on_unmount(self) -> None:
        self._cancel_shrink()

    def _node_lines(self, tree: UriTree, node: UriNode) -> list[Content]:
        lines: list[Content] = []
        prefix = node.prefix
        entries = list(node.resources.values())
        if entries:
            entry = entries[0]
            lines.append(_field("URI", sanitize_line(entry.uri, 2000), "bold"))
            lines.append(_field("Servers", ", ".join(sanitize_line(e.server, 60) for e in entries)))
            if len(entries) > 1:
                lines.append(Content.styled("Listed by several servers (a URI collision).", "$warning"))
            lines.extend(self._resource_lines(entry))
        else:
            lines.append(_field("Prefix", sanitize_line(prefix, 2000) or "(all servers)", "bold"))
        if node.child_count or node.pattern_count:
            resources = node.items_below - node.template_count
            lines.append(
                _field(
                    "Below",
                    f"{node.items_below:,} ({plural(resources, 'resource')} · "
                    f"{plural(node.template_count, 'template')}) · {_children(node)}",
                )
            )
        return lines

    def _resource_lines(self, entry: ResourceEntry) -> list[Content]:
        raw = entry.raw
        lines = [_field("Name", sanitize_line(entry.name, 300))]
        for key, label in (("title", "Title"), ("mimeType", "MIME type")):
            if isinstance(raw.get(key), str):
                lines.append(_field(label, sanitize_line(raw[key], 300)))
        if raw.get("mimeType") == "inode/directory":
            lines.append(_field("Kind", "folder (inode/directory)"))
        if isinstance(raw.get("size"), int):
            lines.append(_field("Size", f"{human_size(raw['size'])} ({raw['size']:,} bytes)"))
        lines.extend(_annotation_lines(raw.get("annotations")))
        if isinstance(raw.get("description"), str):
            lines.append(Content(""))
            lines.append(Content(sanitize(raw["description"], limit=4000)))
        return lines

    def _pattern_lines(self, node: PatternNode) -> list[Content]:
        templates: list[TemplateEntry] = list(node.templates.values())
        if not templates:
            return [Content("(template removed)")]
        entry = templates[0]
        raw = entry.raw
        lines = [
            _field("Template", sanitize_line(entry.uri_template, 2000), "bold $tree-pattern"),
            _field("Name", sanitize_line(entry.name, 300)),
        ]
        for key, label in (("title", "Title"), ("mimeType", "MIME type")):
            if isinstance(raw.get(key), str):
                lines.append(_field(label, sanitize_line(raw[key], 300)))
        lines.append(_field("Servers", ", ".join(sanitize_line(t.server, 60) for t in templates)))
        try:
            from explorer.model.templates import parse_template

            variables = parse_template(entry.uri_template).variables
            described = ", ".join(
                f"{v.operator}{v.name}{'*' if v.explode else ''}" + (f":{v.prefix}" if v.prefix else "")
                for v in variables
            )
            lines.append(_field("Variables", sanitize_line(described, 300)))
        except ValueError as exc:
            lines.append(_field("Problem", sanitize_line(str(exc), 300), "$error"))
        lines.extend(_annotation_lines(raw.get("annotations")))
        if isinstance(raw.get("description"), str):
            lines.append(Content(""))
            lines.append(Content(sanitize(raw["description"], limit=4000)))
        lines.append(Content(""))
        lines.append(
            Content.styled("enter fills the template in a form; → drills into it by completion.", FIELD_STYLE)
        )
        return lines


def _annotation_lines(annotations: object) -> list[Content]:
    if not isinstance(annotations, dict):
        return []
    lines: list[Content] = []
    audience = annotations.get("audience")
    if isinstance(audience, list):
        lines.append(_field("Audience", sanitize_line(", ".join(str(a) for a in audience), 200)))
    priority = annotations.get("priority")
    if isinstance(priority, int | float) and not isinstance(priority, bool):
        lines.append(_field("Priority", f"{priority:g}"))
    modified = annotations.get("lastModified")
    if isinstance(modified, str):
        lines.append(_field("Modified", sanitize_line(modified, 80)))
    return lines
