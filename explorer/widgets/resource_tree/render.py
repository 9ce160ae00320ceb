"""Painting helpers of `ResourceTree`: the style palette, label limits and segment building.

They exist apart from the widget so the pure text-to-segment steps (sanitizing, match highlighting)
can be read and changed without the widget's row machinery; the widget composes rows from them.
"""

from __future__ import annotations

from typing import NamedTuple

from rich.segment import Segment
from rich.style import Style

from explorer.sanitize import sanitize_line

_DIRECTORY_MIME = "inode/directory"
_LABEL_LIMIT = 200
_NAME_LIMIT = 80
_BADGE_CELLS = 12


class _Palette(NamedTuple):
    base: Style
    guides: Style
    label: Style
    folder: Style
    muted: Style
    number: Style
    pattern: Style
    badge: Style
    match: Style
    incomplete: Style
    cursor: Style


def _find_all(haystack: str, needle: str) -> list[tuple[int, int]]:
    """Case-insensitive occurrences of `needle` (already lowered) in `haystack`, as (start, end) spans."""
    if not needle:
        return []
    low = haystack.lower()
    if len(low) != len(haystack):  # lowering changed the length: offsets would not line up
        return []
    spans: list[tuple[int, int]] = []
    at = low.find(needle)
    while at >= 0:
        spans.append((at, at + len(needle)))
        at = low.find(needle, at + len(needle))
    return spans


def _add_text(
    segments: list[Segment], raw: str, style: Style, match: Style, spans: list[tuple[int, int]]
) -> None:
    """Append a sanitized label; `spans` (offsets in `raw`, used only when it needs no escaping)."""
    text = sanitize_line(raw, _LABEL_LIMIT)
    if not spans or text != raw:
        segments.append(Segment(text, style))
        return
    at = 0
    for start, end in spans:
        if start > at:
            segments.append(Segment(text[at:start], style))
        segments.append(Segment(text[start:end], style + match))
        at = end
    if at < len(text):
        segments.append(Segment(text[at:], style))
