"""RFC 3986 character sets and percent-encoding, both ways, for URI templates.

Why a module of its own: literals, expansion, matching and diagnosis all encode, normalize or decode
pct-triplets, and must agree exactly on how; the rules are in the package docstring.
"""

from __future__ import annotations

import functools
import re
import string
import urllib.parse
from collections.abc import Callable
from typing import Final

UNRESERVED: Final = string.ascii_letters + string.digits + "-._~"
RESERVED: Final = ":/?#[]@" + "!$&'()*+,;="
URI_CHARS: Final = frozenset(UNRESERVED + RESERVED)
_HEX: Final = frozenset("0123456789ABCDEFabcdef")


_MEMO_CHARS: Final = 16_384
"""Strings up to this long (a URI the go-to box matches in full) are remembered by `_memo`, the last 32
answers of each function: an answer may be 12 times its question (an emoji encoded), so about 8 MB each
at most."""


def _memo(function: Callable[[str], str]) -> Callable[[str], str]:
    """`function`, remembering its last answers: matching a URI against thousands of templates encodes,
    decodes and normalizes the same long value once per template (a `{+path}` takes the whole URI)."""
    remembered = functools.lru_cache(maxsize=32)(function)

    @functools.wraps(function)
    def call(text: str) -> str:
        return remembered(text) if len(text) <= _MEMO_CHARS else function(text)

    call.cache_info = remembered.cache_info  # type: ignore[attr-defined]  # what the tests count
    call.cache_clear = remembered.cache_clear  # type: ignore[attr-defined]
    return call


def is_triplet(text: str, i: int) -> bool:
    return text[i] == "%" and i + 2 < len(text) and text[i + 1] in _HEX and text[i + 2] in _HEX


def pct(char: str) -> str:
    return "".join(f"%{byte:02X}" for byte in char.encode("utf-8"))


_TO_ENCODE: Final = re.compile(r"%[0-9A-Fa-f]{2}|[^A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]")
"""A valid triplet (kept), or one character a URI cannot hold (pct-encoded): `encode_keeping`'s work."""


def _encoded(match: re.Match[str]) -> str:
    found = match[0]
    return found if len(found) == 3 else pct(found)


@_memo
def encode_keeping(text: str) -> str:
    """Pct-encode what a URI cannot hold, keeping valid triplets (literals, and `+`/`#` values).

    One regex pass: a character-by-character loop made matching a URI of 8,000 characters against 5,000
    templates take most of a minute."""
    return _TO_ENCODE.sub(_encoded, text)


def truncate_units(text: str, length: int) -> str:
    """First `length` characters, counting a pct-encoded triplet as one (never split it)."""
    i = 0
    for _ in range(length):
        if i >= len(text):
            break
        i += 3 if is_triplet(text, i) else 1
    return text[:i]


_TRIPLET = re.compile(r"%([0-9A-Fa-f]{2})")


@_memo
def normalize_pct(uri: str) -> str:
    """RFC 3986 6.2.2 normalization of pct-encoding: upper-case hex, decode unreserved characters."""

    def fix(m: re.Match[str]) -> str:
        char = chr(int(m[1], 16))
        return char if char in UNRESERVED else "%" + m[1].upper()

    return _TRIPLET.sub(fix, uri)


class NoMatch(Exception):
    """Raised while decoding a regex match that cannot be a real expansion."""


@_memo
def pct_decode(text: str) -> str:
    try:
        return urllib.parse.unquote(text, errors="strict")
    except UnicodeDecodeError as error:
        raise NoMatch from error


_TRIPLET_RUN: Final = re.compile(r"(?:%[0-9A-Fa-f]{2})+")


@_memo
def decode_reserved(text: str) -> str:
    """Decode a `+`/`#` value so it re-expands to `text`.

    Keeps triplets of reserved characters, of bytes that are not UTF-8, and of ``%`` when two hex
    digits follow (all of them pass through `+` expansion as they are). The text between runs of
    triplets is taken whole (`encode_keeping` says why).
    """
    if "%" not in text:
        return text
    pieces: list[str] = []  # never an empty string: two pieces hold at least the two characters looked at
    percents: list[int] = []
    done = 0
    for run in _TRIPLET_RUN.finditer(text):
        if run.start() > done:
            pieces.append(text[done : run.start()])
        done = run.end()
        # bytes that are not UTF-8 can only have come through as triplets: keep them so
        decoded = bytes.fromhex(run[0].replace("%", "")).decode("utf-8", errors="surrogateescape")
        for char in decoded:
            if char == "%":
                percents.append(len(pieces))
            if "\udc80" <= char <= "\udcff":
                pieces.append(f"%{ord(char) - 0xDC00:02X}")
            else:
                pieces.append(pct(char) if char in RESERVED or char == "%" else char)
    if done < len(text):
        pieces.append(text[done:])
    # A decoded `%` stays `%25` only where two hex digits follow it (as the pieces after it now read).
    for index in reversed(percents):
        after = "".join(pieces[index + 1 : index + 3])
        if not (len(after) >= 2 and after[0] in _HEX and after[1] in _HEX):
            pieces[index] = "%"
    return "".join(pieces)
