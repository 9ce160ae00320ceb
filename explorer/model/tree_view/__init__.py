"""The lines of the URI tree view, as plain Python: what is shown, expanded, drilled, and where.

Core (no Textual, no Rich): the `ResourceTree` widget keeps input, messages, the cursor, scheduling and
painting, and asks `TreeRows` for lines. Keeping the row model here means its rules can be tested
without an App, quickly and exhaustively (`tests/test_tree_rows.py` checks after random pages, refreshes,
filters, expansions and drills that the incrementally kept lines equal a full rebuild).

Modules: `rows` (the `Row` records and the blocks open rows hold), `expansions` (which nodes stay
expanded, by prefix), `drills` (open template drill positions and their candidates), `tree_rows`
(`TreeRows`, the lines and every operation on them, each returning a `Change`).

The rules the lines keep:

- Line 0 is the root ("All resources"). Below an expanded node: its templates (patterns) by label, then its
  children in the model's order. A single-child chain with nothing of its own is one row
  (``src/explorer/model``); its last node is what the row stands for and expands to.
- Only open rows are objects that persist (see `rows`): expanding a node with 10^6 children costs what
  opens below it, not 10^6 row objects. Finding a line costs O(depth * log(open items)).
- A row is expanded when its node is remembered (`Expansions`: by URI prefix and depth, so a refresh
  that replaces node objects keeps it) and has something to show; a filter adds its own expansions.
- A template row is drilled when its drill position is open (`DrillBook`, by template text and chosen
  values): virtual rows below it hold the candidates completion answered, each expandable to the next
  variable until the URI is concrete. Open drills survive pages, refreshes and filters, and are dropped
  when their template disappears or a prefix above them is collapsed.
- After the model changed, `TreeRows.model_changed` visits open rows only and gives the same lines as
  `TreeRows.rebuild` would from scratch; the cursor stays on its node (or the nearest surviving ancestor).
"""

from explorer.model.tree_view.drills import DRILL_LIMIT as DRILL_LIMIT
from explorer.model.tree_view.drills import NO_COMPLETIONS as NO_COMPLETIONS
from explorer.model.tree_view.drills import NO_SUGGESTIONS as NO_SUGGESTIONS
from explorer.model.tree_view.drills import DrillBook as DrillBook
from explorer.model.tree_view.expansions import Expansions as Expansions
from explorer.model.tree_view.rows import Node as Node
from explorer.model.tree_view.rows import Row as Row
from explorer.model.tree_view.rows import RowKind as RowKind
from explorer.model.tree_view.tree_rows import EXPAND_CHILDREN_LIMIT as EXPAND_CHILDREN_LIMIT
from explorer.model.tree_view.tree_rows import Change as Change
from explorer.model.tree_view.tree_rows import TreeRows as TreeRows

__all__ = [
    "DRILL_LIMIT",
    "EXPAND_CHILDREN_LIMIT",
    "NO_COMPLETIONS",
    "NO_SUGGESTIONS",
    "Change",
    "DrillBook",
    "Expansions",
    "Node",
    "Row",
    "RowKind",
    "TreeRows",
]
