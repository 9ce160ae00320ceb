"""Pages and cursors for the demo's lists, with the optional `prefix` filter of SEP-1269.

A list request may carry `prefix` (a plain string): only items whose URI starts with it are listed, and
the cursor is a position in that filtered list. So a cursor belongs to the prefix it was issued for;
using it with another prefix is an error rather than a silent jump to an unrelated position.

Cursors are opaque: base64 of `v1:<offset>:<checksum>` without a prefix (the format of the unfiltered
list, unchanged), or `v2:<offset>:<checksum>:<prefix>` with one, where the checksum is a salted CRC-32
of the offset and the prefix. Anything else is rejected as an invalid cursor.
"""

from __future__ import annotations

import base64
import binascii
import zlib
from collections.abc import Sequence
from typing import TypeVar

import mcp.types as types

PAGE_SIZE = 100
INVALID_CURSOR = "invalid cursor"

T = TypeVar("T")


class PrefixListParams(types.PaginatedRequestParams):
    """`resources/list` and `resources/templates/list` params with SEP-1269's optional `prefix`.

    The SDK's own params model ignores unknown members; registering the list handlers with this one
    makes the server read (and type-check) `prefix` in both protocol eras.
    """

    prefix: str | None = None


class CursorError(ValueError):
    """A cursor this list cannot continue from; the message is meant for the client."""


_SALT = b"mcp-url-explorer-demo/cursor"


def _checksum(offset: int, prefix: str) -> str:
    data = _SALT + str(offset).encode() + (b"\0" + prefix.encode() if prefix else b"")
    return f"{zlib.crc32(data) & 0xFFFFFFFF:08x}"


def encode_cursor(offset: int, prefix: str = "") -> str:
    """The cursor for position `offset` of the list filtered by `prefix` ("" = unfiltered)."""
    check = _checksum(offset, prefix)
    raw = f"v2:{offset}:{check}:{prefix}" if prefix else f"v1:{offset}:{check}"
    return base64.urlsafe_b64encode(raw.encode()).decode()


def parse_cursor(cursor: str) -> tuple[int, str] | None:
    """(offset, prefix) of a cursor made by `encode_cursor`, or None for anything else."""
    try:
        raw = base64.urlsafe_b64decode(cursor.encode("ascii")).decode("utf-8")
        version, offset_text, check, *rest = raw.split(":", 3)
        offset = int(offset_text)
    except (ValueError, UnicodeError, binascii.Error):
        return None
    if version == "v1" and not rest:
        prefix = ""
    elif version == "v2" and len(rest) == 1 and rest[0]:
        prefix = rest[0]
    else:
        return None
    if offset <= 0 or check != _checksum(offset, prefix):
        return None
    return offset, prefix


def decode_cursor(cursor: str, prefix: str = "") -> int | None:
    """The offset a cursor stands for in the list filtered by `prefix`, or None if it is not one of its."""
    parsed = parse_cursor(cursor)
    return parsed[0] if parsed is not None and parsed[1] == prefix else None


def _describe(prefix: str) -> str:
    return f"prefix {prefix!r}" if prefix else "the unfiltered list"


def page_of(items: Sequence[T], cursor: str | None, prefix: str = "") -> tuple[list[T], str | None]:
    """One page of `items` (already filtered by `prefix`) and the cursor of the next page, if any.

    Raises CursorError for a cursor that was not issued by this server, that belongs to another
    prefix, or that points past the end of the list.
    """
    offset = 0
    if cursor is not None:
        parsed = parse_cursor(cursor)
        if parsed is None:
            raise CursorError(INVALID_CURSOR)
        offset, issued_for = parsed
        if issued_for != prefix:
            issued, asked = _describe(issued_for), _describe(prefix)
            raise CursorError(f"{INVALID_CURSOR}: it was issued for {issued}, not {asked}")
        if offset >= len(items):
            raise CursorError(INVALID_CURSOR)
    end = min(offset + PAGE_SIZE, len(items))
    return list(items[offset:end]), encode_cursor(end, prefix) if end < len(items) else None


def template_matches(uri_template: str, prefix: str) -> bool:
    """Whether a template belongs to a listing by `prefix`: it starts with the prefix, or its literal
    part (the text before the first `{`) is a prefix of it, so it can expand to URIs under it."""
    if uri_template.startswith(prefix):
        return True
    literal, brace, _ = uri_template.partition("{")
    return bool(brace) and prefix.startswith(literal)
