"""An HTTP answer's bytes made into JSON the SDK can parse: what is not UTF-8, and lone surrogates, as U+FFFD.

Why: the SDK parses an HTTP answer with pydantic's strict JSON parser, which refuses a whole message for one
byte that is not UTF-8 or one lone surrogate escape (`\\ud800`, what JavaScript's `JSON.stringify` writes for
a string cut in the middle of an emoji). Over stdio the explorer reads such a message, with U+FFFD in place
of what it could not read (`stdio_lines`); over HTTP the same page of a listing was lost. `TextRepair` mends
the bytes on their way to the SDK, a line at a time: neither a UTF-8 sequence nor an escape spans a line
end, so a line is the smallest piece that can be mended on its own, and an event stream's events are still
handed on as soon as their last line is there.

Well-formed bytes (nearly all) pass as they came: a line that is ASCII with no surrogate escape is checked
by two scans in C and not copied. Python looks at surrogate escapes only, never at every escape, and a run
of backslashes once: `benchmarks/bench_http_text.py` shows mending against the SDK's own parse of the same
page (a tenth of it on a plain page, linear time on hostile ones).
"""

from __future__ import annotations

import re

__all__ = ["TextRepair", "mended"]

_LONE = re.compile(
    rb"\\u[dD](?:"
    rb"[89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])"  # a high surrogate no low one follows
    rb"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD])[c-fC-F][0-9a-fA-F]{2})"  # a low one no high one precedes
)
"""A lone surrogate escape, when every `\\u` of the text is an escape (no backslash before it makes it
text)."""

_ANY = re.compile(rb"\\u[dD][89a-fA-F]")
"""The start of what may be a surrogate escape: most pages have none, and one search says so."""

_TEXT_U = re.compile(rb"\\\\u")
"""A backslash before `\\u`, which may make it text (a regular expression: twice as fast as `in` here)."""

_CANDIDATE = re.compile(
    rb"(?<!\\)(\\++)u[dD](?:[89abAB][0-9a-fA-F]{2}(\\u[dD][c-fC-F][0-9a-fA-F]{2})?|[c-fC-F][0-9a-fA-F]{2})"
)
"""A surrogate escape, a pair taken whole, with the whole run of backslashes it ends: an even number of them
makes it text (`\\\\ud800` is an escaped backslash, then `ud800`). The run is matched from its start only
and never given back: linear on a run of any length (matching from inside it was quadratic)."""

_REPLACEMENT = rb"\ufffd"


def mended(block: bytes) -> bytes:
    """`block` (whole lines) with bytes that are not UTF-8 and lone surrogate escapes made U+FFFD."""
    if not block.isascii():
        try:
            block.decode("utf-8")
        except UnicodeDecodeError:
            block = block.decode("utf-8", errors="replace").encode("utf-8")
    lone = _lone_surrogates(block)
    if not lone:
        return block
    pieces: list[bytes] = []
    last = 0
    for at in lone:
        pieces += (block[last:at], _REPLACEMENT)
        last = at + 6
    pieces.append(block[last:])
    return b"".join(pieces)


def _lone_surrogates(block: bytes) -> list[int]:
    """Where the lone surrogate escapes of `block` start. When no backslash comes before a `\\u`, one
    search with lookarounds finds them, pairs skipped in C; else each surrogate escape is looked at (still
    never the other escapes: a page of escaped quotes with one emoji took 100 ms a MB when every escape was).
    """
    if _ANY.search(block) is None:
        return []
    if _TEXT_U.search(block) is None:
        return [found.start() for found in _LONE.finditer(block)]
    lone: list[int] = []
    for found in _CANDIDATE.finditer(block):
        escaped = (found.end(1) - found.start(1)) % 2 == 0
        low = found.start(2)  # -1 unless a low surrogate escape came right after a high one
        if escaped:
            if low >= 0:
                lone.append(low)  # after text, not after a high surrogate
        elif low < 0:
            lone.append(found.end(1) - 1)  # a high one alone, or a low one no high one took
    return lone


class TextRepair:
    """`mended`, fed a body piece by piece: each piece's whole lines go on at once, a line's start waits
    for its end (a body with no line end is mended whole, at its end). At most `most_held` bytes wait: past
    that, a line goes on as it came, for the reader's own limit to refuse (an event stream has no cap)."""

    def __init__(self, most_held: int) -> None:
        self._held = bytearray()
        self._most_held = most_held

    def feed(self, data: bytes) -> bytes:
        end = max(data.rfind(b"\n"), data.rfind(b"\r"))  # an event stream may end its lines with CR alone
        if end < 0:
            self._held += data
            if len(self._held) > self._most_held:
                unmended, self._held = bytes(self._held), bytearray()
                return unmended
            return b""
        if self._held:
            self._held += data[: end + 1]
            block = bytes(self._held)
        else:
            block = data[: end + 1] if end + 1 < len(data) else data
        self._held = bytearray(data[end + 1 :])
        return mended(block)

    def rest(self) -> bytes:
        """The last line, mended (the body ended)."""
        block, self._held = bytes(self._held), bytearray()
        return mended(block) if block else b""
