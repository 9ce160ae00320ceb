"""One status line per server: name, version, protocol era, what it offers, listing progress.

Server strings (names, versions, errors) are shown through the sanitizer as plain Content, never
as markup; a long name is cut so that no two servers' names read the same (`server_labels`). A
spinner turns while any server connects, lists or refreshes. A row is selectable (click it, or focus
the bar and press enter) to open that server's overview.

While a server lists, its line says where the listing stands, as the CLI's `tree` does on stderr: pages
(of the list being asked), items, rate and the bound it will stop at (`ListingProgress`, given with the
statuses). `x` on a row asks to stop that server's listing (`StopRequested`): what arrived stays, marked
incomplete. A login waiting for the user, while connecting or after the server refused the token later,
takes the place of that progress, with the URL to open: the server's requests wait for it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

from explorer.config import redact
from explorer.model.catalogue import ServerStatus
from explorer.model.listing import ListingProgress, plural
from explorer.sanitize import sanitize_line
from explorer.widgets.server_labels import distinct_labels

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
NAME_CELLS = 30  # a name longer than this is cut, so that no two servers' names read the same
STATE_STYLE = {
    "connecting": "$status-busy",
    "listing": "$status-busy",
    "ready": "$status-ok",
    "incomplete": "$tree-incomplete",
    "failed": "$status-failed",
}


class ServerBar(Widget, can_focus=True):
    """The servers' health at a glance; selecting a row opens that server's overview."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor_up", "Up", show=False, id="servers.cursor_up"),
        Binding("down,j", "cursor_down", "Down", show=False, id="servers.cursor_down"),
        Binding("enter", "select", "Overview", id="servers.select"),
        Binding("x", "stop_listing", "Stop listing", show=False, id="servers.stop_listing"),
    ]
    HELP = """
## Servers
One line per server: name, version, protocol era, what it offers and how its listing went.
`up`/`down` choose a server, `enter` (or a click) opens its overview: capabilities, instructions,
counts, listing health and tools. While a server lists, its line shows pages, items, rate and the bound
the listing stops at; `x` stops that listing early (what arrived stays, marked incomplete).
"""

    class Selected(Message):
        """A server's row was chosen."""

        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    class StopRequested(Message):
        """The user asked to stop a server's running listing (`x` on its row)."""

        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    DEFAULT_CSS = """
    ServerBar {
        height: auto;
        max-height: 8;
        padding: 0 1;
        background: $panel;
        color: $text-muted;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    frame: reactive[int] = reactive(0, layout=False)
    cursor: reactive[int] = reactive(0, layout=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._statuses: list[ServerStatus] = []
        self._progress: dict[str, ListingProgress] = {}
        self._names: dict[str, str] = {}  # each server's name as shown, cut to NAME_CELLS
        self._timer: Timer | None = None

    def update_statuses(
        self, statuses: Sequence[ServerStatus], progress: Mapping[str, ListingProgress] | None = None
    ) -> None:
        """Show `statuses`; `progress` (by server name) for the servers listing now."""
        lines = len(self._statuses)
        chosen = self._statuses[self.cursor].name if 0 <= self.cursor < lines else None
        self._statuses = list(statuses)
        self._progress = dict(progress or {})
        if self._names.keys() != {s.name for s in self._statuses}:
            self._names = distinct_labels((s.name for s in self._statuses), NAME_CELLS)
        busy = any(s.busy for s in self._statuses)
        if busy and self._timer is None:
            self._timer = self.set_interval(0.1, self._tick)
        elif not busy and self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._keep_cursor(chosen)
        # Only a change in the number of lines moves the panes below: a new layout costs a repaint of the
        # whole screen, and statuses change with every page of a running listing.
        self.refresh(layout=len(self._statuses) != lines)

    def _keep_cursor(self, chosen: str | None) -> None:
        """The cursor stays on the server it was on; when that one was removed, on the row that took its
        place (or the last row). A cursor past the end after a removal made `render` fail."""
        names = [s.name for s in self._statuses]
        target = names.index(chosen) if chosen in names else self.cursor
        self.cursor = target  # clamped by `validate_cursor`

    def validate_cursor(self, cursor: int) -> int:
        return max(0, min(cursor, len(self._statuses) - 1))

    def _under_cursor(self) -> ServerStatus | None:
        return self._statuses[self.cursor] if 0 <= self.cursor < len(self._statuses) else None

    def action_cursor_up(self) -> None:
        self.cursor -= 1

    def action_cursor_down(self) -> None:
        self.cursor += 1

    def action_select(self) -> None:
        status = self._under_cursor()
        if status is not None:
            self.post_message(self.Selected(status.name))

    def action_stop_listing(self) -> None:
        status = self._under_cursor()
        if status is not None and (status.state == "listing" or status.refreshing):
            self.post_message(self.StopRequested(status.name))

    def on_click(self, event: events.Click) -> None:
        row = event.y
        if 0 <= row < len(self._statuses):
            self.cursor = row
            self.post_message(self.Selected(self._statuses[row].name))

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def _tick(self) -> None:
        self.frame = (self.frame + 1) % len(SPINNER)

    def render(self) -> Content:
        if not self._statuses:
            return Content("no servers")
        lines = [self._line(s) for s in self._statuses]
        if self.has_focus and 0 <= self.cursor < len(lines):
            lines[self.cursor] = lines[self.cursor].stylize("reverse")
        return Content("\n").join(lines)

    def _line(self, status: ServerStatus) -> Content:
        marker = (
            SPINNER[self.frame] if status.busy else {"failed": "✗", "incomplete": "◐"}.get(status.state, "●")
        )
        style = STATE_STYLE.get(status.state, "")
        # What matters first (the status keeps its place on a narrow terminal), then who the server is;
        # the line is cut at the right edge.
        parts: list[str | tuple[str, str]] = [(marker + " ", style), (self._names[status.name], "bold")]
        running = self._progress.get(status.name)
        if status.login is not None:
            # Whenever a login waits (connecting, or a token refused later): what holds the server up.
            parts.append(("  " + status.progress_text(), style))
            parts.append(("  " + sanitize_line(status.login.url, 2000), "underline"))
        elif running is not None and running.running and (status.state == "listing" or status.refreshing):
            parts.append(("  " + progress_line(running, refreshing=status.refreshing), style))
        else:
            parts.append(("  " + status.progress_text(), style))
        if status.error is not None:
            parts.append(("  " + sanitize_line(redact(status.error, status.spec), 160), "$status-failed"))
        ident = status.identity
        if ident is not None:
            who = " ".join(x for x in (ident.name, ident.version) if x)
            if who:
                # A server may echo a token from its env into its own name: mask config secrets.
                parts.append(("  " + sanitize_line(redact(who, status.spec), 60), "$text-muted"))
            parts.append((f"  {ident.protocol_version} ({ident.era})", "$text-muted"))
        return Content.assemble(*parts)


def progress_line(progress: ListingProgress, *, refreshing: bool = False) -> str:
    """`listing resources, 37 pages · 37,000 items · 41,200/s · stops at 100,000 items or … · x stops`."""
    where = "refreshing" if refreshing else "listing"
    if progress.kind is not None:
        where += f" {progress.kind}, {plural(progress.kind_pages, 'page')}"
    else:
        where += f", {plural(progress.pages, 'page')}"
    text = f"{where} · {plural(progress.items, 'item')} · {progress.rate:,.0f}/s"
    if progress.bound:
        text += f" · stops at {progress.bound}"
    return text + " · x stops"
