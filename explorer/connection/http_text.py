"""An HTTP answer's bytes made into JSON the SDK can parse: what is not UTF-8, and lone surrogates, as U+FFFD.

Why: the SDK parses an HTTP answer with pydantic's strict JSON parser, which refuses a whole message for one
byte that is not UTF-8 or one lone surrogate escape (`\\ud800`, what JavaScript's `JSON.stringify` writes for
a string cut in the middle of an emoji). Over stdio the explorer reads such a message, with U+FFFD in place
of what it could not read (`stdio_lines`); over HTTP the same page of a listing was lost. `TextRepair` mends
the bytes on their way to the SDK, a line at a time: neither a UTF-8 sequence nor an escape spans a line
end, so a line is the smallest piece that can be mended on its own, and an event stream's events are still
handed on as soon as their last line is there.

Well-formed bytes (nearly all) pass as they came: a line that is ASCII with no surrogate escape is checked
by two scans in C and not copied (on a 130 KB page of a listing, a fifth of the time the SDK's parser
takes over it, measured).
"""

from __future__ import annotations

import re

__all__ = ["TextRepair", "mended"]

_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
"""The start of a surrogate escape: where a line may need mending (a pair is fine, a lone one is not)."""

_ESCAPE = re.compile(
    rb"\\(?:u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|u[dD][89a-fA-F][0-9a-fA-F]{2}|.)",
    re.DOTALL,
)
"""An escape, read from the left so that `\\\\ud800` is an escaped backslash then text: a surrogate pair,
a lone surrogate, or any other escape (kept)."""

_REPLACEMENT = rb"\ufffd"


def _mend_escape(match: re.Match[bytes]) -> bytes:
    escape = match.group()
    if len(escape) == 6 and escape[1:2] == b"u":  # one surrogate, not a pair
        return _REPLACEMENT
    return escape


def mended(block: bytes) -> bytes:
    """`block` (whole lines) with bytes that are not UTF-8 and lone surrogate escapes made U+FFFD."""
    if not block.isascii():
        try:
            block.decode("utf-8")
        except UnicodeDecodeError:
            block = block.decode("utf-8", errors="replace").encode("utf-8")
    if _SURROGATE.search(block) is None:
        return block
    return _ESCAPE.sub(_mend_escape, block)


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
