"""What changed between two reads of a followed resource: when, which version, and a diff of its text.

Why: a developer watching a resource update wants to see the change, not scan the whole text again. The
diff is a unified diff of the text contents (capped: a resource rewritten from top to bottom gives a
bounded answer), and binary contents only say that they changed. Strings are raw: sanitize to show.
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Sequence
from dataclasses import dataclass

from explorer.model.contents.record import Content

DIFF_LINE_LIMIT = 2_000
DIFF_INPUT_LIMIT = 200_000  # characters of each side compared; longer texts are compared by their start


@dataclass(frozen=True, slots=True)
class Update:
    """A re-read after a change: its version number (1 is the first read), when, and what changed."""

    version: int
    at: float
    diff: str | None  # a unified diff of the text; None when there is no text to compare
    summary: str  # one line: "3 lines added, 1 removed", "no change in the text", "binary contents"

    def headline(self) -> str:
        clock = time.strftime("%H:%M:%S", time.localtime(self.at))
        return f"updated {clock} · version {self.version} · {self.summary}"


def text_of(contents: Sequence[object]) -> str | None:
    """The text of the text-like contents, joined (None when there is none to compare)."""
    texts = [c.text for c in contents if isinstance(c, Content) and c.text is not None]
    return "\n".join(texts) if texts else None


def describe_update(previous: str | None, contents: Sequence[Content], *, version: int, at: float) -> Update:
    """Compare the text read before with the contents read now."""
    current = text_of(contents)
    if current is None or previous is None:
        what = "binary contents" if current is None else "the text before is unknown"
        return Update(version, at, None, what)
    if current == previous:
        return Update(version, at, "", "no change in the text")
    old_lines = previous[:DIFF_INPUT_LIMIT].splitlines()
    new_lines = current[:DIFF_INPUT_LIMIT].splitlines()
    lines = list(difflib.unified_diff(old_lines, new_lines, "before", "now", lineterm="", n=2))
    added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
    if len(lines) > DIFF_LINE_LIMIT:
        lines = [*lines[:DIFF_LINE_LIMIT], f"… [{len(lines) - DIFF_LINE_LIMIT:,} more diff lines]"]
    summary = f"{added:,} line{'s' if added != 1 else ''} added, {removed:,} removed"
    return Update(version, at, "\n".join(lines), summary)
