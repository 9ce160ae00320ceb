"""Make untrusted (server-sent) strings safe to put on a terminal.

Everything a server sends may carry terminal control sequences (a screen clear, a window title, an OSC 8
link that lies about its target), bidi overrides that make text read differently than it is stored, or
invisible characters that hide part of a name or are drawn wider than the UI measures them (Hangul
fillers, variation selectors). This module is the one place that turns all of those into visible escapes,
so the user sees *that* something odd is there instead of the terminal acting on it.

What is escaped is derived from Unicode properties, not a hand-picked list: every character of general
category Cc (controls), Cf (format), Cs (surrogates), Zl and Zp (line/paragraph separators), every
Default_Ignorable_Code_Point (a table below, from Unicode's DerivedCoreProperties.txt: Python's
`unicodedata` has no such property) and the noncharacters. Private-use characters (Co) are left alone:
they are drawn as glyphs (icon fonts), one cell wide. A run of more than `MAX_COMBINING` combining marks
(Mn, Mc, Me) is cut to its first `MAX_COMBINING`, followed by `[+N combining marks]`: thousands of marks
stacked on one letter ("Zalgo" text) would otherwise be drawn over the lines around it.

Escapes are for humans, not a reversible encoding: `\\x1b` stands for ESC, and a literal backslash in the
input is left as it is, so the output text `\\x1b` can come from either. `json_escape_unsafe` is the
reversible form for JSON output: the same characters as `\\uXXXX` escapes.

Markup (`[b]`, `[@click=...]`) is printable text and not this module's business: widgets must be given
`Text`/`Content` objects, never markup strings.

The tables are built on first use (about 20 ms: a pass over the 131,072 code points of planes 0 and 1,
where every character of these categories outside the Default_Ignorable table lives), so importing this
module stays free.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

__all__ = [
    "DEFAULT_IGNORABLE",
    "MAX_COMBINING",
    "escaped_code_points",
    "is_clean",
    "json_escape_unsafe",
    "sanitize",
    "sanitize_line",
]

MAX_COMBINING = 8
"""Combining marks kept after one base character; the rest of a longer run is counted, not drawn."""

# Default_Ignorable_Code_Point, Unicode 15.1 (DerivedCoreProperties.txt; 4,174 code points). Invisible by
# definition: a renderer that does not support one is told to draw nothing, so a terminal may draw it as
# nothing, as a box, or (Hangul fillers, variation selectors) wider than Rich measures it.
DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x061C, 0x061C),  # Arabic letter mark
    (0x115F, 0x1160),  # Hangul choseong/jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian free variation selectors, vowel separator
    (0x200B, 0x200F),  # zero-width space/non-joiner/joiner, LRM, RLM
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x206F),  # word joiner, invisible operators, bidi isolates, deprecated format controls
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors 1-16
    (0xFEFF, 0xFEFF),  # zero-width no-break space / BOM
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xFFF0, 0xFFF8),  # reserved
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical symbol format controls
    (0xE0000, 0xE0FFF),  # tags (invisible ASCII look-alikes), variation selectors 17-256, reserved
)
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_MARK_CATEGORIES = frozenset({"Mn", "Mc", "Me"})
_SCANNED_PLANES = 0x20000  # planes 0 and 1; beyond them only the tag plane has such characters (above)
_LINE_CONTROLS = (0x09, 0x0A)  # kept in multi-line output, escaped in single-line output
_SHORT_ESCAPES = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}


def _noncharacters() -> list[tuple[int, int]]:
    """U+FDD0..FDEF and the last two code points of every plane: never text, by definition."""
    ranges = [(0xFDD0, 0xFDEF)]
    ranges += [((plane << 16) | 0xFFFE, (plane << 16) | 0xFFFF) for plane in range(17)]
    return ranges


def _merge(codes: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for low, high in sorted(codes):
        if merged and low <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(high, merged[-1][1]))
        else:
            merged.append((low, high))
    return merged


def _escape(code: int) -> str:
    """The visible form of one unsafe code point: `\\x1b`, `\\u202e`, `\\U000e0041`, `\\n`."""
    short = _SHORT_ESCAPES.get(code)
    if short is not None:
        return short
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _json_escape(code: int) -> str:
    """`\\uXXXX`, or a surrogate pair for an astral code point, so `json.loads` gives the character back."""
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _char_class(ranges: list[tuple[int, int]]) -> str:
    return "".join(f"\\U{low:08x}-\\U{high:08x}" for low, high in ranges)


_ASTRAL = "\U00010000"
_ANY_ASTRAL = "\\U00010000-\\U0010ffff"
_SYMBOLS = (0x1F000, 0x1FFFD)  # emoji and other pictographs: left out of the astral scan when possible


@dataclass(frozen=True)
class _Tables:
    """Compiled scans and the sets that check what they find.

    Python's `re` tests a character class with a bitmap for the BMP but one range at a time for astral
    characters, which made a scan with every astral range 40 times slower on plain text. So each scan
    is one class of the exact BMP characters plus two coarse astral ranges (`_astral_cover`), and an
    astral hit is checked against a set afterwards: clean text costs one fast scan, and emoji are not
    even hits.
    """

    multiline: re.Pattern[str]  # unsafe characters except tab and newline, or an astral candidate
    single_line: re.Pattern[str]  # unsafe characters, or an astral candidate
    run_scan: re.Pattern[str]  # more than MAX_COMBINING in a row of (BMP marks or astral candidates)
    run_tail: re.Pattern[str]  # zero or more of those (to follow a run past a scan window)
    astral: re.Pattern[str]  # any astral character
    astral_unsafe: frozenset[int]
    marks: frozenset[str]  # every combining mark that is not escaped itself
    ranges: tuple[tuple[int, int], ...]


@cache
def _tables() -> _Tables:
    unsafe: list[tuple[int, int]] = [*DEFAULT_IGNORABLE, *_noncharacters()]
    marks: list[tuple[int, int]] = []
    category = unicodedata.category
    for code in range(_SCANNED_PLANES):
        kind = category(chr(code))
        if kind in _ESCAPED_CATEGORIES:
            unsafe.append((code, code))
        elif kind in _MARK_CATEGORIES:
            marks.append((code, code))
    single_line = _merge(unsafe)  # category Cc includes tab and newline
    multiline = _subtract(single_line, [(code, code) for code in _LINE_CONTROLS])
    marks = _subtract(_merge(marks), single_line)  # escaped marks (variation selectors) are not counted
    astral = _char_class(_astral_cover([*single_line, *marks]))
    mark_or_astral = "[" + _char_class(_bmp(marks)) + astral + "]"
    return _Tables(
        multiline=re.compile("[" + _char_class(_bmp(multiline)) + astral + "]"),
        single_line=re.compile("[" + _char_class(_bmp(single_line)) + astral + "]"),
        # Written X X{8,}, not X{9,}: `re` skips ahead fast only to a pattern that starts with a class.
        run_scan=re.compile(f"{mark_or_astral}{mark_or_astral}{{{MAX_COMBINING},}}"),
        run_tail=re.compile(f"{mark_or_astral}*"),
        astral=re.compile(f"[{_ANY_ASTRAL}]"),
        astral_unsafe=frozenset(
            code for low, high in single_line if high > 0xFFFF for code in range(max(low, 0x10000), high + 1)
        ),
        marks=frozenset(chr(code) for low, high in marks for code in range(low, high + 1)),
        ranges=tuple(single_line),
    )


def _astral_cover(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """At most two ranges holding every astral code point of `ranges`, leaving out the emoji block.

    In practice: plane 1 up to its last mark or format character (below U+1F000), then U+1FFFE (plane 1's
    noncharacters) to the end, which holds the tags and the other planes' noncharacters. Should Unicode
    ever put such a character among the emoji, the cover becomes every astral character.
    """
    astral = sorted((max(low, 0x10000), high) for low, high in ranges if high > 0xFFFF)
    if not astral:
        return []
    if any(low <= _SYMBOLS[1] and high >= _SYMBOLS[0] for low, high in astral):
        return [(0x10000, 0x10FFFF)]
    below = [r for r in astral if r[1] < _SYMBOLS[0]]
    cover = [(below[0][0], below[-1][1])] if below else []
    if any(r[0] > _SYMBOLS[1] for r in astral):
        cover.append((_SYMBOLS[1] + 1, 0x10FFFF))
    return cover


def _bmp(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    return [(low, min(high, 0xFFFF)) for low, high in ranges if low <= 0xFFFF]


def _subtract(ranges: list[tuple[int, int]], holes: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """`ranges` without the code points of `holes` (both sorted and merged)."""
    result: list[tuple[int, int]] = []
    for low, high in ranges:
        start = low
        for hole_low, hole_high in holes:
            if hole_high < start or hole_low > high:
                continue
            if hole_low > start:
                result.append((start, hole_low - 1))
            start = max(start, hole_high + 1)
        if start <= high:
            result.append((start, high))
    return result


def escaped_code_points() -> tuple[tuple[int, int], ...]:
    """Every code point range `sanitize_line` escapes (merged, inclusive): for tests and documentation."""
    return _tables().ranges


# ------------------------------------------------------------------------------------------ finding


def _is_unsafe(t: _Tables, char: str) -> bool:
    """For a character the scan found: BMP hits are exact, astral ones are checked here."""
    return char < _ASTRAL or ord(char) in t.astral_unsafe


def _next_unsafe(t: _Tables, scan: re.Pattern[str], text: str, pos: int, end: int) -> int:
    """Index of the first unsafe character in text[pos:end], or -1."""
    while True:
        match = scan.search(text, pos, end)
        if match is None:
            return -1
        index = match.start()
        if _is_unsafe(t, text[index]):
            return index
        pos = index + 1


def _runs_in(t: _Tables, text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The runs of more than MAX_COMBINING real marks in a span the run scan matched."""
    if t.astral.search(text, start, end) is None:
        return [(start, end)]  # BMP hits are exact: the whole span is one run of marks
    runs: list[tuple[int, int]] = []
    index = start
    while index < end:
        if text[index] not in t.marks:
            index += 1
            continue
        first = index
        while index < end and text[index] in t.marks:
            index += 1
        if index - first > MAX_COMBINING:
            runs.append((first, index))
    return runs


