"""`ResourceTree`: the merged URI-prefix tree of every server, as a virtualized, keyboard-driven view.

A package because the widget has parts: `widget` holds the `ResourceTree` class (design notes in its
docstring) and `render` the palette and `RowPainter`. The lines themselves (what is shown, expanded,
drilled) are the core row model `explorer.model.tree_view`. Import `ResourceTree` from here.
"""

from explorer.widgets.resource_tree.widget import ResourceTree

__all__ = ["ResourceTree"]
