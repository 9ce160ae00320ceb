"""`tree`'s output: the merged tree as text rows, or the whole result as one JSON document, streamed.

Why streamed: a million resources make a JSON document of hundreds of megabytes; building it as nested
dicts and one string cost gigabytes. Here every part is encoded as it is written (`encode_json`, which
lays JSON out as `json.dumps(indent=2)` does), in batches of a few thousand items, and handed to stdout;
nothing holds more than a batch. The document's shape is unchanged: `servers`, `resources`, `templates`
and `tree`, the tree as nested nodes `{"segment", "prefix", "count", "servers"?, "children"}` with
templates as children marked `"template": true`.

Text rows are built with the sanitizer's cheap path for plain ASCII (most URIs) and written in blocks.
Most of a big tree is runs of leaves, one server's resource each: a run of up to `_LEAF_RUN` is written
by C-level passes over all of it (`_leaf_block`, `_leaf_elements`) when nothing in it needs the sanitizer,
masking, a title or a JSON escape, and one by one otherwise, to the same bytes (tests/test_bulk_render.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from itertools import compress, repeat
from operator import attrgetter, eq, is_
from typing import Any, cast

from explorer.cli.output import (
    encode_json,
    has_secrets,
    mask,
    one_json_document,
    safe_line,
    write_bytes,
    write_text,
)
from explorer.model.entries import ResourceEntry
from explorer.model.uri_nodes import leaf_entries
from explorer.model.uri_segments import TAILS
from explorer.model.uri_tree import PatternNode, UriNode, UriTree

_BATCH = 2000  # array elements encoded per call
_FLUSH_BYTES = 1 << 18
_TEXT_LINES = 4096
_LEAF_RUN = 1024  # leaves rendered in one bulk step: what their passes read stays in the CPU's cache
# (10^6 leaves read out of the order they were allocated in: 0.87 s in steps of 1,024, 1.14 s of 4,096)
_segment = attrgetter("segment")
_name = attrgetter("name")
_server = attrgetter("server")
_mime = attrgetter("mime_type")
_rest = attrgetter("rest")
_TITLE = b'"title"'  # in an entry's other fields (compact JSON: a key is written as it is) when it has one


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

    def add_encoded(self, elements: bytes, count: int) -> None:
        """`count` elements encoded by the caller, each at column `indent + 2`, joined by `,\\n`."""
        self.flush()
        self.sink.add(b"[\n" if self.count == 0 else b",\n")
        self.sink.add(elements)
        self.count += count

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
    """The `tree --json` document, streamed to `write` (stdout by default); one warning on stderr for
    all its numbers JSON cannot hold (`one_json_document`)."""
    sink = _Sink(write)
    with one_json_document():
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
    with one_json_document():
        _write_tree(tree, sink, indent=0)
    sink.add(b"\n")
    sink.flush()


def _write_tree(tree: UriTree, sink: _Sink, indent: int) -> None:
    """The tree's root node as JSON at column `indent` (no recursion: URIs may be thousands deep).

    A run of leaves (most nodes) is written in bulk when nothing in it needs escaping (`_leaf_elements`).
    """
    root = tree.root
    if root.is_leaf:
        head = _node_head(root, "")
        head["children"] = []
        sink.add(encode_json(head, indent))
        return
    bulk = not has_secrets()  # the bulk elements mask nothing
    # A frame: an open node's children, the position of the next one to write, its prefix, whether its
    # children follow it without a "/", their array, and how to close the node.
    stack: list[tuple[Sequence[UriNode], list[int], str, bool, _Array, bytes]] = []

    def open_node(node: UriNode, prefix: str, at: int) -> None:
        head = encode_json(_node_head(node, prefix), at)  # "{ ... \n<at>}"
        sink.add(head[: len(head) - at - 2])
        sink.add(b",\n" + _spaces(at + 2) + b'"children": ')
        array = _Array(sink, at + 2)
        for pattern in tree.patterns(node):
            array.add(_pattern_json(pattern))
        closing = b"\n" + _spaces(at) + b"}"
        stack.append((tree.children(node), [0], prefix, node.glues_children(), array, closing))

    open_node(root, "", indent)
    while stack:
        children, position, prefix, glued, array, closing = stack[-1]
        runs = bulk and _json_plain(prefix)  # a folder whose prefix needs escaping: one by one
        at = position[0]
        pushed = False
        while at < len(children):
            item = children[at]
            if item.is_leaf:  # most nodes: one resource, nothing below
                entries = leaf_entries(children, at, _LEAF_RUN) if runs else []
                if len(entries) > 1:  # a run: in bulk, or all of it one by one (never looked at again)
                    nodes = children[at : at + len(entries)]
                    encoded = _leaf_elements(nodes, entries, prefix, glued, array.indent + 2)
                    if encoded is not None:
                        array.add_encoded(encoded, len(entries))
                    else:
                        for node in nodes:
                            array.add(_leaf_json(node, prefix, glued))
                    at += len(entries)
                    continue
                array.add(_leaf_json(item, prefix, glued))
                at += 1
                continue
            at += 1
            segment = item.segment
            sep = "" if glued or segment.startswith(TAILS) else "/"
            array.open_element()
            position[0] = at
            open_node(item, f"{prefix}{sep}{segment}", array.indent + 2)
            pushed = True
            break
        if not pushed:
            array.close()
            sink.add(closing)
            stack.pop()


_LEAF_MARKS = ("\x01segment\x01", "\x01prefix\x01", "\x01server\x01")


def _leaf_json(node: UriNode, prefix: str, glued: bool) -> dict[str, Any]:
    """A leaf as `_write_tree` writes it one by one."""
    segment = node.segment
    sep = "" if glued or segment.startswith(TAILS) else "/"
    return {
        "segment": segment,
        "prefix": f"{prefix}{sep}{segment}",
        "count": 0,  # `items_below` of a leaf: its resource is the node itself
        "servers": [entry.server for entry in node.entries],
        "children": [],
    }


@lru_cache(maxsize=64)  # by depth: a hostile server's URIs may be thousands of segments deep
def _leaf_template(column: int) -> str:
    """The JSON of a leaf at `column` as `_write_tree` writes it one by one, with `{}` for its segment,
    prefix and server: made by the encoder itself, so the two ways cannot drift apart."""
    segment, prefix, server = _LEAF_MARKS
    leaf = {"segment": segment, "prefix": prefix, "count": 0, "servers": [server], "children": []}
    text = encode_json([leaf], column - 2).decode()
    text = text[2 : len(text) - column].lstrip(" ")  # the element alone, its first line unindented
    text = text.replace("{", "{{").replace("}", "}}")
    for mark in _LEAF_MARKS:
        text = text.replace(json.dumps(mark), '"{}"')
    return " " * column + text


def _leaf_elements(
    nodes: Sequence[UriNode], entries: list[ResourceEntry], prefix: str, glued: bool, column: int
) -> bytes | None:
    """The JSON elements of `nodes` (leaves, one server's resource each) at `column`, joined by `,\\n`,
    when their segments, prefixes and servers are printable ASCII with no `"` or `\\` (JSON strings with
    nothing to escape), and no segment starts a query or fragment; else None. A million leaves: about a
    third of the time of a dict each for the encoder."""
    labels = list(map(_segment, nodes))
    servers = list(map(_server, entries))
    if any(map(str.startswith, labels, repeat(TAILS))):
        return None
    if not (_json_plain(prefix) and _json_plain("".join(labels)) and _json_plain("".join(servers))):
        return None
    head = prefix if glued else prefix + "/"
    template = _leaf_template(column)
    return ",\n".join(map(template.format, labels, map(head.__add__, labels), servers)).encode()


def _json_plain(text: str) -> bool:
    """Whether `text` is printable ASCII with no `"` or `\\`: its JSON string is the text in quotes."""
    return text.isascii() and text.isprintable() and '"' not in text and "\\" not in text


# ------------------------------------------------------------------------------------------ text


class TextRows:
    """Lines for stdout, written in blocks (secrets masked per line when any are registered)."""

    def __init__(self) -> None:
        self._lines: list[str] = []  # lines, or blocks of lines joined by newlines
        self._count = 0  # lines in them

    def add(self, line: str) -> None:
        self._lines.append(line)
        self._count += 1
        if self._count >= _TEXT_LINES:
            self.flush()

    def add_block(self, block: str, count: int) -> None:
        """`count` lines joined by newlines."""
        self._lines.append(block)
        self._count += count
        if self._count >= _TEXT_LINES:
            self.flush()

    def flush(self) -> None:
        lines = self._lines
        if not lines:
            return
        self._lines = []
        self._count = 0
        if has_secrets():
            lines = [mask(line) for line in lines]
        write_text("\n".join(lines) + "\n")


def write_rows(tree: UriTree, rows: TextRows, *, depth: int | None, several: bool) -> None:
    """The tree as indented rows (chains of single children collapsed), `depth` levels at most.

    Patterns first, then children, in natural order. A run of leaves (most rows) is written in bulk
    (`_leaf_block`); other nodes one by one, with the chain lookups an inner node needs.
    """
    masking = has_secrets()
    bulk = not (several or masking)  # the bulk lines hold no server names and mask nothing
    add = rows.add
    indents: list[str] = []
    # A frame: the level, the children of an open node, and the position of the next one to write.
    stack: list[tuple[int, Sequence[UriNode], list[int]]] = []

    def open_node(node: UriNode, level: int) -> None:
        while len(indents) <= level:
            indents.append("  " * len(indents))
        for pattern in tree.patterns(node):
            add(indents[level] + _pattern_line(pattern, several))
        stack.append((level, tree.children(node), [0]))

    open_node(tree.root, 0)
    while stack:
        level, children, position = stack[-1]
        indent = indents[level]
        at = position[0]
        pushed = False
        while at < len(children):
            item = children[at]
            if item.is_leaf:
                entries = leaf_entries(children, at, _LEAF_RUN) if bulk else []
                if len(entries) > 1:
                    block = _leaf_block(children[at : at + len(entries)], entries, indent)
                    rows.add_block(block, len(entries))
                    at += len(entries)
                    continue
                add(indent + _leaf_line(item, several, masking))
                at += 1
                continue
            at += 1
            label = tree.chain_label(item)
            end = tree.chain_end(item)
            add(indent + _node_line(end, label, several))
            if depth is None or level + 1 < depth:
                position[0] = at
                open_node(end, level + 1)
                pushed = True
                break
        if not pushed:
            stack.pop()


def _leaf_block(nodes: Sequence[UriNode], entries: list[ResourceEntry], indent: str) -> str:
    """`indent + _leaf_line(node)` for each of `nodes` (leaves, one server's resource each, no masking),
    joined by newlines. When they are alike (printable ASCII, each shown name either different from its
    segment or not, each with a MIME type or none) the block is joined from its pieces in one pass: no
    string per line, and each piece read while the run's other passes still hold it in the CPU's cache."""
    labels = list(map(_segment, nodes))
    names = list(map(_name, entries))
    mimes = list(filter(None, map(_mime, entries)))
    rests = list(map(_rest, entries))
    kinds = list(map(type, rests))
    blobs = cast(list[bytes], list(compress(rests, map(is_, kinds, repeat(bytes)))))
    titled = len(blobs) + kinds.count(tuple) < len(rests) or _TITLE in b"\0".join(blobs)  # or not JSON
    same = sum(map(eq, labels, names))
    count = len(entries)
    block = None
    if not (
        titled
        or 0 < len(mimes) < count
        or 0 < same < count
        or "" in labels
        or "" in names
        or max(map(len, labels)) > 300
        or max(map(len, names)) > 120
        or max(map(len, mimes), default=0) > 60
    ):
        columns = [labels] if same else [labels, names]
        between = [] if same else ["  "]
        if mimes:
            columns.append(mimes)
            between.append("  [")
        block = _joined(indent, columns, between, "]" if mimes else "")
        # printable ASCII, and no newline but those between lines: what `safe_line` keeps as it is
        if not (
            block.isascii() and block.count("\n") == count - 1 and block.replace("\n", " ").isprintable()
        ):
            block = None
    if block is None:
        return "\n".join(indent + _leaf_line(node, False, False) for node in nodes)
    return block


def _joined(indent: str, columns: list[list[str]], between: list[str], end: str) -> str:
    """Lines `indent + c0 + between[0] + c1 + ... + end` of the `columns`, joined by newlines: one join
    of all the pieces, put in place by slice assignments."""
    count = len(columns[0])
    width = 1 + 2 * len(columns)  # a line's pieces: the indent, then each column and what follows it
    parts = [""] * (width * count)
    parts[0::width] = [indent] * count
    for at, (column, after) in enumerate(zip(columns, [*between, end + "\n"], strict=True)):
        parts[2 * at + 1 :: width] = column
        parts[2 * at + 2 :: width] = [after] * count
    parts[-1] = end
    return "".join(parts)


def _pattern_line(pattern: PatternNode, several: bool) -> str:
    from explorer.model.templates import malformed, too_large

    entry = next(iter(pattern.templates.values()))
    line = safe_line(pattern.label, 300) + "  [template]  " + safe_line(entry.name, 120)
    unusable = too_large(entry.uri_template)
    if unusable is not None:
        line += f"  [too large to use: {unusable.detail}]"
    broken = malformed(entry.uri_template)
    if broken is not None:
        line += f"  [malformed: {safe_line(str(broken), 200)}]"
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
        parts.append(f"({node.items_below:,})")
    return "  ".join(parts)