def _next_run(t: _Tables, text: str, pos: int, end: int) -> tuple[int, int] | None:
    """The first run of more than MAX_COMBINING marks found by scanning text[pos:end].

    A run that reaches `end` is followed to its real end; it may also begin at or after `end` when a
    scanned span of marks and astral characters crosses it (the caller compares).
    """
    while True:
        match = t.run_scan.search(text, pos, end)
        if match is None:
            return None
        start, stop = match.span()
        if stop == end:
            tail = t.run_tail.match(text, stop)
            stop = tail.end() if tail is not None else stop
        runs = _runs_in(t, text, start, stop)
        if runs:
            return runs[0]
        pos = stop


class _Finder:
    """The next hit of one kind at or after a position, searched again only when it must be.

    The capped path looks for two kinds of hit (an unsafe character, a long mark run) within a window
    that moves forward; a hit found once, or the knowledge that none starts in a stretch, is kept.
    """

    def __init__(self, find: Callable[[int, int], tuple[int, int] | None]) -> None:
        self._find = find
        self._hit: tuple[int, int] | None = None
        self._searched = (0, -1)  # [start, end) scanned, with no hit when self._hit is None

    def find(self, pos: int, end: int) -> tuple[int, int] | None:
        hit = self._hit
        if hit is not None and hit[0] >= pos:
            return hit if hit[0] < end else None
        low, high = self._searched
        if hit is None and low <= pos and end <= high:
            return None
        self._hit = hit = self._find(pos, end)
        self._searched = (pos, end)
        return hit if hit is not None and hit[0] < end else None


