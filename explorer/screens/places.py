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
        verb = "Bookmarked" if marked else "Bookmark removed:"
        screen.notify(f"{verb} {sanitize_line(uri, 200)}", markup=False)
        self._save_in_background(uri)

    def _save_in_background(self, uri: str) -> None:
        """Write the bookmarks in a thread: a save waits for another explorer's save of the same folder
        (up to `storage.LOCK_WAIT`), which must not freeze the keys; a failure is said when it is known."""
        app = self.screen.app
        bookmarks = self.bookmarks

        def save() -> None:
            if bookmarks.save():
                return
            why = f": {bookmarks.problem}" if bookmarks.problem else ""
            app.call_from_thread(
                app.notify,
                f"Could not save the bookmarks file{why} ({sanitize_line(uri, 200)})",
                markup=False,
                severity="warning",
            )

        app.run_worker(save, thread=True, group="bookmark-save", exit_on_error=False)

    def save_unsaved(self) -> None:
        """At quit, one more try for changes a failed save kept (the file may be free or fixed now)."""
        if self.bookmarks.unsaved:
            self.bookmarks.save()

    def open_bookmark(self, server: str, uri: str) -> None:
        """Go to a bookmark; a resource listed there is read."""
        screen = self.screen
        screen.jump_to(uri)
        node = screen.catalogue.tree.node_for(uri)
        if node is not None and node.resources and node.prefix == uri and server in node.resources:
            screen.read(server, uri)
