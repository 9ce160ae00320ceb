"""Where the user has been and what they marked: back/forward through visited places, and bookmarks.

Kept apart from the main screen's view controller because it is its own small state (a history and a
bookmarks file) with its own messages; the screen's key actions delegate here.
"""

from __future__ import annotations

import contextlib
import threading
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
        self._save_flags = threading.Lock()  # `_save_running` and `_save_again`, the UI's and the saver's
        self._save_running = False
        self._save_again = False

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
        self._save_in_background()

    def _save_in_background(self) -> None:
        """Write the bookmarks in a thread: a save waits for another explorer's save of the same folder
        (up to `storage.LOCK_WAIT`), which must not freeze the keys. One save runs at a time, and the
        toggles made while it runs are written by one more after it (a key per toggle queued as many
        waits, each holding a thread the other workers share); a failure is said when it is known."""
        with self._save_flags:
            if self._save_running:
                self._save_again = True
                return
            self._save_running = True
        app = self.screen.app
        app.run_worker(self._save_until_done, thread=True, group="bookmark-save", exit_on_error=False)

    def _save_until_done(self) -> None:
        app = self.screen.app
        while True:
            try:
                saved, why = self.bookmarks.save_saying()
            except Exception as exc:  # never expected: said, and the saver does not stay marked running
                with self._save_flags:
                    self._save_running = self._save_again = False
                why = sanitize_line(f"{type(exc).__name__}: {exc}", 300)
                said = f"Could not save the bookmarks file: {why}"
                with contextlib.suppress(Exception):
                    app.call_from_thread(app.notify, said, markup=False, severity="error")
                return
            if not saved:
                reason = f": {sanitize_line(why, 400)}" if why else ""
                with contextlib.suppress(Exception):  # the app may be closing: the save at quit says it
                    app.call_from_thread(
                        app.notify,
                        f"Could not save the bookmarks file{reason} (the change is kept: "
                        "tried again with the next bookmark, and as the app closes)",
                        markup=False,
                        severity="warning",
                    )
            with self._save_flags:
                if not self._save_again:
                    self._save_running = False
                    return
                self._save_again = False

    def save_unsaved(self) -> str | None:
        """At quit, one more try for changes a failed save kept (the file may be free or fixed now);
        why it failed again (the app is gone by then: its caller prints it), else None."""
        if not self.bookmarks.unsaved:
            return None
        saved, why = self.bookmarks.save_saying()
        if saved:
            return None
        why = why or "the write failed"
        return f"bookmarks made in this run were not saved to {self.bookmarks.path}: {why}"

    def open_bookmark(self, server: str, uri: str) -> None:
        """Go to a bookmark; a resource listed there is read."""
        screen = self.screen
        screen.jump_to(uri)
        node = screen.catalogue.tree.node_for(uri)
        if node is not None and node.resources and node.prefix == uri and server in node.resources:
            screen.read(server, uri)
