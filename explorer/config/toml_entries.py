"""Where one server's entry is in the text of a TOML config: the spans to cut to remove it.

Why by text: removing a server must leave the rest of the user's file as it was (comments, order,
formatting), which writing the parsed TOML back would lose. The text is cut into statements (table
headers; key/value pairs with their multi-line strings and arrays; blank and comment lines), and each
header's and pair's key is decoded by tomllib itself. The caller parses what is left and compares it with
the old file minus the server, so a form misread here is refused, never written.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["InlineServers", "Unreadable", "cut_server"]


class Unreadable(ValueError):
    """The text is not TOML this reader can cut into statements."""


class InlineServers(ValueError):
    """The servers are one inline table (`servers = { ... }`): no entry can be cut out of it alone."""


@dataclass(frozen=True)
class _Statement:
    kind: Literal["header", "pair", "other"]  # other: a blank or comment line
    path: tuple[str, ...]  # a header's table; a pair's full key (its table's path, then its own key)
    start: int
    end: int  # just past the newline that ends it, or the end of the text


def cut_server(text: str, name: str) -> str:
    """`text` without the tables and pairs of `servers.NAME` (its `oauth` table and dotted keys too).

    A block of comment lines just above a table's header, with no blank line between, goes with the table
    (it describes it); a comment separated from the header by a blank line stays. Blank and comment lines
    after a table's last pair stay: they go with what follows (the next table's own comment). A blank line
    left doubled by the cut is dropped. Raises InlineServers or Unreadable; returns `text` when nothing is
    there.
    """
    statements = _statements(text)
    target = ("servers", name)
    spans: list[tuple[int, int]] = []
    in_target = False
    for index, statement in enumerate(statements):
        if statement.kind == "header":
            in_target = statement.path[:2] == target
            if in_target:
                end = statement.end
                for follower in statements[index + 1 :]:
                    if follower.kind == "header":
                        break
                    if follower.kind == "pair":
                        end = follower.end
                spans.append((_comments_above(text, statements, index), end))
        elif statement.kind == "pair" and not in_target:
            if statement.path[:2] == target:
                spans.append((statement.start, statement.end))
            elif statement.path == ("servers",):
                raise InlineServers("servers = { ... }")
    for start, end in reversed(spans):
        text = _cut(text, start, end)
    return text


def _comments_above(text: str, statements: list[_Statement], index: int) -> int:
    """Where the comment lines just above the header at `index` begin (no blank line between them and
    it); the header's own start when there are none."""
    start = statements[index].start
    for statement in reversed(statements[:index]):
        if statement.kind != "other" or not text[statement.start : statement.end].lstrip().startswith("#"):
            break
        start = statement.start
    return start


def _cut(text: str, start: int, end: int) -> str:
    before, after = text[:start], text[end:]
    if not before.strip():
        before = ""
    if not before or before.endswith(("\n\n", "\n\r\n")):
        after = _without_blank_lines(after)  # else the blank lines around the cut would double
    if not after.strip() and before:
        newline = "\r\n" if "\r\n" in text else "\n"
        return before.rstrip(" \t\r\n") + newline
    return before + after


def _without_blank_lines(text: str) -> str:
    while text:
        line_end = text.find("\n")
        line = text if line_end < 0 else text[: line_end + 1]
        if line.strip():
            break
        text = text[len(line) :]
    return text


def _statements(text: str) -> list[_Statement]:
    statements: list[_Statement] = []
    table: tuple[str, ...] = ()
    index = 0
    length = len(text)
    while index < length:
        start = index
        first = _skip_spaces(text, index)
        if first >= length or text[first] in "\r\n#":
            end = _line_end(text, first)
            statements.append(_Statement("other", (), start, end))
        elif text[first] == "[":
            close = _header_end(text, first)
            table = _path(text[first:close], header=True)
            end = _line_end(text, close)
            statements.append(_Statement("header", table, start, end))
        else:
            equals = _key_end(text, first)
            key = _path(text[first:equals], header=False)
            end = _value_end(text, equals + 1)
            statements.append(_Statement("pair", table + key, start, end))
        index = end
    return statements


def _skip_spaces(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t":
        index += 1
    return index


def _line_end(text: str, index: int) -> int:
    newline = text.find("\n", index)
    return len(text) if newline < 0 else newline + 1


def _one_line_string(text: str, index: int) -> int:
    """The index past the one-line string (basic or literal) that opens at `index`."""
    quote = text[index]
    index += 1
    while index < len(text):
        char = text[index]
        if char == "\\" and quote == '"':
            index += 2
            continue
        if char == quote:
            return index + 1
        if char == "\n":
            break
        index += 1
    raise Unreadable("a string does not end on its line")


def _multi_line_string(text: str, index: int) -> int:
    """The index past the multi-line string (`\"\"\"` or `'''`) that opens at `index`."""
    delimiter = text[index : index + 3]
    index += 3
    while index < len(text):
        if text[index] == "\\" and delimiter == '"""':
            index += 2
            continue
        if text.startswith(delimiter, index):
            index += 3
            extra = 0
            while extra < 2 and index < len(text) and text[index] == delimiter[0]:
                index += 1  # up to two quotes just before the delimiter belong to the string
                extra += 1
            return index
        index += 1
    raise Unreadable("a multi-line string does not end")


def _header_end(text: str, index: int) -> int:
    """The index past a `[table]` or `[[array]]` header's closing bracket(s)."""
    array = text.startswith("[[", index)
    index += 2 if array else 1
    while index < len(text):
        char = text[index]
        if char in "\"'":
            index = _one_line_string(text, index)
            continue
        if char == "]":
            if array:
                if not text.startswith("]]", index):
                    break
                return index + 2
            return index + 1
        if char == "\n":
            break
        index += 1
    raise Unreadable("a table header does not end on its line")


def _key_end(text: str, index: int) -> int:
    """The index of the `=` after the key that starts at `index`."""
    while index < len(text):
        char = text[index]
        if char in "\"'":
            index = _one_line_string(text, index)
            continue
        if char == "=":
            return index
        if char == "\n":
            break
        index += 1
    raise Unreadable("a line is neither a table header nor a key = value pair")


def _value_end(text: str, index: int) -> int:
    """The index just past the newline that ends the value starting at `index` (arrays may span lines)."""
    depth = 0
    while index < len(text):
        char = text[index]
        if char in "\"'":
            if text.startswith(char * 3, index):
                index = _multi_line_string(text, index)
            else:
                index = _one_line_string(text, index)
            continue
        if char == "#":
            newline = text.find("\n", index)
            index = len(text) if newline < 0 else newline
            continue
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif char == "\n" and depth <= 0:
            return index + 1
        index += 1
    return len(text)


def _path(raw: str, *, header: bool) -> tuple[str, ...]:
    """The key path of a header (`[servers."a b".oauth]`) or a pair's key, decoded by tomllib."""
    try:
        node: Any = tomllib.loads(raw if header else raw + "= 0")
    except tomllib.TOMLDecodeError as exc:
        raise Unreadable(str(exc)) from None
    path: list[str] = []
    while isinstance(node, dict) and len(node) == 1:
        key, node = next(iter(node.items()))
        path.append(key)
        if isinstance(node, list) and node:  # an array of tables: its last table
            node = node[-1]
    return tuple(path)
