"""Server names cut to a width so that no two servers read the same (the tree's badges, the server bar).

A name is the spec's (a config key, a command's script, a URL's host, `-2` added to a repeated one), and a
config file may come from anyone: it is sanitized first and cut by terminal cells, never by characters (a
wide character is two). Cut at the end, `raw_server.py` and `raw_server.py-2` read alike (`raw_server.…`),
so names whose cut labels collide are cut in the middle instead, where a repeat's number stays
(`raw_se….py-2`); names alike even then (or alike once sanitized: an escape reads like the backslash text it
stands for) are numbered (`raw_server…#2`). A very long name is only read near its two ends.

A name shown alone (a notification, a heading, a dialog's line) has no others to be told from there, but
the user knows the others: `middle_cut` keeps its head and its tail (`company-inter…search-staging`), so
the end that often tells two servers apart (`-production`, `-staging`, `-2`) shows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rich.cells import cell_len, get_character_cell_size

from explorer.sanitize import MAX_COMBINING, sanitize_line

ELLIPSIS = "…"
MIN_CELLS = 6  # room for a head, the ellipsis and a number
# Raw characters that can make at most one cell: a base character and the marks kept on it.
_CHARS_PER_CELL = MAX_COMBINING + 1


@dataclass(frozen=True)
class _Shown:
    """A name's sanitized ends (one text when it is short) and whether it fits whole."""

    head: str
    tail: str
    fits: bool


def distinct_labels(names: Iterable[str], cells: int) -> dict[str, str]:
    """Each of `names` as a sanitized label of at most `cells` cells; different names, different labels.

    A name that fits is shown whole; a longer one is cut at the end (`raw_server.…`), or in the middle when
    that would read like another's cut (`raw_se…er.py`, `raw_se….py-2`), or numbered when even that does.
    """
    if cells < MIN_CELLS:
        raise ValueError(f"cells must be at least {MIN_CELLS}")
    shown = {name: _shown(name, cells) for name in dict.fromkeys(names)}
    labels = {name: _natural(ends, cells) for name, ends in shown.items()}
    for group in _collisions(labels):
        _cut_in_the_middle(group, shown, labels, cells)
    _number_the_rest(shown, labels, cells)
    return labels


def middle_cut(name: str, cells: int) -> str:
    """`name` sanitized, whole when it fits in `cells` cells, else its head, `…` and its tail (the tail one
    cell shorter when the room is odd), at most `cells` wide."""
    if cells < 3:
        raise ValueError("cells must be at least 3")
    ends = _shown(name, cells)
    if ends.fits:
        return ends.head
    room = cells - 1
    head = (room + 1) // 2
    return head_cells(ends.head, head) + ELLIPSIS + tail_cells(ends.tail, room - head)


def _shown(name: str, cells: int) -> _Shown:
    window = (cells + 1) * _CHARS_PER_CELL  # enough raw characters to fill `cells` from either end
    if len(name) > 2 * window:
        # Never sanitize a huge name whole: only its ends can show.
        return _Shown(sanitize_line(name[:window], None), sanitize_line(name[-window:], None), fits=False)
    text = sanitize_line(name, None)
    return _Shown(text, text, fits=cell_len(text) <= cells)


def _natural(ends: _Shown, cells: int) -> str:
    return ends.head if ends.fits else head_cells(ends.head, cells - 1) + ELLIPSIS


def _collisions(labels: dict[str, str]) -> list[list[str]]:
    """Names sharing a label, in groups (each group's names in sorted order)."""
    by_label: dict[str, list[str]] = {}
    for name in sorted(labels):
        by_label.setdefault(labels[name], []).append(name)
    return [group for group in by_label.values() if len(group) > 1]


def _cut_in_the_middle(
    group: list[str], shown: dict[str, _Shown], labels: dict[str, str], cells: int
) -> None:
    """Relabel the cut names of a colliding `group` with the first split of head and tail cells that tells
    them all apart: an even split first, then more of the tail (where `-2` is), then more of the head."""
    cut = [name for name in group if not shown[name].fits]
    whole = {labels[name] for name in group if shown[name].fits}
    room = cells - 1
    even = (room + 1) // 2
    for head in [even, *range(even - 1, 0, -1), *range(even + 1, room)]:
        tried = [
            head_cells(shown[name].head, head) + ELLIPSIS + tail_cells(shown[name].tail, room - head)
            for name in cut
        ]
        if len(set(tried)) == len(tried) and not whole.intersection(tried):
            labels.update(zip(cut, tried, strict=True))
            return


def _number_the_rest(shown: dict[str, _Shown], labels: dict[str, str], cells: int) -> None:
    """Whatever still reads like another label (in sorted order, the first keeps it) gets `…#2`, `…#3`."""
    taken: set[str] = set()
    for name in sorted(labels):
        label = labels[name]
        number = 1
        while label in taken:
            number += 1
            tag = f"{ELLIPSIS}#{number}"
            label = head_cells(shown[name].head, cells - len(tag)) + tag
        taken.add(label)
        labels[name] = label


def head_cells(text: str, cells: int) -> str:
    """The longest start of `text` at most `cells` wide (a wide character that would cross it is left out)."""
    used = 0
    for index, char in enumerate(text):
        used += get_character_cell_size(char)
        if used > cells:
            return text[:index]
    return text


def tail_cells(text: str, cells: int) -> str:
    """The longest end of `text` at most `cells` wide, not starting with a mark (it would sit on the `…`)."""
    used = 0
    start = len(text)
    for index in range(len(text) - 1, -1, -1):
        used += get_character_cell_size(text[index])
        if used > cells:
            break
        start = index
    while start < len(text) and get_character_cell_size(text[start]) == 0:
        start += 1
    return text[start:]
