"""`tree`'s output: the merged tree as text rows, or the whole result as one JSON document, streamed.

Why streamed: a million resources make a JSON document of hundreds of megabytes; building it as nested
dicts and one string cost gigabytes. Here every part is encoded as it is written (`encode_json`, which
lays JSON out as `json.dumps(indent=2)` does), in batches of a few thousand items, and handed to stdout;
nothing holds more than a batch. The document's shape is unchanged: `servers`, `resources`, `templates`
and `tree`, the tree as nested nodes `{"segment", "prefix", "count", "servers"?, "children"}` with
templates as children marked `"template": true`.

Text rows are built with the sanitizer's cheap path for plain ASCII (most URIs) and written in blocks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from explorer.cli.output import encode_json, has_secrets, mask, safe_line, write_bytes, write_text
from explorer.model.uri_segments import TAILS
from explorer.model.uri_tree import PatternNode, UriNode, UriTree

_BATCH = 2000  # array elements encoded per call
_FLUSH_BYTES = 1 << 18
_TEXT_LINES = 4096


class _Sink:
    """Bytes for stdout, written in blocks of about `_FLUSH_BYTES`."""

    def __init__(self, write: Callable[[bytes], None] = write_bytes) -> None:
        self._write = write
        self._parts: list[bytes] = []
        self._size = 0

    def add(self, data: bytes) -> None:
        self._parts.append(data)
        self._size += len(data)
        if self._size >= _FLUSH_BYTES:
            self.flush()

    def flush(self) -> None:
        if self._parts:
            self._write(b"".join(self._parts))
            self._parts = []
            self._size = 0


def _spaces(count: int) -> bytes:
    return b" " * count


class _Array:
    """The elements of a JSON array whose `[` sits at column `indent`, added one by one, batched."""

    def __init__(self, sink: _Sink, indent: int) -> None:
        self.sink = sink
        self.indent = indent
        self.count = 0
        self._batch: list[Any] = []

    def add(self, value: Any) -> None:
        self._batch.append(value)
        if len(self._batch) >= _BATCH:
            self.flush()

    def open_element(self) -> None:
        """Before an element written by hand (the caller writes it at column `indent + 2`)."""
        self.flush()
        self.sink.add(b"[\n" if self.count == 0 else b",\n")
        self.count += 1
        self.sink.add(_spaces(self.indent + 2))

    def flush(self) -> None:
        batch = self._batch
        if not batch:
            return
        self._batch = []
        encoded = encode_json(batch, self.indent)  # "[\n" + elements at indent + 2 + "\n" + indent + "]"
        body = encoded[2 : len(encoded) - self.indent - 2]
        self.sink.add(b"[\n" if self.count == 0 else b",\n")
        self.sink.add(body)
        self.count += len(batch)

    def close(self) -> None:
        self.flush()
        if self.count == 0:
            self.sink.add(b"[]")
        else:
            self.sink.add(b"\n" + _spaces(self.indent) + b"]")


def write_document(
    servers: Sequence[dict[str, Any]],
    resources: Iterable[dict[str, Any]],
    templates: Iterable[dict[str, Any]],
    tree: UriTree,
    write: Callable[[bytes], None] = write_bytes,
) -> None:
    """The `tree --json` document, streamed to `write` (stdout by default)."""
    sink = _Sink(write)
    sink.add(b'{\n  "servers": ')
    sink.add(encode_json(list(servers), 2))
    for key, values in ((b"resources", resources), (b"templates", templates)):
        sink.add(b',\n  "' + key + b'": ')
        array = _Array(sink, 2)
        for value in values:
            array.add(value)
        array.close()
    sink.add(b',\n  "tree": ')
    _write_tree(tree, sink, indent=2)
    sink.add(b"\n}\n")
    sink.flush()


def _pattern_json(pattern: PatternNode) -> dict[str, Any]:
    return {
        "segment": pattern.label,
        "prefix": pattern.literal_prefix,
        "count": 0,  # nothing below a template: the count is what is below a node, as everywhere
        "template": True,
        "uriTemplate": pattern.uri_template,
        "servers": sorted(pattern.templates),
        "children": [],
    }


def _node_head(node: UriNode, prefix: str) -> dict[str, Any]:
    data: dict[str, Any] = {
        "segment": node.segment,
        "prefix": prefix,
        "count": node.items_below,
    }
    entries = node.entries
    if entries:
        data["servers"] = [entry.server for entry in entries]
    return data


def write_tree_json(tree: UriTree, write: Callable[[bytes], None] = write_bytes) -> None:
    """The tree alone as a JSON document (the `tree` member of `tree --json`), streamed to `write`."""
    sink = _Sink(write)
    _write_tree(tree, sink, indent=0)
    sink.add(b"\n")
    sink.flush()


def _write_tree(tree: UriTree, sink: _Sink, indent: int) -> None:
    """The tree's root node as JSON at column `indent` (no recursion: URIs may be thousands deep)."""
    root = tree.root
    if root.is_leaf:
        head = _node_head(root, "")
        head["children"] = []
        sink.add(encode_json(head, indent))
        return
    # A frame: the items still to write of one open node, where its children go, and how to close it.
    stack: list[tuple[Iterator[UriNode | PatternNode], str, bool, _Array, bytes]] = []

    def open_node(node: UriNode, prefix: str, at: int) -> None:
        head = encode_json(_node_head(node, prefix), at)  # "{ ... \n<at>}"
        sink.add(head[: len(head) - at - 2])
        sink.add(b",\n" + _spaces(at + 2) + b'"children": ')
        items: list[UriNode | PatternNode] = [*tree.patterns(node), *tree.children(node)]
        closing = b"\n" + _spaces(at) + b"}"
        stack.append((iter(items), prefix, node.glues_children(), _Array(sink, at + 2), closing))

    open_node(root, "", indent)
    while stack:
        items, prefix, glued, array, closing = stack[-1]
        pushed = False
        for item in items:
            if isinstance(item, PatternNode):
                array.add(_pattern_json(item))
                continue
            segment = item.segment
            sep = "" if glued or segment.startswith(TAILS) else "/"
            if item.is_leaf:  # most nodes: one resource, nothing below
                array.add(
                    {
                        "segment": segment,
                        "prefix": f"{prefix}{sep}{segment}",
                        "count": 0,  # `items_below` of a leaf: its resource is the node itself
                        "servers": [entry.server for entry in item.entries],
                        "children": [],
                    }
                )
                continue
            array.open_element()
            open_node(item, f"{prefix}{sep}{segment}", array.indent + 2)
            pushed = True
            break
        if not pushed:
            array.close()
            sink.add(closing)
            stack.pop()


