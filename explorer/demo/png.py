"""Small binary assets made in code: a PNG logo (zlib + struct, no imaging library) and a packed table.

Everything here is deterministic: the same bytes on every run, so tests and screenshots stay stable.
"""

from __future__ import annotations

import math
import struct
import zlib
from functools import cache

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    """One PNG chunk: length, type, data, CRC-32 of type + data."""
    return (
        struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    )


def encode_png(width: int, height: int, rows: list[bytes]) -> bytes:
    """Encode 8-bit RGB rows (each `3 * width` bytes) as a PNG file."""
    if len(rows) != height or any(len(row) != 3 * width for row in rows):
        raise ValueError("rows do not match the image size")
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit truecolour, no interlace
    raw = b"".join(b"\x00" + row for row in rows)  # filter type 0 (None) on every scanline
    return (
        PNG_SIGNATURE + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(raw, 9)) + _chunk(b"IEND", b"")
    )


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height read back from the IHDR chunk."""
    if not data.startswith(PNG_SIGNATURE) or data[12:16] != b"IHDR":
        raise ValueError("not a PNG file")
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def _mix(a: tuple[int, int, int], b: tuple[int, int, int], t: float) -> tuple[int, int, int]:
    t = min(1.0, max(0.0, t))
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


_NIGHT = (12, 28, 68)
_TEAL = (24, 140, 160)
_FOAM = (236, 248, 250)
_SUN = (255, 196, 72)
_DEEP = (8, 60, 96)


@cache
def logo_png(size: int = 64) -> bytes:
    """The Tidewater logo: a dusk gradient sky, a sun, and two waves over deep water."""
    rows: list[bytes] = []
    s = float(size)
    sun_x, sun_y, sun_r = 0.70 * s, 0.30 * s, 0.14 * s
    for y in range(size):
        row = bytearray()
        for x in range(size):
            sky = _mix(_NIGHT, _TEAL, y / s * 1.4)
            colour = sky
            d = math.hypot(x + 0.5 - sun_x, y + 0.5 - sun_y)
            if d < sun_r:
                colour = _SUN
            elif d < sun_r + 1.5:
                colour = _mix(_SUN, sky, (d - sun_r) / 1.5)
            wave1 = 0.58 * s + 0.06 * s * math.sin(2 * math.pi * x / s * 1.5)
            wave2 = 0.74 * s + 0.05 * s * math.sin(2 * math.pi * x / s * 2.0 + 1.3)
            if y >= wave1:
                colour = _mix(_TEAL, _DEEP, (y - wave1) / (0.42 * s))
                if y < wave1 + max(1.0, s / 32):
                    colour = _FOAM
            if y >= wave2:
                colour = _mix(_DEEP, _NIGHT, (y - wave2) / (0.26 * s))
                if y < wave2 + max(1.0, s / 32):
                    colour = _mix(_FOAM, _TEAL, 0.35)
            row.extend(colour)
        rows.append(bytes(row))
    return encode_png(size, size, rows)


# (name, speed in degrees per mean solar hour, typical amplitude in metres, phase in degrees)
HARMONIC_TABLE: tuple[tuple[str, float, float, float], ...] = (
    ("M2", 28.9841042, 1.412, 112.4),
    ("S2", 30.0000000, 0.463, 148.9),
    ("N2", 28.4397295, 0.281, 93.0),
    ("K2", 30.0821373, 0.127, 146.2),
    ("K1", 15.0410686, 0.372, 281.7),
    ("O1", 13.9430356, 0.298, 259.3),
    ("P1", 14.9589314, 0.118, 279.5),
    ("M4", 57.9682084, 0.036, 331.0),
)


@cache
def harmonics_bin() -> bytes:
    """A packed constituent table: b"TWH1", a little-endian u16 count, then (name, speed, amp, phase)."""
    body = b"".join(
        struct.pack("<4sddd", name.encode("ascii"), speed, amp, phase)
        for name, speed, amp, phase in HARMONIC_TABLE
    )
    return b"TWH1" + struct.pack("<H", len(HARMONIC_TABLE)) + body
