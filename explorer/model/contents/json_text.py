"""Pretty-print a JSON text only when the pretty form says exactly what the server sent.

Why a module of its own: a `json.loads`/`json.dumps` round trip changes what it cannot hold, silently:
`NaN` and `Infinity` (not JSON) are accepted, a duplicate key keeps its last value, `1e400` becomes
`Infinity`, `1E5` becomes `100000.0`. A developer debugging a server must see what it sent, so the text
is read strictly (no constants, no duplicate keys), every number is written back as its own text, and a
text that cannot be reformatted faithfully is shown as sent with one sentence saying why.

The layout is `json.dumps(value, indent=2, ensure_ascii=False)`'s, character for character, for every
document whose numbers `json.dumps` would write back as they came (the tests compare the two).
"""

from __future__ import annotations

import json
import math
import re
import sys
from itertools import accumulate
from json.encoder import encode_basestring
from typing import Final

NOTE_CUT: Final = 60
"""Characters of a key or a number quoted in a note."""


class _Number:
    """A JSON number as written: the pretty form writes this text back, never a float's repr."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class _Unfaithful(Exception):
    """The text parses, but its pretty form would not say what it says; the message says why."""


class _Duplicate(Exception):
    """An object holds a key twice: a reader keeps one of the values, the pretty form would too."""


class _Constant(Exception):
    """`NaN`, `Infinity` or `-Infinity`: Python's reader accepts them, JSON has no such values."""


def _refuse_constant(name: str) -> object:
    raise _Constant(name)


def _cut(text: str) -> str:
    return text if len(text) <= NOTE_CUT else text[:NOTE_CUT] + "…"


def _float_number(text: str) -> _Number:
    """A number with a fraction or an exponent: kept as written, unless a double cannot hold it."""
    value = float(text)
    if math.isinf(value):
        raise _Unfaithful(f"a number JSON tools read differently: {_cut(text)} (too large: read as infinity)")
    if value == 0.0 and any(c in "123456789" for c in text.split("e")[0].split("E")[0]):
        raise _Unfaithful(f"a number JSON tools read differently: {_cut(text)} (too small: read as 0)")
    return _Number(text)


_DOUBLE_DIGITS: Final = len(str(int(sys.float_info.max)))
"""Digits of the largest double: an integer of fewer always fits one, and costs no `int` here."""


def _int_number(text: str) -> _Number:
    """An integer: kept as written, unless it is past Python's digit limit (`int` raises ValueError, said
    as before) or past the largest double (JSON tools that read numbers as doubles read infinity)."""
    if len(text) < _DOUBLE_DIGITS:
        return _Number(text)
    try:
        float(int(text))
    except OverflowError:
        raise _Unfaithful(
            f"a number JSON tools read differently: {_cut(text)} ({len(text.lstrip('-')):,} digits, "
            "too large for a double: read as infinity)"
        ) from None
    return _Number(text)


def _object(pairs: list[tuple[str, object]]) -> dict[str, object]:
    result = dict(pairs)
    if len(result) < len(pairs):
        raise _Duplicate  # where and which: `_first_duplicate`, run only when there is one
    return result


def pretty_json(text: str) -> tuple[str | None, str | None, bool]:
    """(pretty text, None, False) when `text` is strict JSON that reformats faithfully, else (None, why
    not, informational): informational when it is only shown as sent (NaN, a duplicate key, a number
    JSON tools read differently), not when it is no JSON or cannot be read."""
    try:
        value = json.loads(
            text,
            parse_float=_float_number,
            parse_int=_int_number,
            parse_constant=_refuse_constant,
            object_pairs_hook=_object,
        )
    except json.JSONDecodeError as error:
        return None, f"not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})", False
    except RecursionError:
        deep = f"JSON nested {_depth(text):,} levels deep, deeper than Python can read"
        return None, f"{deep} (about {sys.getrecursionlimit():,}): shown as text", False
    except _Constant as constant:
        where = _constant_position(text, str(constant))
        return None, f"not strict JSON: {constant} at {where}: shown as sent, not reformatted", True
    except _Duplicate:
        return None, f"{_first_duplicate(text)}: shown as sent, not reformatted", True
    except _Unfaithful as why:
        return None, f"{why}: shown as sent, not reformatted", True
    except ValueError as error:
        return None, _unreadable_json(error), False
    pieces: list[str] = []
    try:
        _layout(value, "\n", pieces)
    except RecursionError:
        deep = f"JSON nested {_depth(text):,} levels deep, too deep to pretty-print"
        return None, f"{deep}: shown as text", False
    return "".join(pieces), None, False


