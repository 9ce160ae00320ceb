"""What the explorer knows about every server: state, identity, listing, and the merged URI tree.

Rules it enforces (docs/architecture.md, "The data path"): the first listing is merged into the tree
page by page so the user browses while a big server is still listing; a refresh is built aside and
replaces the server's entries only when it completes, so a failed refresh keeps the last good listing
on screen; one server's failure never touches another's entries.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from explorer.config import ServerSpec
from explorer.model.identity import ServerIdentity
from explorer.model.listing import INTERRUPTED, KINDS, Listing, Page, bound_name, stopped_text
from explorer.model.uri_tree import UriTree

if TYPE_CHECKING:
    from explorer.model.login_prompt import LoginPrompt

State = Literal["connecting", "listing", "ready", "incomplete", "failed"]


@dataclass
class ServerStatus:
    """One server as the status bar and the error dialog show it."""

    spec: ServerSpec
    state: State = "connecting"
    identity: ServerIdentity | None = None
    listing: Listing | None = None  # the listing on screen
    pending: Listing | None = None  # a refresh being built aside
    error: str | None = None
    error_code: int | None = None
    error_local: bool = False  # `error_code` was made by the explorer (a closed connection), not sent
    error_data: Any = None
    stderr_tail: str = ""
    refreshing: bool = False
    pages_seen: int = 0
    items_seen: int = 0
    login: LoginPrompt | None = None  # an OAuth login waiting for the user (connecting, or a token refused)
    by_prefix: int = 0  # resources in the tree that listings by prefix added to what the listing found

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def busy(self) -> bool:
        return self.state in ("connecting", "listing") or self.refreshing

    @property
    def listing_incomplete(self) -> bool:
        """The listing on screen misses some of what the server lists, and none runs to finish it: it
        stopped at a bound or by the user, or a failure cut it, or it never listed at all (the tree's
        root row names the server: the tree may miss its resources). A server that failed after its
        listing completed keeps a complete listing: it is failed (the server bar says so), not
        incomplete."""
        listing = self.listing
        return self.state in ("incomplete", "failed") and (listing is None or not listing.complete)

    def progress_text(self) -> str:
        """Short status: what the server offers, and whether the listing is running, complete or not."""
        if self.login is not None:
            # Once connected, a login waits because the server refused the token (a 401 on a later
            # request) and the SDK began a new one: the server's requests, its listing too, wait for it.
            again = "" if self.state == "connecting" else " again"
            if self.login.opened:
                return f"log in{again} in your browser (opened); or open:"
            return f"log in{again}: open in a browser:"
        if self.state == "connecting":
            return "connecting…"
        if self.state == "failed" and self.listing is None:
            return "failed"
        listing = self.listing
        if self.state == "listing":
            items = sum(listing.count(kind) for kind in KINDS) if listing is not None else 0
            return f"listing… ({items:,} items)"
        text = listing.offer_summary() if listing is not None else ""
        if self.by_prefix:  # next to the listing's own count of resources, which it adds to
            first, dot, rest = text.partition(" · ")
            text = f"{first} (+{self.by_prefix:,} listed by prefix){dot}{rest}"
        if self.refreshing:
            return text + " · refreshing…"
        if listing is not None and listing.skipped:
            text += f" · {listing.skipped:,} skipped"
        if self.state == "failed":
            return text + " · failed (kept what was listed)"
        if self.state == "incomplete" and listing is not None and listing.stopped_by is not None:
            if listing.stopped_by == INTERRUPTED:
                return text + " · incomplete (stopped)"
            return text + f" · incomplete ({bound_name(listing.stopped_by)} bound)"
        if self.error is not None:
            return text + " · refresh failed (showing the last good listing)"
        return text + " · complete"


def _state_of(listing: Listing) -> State:
    """What a finished listing makes of its server's state."""
    if listing.error is not None:
        return "failed"
    return "ready" if listing.complete else "incomplete"


def _count_from(status: ServerStatus, listing: Listing) -> None:
    """The pages and items seen start from what `listing` holds (none for a new one, all of it for one
    continued): a refresh that was stopped and dropped must not count in the next listing's figures."""
    status.pages_seen = listing.pages
    status.items_seen = len(listing.resources) + len(listing.templates)


