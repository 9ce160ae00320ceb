"""`g`: type or paste a URI; see at once whether a server lists it, which templates produce it
(with the values, and the other readings of the URI), or where the path stops existing; `enter` jumps there.

Matching runs on a worker thread, one per change of the text (only the tree snapshot is taken on the UI
thread): a hostile template or a long URI never freezes the screen, an answer for text that has changed
since is dropped, and `enter` pressed before the answer jumps once it arrives.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState, get_current_worker

from explorer.model.fields import left_undefined, typed_values
from explorer.model.resolve import Resolution, ResolveRequest, resolve, snapshot
from explorer.model.templates import TemplateError, parse_template
from explorer.model.uri_tree import UriTree
from explorer.sanitize import sanitize_line
from explorer.screens.type_ahead import expect_typing
from explorer.widgets.key_bar import KeyBar
from explorer.widgets.lists import VimOptionList
from explorer.widgets.server_labels import middle_cut


@dataclass(frozen=True)
class GoToTarget:
    """Where to jump: a listed node's prefix, or a template (with the values that produce the URI)."""

    uri: str
    prefix: str
    template: str | None = None
    server: str | None = None
    values: dict[str, Any] | None = None
    read: bool = False
    """Ask `server` for the URI though nothing lists or matches it (a server may serve more than it
    lists): what the CLI's `read` does, and the way to see the server's own answer for such a URI."""


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")  # RFC 3986's scheme, then its colon
_ALTERNATIVES_SHOWN = 3  # other readings of the URI listed under a template match


def _resolve_in_worker(request: ResolveRequest) -> Resolution:
    worker = get_current_worker()
    return resolve(request, stop=lambda: worker.is_cancelled)


def _unchecked_note(r: Resolution) -> Content:
    """What a very long URI was not matched against (`Resolution.unchecked`): "no match" is then
    only about the templates checked, and the user must know it."""
    if not r.unchecked:
        return Content("")
    more = "more template" if r.unchecked == 1 else "more templates"
    return Content.styled(
        f"\nNot checked: the URI is too long ({len(r.uri):,} characters) to match against"
        f" {r.unchecked:,} {more} (the most specific were checked).",
        "$warning",
    )


def _values_text(template: str, values: dict[str, Any]) -> str:
    """`q=a=1,a=2  path=a/b`: each value as the template form reads it (`fields.typed_values`)."""
    typed = typed_values(template, values)
    return "  ".join(f"{sanitize_line(k, 60)}={sanitize_line(v, 120)}" for k, v in typed.items())


def _holes_text(template: str, values: dict[str, Any]) -> str:
    """`  ⚠ chapter undefined`: a required variable the URI leaves out (it matches, but with a hole
    a server will likely refuse), else nothing."""
    try:
        holes = left_undefined(parse_template(template), values)
    except TemplateError:
        return ""
    return f"  ⚠ {', '.join(sanitize_line(name, 60) for name in holes)} undefined" if holes else ""


class _Choices(VimOptionList):
    """The go-to box's choices: moving up from the first one goes back to the URI, as in a command
    palette (`down` in the URI comes here: `GoToDialog.on_key`)."""

    def action_cursor_up(self) -> None:
        if self.highlighted is None or self.highlighted <= 0:
            self.screen.query_one("#goto-input", Input).focus()
            return
        super().action_cursor_up()


class GoToDialog(ModalScreen[GoToTarget | None]):
    """Resolve a URI live as it is typed."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="goto.cancel"),
        # The app's, which a dialog drops; `?` is typed into the URI, `f1` helps there.
        Binding("question_mark,f1", "app.toggle_help", "Help", id="app.help"),
    ]
    HELP = """
