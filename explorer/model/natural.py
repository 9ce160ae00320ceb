"""Natural order for URI segments: `g2` before `g10`, `item-9` before `item-10`.

The key is a string, so sorting stays a C string comparison: every run of ASCII digits is written as a
length code followed by the digits without their leading zeros. The code is one digit character for
lengths 1 to 8 and `9` repeated for every further 9 digits, then the rest (so codes never prefix each
other, and a longer number sorts after a shorter one). Codes are digit characters like the text they
replace, so a number compares with a letter or a punctuation mark exactly as its first digit did. Where
leading zeros were dropped (`g02` and `g2` would be equal), the original text is appended after a NUL as
the tie-break, so the order is total and the same on every run (stable across refreshes).

Keys are cached (bounded): sibling names repeat across a big tree (`item0` .. `item99` in every folder),
and a cache hit costs a dict lookup instead of a regex pass. `natural_keys` computes many keys at once for a
sort of many children (10^6 at first expand): one regex split of all the texts joined, the length codes
put in by C-level maps, no Python call per text, about half the time of one `natural_key` call each.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from operator import add

__all__ = ["has_digits", "natural_key", "natural_keys"]

_DIGITS = re.compile(r"[0-9]+")
_HAS_DIGIT = re.compile(r"[0-9]")
_RUNS = re.compile(r"([0-9]+)")
_LEADING_ZERO = re.compile(r"(?<![0-9])0[0-9]")
_JOIN = "\n"
_CACHE_LIMIT = 1 << 16
_cache: dict[str, str] = {}
_zeros = [False]  # set by `_code` when a run had leading zeros (a list: no global statement per call)


def _code(match: re.Match[str]) -> str:
    run = match.group()
    digits = run.lstrip("0") or "0"
    if len(digits) != len(run):
        _zeros[0] = True
    size = len(digits)
    if size < 9:
        return chr(0x30 + size) + digits
    return "9" * (size // 9) + chr(0x30 + size % 9) + digits


def has_digits(text: str) -> bool:
    """Whether natural order can differ from string order around `text` (it has an ASCII digit)."""
    return _HAS_DIGIT.search(text) is not None


def natural_key(text: str) -> str:
    """A string that sorts like `text` in natural order (see the module docstring)."""
    key = _cache.get(text)
    if key is not None:
        return key
    if _HAS_DIGIT.search(text) is None:
        key = text
    else:
        _zeros[0] = False
        key = _DIGITS.sub(_code, text)
        if _zeros[0]:
            key = f"{key}\0{text}"
    if len(_cache) >= _CACHE_LIMIT:
        _cache.clear()
    _cache[text] = key
    return key


def _length_codes(longest: int) -> list[str]:
    """The length code of every run length up to `longest` (index = length), as `_code` writes them."""
    return [
        chr(0x30 + size) if size < 9 else "9" * (size // 9) + chr(0x30 + size % 9)
        for size in range(longest + 1)
    ]


def natural_keys(texts: Sequence[str]) -> list[str]:
    """`[natural_key(t) for t in texts]`, computed in bulk (see the module docstring); not cached."""
    if len(texts) < 64:
        return [natural_key(text) for text in texts]
    joined = _JOIN.join(texts)
    if joined.count(_JOIN) != len(texts) - 1:  # a text holds the joint itself: one by one
        return [natural_key(text) for text in texts]
    parts = _RUNS.split(joined)  # text, digit run, text, ..., text
    runs = parts[1::2]
    lengths = list(map(len, runs))
    codes = _length_codes(max(lengths, default=0))
    parts[1::2] = map(add, map(codes.__getitem__, lengths), runs)
    keys = "".join(parts).split(_JOIN)
    if _LEADING_ZERO.search(joined) is not None:  # those few take the tie-break: one by one
        for at, text in enumerate(texts):
            if _LEADING_ZERO.search(text) is not None:
                keys[at] = natural_key(text)
    return keys
