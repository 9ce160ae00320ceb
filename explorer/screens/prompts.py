"""`p`: the prompts of every connected server; fill one's arguments, get it, read the messages.

Prompts are listed when the screen opens, one worker per server, so a slow or failing server only
shows its own error line. A server that fails while the screen is open keeps its prompts listed, marked
failed with the supervisor's sentence (the main screen's listener tells the screen, `server_failed`), as
the main screen keeps its tree; `e` and `R` act here as there, and a reconnect lists its prompts again
(`server_connected`). Nothing runs until the user asks: `enter` on a prompt opens its argument
form (with completion suggestions, `ref/prompt`); a missing required argument is caught there, before
anything is sent. `prompts/get` then runs in a worker and the result (or the server's error, with its
code) appears on the right. An embedded resource's URI can be opened in the tree (`t`): the screen
closes and hands the URI to the main screen.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState

from explorer.config import Config, ListingBounds
from explorer.connection.completion import Completer
from explorer.connection.discovery import Pace, list_server
from explorer.connection.errors import ServerFault
from explorer.connection.session import ServerConnection
from explorer.deferred import Deferred
from explorer.history import History, HistoryValues
from explorer.model.copy_as import jsonrpc_prompt, modern_version, prompt_command, text_for_clipboard
from explorer.model.fields import FieldSpec, check_prompt
from explorer.model.listing import Listing, bound_name
from explorer.model.prompt_data import PromptInfo, parse_prompt
from explorer.model.suggestions import Suggestions
from explorer.sanitize import sanitize, sanitize_line
from explorer.screens.copy_as import CopyAsDialog
from explorer.screens.template_form import remember_in_background
from explorer.screens.tiny_terminal import mark_tiny
from explorer.screens.type_ahead import expect_typing, form_settled
from explorer.widgets.argument_form import ArgumentForm
from explorer.widgets.key_bar import KeyBar
from explorer.widgets.key_display import shown_key
from explorer.widgets.lists import VimOptionList
from explorer.widgets.prompt_result import PromptResultView, ResourceLink
from explorer.widgets.server_labels import middle_cut

__all__ = ["PromptEntry", "PromptFormScreen", "PromptsScreen", "ServerPrompts"]


@dataclass(frozen=True)
class PromptEntry:
    """One prompt as one server listed it, read by `parse_prompt` (as the CLI reads it)."""

    server: str
    name: str
    info: PromptInfo = field(compare=False, hash=False)

    @property
    def raw(self) -> Mapping[str, Any]:
        return self.info.raw

    @property
    def title(self) -> str | None:
        return self.info.title

    @property
    def description(self) -> str | None:
        return self.info.description

    @property
    def problems(self) -> tuple[str, ...]:
        return self.info.problems

    @property
    def fields(self) -> list[FieldSpec]:
        return [
            FieldSpec(a.name, a.name, a.required, title=a.title, description=a.description)
            for a in self.info.arguments
        ]


@dataclass
class ServerPrompts:
    """The listing state of one server: prompts, or why there are none."""

    server: str
    state: str = "listing"  # listing | ready | failed | unavailable
    prompts: list[PromptEntry] = field(default_factory=list)
    error: str | None = None
    stopped_by: str | None = None  # the bound that stopped the listing, if one did


def _arguments_text(entry: PromptEntry) -> str:
    parts = [f"{sanitize_line(f.name, 40)}{'*' if f.required else '?'}" for f in entry.fields]
    return ", ".join(parts)


def _kept_highlight(
    before: Sequence[PromptEntry | None], highlighted: int | None, after: Sequence[PromptEntry | None]
) -> int | None:
    """Where the highlight goes when the list is drawn again: on the same prompt (same server and name)
    wherever it now is; if it is gone, on its server's prompt now at its place, else on the prompt nearest
    its old row; with nothing highlighted before, on the first prompt. None: no prompt to highlight."""
    entries = [(i, e) for i, e in enumerate(after) if e is not None]
    if not entries:
        return None
    if highlighted is None:
        return entries[0][0]
    old = before[highlighted] if 0 <= highlighted < len(before) else None
    if old is not None:
        earlier = before[:highlighted]
        # The same prompt (the same occurrence of it, should a server list one name twice).
        same = [i for i, e in entries if e == old]
        if same:
            return same[min(earlier.count(old), len(same) - 1)]
        # Gone: its server's prompt now at its place.
        place = sum(1 for e in earlier if e is not None and e.server == old.server)
        siblings = [i for i, e in entries if e.server == old.server]
        if siblings:
            return siblings[min(place, len(siblings) - 1)]
    return min((i for i, _ in entries), key=lambda i: (abs(i - highlighted), i < highlighted))


class PromptFormScreen(ModalScreen[dict[str, str] | None]):
    """The arguments of one prompt; returns them (non-empty ones) or None when cancelled."""

    # None: `on_mount` focuses the first field. Textual's would focus it sooner (the box around the fields
    # takes no focus now), before the history loaded from `on_mount` arrives: the form offers history
    # only as a field gains focus.
    AUTO_FOCUS = ""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "submit", "Get prompt", id="prompt_form.submit"),
        # Enter in a field submits through the field; with no field (a prompt without arguments) here.
        Binding("enter", "submit", "Get prompt", show=False, id="prompt_form.enter"),
        Binding("escape", "cancel", "Cancel", id="prompt_form.cancel"),
        # The app's, which a dialog drops; `?` is typed into a field, `f1` helps there.
        Binding("question_mark,f1", "app.toggle_help", "Help", id="app.help"),
    ]
    HELP = """
