"""The life of every server the explorer shows: connect, list, hold, follow, pace, reconnect, close.

Why a supervisor: the screen should ask and be told, never touch an MCP client. This object owns the
`Catalogue` (what every server listed), each server's `ServerConnection`, the listings and refreshes, the
followed resources, and what a server says on its own (changes, log entries, progress), and tells a
`SupervisorListener` what happened. It knows nothing of Textual: the TUI runs `run(name)` in one worker
per server (cancelling it closes the connection), and implements the listener by updating widgets.

Rules it keeps:
- A server's first listing is merged into the tree page by page; a refresh is built aside and replaces
  the old entries only when complete (`Catalogue`). One server's failure never touches another's.
- A followed resource that changes is re-read at most once in flight and once queued (`Coalescer`); the
  previewed resource is followed while previewed, pinned ones until unpinned. An update for a resource
  neither followed nor previewed is only counted (`unfollowed_updates`): 20,000 of them, each marked
  and coalesced, kept the loop busy and a listing's prompt answer was reported as timed out.
- A list change refreshes that list after a short debounce; a server that keeps announcing changes is
  refreshed at most every 30 s and the listener is told (`RefreshPacer`). Prompts and tools alike, each
  with at most one re-list going and one queued (`PacedRuns`): one re-list per announcement made 501
  requests of each for 500 announcements.
- What a server says on its own (log entries, progress) is kept bounded in entries and bytes, its text
  cut at arrival (`VoiceLog`); progress is labelled by the tokens the connection issued (`labelled`).
- A connection that drops while held is reported as that server's failure, with its stderr tail; its
  entries stay (marked by the caller), and `run(name)` again reconnects and refreshes as one transaction.
- A running listing can be stopped (`stop_listing`): what arrived stays, marked incomplete, and "continue"
  resumes it; `progress(name)` says where it stands (pages, items, rate, the bound it stops at).
- After each page is merged the collector is told (`explorer.model.heap.after_ingest`), so a catalogue of
  a million entries never costs a full collection pass.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal, Protocol

import anyio
import anyio.abc
import anyio.lowlevel

from explorer.config import ListingBounds, ServerSpec, redact
from explorer.connection.errors import ServerFault, describe_exception
from explorer.connection.live import (
    FollowTrouble,
    ListChanged,
    LogEntry,
    News,
    Progress,
    ResourceChanged,
    issued_tokens,
    labelled,
)
from explorer.connection.pacing import Coalescer, PacedRuns, RefreshPacer, Spawn
from explorer.connection.stderr_log import take_log_warnings
from explorer.connection.stderr_summary import quotes_stderr, stderr_clause
from explorer.connection.voice_log import VoiceLog
from explorer.input_first import InputFirst
from explorer.model.catalogue import Catalogue, ServerStatus
from explorer.model.heap import after_ingest
from explorer.model.listing import Kind, Listing, ListingProgress, Page

if TYPE_CHECKING:  # imported when a server connects: the TUI's first frame does not wait for them
    from explorer.connection.discovery import ListingStop
    from explorer.connection.session import ServerConnection
    from explorer.connection.wire import WireLog
    from explorer.model.identity import ProtocolMode

if TYPE_CHECKING:
    from explorer.auth.options import AuthOptions
    from explorer.model.login_prompt import LoginPrompt

# Resources of a page merged at a time on the event loop (see `_merge_in_slices`). 125 rather than 250: a
# key in a node of 10^6 children while they stream went from p99 14.7 to 12.6 ms (medians of 3 runs,
# alternated, with `discovery.PARSE_SLICE` alike), for about 2% more time to list 10^6.
PAGE_SLICE = 125
_BUSY_POLL = 0.1  # how often a re-list of prompts or tools looks whether the running listing ended


class SupervisorListener(Protocol):
    """What the supervisor tells its owner. Every call is made on the event loop, from a server's task."""

    def statuses_changed(self) -> None:
        """A server's state or progress changed (redraw the server bar)."""

    def tree_changed(self) -> None:
        """Pages were merged into the tree (redraw it; throttling is the caller's)."""

    def server_connected(self, name: str, notes: Sequence[str]) -> None:
        """Connected; `notes` say how when it needs saying (a transport fallback)."""

    def server_failed(self, name: str, message: str) -> None:
        """The connection failed or dropped; details are in the server's status."""

    def listing_finished(self, name: str, listing: Listing, was_refresh: bool) -> None:
        """A listing or refresh ended (complete, at a bound, or failed)."""

    async def resource_changed(self, name: str, uri: str) -> None:
        """A followed resource changed; re-read it if shown. Calls are coalesced per resource."""

    def list_changing(self, name: str, kind: Kind) -> None:
        """A list (prompts or tools) is being listed again after the server announced a change."""

    def list_changed(self, name: str, kind: Kind, fresh: Listing) -> None:
        """That list was listed again: `fresh` is what this listing got (complete, at a bound, or its
        error); the catalogue took it when complete."""

    def server_voice(self, name: str, news: LogEntry | Progress) -> None:
        """A log entry or a progress notification arrived."""

    def keeps_changing(self, name: str) -> None:
        """The server announces changes so often that refreshes are now paced."""

    def prefix_listed(self, name: str, prefix: str, listing: Listing) -> None:
        """A listing of what is under `prefix` (asked with `list_prefix`) ended; its pages are merged."""

    def follow_failed(self, name: str, uri: str | None, message: str) -> None:
        """Following `uri` failed (the server refused, or did not acknowledge), or, with no `uri`,
        following stopped on its own (the server's change stream ended for good): `message` says why."""


