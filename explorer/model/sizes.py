"""Sizes for people: one formatter, so a resource never shows "2.1 KB" in one pane and "2.2 KB" in another.

Decimal (SI) units, as disks and networks count them: 1 kB = 1,000 bytes, 1 MB = 1,000,000 bytes.
"""

from __future__ import annotations

from typing import Final

_UNITS: Final = ("kB", "MB", "GB", "TB", "PB")


def human_size(n: int) -> str:
    """`0 B`, `999 B`, `1.0 kB`, `1.5 kB`, `50.0 MB` (one decimal from 1 kB on)."""
    if n < 1000:
        return f"{n} B"
    value = float(n)
    for unit in _UNITS:
        value /= 1000.0
        if round(value, 1) < 1000.0 or unit == _UNITS[-1]:
            return f"{value:.1f} {unit}"
    raise AssertionError("unreachable")  # pragma: no cover
