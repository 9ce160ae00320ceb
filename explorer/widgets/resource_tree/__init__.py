"""`ResourceTree`: the merged URI-prefix tree of every server, as a virtualized, keyboard-driven view.

A package because the widget has parts: `widget` holds the `ResourceTree` class (design notes in its
docstring) and `render` the palette and `RowPainter`. The lines themselves (what is shown, expanded,
drilled) are the core row model `explorer.model.tree_view`. Import from here: the package re-exports the
public names.
"""

from explorer.model.tree_view import DRILL_LIMIT as DRILL_LIMIT
from explorer.model.tree_view import NO_COMPLETIONS as NO_COMPLETIONS
from explorer.model.tree_view import NO_SUGGESTIONS as NO_SUGGESTIONS
from explorer.model.tree_view import Node as Node
from explorer.widgets.resource_tree.widget import ResourceTree

__all__ = ["ResourceTree"]