PinOutcome = Literal["following", "stopped", "failed", "withdrawn"]


@dataclass
class Settings:
    """How to connect and list: the same for every server of a run."""

    protocol: ProtocolMode = "auto"
    timeout: float = 30.0
    bounds: ListingBounds = field(default_factory=ListingBounds)
    log_level: str | None = "info"
    wire: WireLog | None = None
    pacer: Callable[[], RefreshPacer] = RefreshPacer  # how list-change refreshes are paced (tests: faster)
    auth: AuthOptions | None = None  # OAuth logins for HTTP servers that ask for one; None: no logins


@dataclass
class _Life:
    """One server's runtime state while its `run` is going."""

    pacer: RefreshPacer
    lists: PacedRuns  # re-lists of prompts and of tools after the server announced a change
    conn: ServerConnection | None = None
    group: anyio.abc.TaskGroup | None = None
    listing_scope: anyio.CancelScope | None = None
    listing_stop: ListingStop | None = None
    refresh_scheduled: bool = False
    told_keeps_changing: bool = False
    prefixes: dict[str, Listing | None] = field(default_factory=dict)  # listed by prefix (None: running)
    voice: VoiceLog = field(default_factory=VoiceLog)
    unfollowed_updates: int = 0  # resources/updated for resources neither followed nor previewed
    told_preview_follow: bool = False  # a failure to follow a previewed resource was said (once a run)
    runs: int = 0  # runs started: a run that is not the last (a reconnect began) leaves the state alone


