"""The bytes of a blob declared as text, decoded by the charset its MIME type names (UTF-8 when none).

Why a module of its own: `text/plain; charset=latin-1` is a text the server chose to send as bytes; read
as UTF-8 it was a hex dump. The preview (`classify`) and the CLI's `read` decode it the same way, strictly:
bytes the charset does not hold are said, with the offset of the first, and the content stays bytes.
Only a name Python knows as a text encoding is used, and only one a charset could be: a codec that is
Python's own device (`unicode_escape` turns `\\x1b` written in the bytes into an escape character) is
refused with a note, as is a name no charset has.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from typing import Final

_CHARSET: Final = re.compile(r';\s*charset\s*=\s*("?)([^";\s]*)\1', re.IGNORECASE)
_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:+-]{0,39}")
_NOT_CHARSETS: Final = frozenset({"unicode-escape", "raw-unicode-escape", "idna", "punycode", "undefined"})
"""Python codecs that decode bytes to text but are no charset a server could mean."""
_UTF8: Final = "utf-8"


def declared_charset(mime: str | None) -> str | None:
    """The `charset` parameter of a MIME type, as written (None when there is none)."""
    if not mime or ";" not in mime:
        return None
    found = _CHARSET.search(mime)
    return found.group(2) if found is not None else None


@dataclass(frozen=True, slots=True)
class Decoded:
    """A blob's bytes read as text: the text, or None when they are not text in the charset; `note` says
    what was done when it is not the plain case (UTF-8, or none declared), or why the bytes stay bytes;
    `informational` when the note only says how they were read (the declared charset), nothing wrong."""

    text: str | None
    note: str | None = None
    informational: bool = False


def decode_text(data: bytes, mime: str | None, *, final: bool = True) -> Decoded:
    """Decode `data`, declared as text by `mime`, by its declared charset, else as UTF-8; strictly.

    `final=False` when `data` is the start of longer bytes: a character cut at the end is left out.
    """
    declared = declared_charset(mime)
    codec, refused = _codec(declared)
    if refused is not None:
        decoded = _decode(data, _UTF8, final, None)
        if decoded.text is not None:
            return Decoded(decoded.text, f"{refused}: read as UTF-8")
        return Decoded(None, f"{refused}; {decoded.note}")
    note = None if codec == _UTF8 else f"decoded from the declared charset {declared}"
    return _decode(data, codec, final, declared if note is not None else None, note)


def _codec(declared: str | None) -> tuple[str, str | None]:
    """(the codec's name, None), or (UTF-8, why the declared name is not used)."""
    if declared is None:
        return _UTF8, None
    shown = declared if len(declared) <= 40 else declared[:40] + "…"
    if _NAME.fullmatch(declared) is None:
        return _UTF8, f"the declared charset {shown!r} is no charset name"
    try:
        name = codecs.lookup(declared).name
    except LookupError:
        return _UTF8, f"the declared charset {shown!r} is not one Python knows"
    if name in _NOT_CHARSETS:
        return _UTF8, f"the declared charset {shown!r} is not a charset (a Python codec)"
    try:
        b"\0\0\0\0".decode(name)  # `bytes.decode` refuses a codec that is no text encoding (hex, zlib ...)
    except LookupError:
        return _UTF8, f"the declared charset {shown!r} is not a charset (a Python codec)"
    except ValueError:
        pass  # a text encoding that does not hold these bytes
    return name, None


def _decode(data: bytes, codec: str, final: bool, declared: str | None, note: str | None = None) -> Decoded:
    """Decode strictly with `codec`; on failure, say where the first byte it refused is."""
    try:
        text = codecs.getincrementaldecoder(codec)().decode(data, final=final)
        return Decoded(text, note, informational=note is not None)
    except UnicodeDecodeError as error:
        where = f"{error.reason} at byte {error.start:,}"
    except ValueError as error:  # pragma: no cover - a codec that says less than a UnicodeDecodeError
        where = str(error)[:200]
    what = "UTF-8" if declared is None else f"{declared}, the declared charset"
    return Decoded(None, f"declared as text, but the bytes are not {what} ({where})")
