"""Classify what `resources/read` returned: text, markdown, JSON, source code, binary, image; with size caps.

Why: a server may answer a read with anything, from a short note to a 50 MB base64 blob, labelled with a
precise, a generic or no MIME type at all. The preview must pick a rendering without guessing twice, and
must never hold more than it can show. This module turns each content item, exactly as sent on the wire,
into a `Content` record the UI only has to draw.

Rules, in order:

1. The MIME type (case-insensitive; of its parameters only a blob's ``charset`` counts, below) decides
   when it is specific: ``text/markdown`` -> markdown, ``application/json`` or ``*+json`` -> json, a
   known source type -> code (with a Pygments lexer name), ``image/*`` with a blob -> image, ``text/*``
   -> text, any other type with a blob -> binary.
2. When the type is missing or generic (``text/plain``, ``application/octet-stream``), the extension of
   the URI's last path segment decides (``.md``, ``.json``, ``.py``, ``.png`` ...).
3. Still undecided: a text that parses as a JSON object or array is json; a blob whose first bytes are a
   PNG, GIF, JPEG, WebP or BMP header is an image; otherwise text (for ``text``) or binary (for ``blob``).

A blob whose type is text-like is decoded by the charset the type declares (``; charset=latin-1``; UTF-8
when none), strictly, and shown as that text (a charset other than UTF-8 is said in `problem`); bytes the
charset does not hold stay bytes, with a `problem` naming the charset and the first bad byte. JSON is
pretty-printed only when the pretty form says exactly what was sent (strict JSON, no duplicate key, every
number as written and one a double holds); otherwise, as JSON that does not parse, it is shown as text
with a `problem` note saying why. Nothing here raises on bad input: an item that is not an object,
a blob that is not base64, a text that is not a string, all become kind ``invalid`` with a sentence.

Sizes are bytes: a blob's decoded bytes, a text's UTF-8 bytes (what a file of it holds; `len` counts
characters: 24 bytes of Japanese are 8). Caps: texts and blobs beyond `cap` bytes are cut (`truncated`,
with `size` the full size and `shown_size` what is held; a text is cut between characters), so the UI
can offer "load all" (`cap=None`). A blob is never decoded past the cap: only a prefix of the base64
string is decoded, while the full size is computed from its length and padding. A text is counted in
one pass that encodes only its first `cap` characters (`classify.cap_text`); an ASCII text costs nothing.

Modules: `record` (`Content`, its kinds, the default cap), `mimes` (what a MIME type or extension says),
`images` (image headers, PNG decoding), `binary` (sizes, hex dumps, capped base64 decoding), `charsets`
(a text blob's declared charset), `json_text` (faithful pretty-printing), `classify` (the rules above).
"""

from __future__ import annotations

from explorer.model.contents.binary import hex_dump
from explorer.model.contents.classify import classify, classify_item
from explorer.model.contents.images import PNG_MAX_PIXELS as PNG_MAX_PIXELS
from explorer.model.contents.images import ImageInfo, Raster, decode_png, image_info
from explorer.model.contents.mimes import CODE_MIMES as CODE_MIMES
from explorer.model.contents.mimes import EXTENSIONS as EXTENSIONS
from explorer.model.contents.mimes import FILENAMES as FILENAMES
from explorer.model.contents.mimes import language_for
from explorer.model.contents.record import DEFAULT_CAP, Content, ContentKind
from explorer.model.contents.record import TEXT_KINDS as TEXT_KINDS
from explorer.model.sizes import human_size

__all__ = [
    "DEFAULT_CAP",
    "Content",
    "ContentKind",
    "ImageInfo",
    "Raster",
    "classify",
    "classify_item",
    "decode_png",
    "hex_dump",
    "human_size",
    "image_info",
    "language_for",
]