class Supervisor:
    """Every server's connection and listing; the catalogue the UI renders."""

    def __init__(
        self,
        specs: Iterable[ServerSpec],
        settings: Settings,
        listener: SupervisorListener,
        *,
        input_first: InputFirst | None = None,
    ) -> None:
        self.settings = settings
        self.listener = listener
        self.catalogue = Catalogue()
        self._lives: dict[str, _Life] = {}
        self.pinned: set[tuple[str, str]] = set()
        self.previewed: tuple[str, str] | None = None
        self.changed: set[tuple[str, str]] = set()  # followed resources that changed since last seen
        self._coalescer = Coalescer()
        self.input_first = input_first if input_first is not None else InputFirst()
        """Told of the user's input by the UI (`note_input`); pages of a listing wait a frame after it."""
        self._auth = settings.auth
        if settings.auth is not None:
            # A login waiting for the user shows on its server's row (status.login).
            self._auth = replace(settings.auth, on_pending=self._login_pending)
        for spec in specs:
            self.add(spec)

    def _login_pending(self, name: str, prompt: LoginPrompt | None) -> None:
        status = self.catalogue.servers.get(name)
        if status is not None:
            status.login = prompt
            self.listener.statuses_changed()
        life = self._lives.get(name)
        if life is not None and life.listing_stop is not None:
            life.listing_stop.hold(prompt is not None)  # the listing's wall time waits with the user
        told = self.settings.auth.on_pending if self.settings.auth is not None else None
        if told is not None:
            told(name, prompt)

    # ------------------------------------------------------------------------------------------ servers

    def add(self, spec: ServerSpec) -> ServerStatus:
        """A server to show; `run(spec.name)` connects it."""
        status = self.catalogue.add_server(spec)
        name = spec.name
        lists = PacedRuns(self.settings.pacer, lambda _kind: self._tell_keeps_changing(name))
        self._lives[name] = _Life(pacer=self.settings.pacer(), lists=lists)
        return status

    def remove(self, name: str) -> None:
        """Forget a server (its `run` must have been cancelled): its entries leave the tree."""
        self.catalogue.tree.remove_server(name)
        self.catalogue.servers.pop(name, None)
        self._lives.pop(name, None)
        self.pinned = {p for p in self.pinned if p[0] != name}

    @property
    def names(self) -> list[str]:
        return list(self.catalogue.servers)

    def connection(self, name: str) -> ServerConnection | None:
        life = self._lives.get(name)
        return life.conn if life is not None else None

    def is_connected(self, name: str) -> bool:
        return self.connection(name) is not None

    def live_connections(self) -> LiveConnections:
        """The connections as a mapping looked up at each use, for views that outlive a reconnect."""
        return LiveConnections(self)

    def serving(self, servers: Iterable[str]) -> str | None:
        """Which of `servers` should answer for a node: the first connected one in the bar's order, else
        the first one (which then reports that it is not connected)."""
        wanted = set(servers)
        ordered = [name for name in self.catalogue.servers if name in wanted]
        live = [name for name in ordered if self.is_connected(name)]
        chosen = live or ordered
        return chosen[0] if chosen else None

    def voice(self, name: str) -> list[LogEntry | Progress]:
        life = self._lives.get(name)
        return list(life.voice) if life is not None else []

    def unfollowed_updates(self, name: str) -> int:
        """How many `resources/updated` the server sent for resources neither followed nor previewed."""
        life = self._lives.get(name)
        return life.unfollowed_updates if life is not None else 0

    # ------------------------------------------------------------------------------------------ a life

    async def run(self, name: str) -> None:
        """Connect, list and hold one server until cancelled; failures end in its status, never raise."""
        status = self.catalogue.servers[name]
        life = self._lives[name]
        life.runs += 1
        run = life.runs

        def superseded() -> bool:
            """A reconnect started a newer run (or the server was removed) while this one closed: its
            connection, group and status are that run's now. The old close can take seconds (a server
            that does not stop at stdin EOF), and clearing them made the new connection unusable."""
            return life.runs != run or self._lives.get(name) is not life

        self.catalogue.reset(name)
        self.listener.statuses_changed()
        settings = self.settings
        from explorer.connection.session import ServerConnection
        from explorer.connection.stderr_log import stderr_log_for

        conn = ServerConnection(
            status.spec,
            protocol=settings.protocol,
            timeout=settings.timeout,
            stderr_log=stderr_log_for(status.spec),
            on_news=lambda news: self._news(name, news),
            log_level=settings.log_level,
            wire=settings.wire,
            auth=self._auth,
        )
        lost: ServerFault | None = None
        try:
            async with conn:
                assert conn.identity is not None
                life.conn = conn
                self.catalogue.connected(name, conn.identity)
                self.listener.statuses_changed()
                # A log we could not write (a read-only home) is said once, beside how it connected.
                self.listener.server_connected(name, [*conn.notes, *take_log_warnings()])
                async with anyio.create_task_group() as group:
                    life.group = group
                    self.start_listing(name, refresh=status.listing is not None)
                    life.told_preview_follow = False
                    for uri in [uri for server, uri in self.pinned if server == name]:
                        group.start_soon(self._follow_pinned, name, conn, uri)
                    await conn.lost.wait()
                    lost = await conn.loss_fault()
                    group.cancel_scope.cancel()
        except ServerFault as fault:
            if not superseded():
                self._failed(name, conn, fault)
        except Exception as exc:  # an unclassified failure is still that server's failure only
            if not superseded():
                self._failed(name, conn, describe_exception(exc, action="talking to the server"))
        finally:
            if not superseded():
                life.conn = None
                life.group = None
                life.listing_scope = None
                if status.login is not None:
                    status.login = None
                    self.listener.statuses_changed()
        if lost is not None and not superseded():
            self._failed(name, conn, lost)

    def _failed(self, name: str, conn: ServerConnection, fault: ServerFault) -> None:
        status = self.catalogue.servers.get(name)
        if status is None:
            return
        message = redact(fault.message, status.spec)
        tail = redact(conn.stderr_tail(), status.spec)
        if (fault.code is None or fault.connection_closed) and not quotes_stderr(message):
            clause = stderr_clause(tail)  # a server's own error -32000 is not explained by its stderr
            message = f"{message}; {clause}" if clause else message
        self.catalogue.failed(name, message, fault.code, fault.data, tail, local=fault.local)
        self.listener.statuses_changed()
        self.listener.server_failed(name, message)

    # ------------------------------------------------------------------------------------------ listing

    def start_listing(self, name: str, *, refresh: bool) -> bool:
        """List (or refresh, or continue) one server; a running listing of it is cancelled. False when
        the server is not connected."""
        life = self._lives.get(name)
        if life is None or life.group is None or life.conn is None:
            return False
        if life.listing_scope is not None:
            life.listing_scope.cancel()
        life.prefixes.clear()  # a new listing: what was listed by prefix is asked again when needed
        scope = anyio.CancelScope()
        life.listing_scope = scope
        life.group.start_soon(self._listing, name, refresh, scope)
        return True

    async def _listing(self, name: str, refresh: bool, scope: anyio.CancelScope) -> None:
        life = self._lives[name]
        conn = life.conn
        if conn is None:
            return
        from explorer.connection.discovery import ListingStop, list_server

        stop = ListingStop()
        if self.catalogue.servers[name].login is not None:
            stop.hold(True)
        life.listing_stop = stop
        with scope:
            listing = self.catalogue.begin_listing(name, refresh=refresh)
            self.listener.statuses_changed()
            pace = self.input_first.gate
            bounds = self.settings.bounds
            result = await list_server(conn, bounds, self._on_page, listing=listing, stop=stop, pace=pace)
            status = self.catalogue.servers[name]
            was_refresh = status.refreshing
            self.catalogue.finish_listing(name, result)
            if result.error is not None:
                status.stderr_tail = redact(conn.stderr_tail(), status.spec)
                status.error_data = None
            self.listener.listing_finished(name, result, was_refresh)
            self.listener.tree_changed()
            self.listener.statuses_changed()
        if life.listing_scope is scope:
            life.listing_scope = None
            life.listing_stop = None

    def _on_page(self, page: Page) -> Awaitable[None] | None:
        if len(page.resources) > PAGE_SLICE:
            return self._merge_in_slices(page)
        self.catalogue.add_page(page)
        after_ingest()
        self.listener.tree_changed()
        return self.input_first.gate()  # the next page waits a frame if the user pressed a key meanwhile

    async def _merge_in_slices(self, page: Page) -> None:
        """A big page merged `PAGE_SLICE` resources at a time, the event loop free between slices (for a
        frame when a key came meanwhile): a key pressed while a page of 1,000 children of one node merged
        waited for all of it (4 ms at the median, 14 ms at worst measured at 10^5), now for one slice.
        The page is merged whole even if the listing is stopped halfway: the listing counts it."""
        with anyio.CancelScope(shield=True):
            for _ in self.catalogue.add_page_in_slices(page, PAGE_SLICE):
                pause = self.input_first.gate()
                await (pause if pause is not None else anyio.lowlevel.checkpoint())
        after_ingest()
        self.listener.tree_changed()
        pause = self.input_first.gate()
        if pause is not None:
            await pause

    def stop_listing(self, name: str) -> bool:
        """Stop the server's running listing early: what arrived stays, marked incomplete (resumable with
        `continue_listing`). False when no listing of it runs."""
        life = self._lives.get(name)
        if life is None or life.listing_stop is None or life.listing_scope is None:
            return False
        life.listing_stop.stop()
        return True

    def progress(self, name: str) -> ListingProgress | None:
        """Where the server's listing stands (the running one, else the last): pages, items, rate, bound."""
        status = self.catalogue.servers.get(name)
        if status is None:
            return None
        listing = status.pending if status.pending is not None else status.listing
        return listing.progress(self.settings.bounds) if listing is not None else None

    def list_prefix(self, name: str, prefix: str) -> bool:
        """List what is under `prefix` on a server whose listing stopped at a bound (SEP-1269's `prefix`
        on every page, filtered on this side too), merging it into the tree: a server too big to list
        whole is browsed a subtree at a time. False when there is nothing to do: the server's listing is
        complete or still running, or the prefix (or one above it) was listed to its end already."""
        life = self._lives.get(name)
        status = self.catalogue.servers.get(name)
        if life is None or life.group is None or life.conn is None or status is None:
            return False
        if status.state != "incomplete" or status.busy or not prefix:
            return False
        for listed, done in life.prefixes.items():
            if listed == prefix or (done is not None and done.complete and prefix.startswith(listed)):
                return False
        life.prefixes[prefix] = None
        life.group.start_soon(self._prefix_listing, name, prefix)
        return True

    async def _prefix_listing(self, name: str, prefix: str) -> None:
        life = self._lives[name]
        conn = life.conn
        if conn is None:
            return
        from explorer.connection.discovery import list_server

        def merge(page: Page) -> Awaitable[None] | None:
            if self.catalogue.add_prefix_page(page):
                self.listener.tree_changed()
            return self.input_first.gate()

        kinds: tuple[Kind, ...] = ("templates", "resources")
        result = await list_server(
            conn, self.settings.bounds, merge, kinds=kinds, prefix=prefix, pace=self.input_first.gate
        )
        life.prefixes[prefix] = result
        self.listener.prefix_listed(name, prefix, result)
        self.listener.tree_changed()

    def refresh(self, name: str) -> bool:
        status = self.catalogue.servers.get(name)
        if status is None or status.busy:
            return False
        return self.start_listing(name, refresh=True)

    def continue_listing(self, name: str) -> bool:
        status = self.catalogue.servers.get(name)
        if status is None or status.state != "incomplete":
            return False
        return self.start_listing(name, refresh=False)

    async def _refresh_kind(self, name: str, kind: Kind) -> None:
        """List one small list (prompts or tools) again and swap it in when complete.

        A listing running now may have listed this kind before the change: the re-list waits until it
        is swapped into a listing nothing will overwrite (`_settled_for`), else the change was lost.
        """
        # A listing ends in several ways (done, failed, cancelled by a new one): none sets an event.
        while (status := self.catalogue.servers.get(name)) is not None and not _settled_for(status, kind):  # noqa: ASYNC110
            await anyio.sleep(_BUSY_POLL)
        conn = self.connection(name)
        if conn is None or status is None or status.listing is None:
            return
        from explorer.connection.discovery import list_server

        empty = Listing(server=name)
        pace = self.input_first.gate
        self.listener.list_changing(name, kind)
        fresh = await list_server(conn, self.settings.bounds, listing=empty, kinds=(kind,), pace=pace)
        if fresh.state[kind].complete and status.listing is not None:
            if kind == "prompts":
                status.listing.prompts = fresh.prompts
            elif kind == "tools":
                status.listing.tools = fresh.tools
            status.listing.state[kind] = fresh.state[kind]
        self.listener.list_changed(name, kind, fresh)
        self.listener.statuses_changed()

    # ------------------------------------------------------------------------------------------ news

    def _news(self, name: str, news: News) -> None:
        life = self._lives.get(name)
        if life is None:
            return
        if isinstance(news, ResourceChanged):
            uri = news.uri
            key = (name, uri)
            if not self._follows(life, key):
                life.unfollowed_updates += 1  # counted only: no mark, no job, nothing kept per URI
                return
            self.changed.add(key)
            if life.group is not None:

                async def reread() -> None:
                    await self.listener.resource_changed(name, uri)

                self._coalescer.trigger(key, reread, _spawner(life.group))
        elif isinstance(news, ListChanged):
            if news.kind == "resources":
                self._schedule_refresh(name, life)
            elif life.group is not None:
                kind = news.kind
                life.lists.trigger(kind, lambda: self._refresh_kind(name, kind), _spawner(life.group))
        elif isinstance(news, FollowTrouble):
            self.pinned = {p for p in self.pinned if p[0] != name}  # none of its marks would be true
            self.listener.follow_failed(name, None, news.message)
        else:
            said = labelled(news, issued_tokens(life.conn)) if isinstance(news, Progress) else news
            life.voice.append(said)
            self.listener.server_voice(name, said)

    def _follows(self, life: _Life, key: tuple[str, str]) -> bool:
        """Whether the resource `key` is followed (pinned, subscribed) or previewed: its updates matter."""
        if key in self.pinned or key == self.previewed:
            return True
        return life.conn is not None and key[1] in life.conn.follower.following

    def _tell_keeps_changing(self, name: str) -> None:
        life = self._lives.get(name)
        if life is not None and not life.told_keeps_changing:
            life.told_keeps_changing = True
            self.listener.keeps_changing(name)

    def _schedule_refresh(self, name: str, life: _Life) -> None:
        if life.refresh_scheduled or life.group is None:
            return
        delay = life.pacer.delay()
        if life.pacer.keeps_changing and not life.told_keeps_changing:
            life.told_keeps_changing = True
            self.listener.keeps_changing(name)
        elif not life.pacer.keeps_changing:
            life.told_keeps_changing = False
        life.refresh_scheduled = True

        async def later() -> None:
            await anyio.sleep(delay)
            life.refresh_scheduled = False
            status = self.catalogue.servers.get(name)
            if status is None:
                return
            if status.busy:
                self._schedule_refresh(name, life)  # again once the running listing is done
                return
            life.pacer.refreshed()
            self.start_listing(name, refresh=True)

        life.group.start_soon(later)

    def keeps_changing(self, name: str) -> bool:
        life = self._lives.get(name)
        if life is None:
            return False
        return life.pacer.keeps_changing or any(
            life.lists.keeps_changing(kind) for kind in ("prompts", "tools")
        )

    # ------------------------------------------------------------------------------------------ reads

    async def read(self, name: str, uri: str) -> dict[str, object]:
        """resources/read on `name` (raises ServerFault, also when it is not connected)."""
        conn = self.connection(name)
        if conn is None:
            raise ServerFault(f"server {name} is not connected (press e, then r to reconnect)")
        result = await conn.read_resource(uri)
        self.changed.discard((name, uri))
        return result

    async def preview(self, name: str, uri: str) -> None:
        """Follow `uri` while it is previewed; the previous preview is left unless pinned."""
        previous, self.previewed = self.previewed, (name, uri)
        if previous is not None and previous != (name, uri) and previous not in self.pinned:
            conn = self.connection(previous[0])
            if conn is not None:
                await conn.unfollow(previous[1])
        conn = self.connection(name)
        if conn is None or not conn.follower.can_follow() or await conn.follow(uri):
            return
        if self.previewed != (name, uri):
            return  # the user moved on while it waited: nothing to say of this one
        life = self._lives.get(name)
        if life is not None and not life.told_preview_follow:  # said once a run, not at every preview
            life.told_preview_follow = True
            self.listener.follow_failed(name, uri, self._follow_problem(conn))

    async def toggle_pin(self, name: str, uri: str) -> PinOutcome:
        """Pin (or unpin) a subscription on any resource. "following": pinned now (the server agreed);
        "stopped": unpinned; "failed": the server would not follow it (the listener was told why);
        "withdrawn": unpinned again by the user while the server was asked (nothing to say)."""
        key = (name, uri)
        conn = self.connection(name)
        if key in self.pinned:
            self.pinned.discard(key)
            if conn is not None and self.previewed != key:
                await conn.unfollow(uri)
            return "stopped"
        self.pinned.add(key)
        followed = conn is None or await conn.follow(uri)
        if key not in self.pinned:
            return "withdrawn"
        if not followed and conn is not None:
            self.pinned.discard(key)
            self.listener.follow_failed(name, uri, self._follow_problem(conn))
            return "failed"
        return "following"

    async def _follow_pinned(self, name: str, conn: ServerConnection, uri: str) -> None:
        """Follow a pinned resource again after a (re)connect; a refusal unpins it and is said."""
        if await conn.follow(uri) or (name, uri) not in self.pinned:
            return
        self.pinned.discard((name, uri))
        self.listener.follow_failed(name, uri, self._follow_problem(conn))

    @staticmethod
    def _follow_problem(conn: ServerConnection) -> str:
        return conn.follower.problem or "the server does not offer resource subscriptions"

    async def set_log_level(self, name: str, level: str) -> str | None:
        """Change one server's log level; returns why it could not, or None."""
        conn = self.connection(name)
        if conn is None:
            return f"server {name} is not connected"
        return await conn.set_log_level(level)


