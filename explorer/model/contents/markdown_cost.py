"""How much work rendering a markdown text would be, counted in one linear scan of its lines.

Why: Textual's Markdown widget mounts a widget per block, list item and table cell, all at once on the
event loop. A text's length says little about that: 19.6 KB of `- a` lines is 4,900 list items (about
20 s), one table row of 3,000 columns is 3,000 cells. The preview renders markdown only when this count
is small (`explorer.widgets.preview.MARKDOWN_BLOCK_LIMIT`) and shows the highlighted source otherwise.
The count is an estimate that errs high: a block it cannot tell apart costs one.
"""

from __future__ import annotations

import re

LIST_ITEM_COST = 3
"""A list item is three widgets (the item, its bullet, its paragraph): measured at about three times
the time of a paragraph or heading."""

_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})")


def markdown_blocks(text: str, stop_at: int | None = None) -> int:
    """The blocks rendering `text` would make: paragraphs, headings, code blocks and quotes count one
    each (a quote nested n deep counts n), list items `LIST_ITEM_COST`, table rows one per cell.

    `stop_at`: stop counting once the count passes it (the caller only needs to know that it did).
    """
    blocks = 0
    in_paragraph = False
    fence: str | None = None
    for line in text.splitlines():
        if fence is not None:  # inside a fenced code block: the whole block was counted at its start
            if line.lstrip().startswith(fence):
                fence = None
            continue
        stripped = line.strip()
        if not stripped:
            in_paragraph = False
            continue
        opening = _FENCE.match(line)
        if opening:
            fence = opening.group(1)
            blocks += 1
            in_paragraph = False
        elif "|" in stripped:
            blocks += stripped.count("|") or 1
            in_paragraph = False
        elif stripped.startswith(">"):
            markers = stripped[: len(stripped) - len(stripped.lstrip("> \t"))]
            blocks += markers.count(">")  # each level of nesting is a block of its own
            in_paragraph = False
        elif _LIST_ITEM.match(line):
            blocks += LIST_ITEM_COST
            in_paragraph = True  # a lazy continuation line belongs to the item
        elif stripped.startswith("#"):
            blocks += 1
            in_paragraph = False
        elif not in_paragraph:
            blocks += 1
            in_paragraph = True
        if stop_at is not None and blocks > stop_at:
            return blocks
    return blocks