def _layout(value: object, newline: str, pieces: list[str]) -> None:
    """Append the pieces of `value` laid out as `json.dumps(indent=2, ensure_ascii=False)` lays it out;
    `newline` is a newline and the indentation of the line `value` starts on."""
    if isinstance(value, _Number):
        pieces.append(value.text)
    elif isinstance(value, str):
        pieces.append(encode_basestring(value))
    elif value is True or value is False or value is None:
        pieces.append("true" if value is True else "false" if value is False else "null")
    elif isinstance(value, dict):
        if not value:
            pieces.append("{}")
            return
        inner = newline + "  "
        opening = "{"
        for key, item in value.items():
            pieces += (opening, inner, encode_basestring(key), ": ")
            _layout(item, inner, pieces)
            opening = ","
        pieces += (newline, "}")
    else:
        assert isinstance(value, list)
        if not value:
            pieces.append("[]")
            return
        inner = newline + "  "
        opening = "["
        for item in value:
            pieces += (opening, inner)
            _layout(item, inner, pieces)
            opening = ","
        pieces += (newline, "]")


_STRING_OR_CONSTANT: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|(-?Infinity|NaN)', re.DOTALL)
_STRING_OR_STRUCTURE: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]:]', re.DOTALL)


def _position(text: str, offset: int) -> str:
    """`line L, column C` of a character offset, counted as `json.JSONDecodeError` counts them."""
    line = text.count("\n", 0, offset) + 1
    column = offset - text.rfind("\n", 0, offset)
    return f"line {line:,}, column {column:,}"


def _constant_position(text: str, name: str) -> str:
    """Where the first `name` outside a string is (the reader meets constants in the text's order)."""
    for match in _STRING_OR_CONSTANT.finditer(text):
        if match.group(1) == name:
            return _position(text, match.start())
    return "an unknown place"  # pragma: no cover - the reader found it, so the scan does


def _first_duplicate(text: str) -> str:
    """`duplicate key "a" at line L, column C` for the first key repeated in its object (text order).

    Runs only once the reader found one: a scan of strings and brackets, each key string decoded (so
    `"a"` and `"\\u0061"` are the same key), as the reader compares them.
    """
    objects: list[set[str] | None] = []
    last: re.Match[str] | None = None
    for match in _STRING_OR_STRUCTURE.finditer(text):
        token = match.group()
        if token[0] == '"':
            last = match
        elif token == "{":
            objects.append(set())
        elif token == "[":
            objects.append(None)
        elif token != ":":
            if objects:
                objects.pop()
        elif objects and (keys := objects[-1]) is not None and last is not None:
            key = json.loads(last.group())
            if key in keys:
                quoted = _cut(json.dumps(key, ensure_ascii=False))
                where = _position(text, last.start())
                return f"duplicate key {quoted} at {where} (a JSON reader keeps only one of its values)"
            keys.add(key)
    return "a duplicate key"  # pragma: no cover - the reader found one, so the scan does


_DIGITS = re.compile(r"value has (\d+) digits")
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKETS = re.compile(r"[\[\]{}]")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def _unreadable_json(error: ValueError) -> str:
    """Valid JSON Python refuses to read: a number too long for `int` (Python's digit limit)."""
    digits = _DIGITS.search(str(error))
    limit = sys.get_int_max_str_digits()
    if digits is not None:
        return (
            f"JSON with a number of {int(digits.group(1)):,} digits, over Python's limit of {limit:,}: "
            "shown as text"
        )
    return f"JSON that Python cannot read ({str(error)[:200]}): shown as text"


def _depth(text: str) -> int:
    """How deep JSON `text` nests: its brackets outside strings, counted in C-speed passes."""
    brackets = _BRACKETS.findall(_JSON_STRING.sub("", text))
    return max(accumulate(_STEP[b] for b in brackets), default=0)