def _settled_for(status: ServerStatus, kind: Kind) -> bool:
    """Whether a fresh list of `kind` can be swapped in now: no listing runs, or the first listing (the
    one shown, filled as it goes) is past that kind. A refresh's result replaces the listing shown when it
    ends, with what it listed of `kind` before the change: wait for it."""
    if not status.busy:
        return True
    if status.state == "connecting" or status.refreshing or status.listing is None:
        return False
    return status.listing.state[kind].done


def _spawner(group: anyio.abc.TaskGroup) -> Spawn:
    """The pacing helpers' way to start a job: as a task of the server's group."""

    def spawn(job: Callable[[], Awaitable[None]]) -> None:
        async def run_job() -> None:
            await job()

        group.start_soon(run_job)

    return spawn


class LiveConnections(Mapping[str, "ServerConnection"]):
    """The supervisor's connections as a mapping looked up at each use (a reconnect is seen at once)."""

    def __init__(self, supervisor: Supervisor) -> None:
        self._supervisor = supervisor

    def __getitem__(self, name: str) -> ServerConnection:
        conn = self._supervisor.connection(name)
        if conn is None:
            raise KeyError(name)
        return conn

    def __iter__(self) -> Iterator[str]:
        return iter([name for name in self._supervisor.names if self._supervisor.is_connected(name)])

    def __len__(self) -> int:
        return sum(1 for _ in self)
