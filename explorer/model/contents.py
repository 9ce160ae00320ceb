"""Classify what `resources/read` returned: text, markdown, JSON, source code, binary, image; with size caps.

Why: a server may answer a read with anything, from a short note to a 50 MB base64 blob, labelled with a
precise, a generic or no MIME type at all. The preview must pick a rendering without guessing twice, and
must never hold more than it can show. This module turns each content item, exactly as sent on the wire,
into a `Content` record the UI only has to draw.

Rules, in order:

1. The MIME type (parameters such as ``; charset=utf-8`` ignored, case-insensitive) decides when it is
   specific: ``text/markdown`` -> markdown, ``application/json`` or ``*+json`` -> json, a known source
   type -> code (with a Pygments lexer name), ``image/*`` with a blob -> image, ``text/*`` -> text, any
   other type with a blob -> binary.
2. When the type is missing or generic (``text/plain``, ``application/octet-stream``), the extension of
   the URI's last path segment decides (``.md``, ``.json``, ``.py``, ``.png`` ...).
3. Still undecided: a text that parses as a JSON object or array is json; a blob whose first bytes are a
   PNG, GIF, JPEG, WebP or BMP header is an image; otherwise text (for ``text``) or binary (for ``blob``).

A blob whose type is text-like and whose bytes are UTF-8 is shown as that text. JSON that does not parse
is shown as text with a `problem` note. Nothing here raises on bad input: an item that is not an object,
a blob that is not base64, a text that is not a string, all become kind ``invalid`` with a sentence.

Caps: text beyond `cap` characters and blobs beyond `cap` bytes are cut (`truncated`, with `size` the
full size), so the UI can offer "load all" (`cap=None`). A blob is never decoded past the cap: only a
prefix of the base64 string is decoded, while the full size is computed from its length and padding.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import json
import re
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

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

ContentKind = Literal["text", "markdown", "json", "code", "binary", "image", "empty", "invalid"]

DEFAULT_CAP: Final = 1_000_000
TEXT_KINDS: Final = frozenset({"text", "markdown", "json", "code"})


@dataclass(frozen=True, slots=True)
class ImageInfo:
    """What an image header says: format name and dimensions in pixels (None when the header is cut)."""

    format: str
    width: int | None
    height: int | None
    detail: str | None = None  # e.g. "8-bit RGBA" for a PNG, "progressive" for a JPEG


@dataclass(frozen=True, slots=True)
class Content:
    """One content item of a read result, classified and capped. Strings are raw: sanitize before display."""

    kind: ContentKind
    uri: str
    mime_type: str | None = None
    language: str | None = None
    text: str | None = None
    data: bytes | None = None
    size: int = 0
    truncated: bool = False
    problem: str | None = None
    image: ImageInfo | None = None
    pretty_json: str | None = None

    @property
    def shown_size(self) -> int:
        """How much of `size` is held here (characters of `text` or bytes of `data`)."""
        if self.text is not None:
            return len(self.text)
        if self.data is not None:
            return len(self.data)
        return 0

    @property
    def display_text(self) -> str | None:
        """The text to show for text-like kinds: pretty-printed JSON when there is one, else `text`."""
        return self.pretty_json if self.pretty_json is not None else self.text


# --- MIME types and extensions ----------------------------------------------------------------------------

_GENERIC_MIMES: Final = frozenset(
    {
        "",
        "text/plain",
        "application/octet-stream",
        "binary/octet-stream",
        "application/binary",
        "application/unknown",
        "application/x-unknown",
        "unknown/unknown",
    }
)
_MARKDOWN_MIMES: Final = frozenset({"text/markdown", "text/x-markdown", "text/md", "text/x-gfm"})
_JSON_MIMES: Final = frozenset({"application/json", "text/json", "application/x-json"})

_CODE_MIMES: Final[Mapping[str, str]] = {
    "text/x-python": "python",
    "text/x-python3": "python",
    "text/x-script.python": "python",
    "application/x-python": "python",
    "application/x-python-code": "python",
    "application/toml": "toml",
    "text/toml": "toml",
    "text/x-toml": "toml",
    "application/yaml": "yaml",
    "application/x-yaml": "yaml",
    "text/yaml": "yaml",
    "text/x-yaml": "yaml",
    "application/javascript": "javascript",
    "application/x-javascript": "javascript",
    "application/ecmascript": "javascript",
    "text/javascript": "javascript",
    "text/ecmascript": "javascript",
    "application/typescript": "typescript",
    "application/x-typescript": "typescript",
    "text/typescript": "typescript",
    "text/x-typescript": "typescript",
    "text/x-rust": "rust",
    "text/rust": "rust",
    "text/x-go": "go",
    "text/x-golang": "go",
    "application/x-sh": "shell",
    "application/x-shellscript": "shell",
    "text/x-sh": "shell",
    "text/x-shellscript": "shell",
    "text/html": "html",
    "application/xhtml+xml": "html",
    "application/xml": "xml",
    "text/xml": "xml",
    "text/css": "css",
    "application/sql": "sql",
    "text/x-sql": "sql",
    "text/x-c": "c",
    "text/x-csrc": "c",
    "text/x-chdr": "c",
    "text/x-c++": "cpp",
    "text/x-c++src": "cpp",
    "text/x-c++hdr": "cpp",
    "text/x-java": "java",
    "text/x-java-source": "java",
    "text/x-kotlin": "kotlin",
    "text/x-ruby": "ruby",
    "application/x-ruby": "ruby",
    "application/x-httpd-php": "php",
    "text/x-php": "php",
    "text/x-lua": "lua",
    "text/x-csharp": "csharp",
    "text/x-swift": "swift",
    "text/x-ini": "ini",
    "text/x-diff": "diff",
    "text/x-patch": "diff",
    "application/graphql": "graphql",
    "text/x-dockerfile": "docker",
    "text/x-makefile": "make",
    "text/x-tex": "latex",
    "application/x-tex": "latex",
    "text/x-rst": "rst",
}

_EXTENSIONS: Final[Mapping[str, tuple[ContentKind, str | None]]] = {
    "md": ("markdown", None),
    "markdown": ("markdown", None),
    "mdx": ("markdown", None),
    "json": ("json", None),
    "geojson": ("json", None),
    "ipynb": ("json", None),
    "txt": ("text", None),
    "text": ("text", None),
    "log": ("text", None),
    "csv": ("text", None),
    "tsv": ("text", None),
    "py": ("code", "python"),
    "pyi": ("code", "python"),
    "toml": ("code", "toml"),
    "yaml": ("code", "yaml"),
    "yml": ("code", "yaml"),
    "js": ("code", "javascript"),
    "mjs": ("code", "javascript"),
    "cjs": ("code", "javascript"),
    "jsx": ("code", "jsx"),
    "ts": ("code", "typescript"),
    "mts": ("code", "typescript"),
    "tsx": ("code", "tsx"),
    "rs": ("code", "rust"),
    "go": ("code", "go"),
    "sh": ("code", "shell"),
    "bash": ("code", "shell"),
    "zsh": ("code", "shell"),
    "html": ("code", "html"),
    "htm": ("code", "html"),
    "xml": ("code", "xml"),
    "svg": ("code", "xml"),
    "xsd": ("code", "xml"),
    "css": ("code", "css"),
    "scss": ("code", "scss"),
    "sql": ("code", "sql"),
    "c": ("code", "c"),
    "h": ("code", "c"),
    "cc": ("code", "cpp"),
    "cpp": ("code", "cpp"),
    "cxx": ("code", "cpp"),
    "hpp": ("code", "cpp"),
    "hh": ("code", "cpp"),
    "java": ("code", "java"),
    "kt": ("code", "kotlin"),
    "rb": ("code", "ruby"),
    "php": ("code", "php"),
    "lua": ("code", "lua"),
    "cs": ("code", "csharp"),
    "swift": ("code", "swift"),
    "ini": ("code", "ini"),
    "cfg": ("code", "ini"),
    "conf": ("code", "ini"),
    "diff": ("code", "diff"),
    "patch": ("code", "diff"),
    "graphql": ("code", "graphql"),
    "tf": ("code", "terraform"),
    "proto": ("code", "protobuf"),
    "tex": ("code", "latex"),
    "rst": ("code", "rst"),
    "ps1": ("code", "powershell"),
    "pl": ("code", "perl"),
    "hs": ("code", "haskell"),
    "ex": ("code", "elixir"),
    "exs": ("code", "elixir"),
    "scala": ("code", "scala"),
    "dart": ("code", "dart"),
    "zig": ("code", "zig"),
    "nix": ("code", "nix"),
    "png": ("image", None),
    "gif": ("image", None),
    "jpg": ("image", None),
    "jpeg": ("image", None),
    "webp": ("image", None),
    "bmp": ("image", None),
}
_FILENAMES: Final[Mapping[str, tuple[ContentKind, str | None]]] = {
    "makefile": ("code", "make"),
    "gnumakefile": ("code", "make"),
    "dockerfile": ("code", "docker"),
    "containerfile": ("code", "docker"),
}


def _normalize_mime(mime: str | None) -> str:
    """`Text/Markdown; charset=UTF-8` -> `text/markdown`; None -> ``""``."""
    if not mime:
        return ""
    return mime.split(";", 1)[0].strip().lower()


def _mime_family(mime: str) -> tuple[ContentKind, str | None] | None:
    """What a specific MIME type says; None when it is missing or generic."""
    if mime in _GENERIC_MIMES:
        return None
    if mime in _MARKDOWN_MIMES:
        return "markdown", None
    if mime in _JSON_MIMES or mime.endswith("+json"):
        return "json", None
    language = _CODE_MIMES.get(mime)
    if language is not None:
        return "code", language
    if mime.endswith("+xml"):
        return "code", "xml"
    if mime.endswith("+yaml"):
        return "code", "yaml"
    if mime.startswith("text/"):
        return "text", None
    if mime.startswith("image/"):
        return "image", None
    return "binary", None


def _extension_family(uri: str) -> tuple[ContentKind, str | None] | None:
    """What the last path segment of `uri` says (`docs/a.md` -> markdown); None when it says nothing."""
    path = uri.split("#", 1)[0].split("?", 1)[0]
    name = path.rstrip("/").rsplit("/", 1)[-1].lower()
    if not name:
        return None
    if name in _FILENAMES:
        return _FILENAMES[name]
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        return None
    return _EXTENSIONS.get(ext)


def language_for(mime_type: str | None, uri: str = "") -> str | None:
    """The Pygments lexer name for source code of this MIME type or URI, or None when it is not code."""
    family = _mime_family(_normalize_mime(mime_type)) or _extension_family(uri)
    if family is not None and family[0] == "code":
        return family[1]
    return None


# --- sizes and dumps --------------------------------------------------------------------------------------

_UNITS: Final = ("KB", "MB", "GB", "TB", "PB")


def human_size(n: int) -> str:
    """A size for people, in decimal units: `0 B`, `999 B`, `1.0 KB`, `1.5 MB`, `50.0 MB`."""
    if n < 1000:
        return f"{n} B"
    value = float(n)
    for unit in _UNITS:
        value /= 1000.0
        if round(value, 1) < 1000.0 or unit == _UNITS[-1]:
            return f"{value:.1f} {unit}"
    raise AssertionError("unreachable")  # pragma: no cover


def hex_dump(data: bytes, *, limit: int = 512) -> str:
    """Classic dump of the first `limit` bytes: offset, 16 hex bytes in two groups of 8, ASCII column.

    ``00000000  89 50 4e 47 0d 0a 1a 0a  00 00 00 0d 49 48 44 52  |.PNG........IHDR|``
    Bytes outside printable ASCII show as ``.``. A final line says how many bytes were left out.
    """
    shown = data[: max(0, limit)]
    lines: list[str] = []
    for offset in range(0, len(shown), 16):
        row = shown[offset : offset + 16]
        left = " ".join(f"{b:02x}" for b in row[:8])
        right = " ".join(f"{b:02x}" for b in row[8:])
        ascii_column = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in row)
        lines.append(f"{offset:08x}  {left:<23}  {right:<23}  |{ascii_column}|")
    if len(data) > len(shown):
        lines.append(f"… {len(data) - len(shown):,} more bytes")
    return "\n".join(lines)


# --- image headers ----------------------------------------------------------------------------------------

_PNG_COLOUR_TYPES: Final = {0: "grey", 2: "RGB", 3: "indexed", 4: "grey+alpha", 6: "RGBA"}
_JPEG_SOF: Final = frozenset({0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF})


def _png_info(data: bytes) -> ImageInfo:
    if len(data) < 26 or data[12:16] != b"IHDR":
        return ImageInfo("PNG", None, None)
    width, height, depth, colour = struct.unpack(">IIBB", data[16:26])
    kind = _PNG_COLOUR_TYPES.get(colour)
    detail = f"{depth}-bit {kind}" if kind else None
    if len(data) > 28 and data[28] == 1:
        detail = f"{detail}, interlaced" if detail else "interlaced"
    return ImageInfo("PNG", width, height, detail)


def _gif_info(data: bytes) -> ImageInfo:
    if len(data) < 10:
        return ImageInfo("GIF", None, None)
    width, height = struct.unpack("<HH", data[6:10])
    return ImageInfo("GIF", width, height, data[3:6].decode("ascii"))


def _jpeg_info(data: bytes) -> ImageInfo:
    """Walk the marker segments up to the first SOF (start of frame), which holds the dimensions."""
    pos = 2
    end = len(data)
    while pos + 1 < end:
        if data[pos] != 0xFF:
            return ImageInfo("JPEG", None, None)  # not at a marker: corrupt or cut
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        pos += 2
        if marker == 0x01 or 0xD0 <= marker <= 0xD8:  # markers without a length
            continue
        if marker in (0xD9, 0xDA):  # end of image, start of scan: no frame header before the data
            break
        if pos + 2 > end:
            break
        (length,) = struct.unpack(">H", data[pos : pos + 2])
        if marker in _JPEG_SOF:
            if pos + 7 > end:
                break
            height, width = struct.unpack(">HH", data[pos + 3 : pos + 7])
            detail = "progressive" if marker in (0xC2, 0xC6, 0xCA, 0xCE) else None
            return ImageInfo("JPEG", width, height, detail)
        if length < 2:
            break
        pos += length
    return ImageInfo("JPEG", None, None)


def _webp_info(data: bytes) -> ImageInfo:
    chunk = data[12:16]
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", data[26:30])
        return ImageInfo("WebP", width & 0x3FFF, height & 0x3FFF, "lossy")
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        (bits,) = struct.unpack("<I", data[21:25])
        return ImageInfo("WebP", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1, "lossless")
    if chunk == b"VP8X" and len(data) >= 30:
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return ImageInfo("WebP", width, height, "extended")
    return ImageInfo("WebP", None, None)


def _bmp_info(data: bytes) -> ImageInfo:
    if len(data) < 18:
        return ImageInfo("BMP", None, None)
    (header_size,) = struct.unpack("<I", data[14:18])
    if header_size == 12 and len(data) >= 22:
        width, height = struct.unpack("<HH", data[18:22])
        return ImageInfo("BMP", width, height)
    if header_size >= 40 and len(data) >= 26:
        width, height = struct.unpack("<ii", data[18:26])
        return ImageInfo("BMP", abs(width), abs(height))
    return ImageInfo("BMP", None, None)


def image_info(data: bytes) -> ImageInfo | None:
    """Format and dimensions from the first bytes of a PNG, GIF, JPEG, WebP or BMP file; None if unknown."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return _png_info(data)
    if data.startswith((b"GIF87a", b"GIF89a")):
        return _gif_info(data)
    if data.startswith(b"\xff\xd8\xff"):
        return _jpeg_info(data)
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return _webp_info(data)
    if data.startswith(b"BM") and len(data) >= 18:
        return _bmp_info(data)
    return None


