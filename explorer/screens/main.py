"""The main screen, the view controller: servers on top, the merged tree, details and the preview.

It asks and is told: a `Supervisor` (Textual-free) owns every server's connection, listing and live
updates; the screen runs one worker per server (`conn-<name>`, so every connection dies with the app) and
turns keys into requests; what the supervisor tells it is turned into widgets by its `ScreenListener`
(`screens/main_listener.py`, which also throttles tree redraws). Reads run in the exclusive `preview`
group (a newer read cancels an older one); the previewed resource is followed while previewed, and a
change re-reads it and shows what changed.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import anyio
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Input

from explorer.auth.options import AuthOptions
from explorer.config import Config, ListingBounds, ServerSpec, redact, secrets_of
from explorer.config.found import FoundConfig
from explorer.connection.completion import Completer
from explorer.connection.errors import ServerFault
from explorer.connection.stdio import settle_server_stops
from explorer.connection.supervisor import Settings, Supervisor
from explorer.deferred import Deferred
from explorer.input_first import InputFirst
from explorer.model.allocator import BIG_MESSAGE_BYTES, give_back_freed_memory, read_result_size
from explorer.model.catalogue import Catalogue, ServerStatus
from explorer.model.contents import Content, classify
from explorer.model.contents.changes import Update, describe_update
from explorer.model.copy_as import uri_for_clipboard
from explorer.model.navigation import Place
from explorer.model.tree_filter import is_prefix_query
from explorer.model.uri_tree import PatternNode, UriNode
from explorer.sanitize import sanitize_line
from explorer.screens.adding_servers import ServerAdder
from explorer.screens.main_listener import ScreenListener
from explorer.screens.palette import ExplorerCommands, UriJumpCommands
from explorer.screens.places import Places
from explorer.widgets.detail import DetailPane
from explorer.widgets.filter_box import FilterBox
from explorer.widgets.key_bar import KeyBar
from explorer.widgets.key_display import shown_key
from explorer.widgets.preview import ContentPreview, ViewState
from explorer.widgets.resource_tree import ResourceTree
from explorer.widgets.server_bar import ServerBar
from explorer.widgets.server_labels import middle_cut

if TYPE_CHECKING:  # the dialogs and screens are imported when first opened: not on the way to the first frame
    from textual.await_complete import AwaitComplete

    from explorer.connection.session import ServerConnection
    from explorer.connection.wire import WireLog
    from explorer.model.identity import ProtocolMode
    from explorer.screens.goto import GoToTarget
    from explorer.screens.template_form import TemplateFormResult

PREVIEW_CAP = 1_000_000


_TRIM_AGAIN_AFTER = 0.5  # seconds after a big read, when nothing holds its message any more


FRAME_WRITE_GRACE = 0.005  # seconds the loop idles after the first frame before connecting starts


class MainScreen(Screen[None]):
    """Servers on top, the merged URI tree on the left, details and the preview on the right."""

    COMMANDS: ClassVar = Screen.COMMANDS | {ExplorerCommands, UriJumpCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "filter", "Filter", id="main.filter"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="main.clear_filter"),
        Binding("g", "goto", "Go to URI", id="main.goto"),
        Binding("c", "copy_uri", "Copy URI", id="main.copy_uri"),
        Binding("y", "copy_as", "Copy as", show=False, id="main.copy_as"),
        Binding("r", "refresh", "Refresh", id="main.refresh"),
        Binding("R", "reconnect", "Reconnect", show=False, id="main.reconnect"),
        Binding("m", "continue_listing", "More", show=False, id="main.continue_listing"),
        Binding("x", "stop_listing", "Stop listing", show=False, id="main.stop_listing"),
        Binding("e", "show_error", "Errors", show=False, id="main.show_error"),
        Binding("v", "toggle_auto_preview", "Auto-preview", show=False, id="main.auto_preview"),
        Binding("p", "prompts", "Prompts", show=False, id="main.prompts"),
        Binding("i", "server_overview", "Server info", show=False, id="main.server_overview"),
        Binding("s", "toggle_pin", "Follow", show=False, id="main.pin"),
        # `l` is the tree's vim key for expanding, so the log is on `L` (and in the palette).
        Binding("L", "protocol_log", "Protocol log", show=False, id="main.protocol_log"),
        Binding("alt+left,left_square_bracket", "back", "Back", show=False, id="main.back"),
        Binding("alt+right,right_square_bracket", "forward", "Forward", show=False, id="main.forward"),
        Binding("b", "bookmark", "Bookmark", show=False, id="main.bookmark"),
        Binding("n", "connect_server", "Connect", show=False, id="main.connect"),
        # The preview's own key, from anywhere on the screen: its notice says to press it, and the focus
        # is in the tree after a read. One id, so a keymap that moves the key moves both.
        Binding("a", "load_all", "Load all", show=False, id="preview.load_all"),
    ]
    # Hidden keys the key bar shows while the focus is in the preview, after the preview's own (`a`, `w`,
    # `s` for a markdown source, each where it acts): `s` Follow, there when the preview's `s` is not.
    PANE_KEYS: ClassVar[dict[str, frozenset[str]]] = {"preview": frozenset({"main.pin"})}
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
  incomplete listing, `x` stops the running ones early (what arrived stays, marked incomplete; the
  server bar shows each listing's pages, items, rate and bound, and `x` on a server's row stops that
  one), `e` shows a failed server's error, `R` reconnects failed servers.
- The previewed resource is followed while it is previewed (when the server offers subscriptions): a
  change re-reads it and shows what changed. `s` follows the highlighted resource until pressed again.
- `i` shows the overview of the highlighted node's server (identity, capabilities, instructions,
  counts, listing health, tools); so does selecting a server's row in the bar at the top.
- `[` / `]` (or `alt+left` / `alt+right`) go back and forward over the places visited and read;
  `b` bookmarks the highlighted node (kept per server between runs; listed in the palette).
- `L` shows the protocol log: every JSON-RPC frame of every server, filterable, exportable.
- `n` connects another server (URL or command line, headers, env, OAuth login); the palette removes one.
- `ctrl+p` opens the command palette, `?` (or `f1`, in a text field too) this help (the mouse wheel
  scrolls it, or `tab` into it and the arrows), `q` quits.
"""

    def __init__(
        self,
        specs: list[ServerSpec],
        *,
        protocol: ProtocolMode,
        timeout: float,
        bounds: ListingBounds,
        auto_preview: bool = False,
        found_configs: Sequence[FoundConfig] = (),
        wire: WireLog | None = None,
        auth: AuthOptions | None = None,
        config: Config | None = None,
        input_first: InputFirst | None = None,
    ) -> None:
        super().__init__()
        self.config = config  # where the servers came from (None: given on the command line)
        self.protocol: ProtocolMode = protocol
        self.events = ScreenListener(self)  # what the supervisor tells the screen
        self.supervisor = Supervisor(
            specs,
            Settings(protocol=protocol, timeout=timeout, bounds=bounds, wire=wire, auth=auth),
            listener=self.events,
            input_first=input_first,
        )
        self.adder = ServerAdder(self, found_configs)
        self.auto_preview = auto_preview
        self._previewing: tuple[str, str] | None = None  # (server, uri)
        self._versions: dict[tuple[str, str], int] = {}  # how many times a previewed resource was read
        self._last_text: dict[tuple[str, str], str | None] = {}
        # The view state a re-read of a followed resource will lay back on the preview once its new body is
        # mounted; a re-read arriving before then keeps the same one (the half-built body has none yet).
        self._kept_view: tuple[tuple[str, str], ViewState, object] | None = None  # (key, state, token)
        # After a go-to to a URI no node stands for (a template's URI), c, y and the details act on that
        # URI until the cursor moves on: the node the cursor was put on, and the target.
        self._target: tuple[UriNode | PatternNode, str, str] | None = None
        self._read_by_go_to: UriNode | PatternNode | None = None  # its highlight is not auto-previewed
        self._refocus_preview: tuple[str, str] | None = None  # a load-all asked from the preview: refocus it
        self.places = Places(self)  # back/forward and bookmarks

    @property
    def catalogue(self) -> Catalogue:
        return self.supervisor.catalogue

    @property
    def connections(self) -> dict[str, ServerConnection]:
        """The servers connected now (a snapshot)."""
        found = {name: self.supervisor.connection(name) for name in self.supervisor.names}
        return {name: conn for name, conn in found.items() if conn is not None}

    @property
    def found_configs(self) -> list[FoundConfig]:
        return self.adder.found_configs

    def open_config(self, client: str) -> None:
        self.adder.open_config(client)

    def add_servers(self, specs: Sequence[ServerSpec]) -> list[str]:
        return self.adder.add_servers(specs)

    # ------------------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield ServerBar(id="servers")
        with Horizontal(id="panes"):
            with Vertical(id="left"):
                yield FilterBox(placeholder="Filter: URI prefix or text", id="filter")
                yield ResourceTree(self.catalogue.tree, id="tree")
            with Vertical(id="right"):
                yield DetailPane(id="detail")
                yield ContentPreview(id="preview")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#filter", Input).display = False
        tree = self.query_one(ResourceTree)
        tree.focus()
        self.watch(tree, "highlighted", self._show_highlighted)
        self.watch(self.query_one("#filter", FilterBox), "value", self._filter_changed, init=False)
        self.events.statuses_changed()
        # Connecting imports the MCP stack (about half a second): only once the first frame is on screen.
        self.call_after_refresh(self._connect_once_written)
        self.adder.tell_found_configs()

    def _connect_once_written(self) -> None:
        """The first frame is painted, but Textual's writer thread still has to write it out, and it needs
        the interpreter lock for that: the imports of connecting (long C calls: unmarshalling, pydantic's
        schemas) kept it from the writer, and the frame reached the terminal 40 to 80 ms after it was
        painted (`benchmarks/bench_startup.py`). A moment with the loop idle lets the writer run first."""
        self.set_timer(FRAME_WRITE_GRACE, self._connect_all)

    def _connect_all(self) -> None:
        for name in self.supervisor.names:
            self.connect(name)

    async def on_unmount(self) -> None:
        """Close every connection before the loop ends, so no server process outlives the app."""
        workers = [w for w in self.workers if w.group.startswith("conn-")]
        for worker in workers:
            worker.cancel()
        with anyio.move_on_after(3):
            for worker in workers:
                with contextlib.suppress(Exception):
                    await worker.wait()
        await settle_server_stops()  # a cancelled worker leaves its server's stop running on its own
        with contextlib.suppress(Exception):  # a bookmark a failed save kept: one more try, in a thread
            failed = await anyio.to_thread.run_sync(self.places.save_unsaved)
            notes = getattr(self.app, "exit_notes", None)  # `ExplorerApp`'s: printed after the terminal
            if failed is not None and isinstance(notes, list):  # is given back
                notes.append(failed)

    @property
    def tree_widget(self) -> ResourceTree:
        return self.query_one(ResourceTree)

    # ------------------------------------------------------------------------------ connections
    def connect(self, name: str) -> None:
        """(Re)connect one server; an earlier connection worker of that server is cancelled.

        A server whose config asks for VS Code inputs is connected once they are filled in.
        """
        if self.catalogue.servers[name].spec.inputs:
            self.adder.ask_inputs_then(name, self.connect)
            return
        self.run_worker(
            Deferred(self.supervisor.run, name),
            group=f"conn-{name}",
            exclusive=True,
            exit_on_error=False,
            name=f"conn-{name}",
        )

    # ------------------------------------------------------------------------------ selection and reads
    def _show_highlighted(self, node: UriNode | PatternNode | None) -> None:
        """The details follow the cursor in the same frame (see `ResourceTree.highlighted`)."""
        if self._target is not None and node is self._target[0]:
            return  # the go-to put the cursor here: the details keep showing the target
        self._target = None
        self.query_one(DetailPane).show_node(self.catalogue.tree, node)

    def refresh_details(self) -> None:
        """Pages merged: what the highlighted node holds may have changed (its counts, its servers, a
        resource of its own), so the details read it again; they stay as they are when nothing changed."""
        if self._target is not None:
            return  # a go-to's target is shown, not the node under the cursor
        tree = self.tree_widget
        self.query_one(DetailPane).show_node(self.catalogue.tree, tree.highlighted, if_changed=True)

    @on(ResourceTree.NodeHighlighted)
    def _highlighted(self, event: ResourceTree.NodeHighlighted) -> None:
        # Once the moved cursor is on screen, the key that moved it is answered: work that waited for its
        # frame (listings, the tree's redraw after pages) runs then, before the next key (`InputFirst`).
        input_first = self.supervisor.input_first
        self.call_after_refresh(input_first.answered, input_first.inputs)
        # The first highlight after a go-to is the go-to's own, if the go-to moved the cursor (messages
        # come in order): it reads its target itself. Asking `_target` instead would be too late when a
        # key moved the cursor on before this message came (the watcher has cleared it by then).
        read_already, self._read_by_go_to = self._read_by_go_to, None
        if event.node is read_already:
            return
        if self.auto_preview and isinstance(event.node, UriNode) and event.node.resources:
            self._read_node(event.node)

    def opens_form(self, key: events.Key) -> bool:
        """Whether `key`'s binding, about to run, opens a template's form (`ExplorerApp.on_key` asks): the
        keys typed behind it in one burst then wait for the form's field (they ran the tree's bindings
        instead: `r` refreshed, `e` showed an error). Asked when the key is back at the app, so the keys
        before it (`j` moving the cursor) have run."""
        tree = self.tree_widget
        if self.focused is not tree or (node := tree.form_on_select()) is None:
            return False
        active = self.active_bindings.get(key.key)
        if active is None or active.node is not tree or active.binding.action != "select":
            return False
        return self.supervisor.serving(node.templates) is not None

    @on(ResourceTree.NodeSelected)
    def _selected(self, event: ResourceTree.NodeSelected) -> None:
        node = event.node
        if isinstance(node, PatternNode):
            from explorer.screens.type_ahead import form_settled

            self.fill_template(node)
            form_settled(self.app)  # no form opened: the keys held for it go to the tree after all
        elif node.resources:
            self._read_node(node)

    def fill_template(self, node: PatternNode) -> None:
        """Open the form of a template (of the first connected server that lists it); submit reads it."""
        server = self.supervisor.serving(node.templates)
        if server is None:
            return
        from explorer.screens.template_form import TemplateFormScreen

        completer = Completer(self.supervisor.connection(server))
        self.app.push_screen(TemplateFormScreen(node.templates[server], completer), self._template_filled)

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
        self.run_worker(Deferred(self._drill, event), group="drill", exit_on_error=False)

    async def _drill(self, event: ResourceTree.DrillRequested) -> None:
        """Completion for a drilled template variable (on a connected server of it), shown in the tree."""
        drill = event.drill
        if not self.supervisor.is_connected(drill.server):
            server = self.supervisor.serving(event.node.templates)
            drill = drill.on_server(server) if server is not None else drill
        variable = drill.next_variable
        if variable is None:
            return
        completer = Completer(self.supervisor.connection(drill.server))
        found = await completer.template(drill.template, variable, drill.typed, drill.context())
        self.tree_widget.set_drill_children(
            event.node, drill, found.values, found.reason, total=found.total, has_more=found.has_more
        )

    @on(ResourceTree.DrillSelected)
    def _drill_selected(self, event: ResourceTree.DrillSelected) -> None:
        problem = event.drill.problem  # a value one use of its variable cannot take: said, not raised
        if problem is not None:
            why = f"the template cannot be expanded with these values: {sanitize_line(problem, 300)}"
            self.notify(f"Cannot read: {why}", severity="warning", markup=False)
            return
        self.read(event.drill.server, event.drill.uri)

    def action_connect_server(self) -> None:
        self.adder.open_connect_dialog()

    def action_prompts(self) -> None:
        """The prompts of every server; an embedded resource opened there is selected in the tree."""
        from explorer.screens.prompts import PromptsScreen

        failures = {s.name: s.error or "failed" for s in self.catalogue.servers.values() if s.error}
        live = self.supervisor.live_connections()
        bounds = self.supervisor.settings.bounds
        names = list(self.catalogue.servers)
        pace = self.supervisor.input_first.gate
        screen = PromptsScreen(
            live,
            names,
            failures,
            bounds,
            config=self.config,
            pace=pace,
            show_error=self.action_show_error,  # `e` and `R` there, as the failed server's toast says
            reconnect=self.action_reconnect,
        )
        self.app.push_screen(screen, self._prompts_closed)

    def _prompts_closed(self, uri: str | None) -> None:
        if uri is None:
            return
        if self.tree_widget.select_prefix(uri):
            node = self.catalogue.tree.node_for(uri)
            if node is not None and node.resources and node.prefix == uri:
                self._read_node(node)
        else:
            from explorer.screens.goto import GoToDialog

            self.app.push_screen(GoToDialog(self.catalogue.tree, uri, self._askable()), self._go_to)

    def resume_following(self, name: str) -> None:
        """`name` (re)connected: follow the previewed resource again when it is that server's."""
        if self._previewing is not None and self._previewing[0] == name:
            follow = Deferred(self.supervisor.preview, *self._previewing)
            self.run_worker(follow, group="follow", exit_on_error=False)

    async def reread_if_previewed(self, server: str, uri: str) -> None:
        """A followed resource changed: read it again, with what changed, when it is the one previewed."""
        if self._previewing == (server, uri):
            await self._read(server, uri, PREVIEW_CAP, changed=True)

    def _read_node(self, node: UriNode) -> None:
        server = self.supervisor.serving(node.resources)
        if server is not None:
            self.read(server, node.resources[server].uri)

    def read(self, server: str, uri: str, *, cap: int | None = PREVIEW_CAP, record: bool = True) -> None:
        """Read `uri` on `server` into the preview; a newer read cancels an older one."""
        if record:
            self.places.navigation.visit(Place(uri, server, read=True))
        self.query_one(ContentPreview).show_loading(uri)
        self._previewing = (server, uri)
        self._versions.pop((server, uri), None)
        reading = Deferred(self._read, server, uri, cap)
        self.run_worker(reading, group="preview", exclusive=True, exit_on_error=False)
        self.run_worker(Deferred(self.supervisor.preview, server, uri), group="follow", exit_on_error=False)

    async def _read(self, server: str, uri: str, cap: int | None, *, changed: bool = False) -> None:
        preview = self.query_one(ContentPreview)
        spec = self.catalogue.servers[server].spec if server in self.catalogue.servers else None
        try:
            raw = await self.supervisor.read(server, uri)
        except ServerFault as fault:
            message = redact(fault.message, spec) if spec is not None else fault.message
            preview.show_error(uri, message, fault.code, server=server, local=fault.local)
            return
        big = read_result_size(raw) >= BIG_MESSAGE_BYTES
        if spec is not None and secrets_of(spec):
            raw = _masked_texts(raw, spec)  # a token the server echoes back, as every other output masks it
        if self._previewing == (server, uri):  # else the user moved on while this read was running
            self._show_read(server, uri, classify(raw, cap=cap), changed=changed)
        del raw
        if big:
            give_back_freed_memory()  # the message's pieces, tens of MB, would stay in the process
            # The SDK's loops drop their own references to the message a moment later (its read loop
            # keeps the last one until the next arrives): what they free then goes back too.
            self.set_timer(_TRIM_AGAIN_AFTER, give_back_freed_memory)

    def _show_read(self, server: str, uri: str, contents: list[Content], *, changed: bool) -> None:
        preview = self.query_one(ContentPreview)
        key = (server, uri)
        version = self._versions.get(key, 0) + 1
        self._versions[key] = version
        update: Update | None = None
        if changed:
            update = describe_update(self._last_text.get(key), contents, version=version, at=time.time())
        self._last_text[key] = _text_of(contents)
        kept: ViewState | None = None
        if changed and preview.uri == uri and preview.state == "contents":
            pending = self._kept_view
            kept = pending[1] if pending is not None and pending[0] == key else preview.view_state()
        shown = preview.show_contents(uri, contents, server=server, update=update)
        self._kept_view = None
        if kept is not None:  # a followed resource changed: the tab, the scroll and the focus stay
            token = object()  # the last one scheduled clears `_kept_view`
            self._kept_view = (key, kept, token)
            self.call_after_refresh(self._restore_preview_when, shown, kept, token)
        if self._refocus_preview == key:
            self._refocus_preview = None
            self.call_after_refresh(self._focus_preview_when, shown)
        self.events.mark_resources()  # read now: no longer "changed"

    async def _restore_preview_when(self, shown: AwaitComplete, kept: ViewState, token: object) -> None:
        await shown
        self.query_one(ContentPreview).restore_view_state(kept)
        if self._kept_view is not None and self._kept_view[2] is token:
            self._kept_view = None

    @property
    def preview_settled(self) -> bool:
        """No re-read's view state is waiting to be laid back on the preview (what a user does to the
        preview now stays)."""
        return self._kept_view is None

    async def _focus_preview_when(self, shown: AwaitComplete) -> None:
        await shown
        self.query_one(ContentPreview).focus_contents()

    @on(ContentPreview.LinkClicked)
    def _link_clicked(self, event: ContentPreview.LinkClicked) -> None:
        """A link in rendered markdown: never opened; when it looks like a URI, the go-to box says which
        server or template serves it (a relative link is shown as it is)."""
        if ":" in event.href and not event.href.lower().startswith(("http://", "https://", "mailto:")):
            from explorer.screens.goto import GoToDialog

            self.app.push_screen(GoToDialog(self.catalogue.tree, event.href, self._askable()), self._go_to)

    @on(ContentPreview.LoadAllRequested)
    def _load_all(self, event: ContentPreview.LoadAllRequested) -> None:
        if self._previewing is not None and self._previewing[1] == event.uri:
            # The preview's body is replaced while it loads, and the focus leaves it: it comes back with
            # the whole text, so the keys go on scrolling what the user was reading.
            self._refocus_preview = self._previewing if event.preview.has_focus_within else None
            self.read(self._previewing[0], event.uri, cap=None)

    def jump_to(self, prefix: str) -> bool:
        """Put the cursor on `prefix`'s node, or on the template row whose text it is (the palette's
        template hits), and remember the place for back/forward. False when the tree has neither."""
        self.places.navigation.visit(Place(prefix))
        return self.tree_widget.select_prefix(prefix)

    def _askable(self) -> list[str]:
        """The connected servers, which the go-to box offers to ask for a URI nothing lists."""
        return [name for name in self.catalogue.servers if self.supervisor.is_connected(name)]

    def _go_to(self, target: GoToTarget | None) -> None:
        """Jump to a go-to's choice: one place in the history (the read's, when it reads something)."""
        if target is None:
            return
        tree = self.tree_widget
        if target.read and target.server is not None:
            tree.select_prefix(self.catalogue.tree.nearest(target.uri).prefix)
            self._read_by_go_to = tree.cursor_node
            self.read(target.server, target.uri)
            return
        if target.template is None:
            tree.select_prefix(target.prefix)
            node = self.catalogue.tree.node_for(target.prefix)
            if node is not None and node.resources and node.prefix == target.uri:
                self._read_by_go_to = tree.cursor_node
                self._read_node(node)  # the read is the place visited
            else:
                self.places.navigation.visit(Place(target.prefix))
            return
        if target.values is not None and target.server is not None:
            values = tuple(target.values.items())
            self.show_template_target(Place(target.uri, target.server, True, target.template, values))
            return
        self.places.navigation.visit(Place(target.prefix))
        tree.select_prefix(self.catalogue.tree.nearest(target.uri).prefix)

    def show_template_target(self, place: Place, *, record: bool = True) -> None:
        """A URI a template produced: the cursor on the deepest node on the way to it (not the template's
        literal prefix), the details showing the URI with its template and values, and the URI read."""
        assert place.server is not None and place.template is not None and place.values is not None
        tree = self.tree_widget
        if record:
            self.places.navigation.visit(place)
        tree.select_prefix(self.catalogue.tree.nearest(place.uri).prefix)
        self._target = (tree.cursor_node, place.server, place.uri)
        self._read_by_go_to = tree.cursor_node
        values = dict(place.values)
        self.query_one(DetailPane).show_target(place.uri, place.server, place.template, values)
        self.read(place.server, place.uri, record=False)

    # ------------------------------------------------------------------------------ actions
    def action_load_all(self) -> None:
        """Read the previewed resource again without the preview's cap (its notice names this key)."""
        preview = self.query_one(ContentPreview)
        if preview.can_load_all:
            preview.action_load_all()
        else:
            self.notify("Nothing more to load: the preview shows all of what it read.", markup=False)

    def action_filter(self) -> None:
        from explorer.screens.type_ahead import expect_typing

        box = self.query_one("#filter", Input)
        box.display = True
        # The keys typed with `/` (sent to the tree before this ran) are typed into the box; the focus
        # moves now, not behind the keys already queued (`focus()` waits for them).
        expect_typing(self, box)
        self.set_focus(box)

    def action_clear_filter(self) -> None:
        box = self.query_one("#filter", Input)
        if box.display:
            box.value = ""
            box.display = False
            self.tree_widget.set_filter("")
            # Now, not after the keys already queued (`focus()` waits its turn): the keys typed behind
            # `escape` in one burst are the tree's, not typed into the hidden box (`type_ahead`).
            self.set_focus(self.tree_widget)

    def _filter_changed(self, text: str) -> None:
        """The filter follows the box's text in the call that changes it (a watcher, not `Input.Changed`,
        which reaches the screen after the box's own repaint: the results came a frame after the echo)."""
        self.tree_widget.set_filter(text)

    @on(ResourceTree.FilterDropped)
    def _filter_dropped(self, event: ResourceTree.FilterDropped) -> None:
        """A jump left the filter's results and the tree cleared the filter: the box clears too (as
        `escape` does), so its text never names a filter the tree no longer applies."""
        box = self.query_one("#filter", FilterBox)
        if box.value != event.text:
            return  # typed since: the box's text is the filter (its watcher applied it)
        refocus = box.has_focus
        box.value = ""  # the watcher's `set_filter("")` finds the tree unfiltered already
        box.display = False
        if refocus:
            self.tree_widget.focus()
        node = event.node
        place = node.uri_template if isinstance(node, PatternNode) else node.prefix
        self.notify(f"Filter cleared: {sanitize_line(place, 200)} is not among its results.", markup=False)

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self.tree_widget.focus()
        if is_prefix_query(event.value):
            self.list_below(event.value)

    @on(ResourceTree.NodeExpanded)
    def _expanded(self, event: ResourceTree.NodeExpanded) -> None:
        self.list_below(event.node.prefix)

    def list_below(self, prefix: str) -> None:
        """A server whose listing stopped at a bound may have more under `prefix` than it showed: list
        that subtree on each such server (SEP-1269's `prefix`), so a huge server is browsed on demand."""
        started = [name for name in self.catalogue.servers if self.supervisor.list_prefix(name, prefix)]
        if started:
            names = ", ".join(middle_cut(name, 40) for name in started)
            self.notify(f"Listing what is under {sanitize_line(prefix, 120)} on {names}…", markup=False)

    def action_goto(self) -> None:
        from explorer.screens.goto import GoToDialog

        self.app.push_screen(GoToDialog(self.catalogue.tree, servers=self._askable()), self._go_to)

    def highlighted_uri(self) -> str | None:
        if self._target is not None:
            return self._target[2]
        drill = self.tree_widget.cursor_drill
        if drill is not None and drill.is_concrete:
            return drill.uri if drill.problem is None else None  # the row says why there is no URI
        node = self.tree_widget.cursor_node
        if isinstance(node, PatternNode):
            return node.uri_template
        if node.resources:
            return next(iter(node.resources.values())).uri
        return node.prefix or None

    def highlighted_resource(self) -> tuple[str, str] | None:
        """(server, uri) of the highlighted resource or concrete drill row (or the go-to target)."""
        if self._target is not None:
            return (self._target[1], self._target[2])
        drill = self.tree_widget.cursor_drill
        if drill is not None and drill.is_concrete:
            return (drill.server, drill.uri) if drill.problem is None else None  # the row says why
        node = self.tree_widget.cursor_node
        if isinstance(node, UriNode) and node.resources:
            server = self.supervisor.serving(node.resources)
            if server is not None:
                return (server, node.resources[server].uri)
        return None

    def action_copy_uri(self) -> None:
        uri = self.highlighted_uri()
        if uri is None:
            self.notify("Nothing to copy.", severity="warning")
            return
        clip = uri_for_clipboard(uri)  # a control character pasted into a terminal would act
        self.app.copy_to_clipboard(clip.text)
        self.notify(f"Copied {sanitize_line(clip.text, 200)}{clip.notice()}", markup=False)

    def action_copy_as(self) -> None:
        """URI, JSON-RPC request or command line for the highlighted resource (or the go-to target, a
        concrete row of a template's drill-down); when the cursor is on none (a prefix, a template), for
        the resource in the preview."""
        from explorer.screens.copy_as import copy_resource_as

        copy_resource_as(self, self.highlighted_resource() or self._previewing)

    def binding_description(self, action: str) -> str | None:
        """The key bar's word for `s` when what it acts on is followed already: it stops following."""
        if action == "toggle_pin":
            target = self.highlighted_resource() or self._previewing
            if target is not None and target in self.supervisor.pinned:
                return "Unfollow"
        return None

    def action_toggle_pin(self) -> None:
        """Follow the highlighted resource until toggled off (the tree marks it); with none highlighted,
        the previewed one: a URI read through a template or go-to's "read anyway", or one the server has
        since dropped from its list, can be followed and unfollowed too."""
        target = self.highlighted_resource() or self._previewing
        if target is None:
            self.notify("Highlight or read a resource to follow.", severity="warning", markup=False)
            return
        server, uri = target
        conn = self.supervisor.connection(server)
        if conn is None or not conn.follower.can_follow():
            if server not in self.catalogue.servers:
                why = "was removed: connect it again to follow its resources"
            elif conn is None:
                why = "is not connected"
            else:
                why = "does not offer resource subscriptions"
            self.notify(f"{middle_cut(server, 40)} {why}.", severity="warning", markup=False)
            return

        async def toggle() -> None:
            outcome = await self.supervisor.toggle_pin(server, uri)
            self.events.mark_resources()
            self.refresh_bindings()  # the key bar's `s`: Follow or Unfollow (`binding_description`)
            if outcome in (
                "failed",
                "withdrawn",
            ):  # the listener said why (`follow_failed`), or nothing to say
                return
            shown = sanitize_line(uri, 200)
            if outcome == "following":
                message = f"Following {shown}."
            elif self.supervisor.previewed == (server, uri):  # the preview's own follow goes on (README)
                message = (
                    f"No longer following {shown} once it leaves the preview: "
                    "the previewed resource is always followed."
                )
            else:
                message = f"No longer following {shown}."
            self.notify(message, markup=False)

        self.run_worker(Deferred(toggle), group="follow", exit_on_error=False)

    def action_refresh(self) -> None:
        for name, status in self.catalogue.servers.items():
            if self.supervisor.is_connected(name):
                self.supervisor.refresh(name)  # a failed listing on a live connection is listed again
            elif status.state == "failed":
                self.connect(name)
        self.notify("Refreshing; the current listing stays until the new one is complete.", markup=False)

    def action_reconnect(self, name: str | None = None) -> None:
        """Reconnect failed servers (or `name`): a new session, its listing refreshed as one transaction."""
        names = [name] if name is not None else [s.name for s in self.failed_servers()]
        if not names:
            self.notify("No server has failed.", markup=False)
        for server in names:
            self.connect(server)

    def action_continue_listing(self) -> None:
        pending = [s.name for s in self.catalogue.servers.values() if s.state == "incomplete"]
        started = [name for name in pending if self.supervisor.continue_listing(name)]
        if started:
            return
        failed = [middle_cut(status.name, 40) for status in self.failed_servers()]
        if failed:  # a failed server's listing cannot be gone on with: say why `m` does nothing for it
            key = shown_key(self.app, "main.reconnect", "R")
            said = f"No listing stopped early; {', '.join(failed)} failed: {key} reconnects."
            self.notify(said, markup=False)
        else:
            self.notify("No listing is incomplete.", markup=False)

    def action_stop_listing(self) -> None:
        """Stop every running listing early: what arrived stays, marked incomplete (`m` continues)."""
        stopped = [name for name in self.supervisor.names if self.supervisor.stop_listing(name)]
        if not stopped:
            self.notify("No listing is running.", markup=False)

    @on(ServerBar.StopRequested)
    def _stop_requested(self, event: ServerBar.StopRequested) -> None:
        self.supervisor.stop_listing(event.name)

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

        from explorer.screens.error_dialog import ErrorDialog

        self.app.push_screen(ErrorDialog(status), after)

    @on(ServerBar.Selected)
    def _server_selected(self, event: ServerBar.Selected) -> None:
        self.show_overview(event.name)

    def show_overview(self, name: str) -> None:
        """A failed server opens its error (with reconnect); any other its overview."""
        status = self.catalogue.servers.get(name)
        if status is None:
            return
        if status.state == "failed":
            self.action_show_error(name)
        else:
            from explorer.screens.server_overview import ServerOverview

            self.app.push_screen(ServerOverview(status, self.supervisor))

    def action_server_overview(self) -> None:
        """The overview of the server behind the highlighted node (the first server when unclear)."""
        node = self.tree_widget.cursor_node
        if isinstance(node, PatternNode):
            servers: list[str] = list(node.templates)
        elif node.resources:
            servers = list(node.resources)
        else:
            servers = sorted(self.catalogue.tree.subtree_servers(node))
        name = self.supervisor.serving(servers) or next(iter(self.catalogue.servers), None)
        if name is not None:
            self.show_overview(name)

    def action_protocol_log(self) -> None:
        from explorer.screens.protocol_log import ProtocolLogScreen

        wire = self.supervisor.settings.wire
        if wire is None:
            self.notify("The protocol log is off.", markup=False)
            return
        self.app.push_screen(ProtocolLogScreen(wire))

    def action_back(self) -> None:
        self.places.back()

    def action_forward(self) -> None:
        self.places.forward()

    def action_bookmark(self) -> None:
        self.places.toggle_bookmark()

    def action_toggle_auto_preview(self) -> None:
        self.auto_preview = not self.auto_preview
        self.notify(f"Auto-preview {'on' if self.auto_preview else 'off'}.", markup=False)


def _masked_texts(raw: dict[str, Any], spec: ServerSpec) -> dict[str, Any]:
    """`raw` with the text of every content masked of `spec`'s secrets (`redact`); blobs as they are."""
    contents = raw.get("contents")
    if not isinstance(contents, list):
        return raw
    masked = [
        {**item, "text": redact(item["text"], spec)}
        if isinstance(item, dict) and isinstance(item.get("text"), str)
        else item
        for item in contents
    ]
    return {**raw, "contents": masked}


def _text_of(contents: Sequence[object]) -> str | None:
    from explorer.model.contents.changes import text_of

    return text_of(contents)
