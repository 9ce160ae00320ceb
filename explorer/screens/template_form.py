"""`enter` on a template: fill its variables, watch the URI being built, read it.

The screen shows the template's name, title, description, MIME type and server (all sanitized), an
`ArgumentForm` with one field per variable, and a live preview of the expanded URI (RFC 6570 encoding:
a `/` typed into `{id}` shows as `%2F`). Submitting (enter in a field, or ctrl+s) checks every field
and, when nothing is wrong, returns a `TemplateFormResult` to the caller, which reads the URI. The
values are remembered per (server, template) and offered the next time.

The preview and the required fields are checked as you type; whether each value would come back from
the URI (which matches the URI against the template) is checked on a worker thread, so a hostile
template cannot freeze the form; an answer for texts that have changed since is dropped, and a submit
waits for the answer for the texts it submits.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from explorer.connection.completion import Completer
from explorer.history import History, HistoryValues
from explorer.model.entries import TemplateEntry
from explorer.model.fields import FieldSpec, FormCheck, check_round_trip, check_typed, template_fields
from explorer.model.suggestions import Suggestions, suggestions_source
from explorer.model.templates import ParsedTemplate, TemplateError, parse_template
from explorer.sanitize import sanitize, sanitize_line
from explorer.screens.tiny_terminal import mark_tiny
from explorer.screens.type_ahead import expect_typing
from explorer.widgets.argument_form import ArgumentForm
from explorer.widgets.key_bar import KeyBar
from explorer.widgets.server_labels import middle_cut

__all__ = ["TemplateFormResult", "TemplateFormScreen", "remember_in_background"]


@dataclass(frozen=True)
class TemplateFormResult:
    """What the user built: read `uri` on `server`."""

    server: str
    template: str
    values: dict[str, Any]
    uri: str


def remember_in_background(
    screen: ModalScreen[Any], kind: str, server: str, key: str, texts: dict[str, str]
) -> None:
    """Save a submitted value set to the history file in a thread (on the app: it outlives the screen)."""

    def save() -> None:
        history = History.load()
        history.remember("prompt" if kind == "prompt" else "template", server, key, texts)

    screen.app.run_worker(save, thread=True, group="history-save", exit_on_error=False)


class TemplateFormScreen(ModalScreen[TemplateFormResult | None]):
    """A form for one template of one server, with a live URI preview."""

    # None: `on_mount` focuses the first field. Textual's would focus it sooner (the box around the fields
    # takes no focus now), before the history loaded from `on_mount` arrives: the form offers history
    # only as a field gains focus.
    AUTO_FOCUS = ""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "submit", "Read", id="template_form.submit"),
        Binding("escape", "cancel", "Cancel", id="template_form.cancel"),
        # The app's, which a dialog drops; `?` is typed into a field, `f1` helps there.
        Binding("question_mark,f1", "app.toggle_help", "Help", id="app.help"),
    ]
    HELP = """
## Fill a template
Type a value for each variable; the line at the bottom shows the URI as it will be sent, encoded as
RFC 6570 says (a `/` in `{id}` becomes `%2F`, `{+path}` keeps it).

- `enter` (or `ctrl+s`) reads the URI; `escape` closes without reading.
- Errors appear under a field: a required variable left empty, or a value the URI could not give
  back (it would not round-trip).
- Suggestions come from the server's completions when it offers them. `ctrl+r` recalls the values
  you used for this template before.