# ------------------------------------------------------------------------------------------ text


class TextRows:
    """Lines for stdout, written in blocks (secrets masked per line when any are registered)."""

    def __init__(self) -> None:
        self._lines: list[str] = []

    def add(self, line: str) -> None:
        self._lines.append(line)
        if len(self._lines) >= _TEXT_LINES:
            self.flush()

    def flush(self) -> None:
        lines = self._lines
        if not lines:
            return
        self._lines = []
        if has_secrets():
            lines = [mask(line) for line in lines]
        write_text("\n".join(lines) + "\n")


def write_rows(tree: UriTree, rows: TextRows, *, depth: int | None, several: bool) -> None:
    """The tree as indented rows (chains of single children collapsed), `depth` levels at most.

    Patterns first, then children, in natural order. A leaf (most rows) is written without the chain
    lookups an inner node needs.
    """
    masking = has_secrets()
    add = rows.add
    indents: list[str] = []
    stack: list[tuple[int, Iterator[UriNode | PatternNode]]] = [(0, iter(_items(tree, tree.root)))]
    while stack:
        level, items = stack[-1]
        while len(indents) <= level:
            indents.append("  " * len(indents))
        indent = indents[level]
        pushed = False
        for item in items:
            if isinstance(item, PatternNode):
                add(indent + _pattern_line(item, several))
                continue
            if item.is_leaf:
                add(indent + _leaf_line(item, several, masking))
                continue
            label = tree.chain_label(item)
            end = tree.chain_end(item)
            add(indent + _node_line(end, label, several))
            if depth is None or level + 1 < depth:
                stack.append((level + 1, iter(_items(tree, end))))
                pushed = True
                break
        if not pushed:
            stack.pop()


def _items(tree: UriTree, node: UriNode) -> list[UriNode | PatternNode]:
    return [*tree.patterns(node), *tree.children(node)]


def _pattern_line(pattern: PatternNode, several: bool) -> str:
    from explorer.model.templates import too_large

    entry = next(iter(pattern.templates.values()))
    line = safe_line(pattern.label, 300) + "  [template]  " + safe_line(entry.name, 120)
    unusable = too_large(entry.uri_template)
    if unusable is not None:
        line += f"  [too large to use: {unusable.detail}]"
    if several:
        line += "  <" + ", ".join(safe_line(s, 60) for s in sorted(pattern.templates)) + ">"
    return line


def _leaf_line(node: UriNode, several: bool, masking: bool) -> str:
    """`_node_line` for a node with nothing below it, with the checks of `safe_line` inlined."""
    entry = node.first_entry
    label = node.segment
    if entry is None or several or masking:
        return _node_line(node, label, several)
    if not (len(label) <= 300 and label.isascii() and label.isprintable()):
        label = safe_line(label, 300) if label else "/"
    elif not label:
        label = "/"
    title = entry.title
    shown = title if title else entry.name
    line = label
    if shown and shown != node.segment:
        if not (len(shown) <= 120 and shown.isascii() and shown.isprintable()):
            shown = safe_line(shown, 120)
        line = f"{line}  {shown}"
    mime = entry.mime_type
    if mime:
        if not (len(mime) <= 60 and mime.isascii() and mime.isprintable()):
            mime = safe_line(mime, 60)
        line = f"{line}  [{mime}]"
    return line


def _node_line(node: UriNode, label: str, several: bool) -> str:
    """`label  name-or-title  [mime]  <servers>  (count below)`; only what adds information."""
    parts = [safe_line(label, 300) if label else "/"]
    entry = node.first_entry
    if entry is not None:
        title = entry.title
        shown = title if title else entry.name
        if shown and shown != label:
            parts.append(safe_line(shown, 120))
        if entry.mime_type:
            parts.append(f"[{safe_line(entry.mime_type, 60)}]")
        if several:
            parts.append("<" + ", ".join(safe_line(e.server, 60) for e in node.entries) + ">")
    if not node.is_leaf:
        parts.append(f"({node.items_below})")
    return "  ".join(parts)
