"""Make untrusted (server-sent) strings safe to put on a terminal.

Everything a server sends may carry terminal control sequences (a screen clear, a window title, an OSC 8
link that lies about its target), bidi overrides that make text read differently than it is stored, or
invisible characters that hide part of a name. This module is the one place that turns all of those into
visible escapes, so the user sees *that* something odd is there instead of the terminal acting on it.

Escapes are for humans, not a reversible encoding: `\\x1b` stands for ESC, and a literal backslash in the
input is left as it is, so the output text `\\x1b` can come from either.

Markup (`[b]`, `[@click=...]`) is printable text and not this module's business: widgets must be given
`Text`/`Content` objects, never markup strings (see design.md, "Untrusted strings").
"""

from __future__ import annotations

import re

__all__ = ["is_clean", "sanitize", "sanitize_line"]

# Code point ranges (inclusive) that are never shown raw. Tabs and newlines are handled separately: they are
# kept in multi-line text and escaped in single-line labels.
_UNSAFE_RANGES: tuple[tuple[int, int], ...] = (
    (0x00, 0x08),  # C0 controls: NUL .. BS
    (0x0B, 0x1F),  # C0 controls: VT, FF, CR, .. ESC .. US
    (0x7F, 0x9F),  # DEL and every C1 control (0x9B is a one-byte CSI)
    (0xAD, 0xAD),  # soft hyphen (invisible)
    (0x061C, 0x061C),  # Arabic letter mark (bidi)
    (0x180E, 0x180E),  # Mongolian vowel separator (invisible)
    (0x200B, 0x200F),  # zero-width space/non-joiner/joiner, LRM, RLM
    (0x2028, 0x2029),  # line and paragraph separators (break lines like \n)
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x206F),  # word joiner, invisible operators, bidi isolates, deprecated format controls
    (0xD800, 0xDFFF),  # lone surrogates (not text; some terminals show garbage or fail)
    (0xFEFF, 0xFEFF),  # zero-width no-break space / BOM
    (0xFFF9, 0xFFFB),  # interlinear annotation controls (invisible)
    (0xE0000, 0xE007F),  # tag characters: invisible ASCII look-alikes used to smuggle hidden text
)
_LINE_CONTROLS = (0x09, 0x0A)  # kept in multi-line output, escaped in single-line output
_SHORT_ESCAPES = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}


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


def _char_class(ranges: list[tuple[int, int]]) -> str:
    return "[" + "".join(f"\\U{low:08x}-\\U{high:08x}" for low, high in ranges) + "]"


_ML_RANGES = list(_UNSAFE_RANGES)
_SL_RANGES = [*_UNSAFE_RANGES, *((code, code) for code in _LINE_CONTROLS)]

# Multi-line text: CRLF is a plain line break (a CR right before LF cannot overwrite anything), so it is
# normalized to LF rather than shown as `\r` at the end of every line of a Windows text file. The pattern
# stays a single character class (fast on clean text); the CR of a CRLF is special-cased where matched.
_MULTILINE_RE = re.compile(_char_class(_ML_RANGES))
_SINGLE_LINE_RE = re.compile(_char_class(_SL_RANGES))
_ML_TABLE = {code: _escape(code) for low, high in _ML_RANGES for code in range(low, high + 1)}
_SL_TABLE = {code: _escape(code) for low, high in _SL_RANGES for code in range(low, high + 1)}


def _marker(dropped: int) -> str:
    return f" … [+{dropped} chars]"


def sanitize(text: str, *, limit: int | None = 4000, multiline: bool = True) -> str:
    """Return `text` with every unsafe character shown as a visible escape, capped at `limit` characters.

    Escaping ESC alone defuses every CSI/OSC/DCS sequence: what follows it is ordinary printable text.
    `multiline=False` also escapes tab and newline (for labels, tree rows, table cells). When the escaped
    text is longer than `limit`, it is cut (never inside an escape) and ` … [+N chars]` is appended, where N
    counts the characters of the original that were left out. `limit=None` means no cap.
    """
    if limit is not None and limit < 0:
        raise ValueError("limit must be >= 0 or None")
    pattern = _MULTILINE_RE if multiline else _SINGLE_LINE_RE
    if limit is None:
        if pattern.search(text) is None:
            return text
        if multiline:
            return text.replace("\r\n", "\n").translate(_ML_TABLE)
        return text.translate(_SL_TABLE)
    if len(text) <= limit and pattern.search(text) is None:
        return text
    return _sanitize_capped(text, limit, pattern, multiline)


def _sanitize_capped(text: str, limit: int, pattern: re.Pattern[str], multiline: bool) -> str:
    """Escape while counting output length, so only about `limit` characters of input are ever touched."""
    parts: list[str] = []
    budget = limit
    pos = 0
    # Every input character yields at least half an output character (CRLF -> LF is the densest case), so
    # nothing past 2 * limit + 2 can reach the output: no need to scan a huge string to its end.
    for match in pattern.finditer(text, 0, 2 * limit + 2):
        start = match.start()
        if start < pos:  # the LF of a CRLF already consumed below
            continue
        plain = start - pos
        if plain > budget:
            parts.append(text[pos : pos + budget])
            pos += budget
            break
        parts.append(text[pos:start])
        budget -= plain
        end = start + 1
        if multiline and text[start] == "\r" and text.startswith("\n", end):
            escaped, end = "\n", end + 1
        else:
            escaped = _SL_TABLE[ord(text[start])]
        if len(escaped) > budget:
            pos = start
            break
        parts.append(escaped)
        budget -= len(escaped)
        pos = end
    else:
        rest = len(text) - pos
        if rest <= budget:
            parts.append(text[pos:])
            return "".join(parts)
        parts.append(text[pos : pos + budget])
        pos += budget
    return "".join(parts) + _marker(len(text) - pos)


def sanitize_line(text: str, limit: int | None = 200) -> str:
    """Sanitize a single-line label (names, titles, URIs in rows): newlines and tabs are escaped too."""
    return sanitize(text, limit=limit, multiline=False)


def is_clean(text: str, *, multiline: bool = True) -> bool:
    """True when `text` holds no character that `sanitize` would escape (the length cap is not considered).

    Cheap (one compiled-regex scan), so callers can skip copying the common, clean case.
    """
    pattern = _MULTILINE_RE if multiline else _SINGLE_LINE_RE
    return pattern.search(text) is None
