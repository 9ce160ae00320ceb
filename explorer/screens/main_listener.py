"""What the main screen does when the supervisor tells it something: the `SupervisorListener` of the TUI.

A class of its own so the screen stays the view controller (keys in, reads out) and this stays the one
place where server news becomes widgets and notifications. Pages arrive in bursts: the first one shows at
once, later ones redraw the tree at most every 50 ms, so a big server never floods the paint path. Every
server string that reaches a notification goes through the sanitizer (notifications never parse markup).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.timer import Timer

from explorer.config import redact
from explorer.connection.live import LogEntry, Progress
from explorer.model.listing import INTERRUPTED, KINDS, Kind, Listing, plural, prefix_notes, stopped_text
from explorer.sanitize import sanitize_line
from explorer.widgets.key_display import shown_key
from explorer.widgets.resource_tree import ResourceTree
from explorer.widgets.server_bar import ServerBar
from explorer.widgets.server_labels import middle_cut

if TYPE_CHECKING:
    from explorer.connection.session import ServerConnection
    from explorer.model.catalogue import ServerStatus
    from explorer.screens.main import MainScreen
    from explorer.screens.prompts import PromptsScreen

TREE_FLUSH_SECONDS = 0.05
TREE_FLUSH_MAX_WAIT = 0.25  # a due redraw waits for keys' frames at most this long (a key held down)


class ScreenListener:
    """The supervisor's listener for `MainScreen`: server news to widgets, throttled where it must be."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self._flush_timer: Timer | None = None
        self._flush_due_at: float | None = None  # when the pending redraw fell due, if it waits for a key
        self._flushed_once = False
        self._problems_told: dict[str, str] = {}  # per server: the protocol junk last notified
        self._marks_due = False  # a batch of followed resources changed: their marks are redrawn once

    def statuses_changed(self) -> None:
        screen = self.screen
        statuses = list(screen.catalogue.servers.values())
        running = {s.name: screen.supervisor.progress(s.name) for s in statuses if s.busy}
        progress = {name: found for name, found in running.items() if found is not None}
        for bar in screen.query(ServerBar):  # none while the app closes
            bar.update_statuses(statuses, progress)
        from explorer.screens.server_overview import ServerOverview

        for opened in screen.app.screen_stack:  # an open overview follows its server
            if isinstance(opened, ServerOverview):
                opened.status_changed()

    def tree_changed(self) -> None:
        """Pages arrived: the first shows at once, later ones at most every 50 ms."""
        if not self._flushed_once:
            self.flush_tree()
        elif self._flush_timer is None:
            self._flush_timer = self.screen.set_timer(TREE_FLUSH_SECONDS, self._flush_after_input)

    def _flush_after_input(self) -> None:
        """The throttle's timer: redraw the tree, unless a key's frame is still owed. Then the redraw waits
        until that frame is on screen (`InputFirst.answered`), so the key's frame is not painted behind a
        redraw of pages (measured at 10^6 while they stream, a flush is about 4 ms and its paint more),
        but never longer than `TREE_FLUSH_MAX_WAIT` after it fell due: a key held down slows the tree's
        updates, never stops them."""
        self._flush_timer = None
        now = time.monotonic()
        if self._flush_due_at is None:
            self._flush_due_at = now
        input_first = self.screen.supervisor.input_first
        owed = input_first.owed()
        left = TREE_FLUSH_MAX_WAIT - (now - self._flush_due_at)
        if owed > 0.0 and left > 0.0:
            self._flush_timer = self.screen.set_timer(min(owed, left), self._flush_after_input)
            input_first.when_answered(self._flush_if_waiting)
            return
        self.flush_tree()

    def _flush_if_waiting(self) -> None:
        """The key's frame is on screen: a redraw that waited for it runs now, in the gap before the next
        key (a held arrow's keys come 25 to 35 ms apart), not when the wait would have ended."""
        if self._flush_due_at is not None:
            self.flush_tree()

    def server_connected(self, name: str, notes: Sequence[str]) -> None:
        from explorer.connection.session import note_for  # loaded by now: it made the connection

        status = self.screen.catalogue.servers.get(name)
        for note in notes:
            said = note_for(note, status.spec) if status is not None else note
            self.screen.notify(f"{middle_cut(name, 40)}: {sanitize_line(said, 300)}", markup=False)
        self.screen.resume_following(name)
        for screen in self._prompts_screens():  # it lists its prompts there again
            screen.server_connected(name)

    def server_failed(self, name: str, message: str) -> None:
        self.flush_tree()
        for screen in self._prompts_screens():  # its prompts stay there, marked failed
            screen.server_failed(name, message)
        app = self.screen.app  # the keys as the user's keymap binds them, on this screen and on Prompts
        show, again = shown_key(app, "main.show_error", "e"), shown_key(app, "main.reconnect", "R")
        self.screen.notify(
            f"{middle_cut(name, 40)}: {sanitize_line(message, 200)} (press {show} for details, {again} to "
            "reconnect)",
            severity="error",
            markup=False,
        )

    def _prompts_screens(self) -> list[PromptsScreen]:
        """The prompts screens open (at most one): they follow each server's connection."""
        from explorer.screens.prompts import PromptsScreen

        return [screen for screen in self.screen.app.screen_stack if isinstance(screen, PromptsScreen)]

    def listing_finished(self, name: str, listing: Listing, was_refresh: bool) -> None:
        screen = self.screen
        status = screen.catalogue.servers[name]
        if listing.error is not None:
            kept = " (kept the last good listing)" if was_refresh else ""
            screen.notify(
                f"{middle_cut(name, 40)}: {sanitize_line(redact(listing.error, status.spec), 200)}{kept}",
                severity="error",
                markup=False,
            )
        elif was_refresh and listing.stopped_by is not None and not listing.complete:
            screen.notify(f"{middle_cut(name, 40)}: {self._kept_after_refresh(status)}", markup=False)
        elif listing.stopped_by == INTERRUPTED:
            items = sum(listing.count(kind) for kind in KINDS)
            screen.notify(
                f"{middle_cut(name, 40)}: listing stopped; kept {items:,} items (press m for more)",
                markup=False,
            )
        elif listing.stopped_by is not None:
            screen.notify(
                f"{middle_cut(name, 40)}: {stopped_text(listing.stopped_by)}; press m for more",
                severity="warning",
                markup=False,
            )
        conn = screen.supervisor.connection(name)
        if conn is not None:
            self._tell_problems(name, conn)

    @staticmethod
    def _kept_after_refresh(status: ServerStatus) -> str:
        """A refresh that stopped before its end is dropped (it never replaces a listing half-done): what
        the screen keeps showing instead, and what `m` would continue."""
        said = sanitize_line(redact(status.error or "refresh stopped", status.spec), 200)
        shown = status.listing
        if shown is None:
            return said
        items = sum(shown.count(kind) for kind in KINDS)
        more = "; press m for more of it" if not shown.complete else ""
        return f"{said}; the last listing stays ({items:,} items){more}"

    async def resource_changed(self, name: str, uri: str) -> None:
        """A followed resource changed: re-read it when it is the one previewed (coalesced upstream).
        The tree's marks are redrawn once for all the changes that came meanwhile (`_mark_due`), not
        once per resource: each redraw walks every mark."""
        if not self._marks_due:
            self._marks_due = self.screen.call_later(self._mark_due)  # False while the screen closes
        await self.screen.reread_if_previewed(name, uri)

    def _mark_due(self) -> None:
        self._marks_due = False
        if self.screen.query(ResourceTree):  # none while the app closes
            self.mark_resources()

    def list_changing(self, name: str, kind: Kind) -> None:
        from explorer.screens.prompts import PromptsScreen

        if kind == "prompts":  # only the server that announced it lists again; the others stay as shown
            for screen in self.screen.app.screen_stack:
                if isinstance(screen, PromptsScreen):
                    screen.listing_again(name)

    def list_changed(self, name: str, kind: Kind, fresh: Listing) -> None:
        from explorer.screens.prompts import PromptsScreen

        if kind == "prompts":  # the screen shows what the supervisor's re-list got: no second request
            for screen in self.screen.app.screen_stack:
                if isinstance(screen, PromptsScreen):
                    screen.listed_again(name, fresh)
        self.statuses_changed()

    def server_voice(self, name: str, news: LogEntry | Progress) -> None:
        from explorer.screens.server_overview import ServerOverview

        for screen in self.screen.app.screen_stack:
            if isinstance(screen, ServerOverview) and screen.status.name == name:
                screen.add_voice(news)

    def follow_failed(self, name: str, uri: str | None, message: str) -> None:
        """A follow the server refused or never acknowledged, or live updates that stopped: said, and the
        tree's "following" marks redrawn (the supervisor unpinned what is not followed)."""
        server = middle_cut(name, 40)
        if uri is not None:
            said = f"{server}: cannot follow {sanitize_line(uri, 200)}: {sanitize_line(message, 300)}"
        else:
            said = (
                f"{server}: live updates stopped: {sanitize_line(message, 300)}; what it followed is no "
                "longer followed (s follows again, R reconnects)"
            )
        self.screen.notify(said, severity="warning", markup=False)
        if self.screen.query(ResourceTree):  # none while the app closes
            self.mark_resources()

    def keeps_changing(self, name: str) -> None:
        self.screen.notify(
            f"{middle_cut(name, 40)} keeps changing: its listing is now refreshed at most every 30 s.",
            severity="warning",
            markup=False,
        )

    def prefix_listed(self, name: str, prefix: str, listing: Listing) -> None:
        where = f"{middle_cut(name, 40)}: {sanitize_line(prefix, 120)}"
        if listing.error is not None:
            problem = redact(listing.error, self.screen.catalogue.servers[name].spec)
            self.screen.notify(f"{where}: {sanitize_line(problem, 200)}", severity="error", markup=False)
            return
        cut = f" ({stopped_text(listing.stopped_by)})" if listing.stopped_by is not None else ""
        notes = "".join(f"; {note}" for note in prefix_notes(listing))
        if listing.filtered_out and listing.stopped_by is not None:  # it started again from its first page
            notes += ", and its whole listing came again from the first page until it stopped"
        self.screen.notify(
            f"{where}: listed {plural(len(listing.resources), 'resource')} and "
            f"{plural(len(listing.templates), 'template')} under it{cut}{notes}",
            markup=False,
            severity="warning" if notes else "information",
        )

    # -- not the supervisor's: what the screen asks of its listener

    def mark_resources(self) -> None:
        """Followed (pinned) resources and ones that changed since they were last read, marked in the tree."""
        supervisor = self.screen.supervisor
        marks = {uri: "changed" for _server, uri in supervisor.changed}
        marks.update({uri: "following" for _server, uri in supervisor.pinned})
        self.screen.tree_widget.set_markers(marks=marks)

    def flush_tree(self) -> None:
        """Redraw the tree and the server bar from the catalogue now (a throttled redraw still waiting is
        not needed any more)."""
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush_timer = None
        self._flush_due_at = None
        self._flushed_once = True
        screen = self.screen
        if not screen.query(ResourceTree):  # the app is closing: pages of a running listing came too late
            return
        tree = screen.tree_widget
        servers = screen.catalogue.servers.values()
        tree.show_servers = len(screen.catalogue.servers) > 1
        # Only a listing really cut short: a server that failed after a complete one is marked failed
        # by the server bar, not said to miss resources (`ServerStatus.listing_incomplete`).
        tree.incomplete_servers = {s.name for s in servers if s.listing_incomplete}
        listing = {s.name: s.items_seen for s in servers if s.state == "listing"}
        tree.set_markers(listing=listing, stale=[s.name for s in servers if s.state == "failed"])
        self.mark_resources()
        tree.model_changed()
        screen.refresh_details()
        self.statuses_changed()

    def _tell_problems(self, name: str, conn: ServerConnection) -> None:
        """Junk a server wrote between its messages was ignored; say so once (it explains odd gaps)."""
        problems = conn.problems.describe()
        if problems is not None and self._problems_told.get(name) != problems:
            self._problems_told[name] = problems
            self.screen.notify(
                f"{middle_cut(name, 40)} {sanitize_line(problems, 200)}",
                severity="warning",
                markup=False,
            )
