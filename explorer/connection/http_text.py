"""An HTTP answer's bytes made into JSON the SDK can parse: what is not UTF-8, and lone surrogates, as U+FFFD.

Why: the SDK parses an HTTP answer with pydantic's strict JSON parser, which refuses a whole message for one
byte that is not UTF-8 or one lone surrogate escape (`\\ud800`, what JavaScript's `JSON.stringify` writes for
a string cut in the middle of an emoji). Over stdio the explorer reads such a message, with U+FFFD in place
of what it could not read (`stdio_lines`); over HTTP the same page of a listing was lost. `TextRepair` mends
the bytes on their way to the SDK as they come, each piece cut after a byte no escape, backslash run or
UTF-8 sequence goes through (`_safe_cut`), so that each side is mended alone as it would be whole: an event
stream's events go on as they arrive, and no body or line is held whole.

Well-formed bytes (nearly all) pass as they came: a piece that is ASCII with no surrogate escape is checked
by two scans in C and not copied. Python looks at surrogate escapes only, never at every escape, and a run
of backslashes once: `benchmarks/bench_http_text.py` shows mending against the SDK's own parse of the same
page (a tenth of it on a plain page, linear time on hostile ones).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["BOM", "EventBoms", "LeadingBom", "TextRepair", "Transcoder", "declared_charset", "mended"]

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
    """`block` with bytes that are not UTF-8 and lone surrogate escapes made U+FFFD (a piece cut where
    `TextRepair` cuts, or a whole body)."""
    if not block.isascii():
        try:
            block.decode("utf-8")
        except UnicodeDecodeError:
            block = block.decode("utf-8", errors="replace").encode("utf-8")
    fixed: bytearray | None = None
    for at in _lone_surrogates(block):
        if fixed is None:
            fixed = bytearray(block)
        fixed[at : at + 6] = _REPLACEMENT  # as long as the escape: patched in place, no list of pieces
    return block if fixed is None else bytes(fixed)


def _lone_surrogates(block: bytes) -> Iterator[int]:
    """Where the lone surrogate escapes of `block` start. When no backslash comes before a `\\u`, one
    search with lookarounds finds them, pairs skipped in C; else each surrogate escape is looked at (still
    never the other escapes: a page of escaped quotes with one emoji took 100 ms a MB when every escape was).
    """
    if _ANY.search(block) is None:
        return
    if _TEXT_U.search(block) is None:
        for found in _LONE.finditer(block):
            yield found.start()
        return
    for found in _CANDIDATE.finditer(block):
        escaped = (found.end(1) - found.start(1)) % 2 == 0
        low = found.start(2)  # -1 unless a low surrogate escape came right after a high one
        if escaped:
            if low >= 0:
                yield low  # after text, not after a high surrogate
        elif low < 0:
            yield found.end(1) - 1  # a high one alone, or a low one no high one took


_LOOK_BACK = 64  # bytes from a piece's end searched for a place to cut it
_NOT_NEUTRAL = frozenset(b"\\u0123456789abcdefABCDEF") | frozenset(range(0x80, 0x100))


def _safe_cut(data: bytes | bytearray) -> int:
    """Where `data` can be cut so that each side is mended alone as it would be whole: right after an
    ASCII byte that no escape, backslash run or UTF-8 sequence goes through (not a backslash, `u` or a hex
    digit), among the last `_LOOK_BACK` bytes; -1 when there is none there."""
    for at in range(len(data) - 1, max(len(data) - _LOOK_BACK, 0) - 1, -1):
        if data[at] not in _NOT_NEUTRAL:
            return at + 1
    return -1


class TextRepair:
    """`mended`, fed a body piece by piece: each piece goes on at once, but for its last few bytes when they
    might be half of something (an escape, a backslash run, a UTF-8 sequence); those wait for the next
    piece. An event stream's events, which end in line breaks, go on as they come; no line is held whole
    (a 256 MiB line was held, then copied, then buffered again by the SDK). At most `most_held` bytes wait:
    past that, they go on as they came (a body with nowhere to cut is not JSON the SDK could parse anyway).
    """

    def __init__(self, most_held: int) -> None:
        self._held = bytearray()
        self._most_held = most_held

    def feed(self, data: bytes) -> bytes:
        buffer: bytes | bytearray = data
        if self._held:
            self._held += data
            buffer = self._held
        cut = _safe_cut(buffer)
        if cut < 0:
            if buffer is data:
                self._held += data
            if len(self._held) > self._most_held:
                unmended, self._held = bytes(self._held), bytearray()
                return unmended
            return b""
        block = buffer if cut == len(buffer) else buffer[:cut]
        self._held = bytearray(buffer[cut:])
        return mended(bytes(block))

    def rest(self) -> bytes:
        """What waited, mended (the body ended)."""
        block, self._held = bytes(self._held), bytearray()
        return mended(block) if block else b""


# ------------------------------------------------------------------------------------------ charsets

_NOT_CHARSETS = frozenset({"raw-unicode-escape", "unicode-escape", "idna", "punycode", "undefined", "utf-8"})
"""Codecs Python knows that no server's text is in (they rewrite escapes, or refuse everything), and
UTF-8 itself (mended as it is)."""


def declared_charset(content_type: str) -> str | None:
    """The charset a Content-Type declares when it is one to decode from (a text encoding Python knows,
    other than UTF-8 and ASCII, which UTF-8 mending covers), as Python names it; else None."""
    import codecs

    for parameter in content_type.split(";")[1:]:
        name, _, value = parameter.partition("=")
        if name.strip().lower() != "charset":
            continue
        value = value.strip().strip("\"'")[:40]
        try:
            codec = codecs.lookup(value).name
            b"{}".decode(codec, "replace")  # a text encoding (bytes.decode refuses base64, say)
        except (LookupError, ValueError, TypeError):
            return None
        return None if codec in _NOT_CHARSETS or codec == "ascii" else codec
    return None


class Transcoder:
    """A body in `charset` made UTF-8, a piece at a time (what cannot be decoded becomes U+FFFD), for
    `TextRepair` and the SDK, which read UTF-8 only. Linear: one incremental decoder of Python's."""

    def __init__(self, charset: str) -> None:
        import codecs

        self._decoder = codecs.getincrementaldecoder(charset)(errors="replace")

    def feed(self, data: bytes) -> bytes:
        return self._decoder.decode(data).encode("utf-8", errors="replace")

    def rest(self) -> bytes:
        return self._decoder.decode(b"", final=True).encode("utf-8", errors="replace")