# ------------------------------------------------------------------------------------------ escaping


@cache
def _escape_char(char: str) -> str:
    return _escape(ord(char))


@cache
def _json_escape_char(char: str) -> str:
    return _json_escape(ord(char))


def _escape_found(match: re.Match[str]) -> str:
    char = match.group()
    return _escape_char(char) if _is_unsafe(_tables(), char) else char


def _json_escape_found(match: re.Match[str]) -> str:
    char = match.group()
    return _json_escape_char(char) if _is_unsafe(_tables(), char) else char


def _marker(dropped: int) -> str:
    return f" … [+{dropped} chars]"


def _mark_marker(extra: int) -> str:
    return f"[+{extra} combining marks]"


def _cap_spans(t: _Tables, span: re.Match[str], *, json: bool) -> str:
    """A span the run scan matched, with each real run cut after MAX_COMBINING marks."""
    text = span.string
    start, end = span.span()
    parts: list[str] = []
    pos = start
    for first, stop in _runs_in(t, text, start, end):
        keep = first + MAX_COMBINING
        parts.append(text[pos:keep])
        if json:
            parts.append("".join(_json_escape_char(c) for c in text[keep:stop]))
        else:
            parts.append(_mark_marker(stop - keep))
        pos = stop
    parts.append(text[pos:end])
    return "".join(parts)


_ASCII_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
_ASCII_CONTROLS_OR_LINE = re.compile("[\x00-\x1f\x7f]")


def _clean_ascii(text: str, multiline: bool) -> bool:
    """The common case, decided by the cheapest test: ASCII (checked in C, word by word) with no control."""
    if not text.isascii():
        return False
    return (_ASCII_CONTROLS if multiline else _ASCII_CONTROLS_OR_LINE).search(text) is None