"""
    # The URI preview and the status line are docked (together) to the bottom of the box, so they stay
    # in sight when the box is too short for everything: the rest (header, description, fields) scrolls
    # above them. On a short terminal the fields give up their own scroll, so the box scrolls as one. On
    # a tiny one (40x12) the box takes every row, the blank rows go and the inputs are one row high, so a
    # field, its label and a few of its suggestions are in sight together.
    DEFAULT_CSS = """
    TemplateFormScreen { align: center top; }
    TemplateFormScreen > #tf-box {
        width: 90%; max-width: 140; height: auto; max-height: 90%; overflow-y: auto;
        margin-top: 2; border: thick $accent; background: $surface; padding: 0 1;
    }
    TemplateFormScreen #tf-header { height: auto; }
    TemplateFormScreen #tf-meta { height: auto; color: $text-muted; margin-bottom: 1; }
    TemplateFormScreen #tf-fields { height: auto; max-height: 45vh; }
    TemplateFormScreen #tf-bottom { dock: bottom; height: auto; }
    TemplateFormScreen #tf-preview { height: auto; max-height: 6; background: $panel; padding: 0 1; }
    TemplateFormScreen #tf-status { height: auto; max-height: 4; color: $text-muted; }
    TemplateFormScreen #tf-status.-error { color: $text-error; }
    TemplateFormScreen.-short > #tf-box { margin-top: 1; max-height: 100%; }
    TemplateFormScreen.-short #tf-fields { max-height: initial; }
    TemplateFormScreen.-short #tf-preview { max-height: 3; }
    TemplateFormScreen.-short #tf-status { max-height: 2; }
    TemplateFormScreen.-tiny > #tf-box { margin-top: 0; }
    TemplateFormScreen.-tiny #tf-meta { margin-bottom: 0; }
    TemplateFormScreen.-tiny ArgumentForm > .form-field { margin-bottom: 0; }
    TemplateFormScreen.-tiny ArgumentForm > #suggestions { margin-bottom: 0; }
    """

    def __init__(self, entry: TemplateEntry, completer: Completer | None = None) -> None:
        super().__init__()
        self.entry = entry
        self.completer = completer
        self.parsed: ParsedTemplate | None
        self.template_error: str | None = None
        try:
            self.parsed = parse_template(entry.uri_template)
        except TemplateError as error:
            self.parsed = None
            self.template_error = str(error)
        self.fields: list[FieldSpec] = template_fields(self.parsed) if self.parsed is not None else []
        self.check: FormCheck = FormCheck()
        self._round_trip: Worker[FormCheck] | None = None  # the one round-trip answer still wanted
        self._round_trip_shows_required = False
        self._submit_when_checked = False
        self._last_answer: Suggestions | None = None  # the server's last completion answer in this form
        if self.fields:  # keys typed before the first field has the focus go there (none: to the form)
            expect_typing(self)

    # --- layout -------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical(id="tf-box"):
            yield Static(self._header(), id="tf-header")
            yield Static(self._meta(), id="tf-meta")
            # Not focusable: tab past the last field went to this invisible box and the keys after it
            # were lost; now tab and shift+tab go round the fields only.
            with VerticalScroll(id="tf-fields", can_focus=False):
                yield ArgumentForm(
                    self.fields, complete=self._complete if self._can_complete else None, id="tf-form"
                )
            with Vertical(id="tf-bottom"):
                yield Static(Content(""), id="tf-preview")
                yield Static(Content(""), id="tf-status")
        yield KeyBar()

    def _header(self) -> Content:
        raw = self.entry.raw
        title = raw.get("title")
        parts: list[Content | str | tuple[str, str]] = [
            (sanitize_line(self.entry.name or "(no name)", 120), "bold"),
        ]
        if isinstance(title, str) and title and title != self.entry.name:
            parts += ["  ", sanitize_line(title, 160)]
        parts += [
            ("  [", "$text-muted"),
            (middle_cut(self.entry.server, 60), "$accent"),
            ("]", "$text-muted"),
        ]
        parts += ["\n", (sanitize_line(self.entry.uri_template, 400), "$text-muted")]
        return Content.assemble(*parts)

    def _meta(self) -> Content:
        raw = self.entry.raw
        lines: list[str] = []
        description = raw.get("description")
        if isinstance(description, str) and description:
            lines.append(sanitize(description, limit=1000))
        mime = raw.get("mimeType")
        lines.append(
            f"MIME type: {sanitize_line(mime, 100)}"
            if isinstance(mime, str) and mime
            else "MIME type: not given"
        )
        if self.completer is not None:
            lines.append(self._suggestions_line())
        return Content("\n".join(lines))

    def _suggestions_line(self) -> str:
        """Where suggestions come from, as of the server's last answer and the history loaded."""
        assert self.completer is not None
        earlier = bool(self.fields) and self._has_history
        line = suggestions_source(self.completer.unavailable, self._last_answer, earlier=earlier)
        return sanitize_line(line, 300)  # the reason is the server's or the connection's words

    @property
    def _has_history(self) -> bool:
        forms = self.query(ArgumentForm)
        return bool(forms) and bool(forms.first().history)

    def _show_meta(self) -> None:
        self.query_one("#tf-meta", Static).update(self._meta())

    def on_resize(self, event: events.Resize) -> None:
        mark_tiny(self, event.size)
        self.form.set_compact(self.has_class("-tiny"))

    def on_mount(self) -> None:
        form = self.form
        if self.template_error is not None:
            self._status(f"This template cannot be filled: {self.template_error}", error=True)
            return
        form.focus_field()
        self._update()
        self.run_worker(
            partial(self._load_history, self.entry.server, self.entry.uri_template),
            thread=True,
            group="template-form-history",
            exit_on_error=False,
        )

    @staticmethod
    def _load_history(server: str, template: str) -> list[HistoryValues]:
        return History.load().entries("template", server, template)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is self._round_trip and event.state in (WorkerState.SUCCESS, WorkerState.ERROR):
            self._round_trip = None
            if event.state == WorkerState.ERROR:
                self._submit_when_checked = False
                self._status(f"Could not check the values: {event.worker.error}", error=True)
                return
            check = event.worker.result
            assert isinstance(check, FormCheck)
            self._show(check, show_required=self._round_trip_shows_required)
            if self._submit_when_checked:
                self._submit_when_checked = False
                self._finish_submit(check)
            return
        if event.worker.group == "template-form-history" and event.state == WorkerState.SUCCESS:
            entries = event.worker.result
            if isinstance(entries, list) and entries:
                self.form.set_history(entries)
                self._show_meta()
                if not any(self.form.texts.values()):
                    self._status("ctrl+r recalls the values you used last time.")

    @property
    def form(self) -> ArgumentForm:
        return self.query_one(ArgumentForm)

    # --- completion ---------------------------------------------------------------------------------------

    @property
    def _can_complete(self) -> bool:
        return self.completer is not None and self.completer.unavailable is None

    async def _complete(self, name: str, value: str, context: dict[str, str]) -> Suggestions:
        assert self.completer is not None
        found = await self.completer.template(self.entry.uri_template, name, value, context)
        # Even an answer the form drops as stale tells how the server's completions are doing.
        self._last_answer = found
        if self.is_attached:
            self._show_meta()
        return found

    # --- live preview -------------------------------------------------------------------------------------

    @property
    def checking(self) -> bool:
        """Whether the round-trip check of the current texts is still running."""
        return self._round_trip is not None

    @on(ArgumentForm.Changed)
    def _changed(self) -> None:
        self._submit_when_checked = False
        self._update(show_required=False)

    def _update(self, *, show_required: bool = False) -> FormCheck:
        """Show the quick check of the texts now; start the round-trip check on a worker thread."""
        if self.parsed is None:
            return self.check
        typed = check_typed(self.parsed, self.fields, dict(self.form.texts))
        self._show(typed, show_required=show_required)
        self._round_trip_shows_required = show_required
        self._round_trip = self.run_worker(
            partial(check_round_trip, self.parsed, self.fields, typed),
            thread=True,
            group="template-form-check",
            exclusive=True,
            exit_on_error=False,
        )
        return typed

    def _show(self, check: FormCheck, *, show_required: bool) -> None:
        self.check = check
        errors = dict(check.errors)
        if not show_required:
            # while typing, an empty required field is not an error yet: only wrong values are
            errors = {k: v for k, v in errors.items() if self.form.texts.get(k)}
        self.form.set_errors(errors)
        preview = self.query_one("#tf-preview", Static)
        if check.uri is None:
            preview.update(
                Content.assemble(("URI  ", "bold"), (sanitize_line(check.problem or "", 300), "$text-error"))
            )
        else:
            preview.update(Content.assemble(("URI  ", "bold"), sanitize_line(check.uri, 2000)))
        if check.problem:
            self._status(check.problem, error=True)
        else:
            recall = " · ctrl+r recalls earlier values" if self.form.history else ""
            self._status(f"enter reads it · escape cancels{recall}")

    def _status(self, text: str, *, error: bool = False) -> None:
        status = self.query_one("#tf-status", Static)
        status.update(Content(text))
        status.set_class(error, "-error")

    # --- submit -------------------------------------------------------------------------------------------

    @on(ArgumentForm.Submitted)
    def _form_submitted(self) -> None:
        self.action_submit()

    def action_submit(self) -> None:
        if self.parsed is None:
            return
        typed = self._update(show_required=True)
        self._submit_when_checked = True  # `_finish_submit` when the round-trip answer arrives
        if not typed.ok or typed.uri is None:
            self._refuse(typed)  # at once (said again when the answer arrives)

    def _refuse(self, check: FormCheck) -> None:
        count = len(check.errors)
        self._status(
            check.problem or f"{count} field{'s' if count != 1 else ''} to fix before reading.",
            error=True,
        )
        first = next((spec.name for spec in self.fields if spec.name in check.errors), None)
        if first is not None:
            self.form.focus_field(first)

    def _finish_submit(self, check: FormCheck) -> None:
        if not check.ok or check.uri is None:
            self._refuse(check)
            return
        texts = {k: v for k, v in self.form.texts.items() if v}
        remember_in_background(self, "template", self.entry.server, self.entry.uri_template, texts)
        self.dismiss(TemplateFormResult(self.entry.server, self.entry.uri_template, check.values, check.uri))

    def action_cancel(self) -> None:
        self.dismiss(None)