# ------------------------------------------------------------------------------------------ byte order marks

BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte order mark. JSON forbids it, but browsers and most JSON clients skip one before a text,
and some servers (.NET's, files served as they were saved) send one; the SDK's parser refused the answer."""


class LeadingBom:
    """A JSON body (UTF-8 by now) with the BOM at its very start skipped: the first bytes are held until
    three of them tell (an answer of one or two bytes goes on at its `rest`). Only there: a BOM anywhere
    else is the answer's own, and what is not JSON after one is still said to be so."""

    def __init__(self) -> None:
        self._head: bytes | None = b""  # None once the start is told

    def feed(self, data: bytes) -> bytes:
        if self._head is None:
            return data
        head = self._head + data
        if len(head) < len(BOM) and BOM.startswith(head):
            self._head = head
            return b""
        self._head = None
        return head[len(BOM) :] if head.startswith(BOM) else head

    def rest(self) -> bytes:
        head, self._head = self._head or b"", None
        return head


_DATA_BOM = re.compile(rb"(?<![^\r\n])(data: ?)" + re.escape(BOM))
"""A BOM at the start of an event's data line (after the field's one optional space), where a JSON text
starts: a line of JSON never starts inside a string, so no BOM of the message's own is taken."""
_DATA_BOM_LINES = (b"data:" + BOM, b"data: " + BOM)


class EventBoms:
    """An event stream with the BOM at the start of each data line skipped (the SDK parses an event's data
    as a JSON text, and refused it: "a message that is not JSON-RPC"). A line's start is held while it may
    still be `data:` and a BOM, a few bytes at most; other bytes go on as they came, copied only when a
    piece holds a BOM. The stream's own BOM, before its first field, the SDK skips itself."""

    def __init__(self) -> None:
        self._held = b""  # the start of a line that may still be a data field's with a BOM
        self._at_line_start = True  # the next byte begins a line (nothing held)

    def feed(self, data: bytes) -> bytes:
        if not data:
            return b""
        begins_line = bool(self._held) or self._at_line_start
        text, self._held = self._held + data, b""
        start = max(text.rfind(b"\n"), text.rfind(b"\r")) + 1  # where the last line begins
        last = text[start:]
        if (start > 0 or begins_line) and any(
            len(last) < len(line) and line.startswith(last) for line in _DATA_BOM_LINES
        ):
            self._held, text = last, text[:start]
        self._at_line_start = text.endswith((b"\n", b"\r")) or (not text and begins_line)
        if BOM not in text:
            return text

        def skipped(found: re.Match[bytes]) -> bytes:
            return found.group(0) if found.start() == 0 and not begins_line else found.group(1)

        return _DATA_BOM.sub(skipped, text)

    def rest(self) -> bytes:
        """What was held (the stream ended)."""
        held, self._held = self._held, b""
        return held