def sanitize(text: str, *, limit: int | None = 4000, multiline: bool = True) -> str:
    """Return `text` with every unsafe character shown as a visible escape, capped at `limit` characters.

    Escaping ESC alone defuses every CSI/OSC/DCS sequence: what follows it is ordinary printable text.
    `multiline=False` also escapes tab and newline (for labels, tree rows, table cells). A run of more than
    `MAX_COMBINING` combining marks keeps its first ones and then says `[+N combining marks]`. When the
    escaped text is longer than `limit`, it is cut (never inside an escape) and ` … [+N chars]` is appended,
    where N counts the characters of the original that were left out. `limit=None` means no cap.
    """
    if limit is not None and limit < 0:
        raise ValueError("limit must be >= 0 or None")
    if (limit is None or len(text) <= limit) and _clean_ascii(text, multiline):
        return text
    t = _tables()
    scan = t.multiline if multiline else t.single_line
    if limit is None:
        if scan.search(text) is not None:
            if multiline:
                text = text.replace("\r\n", "\n")
            text = scan.sub(_escape_found, text)
        if t.run_scan.search(text) is None:
            return text
        # Escapes are ASCII: they never join or split a run.
        return t.run_scan.sub(lambda m: _cap_spans(t, m, json=False), text)
    if len(text) <= limit and scan.search(text) is None and t.run_scan.search(text) is None:
        return text
    return _sanitize_capped(text, limit, t, multiline)


def _sanitize_capped(text: str, limit: int, t: _Tables, multiline: bool) -> str:
    """Escape while counting output length, so only about `limit` characters of input are ever touched."""
    scan = t.multiline if multiline else t.single_line

    def unsafe_at(pos: int, end: int) -> tuple[int, int] | None:
        index = _next_unsafe(t, scan, text, pos, end)
        return (index, index + 1) if index >= 0 else None

    unsafe = _Finder(unsafe_at)
    runs = _Finder(lambda pos, end: _next_run(t, text, pos, end))
    parts: list[str] = []
    budget = limit
    pos = 0
    size = len(text)
    while pos < size:
        # Every input character outside a mark run yields at least half an output character (CRLF -> LF is
        # the densest case), so nothing past 2 * budget + 2 can reach the output: no need to scan a huge
        # string to its end.
        window = min(size, pos + 2 * budget + 2)
        char = unsafe.find(pos, window)
        run = runs.find(pos, window)
        start = min(hit[0] if hit is not None else window for hit in (char, run))
        plain = start - pos
        if plain > budget:
            parts.append(text[pos : pos + budget])
            pos += budget
            break
        parts.append(text[pos:start])
        budget -= plain
        pos = start
        if start == window:
            continue
        if run is not None and run[0] == start:
            end = run[1]
            piece = text[start : start + MAX_COMBINING] + _mark_marker(end - start - MAX_COMBINING)
        elif multiline and text[start] == "\r" and text.startswith("\n", start + 1):
            piece, end = "\n", start + 2
        else:
            piece, end = _escape_char(text[start]), start + 1
        if len(piece) > budget:
            break
        parts.append(piece)
        budget -= len(piece)
        pos = end
    if pos >= size:
        return "".join(parts)
    return "".join(parts) + _marker(size - pos)


def sanitize_line(text: str, limit: int | None = 200) -> str:
    """Sanitize a single-line label (names, titles, URIs in rows): newlines and tabs are escaped too."""
    return sanitize(text, limit=limit, multiline=False)


def is_clean(text: str, *, multiline: bool = True) -> bool:
    """True when `text` holds no character that `sanitize` would escape and no over-long mark run.

    The length cap is not considered. Cheap (compiled-regex scans), so callers can skip copying the
    common, clean case.
    """
    if _clean_ascii(text, multiline):
        return True
    t = _tables()
    scan = t.multiline if multiline else t.single_line
    size = len(text)
    return _next_unsafe(t, scan, text, 0, size) < 0 and _next_run(t, text, 0, size) is None


def json_escape_unsafe(text: str) -> str:
    """`text` (JSON already) with every character `sanitize` would escape written as `\\uXXXX`.

    Astral characters become a surrogate pair (`\\udb40\\udc41`), so the JSON decodes to the exact
    original, while nothing a terminal would act on, hide or draw too wide reaches it raw. Marks past the
    `MAX_COMBINING`-th of a run are escaped the same way. Only valid on JSON text written with
    `ensure_ascii=False`: JSON's own syntax is ASCII and it escapes every control character inside a
    string itself, so a raw newline or tab is indentation (kept) and every other such character sits
    inside a string.
    """
    if _clean_ascii(text, multiline=True):
        return text
    t = _tables()
    if t.multiline.search(text) is not None:
        text = t.multiline.sub(_json_escape_found, text)
    if t.run_scan.search(text) is not None:
        text = t.run_scan.sub(lambda m: _cap_spans(t, m, json=True), text)
    return text
