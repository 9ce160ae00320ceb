"""Server names cut to a width so that no two servers read the same (the tree's badges, the server bar).

A name is the spec's (a config key, a command's script, a URL's host, `-2` added to a repeated one), and a
config file may come from anyone: it is sanitized first and cut by terminal cells, never by characters (a
wide character is two). Cut at the end, `raw_server.py` and `raw_server.py-2` read alike (`raw_server.…`),
so names whose cut labels collide are cut in the middle instead, where a repeat's number stays
(`raw_se….py-2`). Names that end alike and part in their middle
(`tidewater-demo-server-for-the-staging-environment`, `…-production-environment`) would then read one letter
apart (`tidewater-demo…g-environment`), so a middle cut is taken only when its tail reaches back to where
they part (`tidew…production-environment`); else each keeps a little of its head and shows the part that
differs (`ti…staging-…`, `ti…producti…`). Names alike even then (or alike once sanitized: an escape reads
like the backslash text it stands for) are numbered (`raw_server…#2`). A very long name is only read near
its two ends.

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
_SEPARATORS = frozenset(" -_./:@")  # where a word of a name starts
_SHOWN = 4  # cells of the part that differs a window shows, at least, after the start of its word
MIN_CELLS = 6  # room for a head, the ellipsis and a number
# Raw characters that can make at most one cell: a base character and the marks kept on it.
_CHARS_PER_CELL = MAX_COMBINING + 1


@dataclass(frozen=True)
class _Shown:
    """A name's sanitized ends (one text when it is short) and whether it fits whole."""

    head: str
    tail: str
    fits: bool
    read: bool = True  # the whole name was sanitized (head is tail): not one only read near its ends


def distinct_labels(names: Iterable[str], cells: int) -> dict[str, str]:
    """Each of `names` as a sanitized label of at most `cells` cells; different names, different labels.

    A name that fits is shown whole; a longer one is cut at the end (`raw_server.…`), or in the middle when
    that would read like another's cut (`raw_se…er.py`, `raw_se….py-2`), or shown from where it parts from
    the others (`ti…staging-…`), or numbered when even that reads like another.
    """
    if cells < MIN_CELLS:
        raise ValueError(f"cells must be at least {MIN_CELLS}")
    shown = {name: _shown(name, cells) for name in dict.fromkeys(names)}
    labels = {name: _natural(ends, cells) for name, ends in shown.items()}
    for group in _collisions(labels):
        _tell_apart(group, shown, labels, cells)
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
        head, tail = sanitize_line(name[:window], None), sanitize_line(name[-window:], None)
        return _Shown(head, tail, fits=False, read=False)
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


def _tell_apart(group: list[str], shown: dict[str, _Shown], labels: dict[str, str], cells: int) -> None:
    """Relabel the cut names of a colliding `group`: with a middle cut that shows where each differs from
    the others, else with a window on the part that differs (`ti…staging-…`), else with any middle cut
    that tells them apart; names still alike are numbered after."""
    cut = [name for name in group if not shown[name].fits]
    whole = {labels[name] for name in group if shown[name].fits}
    splits = _middle_cuts([shown[name] for name in cut], cells)
    tries: list[list[str]] = []
    if len(cut) > 1 and all(shown[name].read for name in cut):
        texts = [shown[name].head for name in cut]
        pairs = _pairs(texts)
        tries += [
            [head + ELLIPSIS + tail for head, tail in split]
            for cut_at, split in splits
            if _shows_the_difference(texts, [tail for _, tail in split], pairs, cut_at >= _family(cells))
        ]
        parts = [[p for j, (p, _) in enumerate(row) if j != i] for i, row in enumerate(pairs)]
        first = min(min(row) for row in parts)  # where the group first parts: all windows start there,
        nearest = [max(row) for row in parts]  # or each where it parts from the name most like it
        tries += [_windows(texts, [first] * len(texts), cells), _windows(texts, nearest, cells)]
    tries += [[head + ELLIPSIS + tail for head, tail in split] for _, split in splits]
    for tried in tries:
        if len(set(tried)) == len(tried) and not whole.intersection(tried):
            labels.update(zip(cut, tried, strict=True))
            return


def _middle_cuts(names: list[_Shown], cells: int) -> list[tuple[int, list[tuple[str, str]]]]:
    """The cells of the head and the heads and tails of `names` for each split of the room: an even split
    first, then more of the tail (where `-2` is), then more of the head."""
    room = cells - 1
    even = (room + 1) // 2
    return [
        (head, [(head_cells(name.head, head), tail_cells(name.tail, room - head)) for name in names])
        for head in [even, *range(even - 1, 0, -1), *range(even + 1, room)]
    ]


def _pairs(texts: list[str]) -> list[list[tuple[int, int]]]:
    """For each two texts, the characters they share at their start and, after that, at their end."""
    pairs: list[list[tuple[int, int]]] = []
    for a in texts:
        row = []
        for b in texts:
            shared = min(len(a), len(b))
            start = next((i for i in range(shared) if a[i] != b[i]), shared)
            end = next((i for i in range(shared - start) if a[-1 - i] != b[-1 - i]), shared - start)
            row.append((start, end))
        pairs.append(row)
    return pairs


def _shows_the_difference(
    texts: list[str], tails: list[str], pairs: list[list[tuple[int, int]]], family: bool
) -> bool:
    """Whether each middle cut's tail shows where its name parts from every other: where two names end
    alike (`…-staging-environment`, `…-production-environment`), the tail must reach back to where they
    part, after a little of the head (`family`); where they end apart, their tails differ: enough."""
    for text, tail, row in zip(texts, tails, pairs, strict=True):
        for start, end in row:
            if end and (len(text) - len(tail) > start or not family):
                return False
    return True


def _windows(texts: list[str], starts: list[int], cells: int) -> list[str]:
    """Each text as a little of its head, `…`, and the part from its start on (cut with a second `…`
    unless it reaches the end), at most `cells` wide."""
    labels = []
    for text, start in zip(texts, starts, strict=True):
        head = head_cells(text, _family(cells))
        room = cells - cell_len(head) - 1
        start = _word_start(text, max(start, len(head)), len(head), room - 1)
        rest = text[start:]
        gap = ELLIPSIS if start > len(head) else ""
        if cell_len(rest) <= room:
            labels.append(head + gap + rest)
        else:
            labels.append(head + gap + head_cells(rest, room - 1) + ELLIPSIS)
    return labels


def _family(cells: int) -> int:
    """The cells of a name's head kept before the part that differs, so that a user knows its family."""
    return max(1, cells // 5)


def _word_start(text: str, start: int, floor: int, window: int) -> int:
    """`start` moved back to the start of its word (`…staging`, not `…aging`), not before `floor`, when a
    `window` of cells from there still shows `_SHOWN` cells from `start` on; never onto a mark (it would
    sit on the `…`)."""
    back, used = start, 0
    while back > floor and text[back - 1] not in _SEPARATORS:
        used += get_character_cell_size(text[back - 1])
        back -= 1
    if back == floor or used > window - _SHOWN:
        back = start
    while back > 0 and back < len(text) and get_character_cell_size(text[back]) == 0:
        back -= 1
    return back


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
