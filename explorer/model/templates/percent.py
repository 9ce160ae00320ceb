"""RFC 3986 character sets and percent-encoding, both ways, for URI templates.

Why a module of its own: literals, expansion, matching and diagnosis all encode, normalize or decode
pct-triplets, and must agree exactly on how; the rules are in the package docstring.
"""

from __future__ import annotations

import re
import string
import urllib.parse
from typing import Final

UNRESERVED: Final = string.ascii_letters + string.digits + "-._~"
RESERVED: Final = ":/?#[]@" + "!$&'()*+,;="
URI_CHARS: Final = frozenset(UNRESERVED + RESERVED)
_HEX: Final = frozenset("0123456789ABCDEFabcdef")


def is_triplet(text: str, i: int) -> bool:
    return text[i] == "%" and i + 2 < len(text) and text[i + 1] in _HEX and text[i + 2] in _HEX


def pct(char: str) -> str:
    return "".join(f"%{byte:02X}" for byte in char.encode("utf-8"))


def encode_keeping(text: str) -> str:
    """Pct-encode what a URI cannot hold, keeping valid triplets (literals, and `+`/`#` values)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        if is_triplet(text, i):
            out.append(text[i : i + 3])
            i += 3
            continue
        out.append(text[i] if text[i] in URI_CHARS else pct(text[i]))
        i += 1
    return "".join(out)


def truncate_units(text: str, length: int) -> str:
    """First `length` characters, counting a pct-encoded triplet as one (never split it)."""
    i = 0
    for _ in range(length):
        if i >= len(text):
            break
        i += 3 if is_triplet(text, i) else 1
    return text[:i]


_TRIPLET = re.compile(r"%([0-9A-Fa-f]{2})")


def normalize_pct(uri: str) -> str:
    """RFC 3986 6.2.2 normalization of pct-encoding: upper-case hex, decode unreserved characters."""

    def fix(m: re.Match[str]) -> str:
        char = chr(int(m[1], 16))
        return char if char in UNRESERVED else "%" + m[1].upper()

    return _TRIPLET.sub(fix, uri)


class NoMatch(Exception):
    """Raised while decoding a regex match that cannot be a real expansion."""


def pct_decode(text: str) -> str:
    try:
        return urllib.parse.unquote(text, errors="strict")
    except UnicodeDecodeError as error:
        raise NoMatch from error


def decode_reserved(text: str) -> str:
    """Decode a `+`/`#` value so it re-expands to `text`.

    Keeps triplets of reserved characters, of bytes that are not UTF-8, and of ``%`` when two hex
    digits follow (all of them pass through `+` expansion as they are).
    """
    pieces: list[str] = []
    percents: set[int] = set()
    i = 0
    while i < len(text):
        if text[i] != "%":
            pieces.append(text[i])
            i += 1
            continue
        j = i
        while j < len(text) and text[j] == "%":
            j += 3
        # bytes that are not UTF-8 can only have come through as triplets: keep them so
        decoded = bytes.fromhex(text[i:j].replace("%", "")).decode("utf-8", errors="surrogateescape")
        for char in decoded:
            if char == "%":
                percents.add(len(pieces))
            if "\udc80" <= char <= "\udcff":
                pieces.append(f"%{ord(char) - 0xDC00:02X}")
            else:
                pieces.append(pct(char) if char in RESERVED or char == "%" else char)
        i = j
    tail = ""
    for index in range(len(pieces) - 1, -1, -1):
        if index in percents and not (len(tail) >= 2 and tail[0] in _HEX and tail[1] in _HEX):
            pieces[index] = "%"
        tail = (pieces[index] + tail)[:2]
    return "".join(pieces)
