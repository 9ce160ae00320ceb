"""Where the user has been and what they marked: back/forward through visited places, and bookmarks.

Kept apart from the main screen's view controller because it is its own small state (a history and a
bookmarks file) with its own messages; the screen's key actions delegate here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.bookmarks import Bookmarks
from explorer.model.navigation import Navigation, Place
from explorer.model.uri_tree import PatternNode, UriNode
from explorer.sanitize import sanitize_line

if TYPE_CHECKING:
    from explorer.screens.main import MainScreen


class Places:
    """The main screen's history of visited places and its bookmarks (kept per server between runs)."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.navigation = Navigation()
        self.bookmarks = Bookmarks()

    def back(self) -> None:
        self._revisit(self.navigation.back())

    def forward(self) -> None:
        self._revisit(self.navigation.forward())

    def _revisit(self, place: Place | None) -> None:
        screen = self.screen
        if place is None:
            screen.notify("Nothing further in that direction.", markup=False)
            return
        if place.template is not None and place.values is not None and place.server is not None:
            screen.show_template_target(place, record=False)
            return
        screen.tree_widget.select_prefix(place.uri)
        if place.read and place.server is not None:
            screen.read(place.server, place.uri, record=False)

    def toggle_bookmark(self) -> None:
        """Bookmark (or forget) the highlighted resource or prefix, for its server."""
        screen = self.screen
        target = screen.highlighted_resource()
        if target is None:
            node = screen.tree_widget.cursor_node
            uri = screen.highlighted_uri()
            tree = screen.catalogue.tree
            servers = sorted(tree.subtree_servers(node)) if isinstance(node, UriNode) else []
            if isinstance(node, PatternNode):
                servers = list(node.templates)
            server = screen.supervisor.serving(servers)
            if uri is None or server is None:
                screen.notify("Highlight something to bookmark.", severity="warning", markup=False)
                return
            target = (server, uri)
        server, uri = target
        marked = self.bookmarks.toggle(server, uri)
        saved = self.bookmarks.save()
        verb = "Bookmarked" if marked else "Bookmark removed:"
        why = f": {self.bookmarks.problem}" if self.bookmarks.problem else ""
        note = "" if saved else f" (could not save the bookmarks file{why})"
        screen.notify(
            f"{verb} {sanitize_line(uri, 200)}{note}",
            markup=False,
            severity="information" if saved else "warning",
        )

    def open_bookmark(self, server: str, uri: str) -> None:
        """Go to a bookmark; a resource listed there is read."""
        screen = self.screen
        screen.jump_to(uri)
        node = screen.catalogue.tree.node_for(uri)
        if node is not None and node.resources and node.prefix == uri and server in node.resources:
            screen.read(server, uri)
