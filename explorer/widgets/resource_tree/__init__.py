"""`ResourceTree`: the merged URI-prefix tree of every server, as a virtualized, keyboard-driven view.

A package because the widget grew past one module: `widget` holds the `ResourceTree` class (design notes
in its docstring), `rows` the materialized row records, `drill` the virtual drill-down rows and their
state, `render` the palette and segment helpers. Import from here: the package re-exports the public names.
"""

from explorer.widgets.resource_tree.drill import DRILL_LIMIT as DRILL_LIMIT
from explorer.widgets.resource_tree.drill import NO_COMPLETIONS as NO_COMPLETIONS
from explorer.widgets.resource_tree.drill import NO_SUGGESTIONS as NO_SUGGESTIONS
from explorer.widgets.resource_tree.rows import Node as Node
from explorer.widgets.resource_tree.widget import ResourceTree

__all__ = ["ResourceTree"]