## Prompt arguments
Fill the arguments (`required` ones cannot be left empty: that is checked here, before anything is
sent), then `enter` or `ctrl+s` gets the prompt. Suggestions come from the server's completions;
`ctrl+r` recalls the values you used before. `escape` cancels: nothing is sent.
"""
    # As in the template form: the status line is docked to the bottom of the box so it stays in sight,
    # and on a short terminal the box scrolls as one (the fields give up their own scroll). On a tiny one
    # (40x12) the box takes every row, the blank rows go and the inputs are one row high.
    DEFAULT_CSS = """
    PromptFormScreen { align: center top; }
    PromptFormScreen > #pf-box {
        width: 90%; max-width: 120; height: auto; max-height: 90%; overflow-y: auto;
        margin-top: 2; border: thick $accent; background: $surface; padding: 0 1;
    }
    PromptFormScreen #pf-header { height: auto; margin-bottom: 1; }
    PromptFormScreen #pf-fields { height: auto; max-height: 50vh; }
    PromptFormScreen #pf-status { dock: bottom; height: auto; max-height: 4; color: $text-muted; }
    PromptFormScreen #pf-status.-error { color: $text-error; }
    PromptFormScreen.-short > #pf-box { margin-top: 1; max-height: 100%; }
    PromptFormScreen.-short #pf-fields { max-height: initial; }
    PromptFormScreen.-short #pf-status { max-height: 2; }
    PromptFormScreen.-tiny > #pf-box { margin-top: 0; }
    PromptFormScreen.-tiny #pf-header { margin-bottom: 0; }
    PromptFormScreen.-tiny ArgumentForm > .form-field { margin-bottom: 0; }
    PromptFormScreen.-tiny ArgumentForm > #suggestions { margin-bottom: 0; }
    """

    def __init__(self, entry: PromptEntry, completer: Completer | None = None) -> None:
        super().__init__()
        self.entry = entry
        self.completer = completer
        self.fields = entry.fields
        if self.fields:  # keys typed before the first field has the focus go there (none: to the form)
            expect_typing(self)

    def compose(self) -> ComposeResult:
        with Vertical(id="pf-box"):
            yield Static(self._header(), id="pf-header")
            # Not focusable: tab past the last field went to this invisible box and the keys after it
            # were lost; now tab and shift+tab go round the fields only.
            with VerticalScroll(id="pf-fields", can_focus=False):
                yield ArgumentForm(
                    self.fields, complete=self._complete if self._can_complete else None, id="pf-form"
                )
            yield Static(Content("enter or ctrl+s gets the prompt · escape cancels"), id="pf-status")
        yield KeyBar()

    def _header(self) -> Content:
        e = self.entry
        parts: list[Content | str | tuple[str, str]] = [(sanitize_line(e.name, 120), "bold")]
        if e.title:
            parts += ["  ", sanitize_line(e.title, 160)]
        parts += [("  [", "$text-muted"), (middle_cut(e.server, 60), "$accent"), ("]", "$text-muted")]
        if e.description:
            parts += ["\n", (sanitize(e.description, limit=1000), "$text-muted")]
        if self.completer is not None and self.fields:
            why = self.completer.unavailable
            if why is not None:
                parts += ["\n", (f"No suggestions: {why}", "$text-muted")]
        return Content.assemble(*parts)

    @property
    def form(self) -> ArgumentForm:
        return self.query_one(ArgumentForm)

    def on_resize(self, event: events.Resize) -> None:
        mark_tiny(self, event.size)
        self.form.set_compact(self.has_class("-tiny"))

    def on_mount(self) -> None:
        self.form.focus_field()
        self.run_worker(
            partial(self._load_history, self.entry.server, self.entry.name),
            thread=True,
            group="prompt-form-history",
            exit_on_error=False,
        )

    @staticmethod
    def _load_history(server: str, name: str) -> list[HistoryValues]:
        return History.load().entries("prompt", server, name)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "prompt-form-history" and event.state == WorkerState.SUCCESS:
            entries = event.worker.result
            if isinstance(entries, list) and entries:
                self.form.set_history(entries)

    @property
    def _can_complete(self) -> bool:
        return self.completer is not None and self.completer.unavailable is None

    async def _complete(self, name: str, value: str, context: dict[str, str]) -> Suggestions:
        assert self.completer is not None
        return await self.completer.prompt(self.entry.name, name, value, context)

    @on(ArgumentForm.Changed)
    def _changed(self) -> None:
        texts = self.form.texts
        check = check_prompt(self.fields, texts)
        self.form.set_errors({k: v for k, v in check.errors.items() if texts.get(k)})
        status = self.query_one("#pf-status", Static)
        if status.has_class("-error"):  # a submit said what was missing: say what still is
            self._show_missing(
                [spec.name for spec in self.fields if spec.name in check.errors and not texts.get(spec.name)]
            )

    def _show_missing(self, missing: list[str]) -> None:
        status = self.query_one("#pf-status", Static)
        if not missing:
            status.update(Content(""))
            status.remove_class("-error")
            return
        status.update(
            Content(f"Missing required argument(s): {', '.join(sanitize_line(m, 40) for m in missing)}")
        )
        status.add_class("-error")

    @on(ArgumentForm.Submitted)
    def _form_submitted(self) -> None:
        self.action_submit()

    def action_submit(self) -> None:
        check = check_prompt(self.fields, self.form.texts)
        self.form.set_errors(check.errors)
        if not check.ok:
            missing = [spec.name for spec in self.fields if spec.name in check.errors]
            self._show_missing(missing)
            self.form.focus_field(missing[0])
            return
        arguments = {k: str(v) for k, v in check.values.items()}
        if arguments:
            remember_in_background(self, "prompt", self.entry.server, self.entry.name, arguments)
        self.dismiss(arguments)

    def action_cancel(self) -> None:
        self.dismiss(None)


class PromptsScreen(Screen[str | None]):
    """Prompts of all servers on the left, details or the last result on the right.

    Dismisses with a URI to open in the tree (`t` on an embedded resource), or None (`escape`).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back", id="prompts.close"),
        Binding("t", "open_resource", "Open resource in tree", id="prompts.open_resource"),
        Binding("r", "refresh", "Refresh", id="prompts.refresh"),
        Binding("y", "copy_as", "Copy as", id="prompts.copy_as"),
        # The main screen's (the same ids, so a keymap moves both): the toast of a failed server names
        # them wherever the user is.
        Binding("e", "show_error", "Errors", show=False, id="main.show_error"),
        Binding("R", "reconnect", "Reconnect", show=False, id="main.reconnect"),
    ]
    HELP = """
## Prompts
Every prompt of every connected server, with its arguments (`*` required, `?` optional).

- `enter` on a prompt opens its argument form; the prompt is fetched (`prompts/get`) only when you
  submit it. The messages appear on the right, or the server's error with its code.
- `t` opens an embedded resource of the result in the tree (the focused one, else the first).
- `y` copies the prompt you got last: its name, its `prompts/get` request, or the command line that
  gets it again.
- `r` lists the prompts again; `escape` goes back to the tree.
- A server that failed keeps the prompts it listed, marked with its error: `e` shows the error (and
  reconnects it), `R` reconnects every failed server; its prompts are listed again once it is back.
"""
    DEFAULT_CSS = """
    PromptsScreen { layout: vertical; }
    PromptsScreen #prompts-title { height: 1; padding: 0 1; background: $panel; text-style: bold; }
    PromptsScreen #prompts-panes { height: 1fr; }
    PromptsScreen #prompt-list { width: 40%; min-width: 30; height: 1fr; border-right: solid $panel; }
    /* A long title or argument list is cut, not wrapped to the left edge: the details pane has it all. */
    PromptsScreen #prompt-list { text-wrap: nowrap; text-overflow: ellipsis; }
    PromptsScreen #prompt-right { width: 1fr; }
    PromptsScreen #prompt-detail { height: auto; max-height: 40%; padding: 0 1; border-bottom: solid $panel; }
    PromptsScreen.-short #prompt-detail { max-height: 30%; }
    PromptsScreen.-narrow.-tall #prompts-panes { layout: vertical; }
    PromptsScreen.-narrow.-tall #prompt-list {
        width: 100%; height: 2fr; border-right: none; border-bottom: solid $panel;
    }
    PromptsScreen.-narrow.-tall #prompt-right { height: 3fr; }
    PromptsScreen.-thin #prompts-panes { layout: vertical; }
    PromptsScreen.-thin #prompt-list { width: 100%; min-width: 0; height: 1fr; border-right: none; }
    PromptsScreen.-thin #prompt-right { height: 1fr; }
    """

    def __init__(
        self,
        connections: Mapping[str, ServerConnection],
        servers: Sequence[str],
        failures: Mapping[str, str] | None = None,
        bounds: ListingBounds | None = None,
        config: Config | None = None,
        pace: Pace | None = None,
        show_error: Callable[[str | None], None] | None = None,
        reconnect: Callable[[], None] | None = None,
    ) -> None:
        super().__init__()
        # The main screen's `e` and `R` (its error dialog for a server, its reconnect of every failed one).
        self._show_error = show_error
        self._reconnect = reconnect
        self.connections = connections  # looked up at each use: a server may reconnect meanwhile
        self.config = config  # where the servers came from: the copied command line names it
        self.bounds = bounds or ListingBounds()
        self.pace = pace  # the app's input gate: a big list of prompts parses around the user's keys
        self.server_names = list(servers)
        self.failures = dict(failures or {})
        self.listings: dict[str, ServerPrompts] = {}
        self._options: list[PromptEntry | None] = []
        # Until the user moves the highlight, listings arriving put it on the first prompt; after, it stays
        # on the prompt they chose (`_render_list`). `_placing`: the list itself is moving it.
        self._user_chose = False
        self._placing = False
        self._last_request: tuple[PromptEntry, dict[str, str]] | None = None

    def compose(self) -> ComposeResult:
        yield Static(Content("Prompts"), id="prompts-title")
        with Horizontal(id="prompts-panes"):
            yield VimOptionList(id="prompt-list")
            with Vertical(id="prompt-right"):
                with VerticalScroll(id="prompt-detail"):
                    yield Static(Content("Highlight a prompt."), id="prompt-detail-body")
                yield PromptResultView(id="prompt-result")
        yield KeyBar()

    def on_resize(self, event: events.Resize) -> None:
        """Under 60 columns the list and the result are stacked: side by side the result had 8 columns."""
        mark_tiny(self, event.size)

    def on_mount(self) -> None:
        options = self.query_one("#prompt-list", OptionList)
        options.focus()
        self.watch(options, "highlighted", self._highlight_moved, init=False)
        self.action_refresh()

    def _highlight_moved(self) -> None:
        if not self._placing:
            self._user_chose = True

    @property
    def result_view(self) -> PromptResultView:
        return self.query_one(PromptResultView)

    @property
    def prompts(self) -> list[PromptEntry]:
        """Every listed prompt, in server order."""
        return [p for name in self.server_names for p in self.listings.get(name, ServerPrompts(name)).prompts]

    # --- listing ------------------------------------------------------------------------------------------

    def action_refresh(self) -> None:
        self.relist(*self.server_names)

    def relist(self, *names: str) -> None:
        """List the prompts of these servers again (a server's `prompts/list_changed` names its own); the
        others stay as shown. What a server listed stays on the screen until its new listing arrives, and
        the highlighted prompt stays highlighted (`_render_list`)."""
        for name in names:
            if name not in self.server_names:
                continue
            conn = self.connections.get(name)
            shown = self.listings.get(name)  # stays on the screen until a new listing replaces it
            kept = shown.prompts if shown is not None else []
            if conn is None:  # failed (or reconnecting): what it listed stays, marked with why
                reason = self.failures.get(name) or "not connected"
                self.listings[name] = ServerPrompts(name, "failed", kept, error=reason)
                continue
            identity = conn.identity
            if identity is not None and not identity.has("prompts"):
                self.listings[name] = ServerPrompts(name, "unavailable", error="does not offer prompts")
                continue
            self.listings[name] = ServerPrompts(name, prompts=kept)
            self.run_worker(
                Deferred(self._list, name, conn),
                group=f"prompts-list-{name}",
                exclusive=True,
                exit_on_error=False,
            )
        self._render_list()

    def server_failed(self, name: str, message: str) -> None:
        """`name`'s connection failed (the supervisor's sentence, redacted): its prompts stay, marked."""
        if name not in self.server_names:
            return
        self.failures[name] = message
        self.workers.cancel_group(self, f"prompts-list-{name}")  # its answer would only say it was lost
        shown = self.listings.get(name)
        kept = shown.prompts if shown is not None else []
        self.listings[name] = ServerPrompts(name, "failed", kept, error=message)
        self._render_list()

    def server_connected(self, name: str) -> None:
        """`name` is connected (again): its prompts are listed again."""
        self.failures.pop(name, None)
        self.relist(name)

    def listing_again(self, name: str) -> None:
        """`name` announced its prompts changed and the supervisor lists them again: said at once, what
        was shown stays until `listed_again` brings the new listing. A listing of the screen's own for
        that server (`r`) may predate the change: it is dropped."""
        shown = self.listings.get(name)
        if name not in self.server_names or shown is None or shown.state == "unavailable":
            return
        self.workers.cancel_group(self, f"prompts-list-{name}")
        self.listings[name] = ServerPrompts(name, prompts=shown.prompts)
        self._render_list()

    def listed_again(self, name: str, fresh: Listing) -> None:
        """The supervisor's re-list of `name`'s prompts (after `listing_again`) ended: shown as the
        screen's own listing would be, without asking the server a second time."""
        shown = self.listings.get(name)
        if name not in self.server_names or shown is None or shown.state != "listing":
            return
        self._show_listing(name, fresh)

    async def _list(self, name: str, conn: ServerConnection) -> None:
        shown = self.listings.get(name)
        kept = shown.prompts if shown is not None else []  # a failed listing keeps the last one shown
        try:
            listing = await list_server(conn, self.bounds, kinds=("prompts",), pace=self.pace)
        except Exception as exc:  # one server's odd failure stays that server's line
            self.listings[name] = ServerPrompts(name, "failed", kept, error=f"unexpected error: {exc}")
            self._render_list()
        else:
            self._show_listing(name, listing)

    def _show_listing(self, name: str, listing: Listing) -> None:
        """A listing of `name`'s prompts that ended: its prompts, or its error over the last ones shown."""
        if listing.error is not None:
            shown = self.listings.get(name)
            kept = shown.prompts if shown is not None else []
            self.listings[name] = ServerPrompts(name, "failed", kept, error=listing.error)
        else:
            infos = (parse_prompt(p.raw) for p in listing.prompts)
            entries = [PromptEntry(name, info.name, info) for info in infos if info is not None]
            self.listings[name] = ServerPrompts(name, "ready", entries, stopped_by=listing.stopped_by)
        self._render_list()

    def _render_list(self) -> None:
        if not self.query("#prompt-list"):  # the screen is closing: news of a server came too late
            return
        options_widget = self.query_one("#prompt-list", OptionList)
        before = list(self._options)
        highlighted = options_widget.highlighted
        scroll_y = options_widget.scroll_y
        options: list[Option] = []
        self._options = []
        for name in self.server_names:
            listing = self.listings.get(name, ServerPrompts(name))
            server = middle_cut(name, 60)
            if listing.state == "listing":
                count = len(listing.prompts)  # a refresh shows the last listing until the new one comes
                text = f"  {count} prompt{'s' if count != 1 else ''} · listing again…" if count else ""
                header = Content.assemble(
                    (server, "bold $accent"), (text or "  listing prompts…", "$text-muted")
                )
            elif listing.state == "ready":
                count = len(listing.prompts)
                text = f"  {count} prompt{'s' if count != 1 else ''}"
                if listing.stopped_by is not None:
                    text += f" · incomplete (stopped at the {bound_name(listing.stopped_by)} bound)"
                header = Content.assemble((server, "bold $accent"), (text, "$text-muted"))
            elif listing.state == "unavailable":
                header = Content.assemble((server, "bold $accent"), (f"  {listing.error}", "$text-muted"))
            else:  # failed: what it listed before stays under it, dimmed (as the main screen's tree)
                count = len(listing.prompts)
                kept = f"failed, {count} prompt{'s' if count != 1 else ''} kept · " if count else ""
                header = Content.assemble(
                    (server, "bold $accent"),
                    (f"  ✗ {kept}error: ", "$text-error"),
                    (sanitize_line(listing.error or "", 300), "$text-error"),
                )
            options.append(Option(header, disabled=True))
            self._options.append(None)
            muted = listing.state == "failed"  # kept, but its server is gone: not shown as live
            for entry in listing.prompts:
                shown_name = (sanitize_line(entry.name, 80), "bold $text-muted" if muted else "bold")
                label: list[Content | str | tuple[str, str]] = ["  ", shown_name]
                details = [sanitize_line(entry.title, 100) if entry.title else "", _arguments_text(entry)]
                shown = "  ·  ".join(d for d in details if d)
                if shown:
                    label += ["\n    ", (shown, "$text-muted")]
                options.append(Option(Content.assemble(*label)))
                self._options.append(entry)
        index = _kept_highlight(before, highlighted if self._user_chose else None, self._options)
        self._placing = True
        try:
            options_widget.set_options(options)  # highlights nothing, scrolls to the top: both put back
            if index is not None:
                options_widget.highlighted = index  # the details follow (OptionHighlighted)
        finally:
            self._placing = False
        if index is None:
            self.query_one("#prompt-detail-body", Static).update(Content("Highlight a prompt."))
            return
        options_widget.scroll_to(y=scroll_y, animate=False, immediate=True)
        options_widget.scroll_to_highlight()  # only if the view moved away from it

    # --- selection ----------------------------------------------------------------------------------------

    def _entry_at(self, index: int | None) -> PromptEntry | None:
        if index is None or not 0 <= index < len(self._options):
            return None
        return self._options[index]

    @on(OptionList.OptionHighlighted, "#prompt-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        entry = self._entry_at(event.option_index)
        body = self.query_one("#prompt-detail-body", Static)
        if entry is None:
            body.update(Content("Highlight a prompt."))
            return
        body.update(self._details(entry, self._failed_note(entry.server)))

    def _failed_note(self, server: str) -> str | None:
        """What the details say of a prompt whose server failed: why (the list cuts its header at the
        pane's edge), and the keys that show the error and reconnect."""
        listing = self.listings.get(server)
        if listing is None or listing.state != "failed" or server in self.connections:
            return None
        show, again = shown_key(self.app, "main.show_error", "e"), shown_key(self.app, "main.reconnect", "R")
        why = sanitize_line(listing.error or "not connected", 300)
        return f"{middle_cut(server, 40)} failed: {why}\n{show} shows its error, {again} reconnects"

    @staticmethod
    def _details(entry: PromptEntry, failed: str | None = None) -> Content:
        parts: list[Content | str | tuple[str, str]] = [(sanitize_line(entry.name, 120), "bold")]
        if entry.title:
            parts += ["  ", sanitize_line(entry.title, 160)]
        parts += [("  [", "$text-muted"), (middle_cut(entry.server, 60), "$accent"), ("]", "$text-muted")]
        if entry.description:
            parts += ["\n", sanitize(entry.description, limit=2000)]
        for problem in entry.problems:
            parts += ["\n", (sanitize_line(problem, 300), "$text-warning")]
        fields = entry.fields
        if not fields:
            parts += ["\n", ("No arguments.", "$text-muted")]
        for spec in fields:
            marker = ("required", "$text-warning") if spec.required else ("optional", "$text-muted")
            parts += ["\n  ", (sanitize_line(spec.name, 60), "bold"), "  ", marker]
            if spec.description:
                parts += ["  ", (sanitize_line(spec.description, 300), "$text-muted")]
        if failed is not None:
            parts += ["\n", (failed, "$text-error")]
        else:
            parts += ["\n", ("enter fills the arguments and gets the prompt", "$text-muted")]
        return Content.assemble(*parts)

    def opens_form(self, key: events.Key) -> bool:
        """Whether `key`'s binding, about to run, opens the form of a prompt with arguments (the app asks,
        `ExplorerApp.on_key`): the keys typed behind it in one burst then wait for its first field (they
        went to the list: `r` listed again, `j` moved)."""
        options = self.query_one("#prompt-list", OptionList)
        if self.focused is not options:
            return False
        entry = self._entry_at(options.highlighted)
        if entry is None or not entry.fields:
            return False
        active = self.active_bindings.get(key.key)
        return active is not None and active.node is options and active.binding.action == "select"

    @on(OptionList.OptionSelected, "#prompt-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        entry = self._entry_at(event.option_index)
        if entry is not None:
            self.open_form(entry)
        form_settled(self.app)  # no form opened: the keys held for it go to the list after all

    def open_form(self, entry: PromptEntry) -> None:
        """Ask for the arguments of `entry`, then get it (never without the user submitting)."""
        completer = Completer(self.connections.get(entry.server))
        self.app.push_screen(PromptFormScreen(entry, completer), partial(self._form_done, entry))

    def _form_done(self, entry: PromptEntry, arguments: dict[str, str] | None) -> None:
        if arguments is None:
            return
        self.get_prompt(entry, arguments)

    def get_prompt(self, entry: PromptEntry, arguments: Mapping[str, str]) -> None:
        self._last_request = (entry, dict(arguments))
        self.refresh_bindings()
        self.result_view.show_loading(entry.server, entry.name)
        self.run_worker(
            Deferred(self._get, entry, dict(arguments)),
            group="prompts-get",
            exclusive=True,
            exit_on_error=False,
        )

    async def _get(self, entry: PromptEntry, arguments: dict[str, str]) -> None:
        view = self.result_view
        conn = self.connections.get(entry.server)
        if conn is None:
            view.show_error(entry.server, entry.name, "the server is not connected", None)
            return
        try:
            result = await conn.get_prompt(entry.name, arguments)
        except ServerFault as fault:
            view.show_error(
                entry.server, entry.name, fault.message, fault.code, fault.data, local=fault.local
            )
            return
        except Exception as exc:
            view.show_error(entry.server, entry.name, f"unexpected error: {exc}", None)
            return
        view.show_result(entry.server, entry.name, result)
        self.refresh_bindings()  # `t` becomes available when the result embeds a resource

    # --- actions ------------------------------------------------------------------------------------------

    @on(PromptResultView.OpenResource)
    def _open_resource(self, event: PromptResultView.OpenResource) -> None:
        event.stop()
        self.dismiss(event.uri)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "show_error":
            return self._show_error is not None
        if action == "reconnect":
            return self._reconnect is not None
        if action == "open_resource":
            return bool(self.result_view.resource_uris)
        if action == "copy_as":
            return self._last_request is not None
        return True

    def action_copy_as(self) -> None:
        """The prompt run last, as its JSON-RPC request or the command line that runs it again."""
        if self._last_request is None:
            return
        entry, arguments = self._last_request
        conn = self.connections.get(entry.server)
        name = text_for_clipboard(entry.name)  # the name a server chose: never raw onto the clipboard
        version = modern_version(conn.identity if conn is not None else None)
        request = jsonrpc_prompt(entry.name, arguments, modern_version=version)
        forms = [("Prompt name", name.text), ("JSON-RPC request", request)]
        if conn is not None:
            config = self.config
            source = config.source if config is not None else None
            in_config = config is not None and entry.server in config.servers
            line = prompt_command(
                conn.spec,
                entry.name,
                arguments,
                protocol=conn.protocol,
                config_path=source,
                in_config=in_config,
            )
            forms.append(("Command line", line))
        notes = {"Prompt name": name.notice().strip(" ()")} if name.changed else {}

        def copy(text: str | None) -> None:
            if text is not None:
                self.app.copy_to_clipboard(text)
                notice = name.notice() if text == name.text else ""
                self.notify("Copied: " + sanitize_line(text, 120) + notice, markup=False)

        self.app.push_screen(CopyAsDialog(f"prompt {entry.name}", forms, notes=notes), copy)

    def action_show_error(self) -> None:
        """The main screen's error dialog (with reconnect) for the highlighted prompt's server when it
        failed, else for the first failed server."""
        if self._show_error is None:
            return
        entry = self._entry_at(self.query_one("#prompt-list", OptionList).highlighted)
        failed = [n for n in self.server_names if n in self.failures and n not in self.connections]
        if entry is not None and entry.server in failed:
            self._show_error(entry.server)
        else:
            self._show_error(failed[0] if failed else None)

    def action_reconnect(self) -> None:
        """Reconnect every failed server (the main screen's `R`); each lists its prompts here once back."""
        if self._reconnect is not None:
            self._reconnect()

    def action_open_resource(self) -> None:
        focused = self.focused
        if isinstance(focused, ResourceLink):
            self.dismiss(focused.uri)
        elif self.result_view.resource_uris:
            self.dismiss(self.result_view.resource_uris[0])

    def action_close(self) -> None:
        self.dismiss(None)
