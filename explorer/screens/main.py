"""The main screen, and the controller: connection and listing workers, selection, reads.

Each server has one long-lived connection worker (group `conn-<name>`) holding its
`ServerConnection`; listing runs in `list-<name>`, reads in the exclusive `preview` group. Pages are
merged into the catalogue as they arrive and the tree is told at most every 50 ms, so a big
server never floods the paint path. One server's failure only changes that server's status.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Any, ClassVar

import anyio
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Input

from explorer.completion import Completer
from explorer.config import ListingBounds, ServerSpec, redact
from explorer.connection.discovery import Page, list_server
from explorer.connection.errors import ServerFault
from explorer.connection.session import ProtocolMode, ServerConnection
from explorer.model.catalogue import Catalogue, ServerStatus
from explorer.model.contents import classify
from explorer.model.copy_as import jsonrpc_read, read_command, uri_for_clipboard
from explorer.model.uri_tree import PatternNode, UriNode
from explorer.paths import server_log_path
from explorer.sanitize import sanitize_line
from explorer.screens.copy_as import CopyAsDialog
from explorer.screens.error_dialog import ErrorDialog
from explorer.screens.goto import GoToDialog, GoToTarget
from explorer.screens.prompts import PromptsScreen
from explorer.screens.template_form import TemplateFormResult, TemplateFormScreen
from explorer.widgets.detail import DetailPane
from explorer.widgets.preview import ContentPreview
from explorer.widgets.resource_tree import ResourceTree
from explorer.widgets.server_bar import ServerBar

PREVIEW_CAP = 1_000_000
TREE_FLUSH_SECONDS = 0.05
LIST_CHANGED_DEBOUNCE = 0.5


class MainScreen(Screen[None]):
    """Servers on top, the merged URI tree on the left, details and the preview on the right."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "filter", "Filter", id="main.filter"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="main.clear_filter"),
        Binding("g", "goto", "Go to URI", id="main.goto"),
        Binding("c", "copy_uri", "Copy URI", id="main.copy_uri"),
        Binding("y", "copy_as", "Copy as", show=False, id="main.copy_as"),
        Binding("r", "refresh", "Refresh", id="main.refresh"),
        Binding("m", "continue_listing", "More", show=False, id="main.continue_listing"),
        Binding("e", "show_error", "Errors", show=False, id="main.show_error"),
        Binding("v", "toggle_auto_preview", "Auto-preview", show=False, id="main.auto_preview"),
        Binding("p", "prompts", "Prompts", show=False, id="main.prompts"),
    ]
    HELP = """
## mcp-url-explorer
Every server's resources and templates as one URI-prefix tree.

- `enter` reads the highlighted resource (never on mere highlight, unless `v` turns auto-preview on);
  on a template it opens a form to fill its variables (with suggestions) and read the URI.
- `right` on a template drills into it: the server's completions for its first variable appear as
  rows; each fixes a value and drills on until the URI is concrete, then `enter` reads it.
- `/` filters the tree as you type; `escape` clears it. `g` goes to a URI (typed or pasted).
- `p` lists the prompts of every server; fill one's arguments and get its messages there.
- `c` copies the highlighted URI; `y` copies it as the JSON-RPC request or the command line.
- `r` refreshes every listing (the old one stays until the new one is complete), `m` continues an
  incomplete listing, `e` shows a failed server's error.
- `ctrl+p` opens the command palette, `?` this help, `q` quits.
"""

    def __init__(
        self,
        specs: list[ServerSpec],
        *,
        protocol: ProtocolMode,
        timeout: float,
        bounds: ListingBounds,
        auto_preview: bool = False,
    ) -> None:
        super().__init__()
        self.catalogue = Catalogue()
        for spec in specs:
            self.catalogue.add_server(spec)
        self.protocol: ProtocolMode = protocol
        self.timeout = timeout
        self.bounds = bounds
        self.auto_preview = auto_preview
        self.connections: dict[str, ServerConnection] = {}
        self._flush_timer: Timer | None = None
        self._flushed_once = False
        self._changed_servers: set[str] = set()
        self._change_timer: Timer | None = None
        self._previewing: tuple[str, str] | None = None  # (server, uri)
        self._problems_told: dict[str, str] = {}  # per server: the protocol junk last notified

    # ------------------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield ServerBar(id="servers")
        with Horizontal(id="panes"):
            with Vertical(id="left"):
                yield Input(placeholder="Filter: URI prefix or text", id="filter")
                yield ResourceTree(self.catalogue.tree, id="tree")
            with Vertical(id="right"):
                yield DetailPane(id="detail")
                yield ContentPreview(id="preview")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#filter", Input).display = False
        self.query_one(ResourceTree).focus()
        self._statuses_changed()
        for status in self.catalogue.servers.values():
            self.connect(status.name)

    async def on_unmount(self) -> None:
        """Close every connection before the loop ends, so no server process outlives the app."""
        workers = [w for w in self.workers if w.group.startswith("conn-")]
        for worker in workers:
            worker.cancel()
        with anyio.move_on_after(3):
            for worker in workers:
                with contextlib.suppress(Exception):
                    await worker.wait()

    @property
    def tree_widget(self) -> ResourceTree:
        return self.query_one(ResourceTree)

    # ------------------------------------------------------------------------------ connections
    def connect(self, name: str) -> None:
        """(Re)connect one server; an earlier connection worker of that server is cancelled."""
        self.run_worker(
            self._connection(name),
            group=f"conn-{name}",
            exclusive=True,
            exit_on_error=False,
            name=f"conn-{name}",
        )

    async def _connection(self, name: str) -> None:
        status = self.catalogue.servers[name]
        spec = status.spec
        self.catalogue.reset(name)
        self._statuses_changed()
        conn = ServerConnection(
            spec,
            protocol=self.protocol,
            timeout=self.timeout,
            stderr_log=server_log_path(name) if spec.transport == "stdio" else None,
            message_handler=self._notification_handler(name),
        )
        try:
            async with conn:
                assert conn.identity is not None
                self.connections[name] = conn
                self.catalogue.connected(name, conn.identity)
                self._statuses_changed()
                self.start_listing(name, refresh=status.listing is not None)
                await self._hold(name, conn)  # until cancelled (reconnect, quit)
        except ServerFault as fault:
            self._server_failed(name, fault, conn.stderr_tail())
        except Exception as exc:  # an unclassified failure is still that server's failure only
            self._server_failed(name, ServerFault(f"unexpected error: {exc}"), conn.stderr_tail())
        finally:
            if self.connections.get(name) is conn:
                del self.connections[name]

    async def _hold(self, name: str, conn: ServerConnection) -> None:
        """Keep the connection open; in the modern era also listen for list changes.

        A 2026-07-28 server sends list_changed only on a `subscriptions/listen` stream, not as a
        plain notification; without it the tree would never learn that a list changed. A server
        that refuses to listen (or drops the stream) just means no live refresh, never a failure.
        """
        identity = conn.identity
        resources = identity.capabilities.get("resources") if identity is not None else None
        listens = isinstance(resources, dict) and bool(resources.get("listChanged"))
        if identity is not None and identity.era == "modern" and listens:
            from mcp.client.subscriptions import ResourcesListChanged

            with contextlib.suppress(Exception):
                async with conn.client.listen(resources_list_changed=True) as subscription:
                    async for event in subscription:
                        if isinstance(event, ResourcesListChanged):
                            self._list_changed(name)
        await anyio.Event().wait()

    def _server_failed(self, name: str, fault: ServerFault, stderr_tail: str) -> None:
        spec = self.catalogue.servers[name].spec
        message = redact(fault.message, spec)
        self.catalogue.failed(name, message, fault.code, fault.data, stderr_tail)
        self._statuses_changed()
        self.notify(
            f"{sanitize_line(name, 40)}: {sanitize_line(message, 200)} (press e for details)",
            severity="error",
            markup=False,
        )

    def _notification_handler(self, name: str) -> Any:
        async def handle(message: object) -> None:
            method = getattr(message, "method", None)
            if method == "notifications/resources/list_changed":
                self._list_changed(name)
            elif method == "notifications/resources/updated":
                params = getattr(message, "params", None)
                uri = getattr(params, "uri", None)
                if isinstance(uri, str) and self._previewing == (name, uri):
                    self.read(name, uri)

        return handle

    def _list_changed(self, name: str) -> None:
        """Coalesce list_changed storms: one refresh per server per half second at most."""
        self._changed_servers.add(name)
        if self._change_timer is None:
            self._change_timer = self.set_timer(LIST_CHANGED_DEBOUNCE, self._refresh_changed)

    def _refresh_changed(self) -> None:
        self._change_timer = None
        changed, self._changed_servers = self._changed_servers, set()
        for name in changed:
            status = self.catalogue.servers[name]
            if status.busy:
                self._list_changed(name)  # try again once the running listing is done
            elif name in self.connections:
                self.start_listing(name, refresh=True)

    # ------------------------------------------------------------------------------ listing
    def start_listing(self, name: str, *, refresh: bool) -> None:
        self.run_worker(
            self._listing(name, refresh),
            group=f"list-{name}",
            exclusive=True,
            exit_on_error=False,
            name=f"list-{name}",
        )

    async def _listing(self, name: str, refresh: bool) -> None:
        conn = self.connections.get(name)
        if conn is None:
            return
        listing = self.catalogue.begin_listing(name, refresh=refresh)
        self._statuses_changed()
        result = await list_server(conn, self.bounds, self._on_page, listing=listing)
        status = self.catalogue.servers[name]
        was_refresh = status.refreshing
        self.catalogue.finish_listing(name, result)
        if result.error is not None:
            status.stderr_tail = conn.stderr_tail()
            status.error_data = None
            kept = " (kept the last good listing)" if was_refresh else ""
            self.notify(
                f"{sanitize_line(name, 40)}: {sanitize_line(redact(result.error, status.spec), 200)}{kept}",
                severity="error",
                markup=False,
            )
        elif result.stopped_by is not None:
            self.notify(
                f"{sanitize_line(name, 40)}: stopped at the {result.stopped_by} bound; press m for more",
                severity="warning",
                markup=False,
            )
        self._tell_problems(name, conn)
        self._flush_tree()

    def _tell_problems(self, name: str, conn: ServerConnection) -> None:
        """Junk a server wrote between its messages was ignored; say so once (it explains odd gaps)."""
        problems = conn.problems.describe()
        if problems is not None and self._problems_told.get(name) != problems:
            self._problems_told[name] = problems
            self.notify(
                f"{sanitize_line(name, 40)} {sanitize_line(problems, 200)}; ignored them",
                severity="warning",
                markup=False,
            )

    def _on_page(self, page: Page) -> None:
        if self.catalogue.add_page(page):
            if not self._flushed_once:
                self._flush_tree()  # the first page shows at once
            elif self._flush_timer is None:
                self._flush_timer = self.set_timer(TREE_FLUSH_SECONDS, self._flush_tree)
        elif self._flush_timer is None:
            self._flush_timer = self.set_timer(TREE_FLUSH_SECONDS, self._flush_tree)

    def _flush_tree(self) -> None:
        self._flush_timer = None
        self._flushed_once = True
        tree = self.tree_widget
        tree.show_servers = len(self.catalogue.servers) > 1
        tree.incomplete_servers = {
            s.name for s in self.catalogue.servers.values() if s.state in ("incomplete", "failed", "listing")
        }
        tree.model_changed()
        self._statuses_changed()

    def _statuses_changed(self) -> None:
        self.query_one(ServerBar).update_statuses(list(self.catalogue.servers.values()))

    # ------------------------------------------------------------------------------ selection and reads
    @on(ResourceTree.NodeHighlighted)
    def _highlighted(self, event: ResourceTree.NodeHighlighted) -> None:
        self.query_one(DetailPane).show_node(self.catalogue.tree, event.node)
        if self.auto_preview and isinstance(event.node, UriNode) and event.node.resources:
            self._read_node(event.node)

    @on(ResourceTree.NodeSelected)
    def _selected(self, event: ResourceTree.NodeSelected) -> None:
        node = event.node
        if isinstance(node, PatternNode):
            self.fill_template(node)
        elif node.resources:
            self._read_node(node)

    def fill_template(self, node: PatternNode) -> None:
        """Open the form of a template (of the first connected server that lists it); submit reads it."""
        servers = [s for s in self.catalogue.servers if s in node.templates]
        live = [s for s in servers if s in self.connections] or servers
        if not live:
            return
        entry = node.templates[live[0]]
        completer = Completer(self.connections.get(live[0]))
        self.app.push_screen(TemplateFormScreen(entry, completer), self._template_filled)

    def action_fill_template(self) -> None:
        node = self.tree_widget.cursor_node
        if isinstance(node, PatternNode):
            self.fill_template(node)
        else:
            self.notify("Highlight a template (a {…} row) first, or press g to go to a URI.", markup=False)

    def _template_filled(self, result: TemplateFormResult | None) -> None:
        if result is not None:
            self.read(result.server, result.uri)

    @on(ResourceTree.DrillRequested)
    def _drill_requested(self, event: ResourceTree.DrillRequested) -> None:
        self.run_worker(self._drill(event), group="drill", exit_on_error=False)

    async def _drill(self, event: ResourceTree.DrillRequested) -> None:
        """Completion for a drilled template variable (on a connected server of it), shown in the tree."""
        drill = event.drill
        if drill.server not in self.connections:
            live = [s for s in self.catalogue.servers if s in event.node.templates and s in self.connections]
            drill = drill.on_server(live[0]) if live else drill
        variable = drill.next_variable
        if variable is None:
            return
        completer = Completer(self.connections.get(drill.server))
        found = await completer.template(drill.template, variable, drill.typed, drill.context())
        self.tree_widget.set_drill_children(
            event.node, drill, found.values, found.reason, total=found.total, has_more=found.has_more
        )

    @on(ResourceTree.DrillSelected)
    def _drill_selected(self, event: ResourceTree.DrillSelected) -> None:
        self.read(event.drill.server, event.drill.uri)

    def action_prompts(self) -> None:
        """The prompts of every server; an embedded resource opened there is selected in the tree."""
        failures = {s.name: s.error or "failed" for s in self.catalogue.servers.values() if s.error}
        screen = PromptsScreen(self.connections, list(self.catalogue.servers), failures)
        self.app.push_screen(screen, self._prompts_closed)

    def _prompts_closed(self, uri: str | None) -> None:
        if uri is None:
            return
        if self.tree_widget.select_prefix(uri):
            node = self.catalogue.tree.node_for(uri)
            if node is not None and node.resources and node.prefix == uri:
                self._read_node(node)
        else:
            self.app.push_screen(GoToDialog(self.catalogue.tree, uri), self._go_to)

    def _read_node(self, node: UriNode) -> None:
        servers = [s for s in self.catalogue.servers if s in node.resources]
        live = [s for s in servers if s in self.connections] or servers
        if live:
            self.read(live[0], next(iter(node.resources.values())).uri)

    def read(self, server: str, uri: str, *, cap: int | None = PREVIEW_CAP) -> None:
        """Read `uri` on `server` into the preview; a newer read cancels an older one."""
        self.query_one(ContentPreview).show_loading(uri)
        self._previewing = (server, uri)
        self.run_worker(self._read(server, uri, cap), group="preview", exclusive=True, exit_on_error=False)

    async def _read(self, server: str, uri: str, cap: int | None) -> None:
        preview = self.query_one(ContentPreview)
        conn = self.connections.get(server)
        if conn is None:
            preview.show_error(uri, f"server {sanitize_line(server, 40)} is not connected (press e, then r)")
            return
        try:
            raw = await conn.read_resource(uri)
        except ServerFault as fault:
            preview.show_error(uri, redact(fault.message, conn.spec), fault.code)
            return
        preview.show_contents(uri, classify(raw, cap=cap), server=server)
        self._subscribe(conn, uri)

    def _subscribe(self, conn: ServerConnection, uri: str) -> None:
        """Follow changes of the previewed resource where the server supports subscriptions."""
        identity = conn.identity
        resources = identity.capabilities.get("resources") if identity is not None else None
        if identity is None or identity.era != "handshake" or not isinstance(resources, dict):
            return
        if not resources.get("subscribe"):
            return

        async def subscribe() -> None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with contextlib.suppress(Exception):
                    await conn.client.subscribe_resource(uri)

        self.run_worker(subscribe(), group="subscribe", exit_on_error=False)

    @on(ContentPreview.LoadAllRequested)
    def _load_all(self, event: ContentPreview.LoadAllRequested) -> None:
        if self._previewing is not None and self._previewing[1] == event.uri:
            self.read(self._previewing[0], event.uri, cap=None)

    def _go_to(self, target: GoToTarget | None) -> None:
        if target is None:
            return
        tree = self.tree_widget
        if target.template is None:
            tree.select_prefix(target.prefix)
            node = self.catalogue.tree.node_for(target.prefix)
            if node is not None and node.resources and node.prefix == target.uri:
                self._read_node(node)
            return
        tree.select_prefix(target.prefix)
        if target.values is not None and target.server is not None:
            self.read(target.server, target.uri)

    # ------------------------------------------------------------------------------ actions
    def action_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.display = True
        box.focus()

    def action_clear_filter(self) -> None:
        box = self.query_one("#filter", Input)
        if box.display:
            box.value = ""
            box.display = False
            self.tree_widget.set_filter("")
            self.tree_widget.focus()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.tree_widget.set_filter(event.value)

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self) -> None:
        self.tree_widget.focus()

    def action_goto(self) -> None:
        self.app.push_screen(GoToDialog(self.catalogue.tree), self._go_to)

    def highlighted_uri(self) -> str | None:
        drill = self.tree_widget.cursor_drill
        if drill is not None and drill.is_concrete:
            return drill.uri
        node = self.tree_widget.cursor_node
        if isinstance(node, PatternNode):
            return node.uri_template
        if node.resources:
            return next(iter(node.resources.values())).uri
        return node.prefix or None

    def action_copy_uri(self) -> None:
        uri = self.highlighted_uri()
        if uri is None:
            self.notify("Nothing to copy.", severity="warning")
            return
        clip = uri_for_clipboard(uri)  # a control character pasted into a terminal would act
        self.app.copy_to_clipboard(clip.text)
        self.notify(f"Copied {sanitize_line(clip.text, 200)}{clip.notice()}", markup=False)

    def action_copy_as(self) -> None:
        """URI, JSON-RPC request or command line for the previewed resource, else the highlighted one."""
        target = self._previewing
        drill = self.tree_widget.cursor_drill
        if target is None and drill is not None and drill.is_concrete:
            target = (drill.server, drill.uri)
        if target is None:
            node = self.tree_widget.cursor_node
            if isinstance(node, UriNode) and node.resources:
                entry = next(iter(node.resources.values()))
                target = (entry.server, entry.uri)
        if target is None:
            self.notify("Highlight or read a resource first.", severity="warning", markup=False)
            return
        server, uri = target
        spec = self.catalogue.servers[server].spec
        config = getattr(self.app, "config", None)
        source = config.source if config is not None else None
        in_config = config is not None and server in config.servers
        clip = uri_for_clipboard(uri)
        command = read_command(spec, uri, protocol=self.protocol, config_path=source, in_config=in_config)
        forms = [("URI", clip.text), ("JSON-RPC request", jsonrpc_read(uri)), ("Command line", command)]
        notes = {"URI": clip.notice().strip(" ()"), "Command line": clip.notice().strip(" ()")}

        def copy(text: str | None) -> None:
            if text is not None:
                self.app.copy_to_clipboard(text)
                notice = clip.notice() if text in (clip.text, command) else ""
                self.notify("Copied: " + sanitize_line(text, 120) + notice, markup=False)

        self.app.push_screen(CopyAsDialog(uri, forms, notes={k: v for k, v in notes.items() if v}), copy)

    def action_refresh(self) -> None:
        for name, status in self.catalogue.servers.items():
            if name in self.connections and not status.busy:
                self.start_listing(name, refresh=True)
            elif status.state == "failed":
                self.connect(name)
        self.notify("Refreshing; the current listing stays until the new one is complete.", markup=False)

    def action_continue_listing(self) -> None:
        pending = [
            s
            for s in self.catalogue.servers.values()
            if s.state == "incomplete" and s.name in self.connections
        ]
        if not pending:
            self.notify("No listing is incomplete.", markup=False)
        for status in pending:
            self.start_listing(status.name, refresh=False)

    def failed_servers(self) -> list[ServerStatus]:
        return [s for s in self.catalogue.servers.values() if s.error is not None]

    def action_show_error(self, name: str | None = None) -> None:
        failed = [s for s in self.failed_servers() if name is None or s.name == name]
        if not failed:
            self.notify("No server has failed.", markup=False)
            return
        status = failed[0]

        def after(result: str | None) -> None:
            if result == "reconnect":
                self.connect(status.name)

        self.app.push_screen(ErrorDialog(status), after)

    def action_toggle_auto_preview(self) -> None:
        self.auto_preview = not self.auto_preview
        self.notify(f"Auto-preview {'on' if self.auto_preview else 'off'}.", markup=False)