# --- PNG pixels -------------------------------------------------------------------------------------------

PNG_MAX_PIXELS: Final = 512 * 512
_PNG_CHANNELS: Final = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


@dataclass(frozen=True, slots=True)
class Raster:
    """Decoded pixels: `rgba` holds 4 bytes per pixel, row by row."""

    width: int
    height: int
    rgba: bytes

    def pixel(self, x: int, y: int) -> tuple[int, int, int, int]:
        i = 4 * (y * self.width + x)
        return self.rgba[i], self.rgba[i + 1], self.rgba[i + 2], self.rgba[i + 3]


def _png_chunks(data: bytes) -> dict[bytes, bytes]:
    """IHDR, PLTE, tRNS and the concatenated IDAT data of a PNG file (CRCs are not checked)."""
    chunks: dict[bytes, bytes] = {}
    idat: list[bytes] = []
    pos = 8
    while pos + 8 <= len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if len(body) < length:
            break
        if kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        else:
            chunks.setdefault(kind, body)
        pos += 12 + length
    chunks[b"IDAT"] = b"".join(idat)
    return chunks


def _unfilter(raw: bytes, height: int, stride: int, bpp: int) -> bytearray | None:
    """Undo the per-scanline PNG filters (None, Sub, Up, Average, Paeth) of `raw`; None on a bad filter."""
    out = bytearray(height * stride)
    prior = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        row = bytearray(raw[start + 1 : start + 1 + stride])
        if kind == 1:
            for i in range(bpp, stride):
                row[i] = (row[i] + row[i - bpp]) & 0xFF
        elif kind == 2:
            row = bytearray((a + b) & 0xFF for a, b in zip(row, prior, strict=True))
        elif kind == 3:
            for i in range(stride):
                left = row[i - bpp] if i >= bpp else 0
                row[i] = (row[i] + ((left + prior[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                a = row[i - bpp] if i >= bpp else 0
                b = prior[i]
                c = prior[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        elif kind != 0:
            return None
        out[y * stride : (y + 1) * stride] = row
        prior = row
    return out


def _samples(row: bytes | bytearray, count: int, depth: int) -> list[int]:
    """The first `count` samples of a scanline, as 8-bit values for 16-bit, or raw values for 1/2/4/8."""
    if depth == 8:
        return list(row[:count])
    if depth == 16:
        return list(row[0 : 2 * count : 2])
    per_byte = 8 // depth
    mask = (1 << depth) - 1
    values = [(byte >> (8 - depth * (k + 1))) & mask for byte in row for k in range(per_byte)]
    return values[:count]


def decode_png(data: bytes, *, max_pixels: int = PNG_MAX_PIXELS) -> Raster | None:
    """Decode a non-interlaced PNG of any colour type and bit depth into RGBA; None if it cannot.

    None for: not a PNG, interlaced, corrupt, cut short, or more than `max_pixels` pixels (the IDAT
    data is never inflated past the expected size, so a decompression bomb costs nothing).
    """
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return None
    chunks = _png_chunks(data)
    header = chunks.get(b"IHDR", b"")
    if len(header) < 13:
        return None
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header[:13])
    channels = _PNG_CHANNELS.get(colour)
    if channels is None or interlace != 0 or width == 0 or height == 0 or width * height > max_pixels:
        return None
    if depth not in (1, 2, 4, 8, 16) or (colour in (2, 4, 6) and depth < 8) or (colour == 3 and depth > 8):
        return None
    stride = (width * channels * depth + 7) // 8
    expected = height * (stride + 1)
    try:
        raw = zlib.decompressobj().decompress(chunks[b"IDAT"], expected)
    except zlib.error:
        return None
    if len(raw) < expected:
        return None
    pixels = _unfilter(raw, height, stride, max(1, channels * depth // 8))
    if pixels is None:
        return None
    palette = chunks.get(b"PLTE", b"")
    alpha = chunks.get(b"tRNS", b"")
    scale = 255 // ((1 << depth) - 1) if depth < 8 else 1
    out = bytearray()
    for y in range(height):
        values = _samples(pixels[y * stride : (y + 1) * stride], width * channels, depth)
        if colour == 3:
            for v in values:
                rgb = palette[3 * v : 3 * v + 3] or b"\x00\x00\x00"
                out += rgb + bytes((alpha[v] if v < len(alpha) else 255,))
        elif colour == 0:
            key = struct.unpack(">H", alpha[:2])[0] if len(alpha) >= 2 else None
            raw_key = key >> 8 if key is not None and depth == 16 else key
            for v in values:
                g = v * scale
                out += bytes((g, g, g, 0 if v == raw_key else 255))
        elif colour == 4:
            for i in range(0, len(values), 2):
                g = values[i]
                out += bytes((g, g, g, values[i + 1]))
        elif colour == 2:
            for i in range(0, len(values), 3):
                out += bytes((values[i], values[i + 1], values[i + 2], 255))
        else:
            out += bytes(values)
    return Raster(width, height, bytes(out))


# --- base64 -----------------------------------------------------------------------------------------------

_B64_RUN: Final = re.compile(r"[A-Za-z0-9+/]*")
_B64_WS_RUN: Final = re.compile(r"[A-Za-z0-9+/\s]*")
_B64_PADDING: Final = re.compile(r"(?:=\s*){1,2}")
_NON_ASCII: Final = re.compile(r"[^\x00-\x7f]")
_ASCII_SPACE: Final = " \t\n\r\f\v"
_DROP_SPACE: Final = str.maketrans("", "", _ASCII_SPACE)


class _Base64Error(ValueError):
    """A blob that is not base64; the message is a sentence for the user."""


def _decode_prefix(blob: str, cap: int | None) -> tuple[bytes, int]:
    """Decode at most `cap` bytes of a base64 string; return them and the full decoded size.

    Validates the whole string (one regex pass, no copy) but decodes only the prefix the cap needs, so a
    50 MB blob costs a scan and a 1 MB decode. Whitespace is ignored; missing padding is tolerated.
    """
    if not blob.isascii():
        bad = _NON_ASCII.search(blob)
        offset = bad.start() if bad else 0
        raise _Base64Error(f"non-ASCII character {blob[offset]!r} at offset {offset:,}")
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
                    raise _Base64Error(f"padding '=' in the middle, at offset {end:,}")
                raise _Base64Error(f"unexpected character {blob[end]!r} at offset {end:,}")
            pad = padding.group().count("=")
    spaces = sum(blob.count(c) for c in _ASCII_SPACE) if has_space else 0
    digits = length - spaces - pad
    if pad and (digits + pad) % 4:
        raise _Base64Error(f"{digits:,} base64 digits do not fit {pad} padding character(s)")
    if digits % 4 == 1:
        raise _Base64Error(f"{digits:,} base64 digits is not a possible length (one too many or too few)")
    full_size = digits * 3 // 4
    want = full_size if cap is None else min(cap, full_size)
    want_digits = min(digits, -(-want // 3) * 4)
    prefix = _take_digits(blob, want_digits) if has_space else blob[:want_digits]
    if len(prefix) % 4:
        prefix += "=" * (-len(prefix) % 4)
    try:
        decoded = base64.b64decode(prefix, validate=True)
    except (binascii.Error, ValueError) as error:  # pragma: no cover - validated above
        raise _Base64Error(str(error)) from None
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


# --- classification ---------------------------------------------------------------------------------------


def _parse_json(text: str) -> tuple[str | None, str | None]:
    """(pretty text, None) when `text` is JSON, else (None, a sentence saying why not)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        return None, f"not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})"
    except (ValueError, RecursionError) as error:
        return None, f"not valid JSON: {error}"
    try:
        return json.dumps(value, indent=2, ensure_ascii=False), None
    except (ValueError, RecursionError) as error:
        return None, f"JSON too deep to pretty-print: {error}"


def _looks_like_json(text: str) -> bool:
    head = text.lstrip()[:1]
    tail = text.rstrip()[-1:]
    return (head, tail) in (("{", "}"), ("[", "]"))


def _text_content(
    uri: str,
    mime: str | None,
    text: str,
    *,
    size: int,
    truncated: bool,
    family: tuple[ContentKind, str | None] | None,
) -> Content:
    """A text-like content from a (possibly capped) text, given what the MIME type or extension said."""
    if size == 0:
        return Content("empty", uri, mime, size=0)
    kind, language = family if family is not None else ("text", None)
    if kind in ("image", "binary"):
        kind, language = "text", None
    sniff = family is None and not truncated and _looks_like_json(text)
    if kind == "json" or sniff:
        if truncated:
            return Content("json", uri, mime, text=text, size=size, truncated=True)
        pretty, problem = _parse_json(text)
        if pretty is not None:
            return Content("json", uri, mime, text=text, size=size, pretty_json=pretty)
        if not sniff:
            return Content("text", uri, mime, text=text, size=size, problem=problem)
        kind = "text"
    return Content(kind, uri, mime, language=language, text=text, size=size, truncated=truncated)


def _blob_content(uri: str, mime: str | None, blob: str, cap: int | None) -> Content:
    try:
        data, size = _decode_prefix(blob, cap)
    except _Base64Error as error:
        return Content("invalid", uri, mime, size=len(blob), problem=f"blob is not valid base64: {error}")
    if size == 0:
        return Content("empty", uri, mime, size=0)
    truncated = size > len(data)
    normalized = _normalize_mime(mime)
    family = _mime_family(normalized) or _extension_family(uri)
    if family is None and normalized == "text/plain":
        family = ("text", None)
    problem: str | None = None
    if family is not None and family[0] in TEXT_KINDS:
        try:
            text = codecs.getincrementaldecoder("utf-8")().decode(data, final=not truncated)
        except UnicodeDecodeError as error:
            problem = (
                f"declared as text, but the bytes are not UTF-8 ({error.reason} at byte {error.start:,})"
            )
        else:
            return _text_content(uri, mime, text, size=size, truncated=truncated, family=family)
    info = image_info(data)
    if (family is not None and family[0] == "image") or (family is None and info is not None):
        if info is None:
            problem = "the image header is not one of PNG, GIF, JPEG, WebP, BMP"
        return Content(
            "image", uri, mime, data=data, size=size, truncated=truncated, problem=problem, image=info
        )
    return Content(
        "binary", uri, mime, data=data, size=size, truncated=truncated, problem=problem, image=info
    )


def classify_item(item: object, *, cap: int | None = DEFAULT_CAP, index: int = 0) -> Content:
    """Classify one content item (uri, mimeType, text or blob), e.g. a prompt's embedded resource."""
    if cap is not None and cap < 0:
        raise ValueError("cap must be >= 0 or None")
    if not isinstance(item, Mapping):
        return Content(
            "invalid", "", problem=f"content #{index + 1} is not an object ({type(item).__name__})"
        )
    raw_uri = item.get("uri")
    uri = raw_uri if isinstance(raw_uri, str) else ""
    raw_mime = item.get("mimeType")
    mime = raw_mime if isinstance(raw_mime, str) else None
    if "text" in item:
        text = item["text"]
        if not isinstance(text, str):
            return Content("invalid", uri, mime, problem=f"text is not a string ({type(text).__name__})")
        size = len(text)
        truncated = cap is not None and size > cap
        shown = text[:cap] if truncated else text
        family = _mime_family(_normalize_mime(mime)) or _extension_family(uri)
        return _text_content(uri, mime, shown, size=size, truncated=truncated, family=family)
    if "blob" in item:
        blob = item["blob"]
        if not isinstance(blob, str):
            return Content("invalid", uri, mime, problem=f"blob is not a string ({type(blob).__name__})")
        return _blob_content(uri, mime, blob, cap)
    return Content("invalid", uri, mime, problem="the content has neither text nor blob")


def classify(result: Mapping[str, Any], *, cap: int | None = DEFAULT_CAP) -> list[Content]:
    """Classify every item of a `resources/read` result (raw JSON); [] when the server sent none.

    A result without a `contents` list gives one ``invalid`` record saying so.
    """
    contents = result.get("contents") if isinstance(result, Mapping) else None
    if not isinstance(contents, list):
        return [Content("invalid", "", problem="the result has no contents list")]
    return [classify_item(item, cap=cap, index=index) for index, item in enumerate(contents)]
