"""Open template drills of the tree view (`DrillBook`) and the virtual lines they show.

Why by position and not by row: rows come and go (pages, refreshes, filters, collapsing above). A drill
position (`Drill.key`: template text and chosen values) stays open until it is closed, a prefix above it
is collapsed or its template disappears from the model, and is shown wherever its template row appears.
What completion answered for a position is kept with it, so a rebuilt row shows the same candidates.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from explorer.model.drilldown import Drill, DrillKey
from explorer.model.templates import TemplateError
from explorer.model.tree_view.rows import VirtualItem
from explorer.model.uri_tree import PatternNode, UriTree

__all__ = ["DRILL_LIMIT", "NO_COMPLETIONS", "NO_SUGGESTIONS", "DrillBook", "DrillState"]

DRILL_LIMIT = 200
"""Candidates shown below one drilled template or value (the rest is a "+N more" row)."""
NO_COMPLETIONS = "no completions: press enter for the form"
NO_SUGGESTIONS = "nothing suggested: press enter for the form"


class DrillState:
    """One open drill position: the drill whose candidates lie below it and what completion answered."""

    __slots__ = ("_items", "drill", "more", "note", "values", "waiting")

    def __init__(self, drill: Drill) -> None:
        self.drill = drill
        self.values: tuple[str, ...] = ()
        self.more: int | None = None  # None: nothing more; 0: more, count unknown; n: n more
        self.note: str | None = None
        self.waiting = True
        self._items: list[VirtualItem] | None = None

    def items(self) -> list[VirtualItem]:
        """The lines below the position: waiting, or the candidates, a "+N more" line and a note."""
        items = self._items
        if items is not None:
            return items
        drill = self.drill
        variable = drill.next_variable
        label = "" if variable is None else drill.field(variable).label
        items = []
        if self.waiting:
            items.append(VirtualItem("wait", f"… {label}", drill))
        else:
            if variable is not None:
                items.extend(_value_item(label, drill.with_value(value), value) for value in self.values)
            if self.more is not None:
                more = f"+{self.more:,} more" if self.more else "+ more"
                items.append(VirtualItem("more", f"{more}: type in the form to narrow", drill))
            if self.note is not None:
                items.append(VirtualItem("note", NO_COMPLETIONS, drill))
            elif not self.values:
                items.append(VirtualItem("note", NO_SUGGESTIONS, drill))
        self._items = items
        return items


def _value_item(label: str, drill: Drill, value: str) -> VirtualItem:
    """A candidate's line; one whose value the template cannot be expanded with says why (its URI would
    be missing from the line without a word)."""
    problem = drill.problem
    text = f"{label} = {value}" if problem is None else f"{label} = {value}  (cannot be expanded: {problem})"
    return VirtualItem("value", text, drill)


class DrillBook:
    """The open drill positions, by `Drill.key`, and which templates can be drilled at all."""

    def __init__(self) -> None:
        self._states: dict[DrillKey, DrillState] = {}
        self._drillable: dict[str, bool] = {}  # template text -> it parses and has a variable

    def __bool__(self) -> bool:
        return bool(self._states)

    def __contains__(self, key: DrillKey) -> bool:
        return key in self._states

    def __iter__(self) -> Iterator[DrillKey]:
        return iter(self._states)

    def get(self, key: DrillKey) -> DrillState | None:
        return self._states.get(key)

    def drillable(self, pattern: PatternNode) -> bool:
        """Whether a template parses and has a variable to complete (cached per template text)."""
        text = pattern.uri_template
        known = self._drillable.get(text)
        if known is None:
            try:
                known = Drill.start(text, "").children_drill is not None
            except TemplateError:
                known = False
            self._drillable[text] = known
        return known

    def template_drill(self, pattern: PatternNode) -> Drill | None:
        """The drill below a template row (asking the first server that lists it); None if not drillable."""
        if not pattern.templates or not self.drillable(pattern):
            return None
        return Drill.start(pattern.uri_template, min(pattern.templates)).children_drill

    def open(self, key: DrillKey, drill: Drill) -> None:
        """Open a position: waiting for completion to answer for `drill`."""
        self._states[key] = DrillState(drill)

    def answer(
        self,
        drill: Drill,
        values: Sequence[str],
        note: str | None = None,
        *,
        total: int | None = None,
        has_more: bool = False,
    ) -> bool:
        """Record completion's answer for the position of `drill`; False when it is no longer open.

        Values are deduplicated, empty ones (and a refinement's own text) dropped, at most `DRILL_LIMIT`
        kept; `total` and `has_more` (as the server sent them) give the "+N more" count.
        """
        state = self._states.get(drill.key)
        if state is None:
            return False
        # A refinement's own text (`src/` completing `src/`) would only repeat the row: left out.
        typed = drill.typed
        candidates = list(
            dict.fromkeys(value for value in values if isinstance(value, str) and value and value != typed)
        )
        if typed and total is not None and typed in values:
            total -= 1
        shown = candidates[:DRILL_LIMIT]
        extra = len(candidates) - len(shown)
        if total is not None and total > len(candidates):
            extra = max(extra, total - len(shown))
        state.drill = drill
        state.values = tuple(shown)
        state.more = extra if extra > 0 else (0 if has_more else None)
        state.note = note
        state.waiting = False
        state._items = None
        return True

    def drop(self, key: DrillKey) -> None:
        """Forget an open position and every position below it."""
        template, trail = key
        depth = len(trail)
        for other in [k for k in self._states if k[0] == template and k[1][:depth] == trail]:
            del self._states[other]

    def prune(self, tree: UriTree) -> None:
        """Forget the drills of templates no server lists any more."""
        gone = {template for template, _ in self._states if tree.pattern_for(template) is None}
        for key in [k for k in self._states if k[0] in gone]:
            del self._states[key]

    def clear(self) -> None:
        self._states.clear()
