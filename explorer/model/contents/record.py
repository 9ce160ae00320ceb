"""The `Content` record a classification produces, its kind vocabulary and the default size cap.

Why a module of its own: the UI only draws `Content` records, and every part of the classification (MIME
tables, image sniffing, base64 decoding) speaks in these kinds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from explorer.model.contents.images import ImageInfo

ContentKind = Literal["text", "markdown", "json", "code", "binary", "image", "empty", "invalid"]

DEFAULT_CAP: Final = 1_000_000
TEXT_KINDS: Final = frozenset({"text", "markdown", "json", "code"})


@dataclass(frozen=True, slots=True)
class Content:
    """One content item of a read result, classified and capped. Strings are raw: sanitize before display.

    `size` is in bytes (UTF-8 bytes for a text, as a file of it would hold), the whole item's.
    `informational` says `problem` is only a note on how the content was read (a declared charset, JSON
    shown as sent), nothing wrong with it: the UI shows it muted, not as an error.
    """

    kind: ContentKind
    uri: str
    mime_type: str | None = None
    language: str | None = None
    text: str | None = None
    data: bytes | None = None
    size: int = 0
    truncated: bool = False
    problem: str | None = None
    informational: bool = False
    image: ImageInfo | None = None
    pretty_json: str | None = None
    shown_bytes: int | None = None  # UTF-8 bytes of `text` (a blob's bytes, when it was one), counted once

    @property
    def shown_size(self) -> int:
        """How many bytes of `size` are held here (UTF-8 bytes of `text`, or bytes of `data`)."""
        if self.shown_bytes is not None:
            return self.shown_bytes
        if self.text is not None:
            return len(self.text.encode("utf-8", "surrogatepass"))
        if self.data is not None:
            return len(self.data)
        return 0

    @property
    def display_text(self) -> str | None:
        """The text to show for text-like kinds: pretty-printed JSON when there is one, else `text`."""
        return self.pretty_json if self.pretty_json is not None else self.text
