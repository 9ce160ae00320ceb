"""Bytes from the wire: hex dumps and capped base64 decoding.

Why a module of its own: a blob can be 50 MB of base64; decoding must validate it all but decode only the
prefix the cap needs, and the dump helper is shared by the preview and the prompt view.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Final

HEX_WIDTHS: Final = (16, 8, 4)
"""Bytes per line a dump may have, widest first: 16 is the classic dump, 8 and 4 fit narrow panes."""


def hex_line_width(per_line: int) -> int:
    """Cells of a full dump line of `per_line` bytes: offset, hex bytes in groups of 8, ASCII column."""
    groups = -(-per_line // 8)
    return 8 + 2 + (3 * per_line - 1) + (groups - 1) + 2 + per_line + 2


def hex_bytes_per_line(width: int) -> int:
    """The most bytes per line (of `HEX_WIDTHS`) whose dump lines fit `width` cells; the fewest if none."""
    return next((n for n in HEX_WIDTHS if hex_line_width(n) <= width), HEX_WIDTHS[-1])


def hex_dump(data: bytes, *, limit: int = 512, per_line: int = 16) -> str:
    """Classic dump of the first `limit` bytes: offset, `per_line` hex bytes in groups of 8, ASCII column.

    ``00000000  89 50 4e 47 0d 0a 1a 0a  00 00 00 0d 49 48 44 52  |.PNG........IHDR|``
    Bytes outside printable ASCII show as ``.``. A final line says how many bytes were left out. A full
    row is `hex_line_width(per_line)` cells; a short last row keeps its ASCII column in the same place.
    """
    if per_line < 1:
        raise ValueError("per_line must be >= 1")
    shown = data[: max(0, limit)]
    width = 3 * per_line - 1 + (-(-per_line // 8) - 1)
    lines: list[str] = []
    for offset in range(0, len(shown), per_line):
        row = shown[offset : offset + per_line]
        groups = "  ".join(" ".join(f"{b:02x}" for b in row[at : at + 8]) for at in range(0, len(row), 8))
        ascii_column = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in row)
        lines.append(f"{offset:08x}  {groups:<{width}}  |{ascii_column}|")
    if len(data) > len(shown):
        lines.append(f"… {len(data) - len(shown):,} more bytes")
    return "\n".join(lines)


_B64_RUN: Final = re.compile(r"[A-Za-z0-9+/]*")
_B64_WS_RUN: Final = re.compile(r"[A-Za-z0-9+/\s]*")
_B64_PADDING: Final = re.compile(r"(?:=\s*){1,2}")
_NON_ASCII: Final = re.compile(r"[^\x00-\x7f]")
_ASCII_SPACE: Final = " \t\n\r\f\v"
_DROP_SPACE: Final = str.maketrans("", "", _ASCII_SPACE)


class Base64Error(ValueError):
    """A blob that is not base64; the message is a sentence for the user."""


def decode_prefix(blob: str, cap: int | None) -> tuple[bytes, int]:
    """Decode at most `cap` bytes of a base64 string; return them and the full decoded size.

    Validates the whole string (one regex pass, no copy) but decodes only the prefix the cap needs, so a
    50 MB blob costs a scan and a 1 MB decode. Whitespace is ignored; missing padding is tolerated.
    """
    if not blob.isascii():
        bad = _NON_ASCII.search(blob)
        offset = bad.start() if bad else 0
        raise Base64Error(f"non-ASCII character {blob[offset]!r} at offset {offset:,}")
    length = len(blob)
    end = _B64_RUN.match(blob).end()  # type: ignore[union-attr]  # `*` always matches
    has_space = False
    pad = 0
    if end < length:
        end = _B64_WS_RUN.match(blob, end).end()  # type: ignore[union-attr]
        has_space = any(c in blob for c in _ASCII_SPACE)
        if end < length:
            padding = _B64_PADDING.fullmatch(blob, end)
            if padding is None:
                if blob[end] == "=":
                    raise Base64Error(f"padding '=' in the middle, at offset {end:,}")
                raise Base64Error(f"unexpected character {blob[end]!r} at offset {end:,}")
            pad = padding.group().count("=")
    spaces = sum(blob.count(c) for c in _ASCII_SPACE) if has_space else 0
    digits = length - spaces - pad
    if pad and (digits + pad) % 4:
        raise Base64Error(f"{digits:,} base64 digits do not fit {pad} padding character(s)")
    if digits % 4 == 1:
        raise Base64Error(f"{digits:,} base64 digits is not a possible length (one too many or too few)")
    full_size = digits * 3 // 4
    want = full_size if cap is None else min(cap, full_size)
    want_digits = min(digits, -(-want // 3) * 4)
    prefix = _take_digits(blob, want_digits) if has_space else blob[:want_digits]
    if len(prefix) % 4:
        prefix += "=" * (-len(prefix) % 4)
    try:
        decoded = base64.b64decode(prefix, validate=True)
    except (binascii.Error, ValueError) as error:  # pragma: no cover - validated above
        raise Base64Error(str(error)) from None
    return decoded[:want], full_size


def _take_digits(blob: str, count: int) -> str:
    """The first `count` non-whitespace characters of `blob`, reading only as much of it as needed."""
    parts: list[str] = []
    have = 0
    pos = 0
    while have < count and pos < len(blob):
        chunk = blob[pos : pos + (count - have) + 1024].translate(_DROP_SPACE)
        pos += (count - have) + 1024
        chunk = chunk[: count - have]
        parts.append(chunk)
        have += len(chunk)
    return "".join(parts)


def base64_size(blob: str) -> int:
    """The decoded size of a base64 string, by the rules of `decode_prefix` (which every view uses:
    whitespace ignored, missing padding tolerated); raises `Base64Error` saying why it is not base64."""
    return decode_prefix(blob, 0)[1]


def is_canonical_base64(blob: str) -> bool:
    """Whether a string `decode_prefix` accepts is also strict base64: no whitespace, padded to 4."""
    return len(blob) % 4 == 0 and _B64_RUN.match(blob).end() >= len(blob.rstrip("="))  # type: ignore[union-attr]