## Go to URI
Type or paste a URI. The list says which server lists it, or which templates of which servers produce
it (most specific first, with the values; `or` lines are other readings of the same URI), or the
nearest prefix that exists. `enter` jumps to the first choice; `down` moves into the list, where
`enter` acts on the choice highlighted and `up` from the first choice goes back to the URI.
"""
    DEFAULT_CSS = """
    GoToDialog { align: center top; }
    GoToDialog > Vertical {
        width: 90%; max-width: 140; height: auto; max-height: 80%;
        margin-top: 3; border: thick $accent; background: $surface; padding: 0 1;
    }
    GoToDialog #goto-summary { color: $text-muted; padding: 1 0 0 0; }
    GoToDialog OptionList { height: auto; max-height: 20; }
    GoToDialog.-short > Vertical { margin-top: 1; max-height: 100%; }
    """
    SHORT = 32  # the app's `-short` breakpoint: under it the choices are sized in code (`_fit_choices`)
    AROUND_CHOICES = 11  # rows the choices leave: margin, borders, the URI field, a 3-line summary, key bar

    def __init__(self, tree: UriTree, initial: str = "", servers: Sequence[str] = ()) -> None:
        """`servers`: the connected ones, each offered to read a URI that nothing lists or matches."""
        super().__init__()
        self.uri_tree = tree
        self.initial = initial
        self.servers = tuple(servers)
        self._targets: list[GoToTarget] = []
        self._resolving: Worker[Resolution] | None = None  # the one answer still wanted
        self._submit_when_resolved = False
        self.resolution: Resolution | None = None  # the answer shown
        expect_typing(self)  # keys typed after `g`, before the URI field has the focus, go there

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Input(value=self.initial, placeholder="URI, e.g. docs://handbook/welcome", id="goto-input")
            yield Static(Content(""), id="goto-summary")
            yield _Choices(id="goto-options")
        yield KeyBar()  # this dialog's keys, not the screen's below it

    def on_mount(self) -> None:
        self._fit_choices()
        self._update(self.initial)

    def on_resize(self, event: events.Resize) -> None:
        self._fit_choices()

    def _fit_choices(self) -> None:
        """Under 32 rows the choices take the rows the box leaves: a share of the screen in CSS (40%)
        showed 9 choices at 24 rows with the rows below the box blank. Taller, the CSS cap (20) holds."""
        height = self.size.height
        short = 0 < height < self.SHORT
        choices = self.query_one("#goto-options", OptionList)
        choices.styles.max_height = max(3, height - self.AROUND_CHOICES) if short else None

    def on_input_changed(self, event: Input.Changed) -> None:
        self._update(event.value.strip())

    def on_key(self, event: events.Key) -> None:
        """`down` in the URI moves to the first choice (the input has no use for it), once the choices
        are those of the URI as it is now: `enter` there must not act on a choice for older text."""
        if event.key != "down" or not isinstance(self.focused, Input):
            return
        if self._resolving is not None or not self._targets:
            return
        event.stop()
        event.prevent_default()
        self.focused.select_on_focus = False  # back from the list, typing goes on after the URI
        choices = self.query_one("#goto-options", OptionList)
        choices.focus()
        choices.highlighted = 0

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if self._resolving is not None:
            self._submit_when_resolved = True
        elif self._targets:
            self.dismiss(self._targets[0])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        index = event.option_index
        if 0 <= index < len(self._targets):
            self.dismiss(self._targets[index])

    def action_cancel(self) -> None:
        self.dismiss(None)

    def _update(self, uri: str) -> None:
        self._submit_when_resolved = False
        if not uri:
            self._resolving = None
            self._show(None)
            return
        request = snapshot(self.uri_tree, uri)  # the tree belongs to this thread: copy, then match there
        self._resolving = self.run_worker(
            partial(_resolve_in_worker, request),
            thread=True,
            group="goto-resolve",
            exclusive=True,  # marks the older ones cancelled: they stop at their next template
            exit_on_error=False,
        )
        if self.resolution is None:
            self.query_one("#goto-summary", Static).update(Content.styled("Resolving…", "$text-muted"))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker is not self._resolving or event.state not in (WorkerState.SUCCESS, WorkerState.ERROR):
            return  # an answer for text that has changed since, or not finished yet
        self._resolving = None
        if event.state == WorkerState.ERROR:
            why = sanitize_line(str(worker.error), 300)
            self.query_one("#goto-summary", Static).update(
                Content.styled(f"Could not resolve: {why}", "$error")
            )
            self.query_one("#goto-options", OptionList).clear_options()
            self._targets = []
            return
        self._show(worker.result)
        if self._submit_when_resolved and self._targets:
            self.dismiss(self._targets[0])

    def _show(self, resolution: Resolution | None) -> None:
        self.resolution = resolution
        summary = self.query_one("#goto-summary", Static)
        options = self.query_one("#goto-options", OptionList)
        options.clear_options()
        self._targets = []
        if resolution is None:
            summary.update(Content("Type or paste a URI."))
            return
        summary.update(Content.assemble(self._summary(resolution), _unchecked_note(resolution)))
        for target, prompt in self._choices(resolution):
            self._targets.append(target)
            options.add_option(Option(prompt))

    def _summary(self, r: Resolution) -> Content:
        if r.listed_by:
            return Content.styled(
                "Listed by " + ", ".join(middle_cut(s, 40) for s in r.listed_by), "$success"
            )
        if r.matches:
            count = len(r.matches)
            produce = "template produces" if count == 1 else "templates produce"
            return Content.styled(f"Not listed; {count} {produce} it", "$success")
        nearest = r.nearest.prefix
        text = "Nothing lists or matches this URI."
        if _SCHEME.match(r.uri) is None:
            text = "Not a URI: it has no scheme (like docs: or file:). Nothing lists or matches it."
        if nearest:
            text += f" Nearest existing prefix: {sanitize_line(nearest, 200)}"
        return Content.styled(text, "$warning")

    def _choices(self, r: Resolution) -> list[tuple[GoToTarget, Content]]:
        choices: list[tuple[GoToTarget, Content]] = []
        if r.node is not None:
            choices.append(
                (
                    GoToTarget(r.uri, r.node.prefix),
                    Content.assemble(("resource  ", "bold"), sanitize_line(r.uri, 300)),
                )
            )
        for m in r.matches:
            target = GoToTarget(
                r.uri, m.entry.literal_prefix, m.entry.uri_template, m.entry.server, dict(m.values)
            )
            prompt = Content.assemble(
                ("template  ", "bold $tree-pattern"),
                sanitize_line(m.entry.uri_template, 200),
                (f"  [{middle_cut(m.entry.server, 40)}]  ", "$tree-badge"),
                _values_text(m.entry.uri_template, dict(m.values)),
                (_holes_text(m.entry.uri_template, dict(m.values)), "$warning"),
            )
            choices.append((target, prompt))
            for other in m.alternatives[:_ALTERNATIVES_SHOWN]:
                reading = GoToTarget(
                    r.uri, m.entry.literal_prefix, m.entry.uri_template, m.entry.server, dict(other)
                )
                choices.append(
                    (
                        reading,
                        Content.assemble(
                            ("      or  ", "$text-muted"), _values_text(m.entry.uri_template, dict(other))
                        ),
                    )
                )
        for server, template, report in r.near_misses:
            problems = "; ".join(report.problems[:2])
            prompt = Content.assemble(
                ("near miss  ", "bold $warning"),
                sanitize_line(template, 200),
                (f"  [{middle_cut(server, 40)}]  ", "$tree-badge"),
                (sanitize_line(problems, 300), "$text-muted"),
            )
            prefix = template.split("{", 1)[0]
            choices.append((GoToTarget(r.uri, prefix, template, server, None), prompt))
        if not r.node and r.nearest.prefix:
            choices.append(
                (
                    GoToTarget(r.uri, r.nearest.prefix),
                    Content.assemble(("nearest  ", "bold"), sanitize_line(r.nearest.prefix, 300)),
                )
            )
        if r.node is None and not r.matches:
            for server in self.servers:
                prompt = Content.assemble(
                    ("read anyway  ", "bold"),
                    (f"[{middle_cut(server, 40)}]  ", "$tree-badge"),
                    ("ask this server for it: it may serve what it does not list", "$text-muted"),
                )
                choices.append((GoToTarget(r.uri, r.nearest.prefix, server=server, read=True), prompt))
        return choices
