"""Virtual drill-down rows of `ResourceTree`: candidate rows below a drilled template and their state.

They exist apart from the widget so what a drill row is, and what completion answered for an open
drill position, read on their own; the widget's drill methods splice these rows like children.
"""

from __future__ import annotations

from explorer.model.drilldown import Drill
from explorer.model.uri_tree import PatternNode
from explorer.widgets.resource_tree.rows import _Row

DRILL_LIMIT = 200
"""Candidates shown below one drilled template or value (the rest is a "+N more" row)."""
NO_COMPLETIONS = "no completions: press enter for the form"
NO_SUGGESTIONS = "nothing suggested: press enter for the form"


class _VRow(_Row):
    """A virtual row below a drilled template: a candidate value, or a waiting / note / "+N more" line.

    `node` and `head` are the template's `PatternNode` (highlight and the form refer to it); `drill` is
    the position with this candidate fixed ("value"), or the parent's children drill (other kinds).
    """

    __slots__ = ("drill", "kind")

    def __init__(
        self,
        pattern: PatternNode,
        label: str,
        depth: int,
        parent: _Row,
        kind: str,
        drill: Drill,
        version: int,
    ) -> None:
        super().__init__(pattern, pattern, label, depth, parent, parent.full, version)
        self.kind = kind  # "value", "wait", "note" or "more"
        self.drill = drill


class _DrillState:
    """One open drill position: the drill whose candidates lie below it and what completion answered."""

    __slots__ = ("drill", "more", "note", "values", "waiting")

    def __init__(self, drill: Drill) -> None:
        self.drill = drill
        self.values: tuple[str, ...] = ()
        self.more: int | None = None  # None: nothing more; 0: more, count unknown; n: n more
        self.note: str | None = None
        self.waiting = True