@dataclass
class Catalogue:
    """Every server's status plus the one merged tree the UI renders."""

    tree: UriTree = field(default_factory=UriTree)
    servers: dict[str, ServerStatus] = field(default_factory=dict)

    def add_server(self, spec: ServerSpec) -> ServerStatus:
        status = ServerStatus(spec)
        self.servers[spec.name] = status
        return status

    def connected(self, name: str, identity: ServerIdentity) -> None:
        status = self.servers[name]
        status.identity = identity
        status.state = "listing"
        status.error = status.error_code = status.error_data = None
        status.error_local = False

    def begin_listing(self, name: str, *, refresh: bool = False) -> Listing:
        """The Listing the next traversal fills: a refresh's aside, an incomplete one to continue, or new."""
        status = self.servers[name]
        if status.listing is not None and (refresh or status.listing.error is not None):
            status.refreshing = True
            status.pending = Listing(server=name)
            _count_from(status, status.pending)
            return status.pending
        status.state = "listing"
        if status.listing is None:
            status.listing = Listing(server=name)
        elif status.error is not None:  # why the last refresh did not replace this listing: it goes on now
            status.error = status.error_code = status.error_data = None
            status.error_local = False
        _count_from(status, status.listing)
        return status.listing

    def add_page(self, page: Page) -> bool:
        """Merge a page of a first listing into the tree; a refresh's pages wait. True if the tree changed."""
        before = self.tree.version
        for _ in self.add_page_in_slices(page, max(1, len(page.resources))):
            pass
        return self.tree.version != before

    def add_page_in_slices(self, page: Page, size: int) -> Iterator[None]:
        """`add_page`, `size` resources at a time: it yields between slices, where the tree is whole (the
        slices merged so far), so a caller can let other work run; the page is merged when it ends."""
        status = self.servers[page.server]
        status.pages_seen += 1
        status.items_seen += len(page.resources) + len(page.templates)
        if status.refreshing:
            return
        resources = page.resources
        for start in range(0, len(resources), size):
            if start:
                yield
            self.tree.add_resources(resources[start : start + size])
        self.tree.add_templates(page.templates)
        if status.by_prefix:
            self._count_by_prefix(status)  # a continued listing finds what a prefix listing added

    def add_prefix_page(self, page: Page) -> bool:
        """Merge a page of a listing by prefix (what is under a prefix of a server whose listing stopped
        at a bound) into the tree, beside what the listing found; True if the tree changed."""
        status = self.servers.get(page.server)
        if status is None or status.refreshing:
            return False
        before = self.tree.version
        self.tree.add_resources(page.resources)
        self.tree.add_templates(page.templates)
        self._count_by_prefix(status)
        return self.tree.version != before

    def _count_by_prefix(self, status: ServerStatus) -> None:
        """What the tree holds of the server beyond what its listing found: added by prefix listings."""
        listed = len(status.listing.resources) if status.listing is not None else 0
        status.by_prefix = max(0, self.tree.server_counts(status.name).resources - listed)

    def finish_listing(self, name: str, listing: Listing) -> None:
        """Record how a listing ended; a complete refresh replaces the old entries in one step.

        A listing that is not the one on screen is a refresh, even when the connection failed
        meanwhile (which clears `refreshing`): it must never replace the kept listing half-done.
        """
        status = self.servers[name]
        if listing is not status.listing:
            if status.pending is listing:
                status.refreshing = False
                status.pending = None
            if listing.complete:
                self.tree.replace_server(name, listing.resources, listing.templates)
                status.by_prefix = 0  # what listings by prefix added went with the old entries
                status.listing = listing
                status.state = "ready"
                status.error = status.error_code = status.error_data = None
                status.error_local = False
            elif status.state != "failed":
                # Keep the last good listing on screen; say why the refresh did not replace it.
                stopped = listing.stopped_by
                said = (
                    f"refresh {stopped_text(stopped)}" if stopped is not None else "refresh did not complete"
                )
                status.error = listing.error or said
                status.error_code = listing.error_code
                status.error_local = listing.error_local
                if status.state == "listing" and status.listing is not None:
                    # A reconnect's listing (the one on screen had failed): nothing runs any more.
                    status.state = _state_of(status.listing)
            return
        if listing.error is not None:
            status.state = "failed"
            status.error = listing.error
            status.error_code = listing.error_code
            status.error_local = listing.error_local
        elif not listing.complete:
            status.state = "incomplete"
        else:
            status.state = "ready"
            status.error = status.error_code = status.error_data = None
            status.error_local = False

    def failed(
        self, name: str, message: str, code: int | None, data: Any, stderr_tail: str, *, local: bool = False
    ) -> None:
        """The connection itself failed (or died): what was listed stays in the tree, marked. `local`: the
        code is the explorer's own (the SDK's for a closed connection), not one the server sent."""
        status = self.servers[name]
        status.state = "failed"
        status.refreshing = False
        status.pending = None
        status.error = message
        status.error_code = code
        status.error_local = local
        status.error_data = data
        status.stderr_tail = stderr_tail

    def reset(self, name: str) -> None:
        """Before a reconnect: the old entries stay until the new listing replaces them."""
        status = self.servers[name]
        status.state = "connecting"
        status.error = None
