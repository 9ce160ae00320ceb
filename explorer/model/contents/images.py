"""Image headers (format, dimensions) of PNG, GIF, JPEG, WebP and BMP, and a bounded PNG decoder.

Why a module of its own: binary parsing of untrusted bytes, kept small and pure; the preview draws the
decoded pixels, the classifier uses the headers to sniff images and describe them.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class ImageInfo:
    """What an image header says: format name and dimensions in pixels (None when the header is cut)."""

    format: str
    width: int | None
    height: int | None
    detail: str | None = None  # e.g. "8-bit RGBA" for a PNG, "progressive" for a JPEG


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
