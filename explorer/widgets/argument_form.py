"""ArgumentForm: one input per template variable or prompt argument, with suggestions and errors.

Used by the template form and the prompt form. The form knows nothing of servers: it is given its
fields (`explorer.model.fields.FieldSpec`), an optional `complete` coroutine function (the screen wraps
a `Completer`), and remembered value sets (history). It posts `Changed` on every edit and `Submitted`
when the user presses enter without picking a suggestion; the screen checks the values and calls
`set_errors`.

Suggestions: typing in a field asks `complete(name, text, other_filled_values)` after a 200 ms pause;
a newer keystroke cancels the pending request (one exclusive worker group per form) and an answer for a
value that is no longer in the field, or for a field that lost focus, is dropped. Past values of the
field (history) come first. Server strings are shown sanitized, as `Content`; a suggestion holding
control characters is not offered (it could not be typed back faithfully).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from explorer.deferred import Deferred
from explorer.history import HistoryValues
from explorer.model.fields import FieldSpec, format_value
from explorer.model.suggestions import Suggestions
from explorer.sanitize import is_clean, sanitize, sanitize_line

__all__ = ["DEBOUNCE_SECONDS", "ArgumentForm", "CompleteFunction", "FieldInput"]

DEBOUNCE_SECONDS = 0.2
MAX_SHOWN = 100
CompleteFunction = Callable[[str, str, dict[str, str]], Awaitable[Suggestions]]


class FieldInput(Input):
    """The input of one field; `field_name` is the variable or argument it fills."""

    def __init__(self, spec: FieldSpec, value: str, *, id: str) -> None:
        super().__init__(value=value, placeholder=spec.hint, id=id)
        self.field_name = spec.name
        self.spec = spec


class _Suggestions(OptionList, can_focus=False):
    """The suggestion list under the focused field (focus stays in the input)."""


class ArgumentForm(Vertical):
    """Inputs for the fields of a template or prompt, with suggestions, history and per-field errors."""

    HELP = """
## Filling a form

One line per variable or argument. The label shows how the template writes the variable (`{id}`,
`{+path}`, `{/segments*}`, `{?q}`) and whether it is required.

- Variables ending in `*` take **several values**: separate them with `/` in `{/x*}`, with `.` in
  `{.x*}`, and with `,` otherwise (`key=value` items make pairs under `?`, `&` and `;`). One the
  template also cuts with a prefix (`{x:3}`) takes a single value.
- **Suggestions** appear under the field as you type (from the server's completions, with the values
  already filled in the other fields as context; your recent values first). `down`/`up` pick one,
  `enter` or `tab` accepts it, `escape` hides the list. `ctrl+space` asks again.
- `ctrl+r` fills every field with the values you used last time; press it again to go further back.
- `tab`/`shift+tab` move between fields when no suggestion is picked.
"""

    DEFAULT_CSS = """
    ArgumentForm { height: auto; }
    ArgumentForm > .form-field { height: auto; margin: 0 0 1 0; }
    ArgumentForm .field-label { height: auto; }
    ArgumentForm .field-description { height: auto; color: $text-muted; }
    ArgumentForm .field-error { height: auto; color: $text-error; display: none; }
    ArgumentForm .field-error.-shown { display: block; }
    ArgumentForm > _Suggestions {
        height: auto; max-height: 10; margin: 0 0 1 2; border: round $accent; display: none;
    }
    ArgumentForm > _Suggestions.-shown { display: block; }
    ArgumentForm > .completion-note { height: auto; margin: 0 0 1 2; color: $text-muted; display: none; }
    ArgumentForm > .completion-note.-shown { display: block; }
    ArgumentForm > .form-empty { color: $text-muted; height: auto; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "suggestion_down", "Suggest", show=False, id="form.suggestion_down"),
        Binding("up", "suggestion_up", "Previous suggestion", show=False, id="form.suggestion_up"),
        Binding("tab", "accept_suggestion", "Accept", show=False, id="form.accept"),
        Binding("escape", "hide_suggestions", "Hide suggestions", show=False, id="form.hide"),
        Binding("ctrl+space", "suggest_now", "Suggest", show=False, id="form.suggest"),
        Binding("ctrl+r", "recall", "Recall values", id="form.recall"),
    ]

    class Changed(Message):
        """A field's text changed (typed, picked or recalled)."""

        def __init__(self, form: ArgumentForm, name: str) -> None:
            super().__init__()
            self.form = form
            self.name = name

        @property
        def control(self) -> ArgumentForm:
            return self.form

    class Submitted(Message):
        """The user pressed enter in a field without picking a suggestion."""

        def __init__(self, form: ArgumentForm) -> None:
            super().__init__()
            self.form = form

        @property
        def control(self) -> ArgumentForm:
            return self.form

    def __init__(
        self,
        fields: Sequence[FieldSpec],
        *,
        complete: CompleteFunction | None = None,
        history: Sequence[HistoryValues] = (),
        values: Mapping[str, str] | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.fields = list(fields)
        self._complete = complete
        self._history: list[HistoryValues] = list(history)
        self._initial = dict(values or {})
        self._timer: Timer | None = None
        self._token = 0
        self._shown_for: str | None = None  # the field whose suggestions are on screen
        self._shown_values: list[str] = []
        self._recall_index = -1
        self.last_reason: str | None = None  # why the last completion gave nothing (for the status line)
        self.hidden_unclean = 0
        self.debounce = DEBOUNCE_SECONDS
        """Seconds of quiet typing before completion is asked."""

    # --- layout -------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        if not self.fields:
            yield Static(Content("No arguments."), classes="form-empty")
        for index, spec in enumerate(self.fields):
            with Vertical(classes="form-field", id=f"form-field-{index}"):
                yield Static(self._label(spec), classes="field-label")
                if spec.description or spec.title:
                    yield Static(self._description(spec), classes="field-description")
                yield FieldInput(spec, self._initial.get(spec.name, ""), id=f"field-{index}")
                yield Static(Content(""), classes="field-error")
        yield _Suggestions(id="suggestions")
        yield Static(Content(""), id="completion-note", classes="completion-note")

    @staticmethod
    def _label(spec: FieldSpec) -> Content:
        marker = ("required", "$text-warning") if spec.required else ("optional", "$text-muted")
        parts: list[Content | str | tuple[str, str]] = [
            (sanitize_line(spec.label, 120), "bold"),
            "  ",
            marker,
        ]
        if spec.hint:
            parts += [("  · " + spec.hint, "$text-muted")]
        return Content.assemble(*parts)

    @staticmethod
    def _description(spec: FieldSpec) -> Content:
        pieces = [
            sanitize_line(spec.title, 120) if spec.title else "",
            sanitize(spec.description or "", limit=500),
        ]
        return Content(" — ".join(p for p in pieces if p))

    # --- public -------------------------------------------------------------------------------------------

    @property
    def inputs(self) -> list[FieldInput]:
        return list(self.query(FieldInput))

    @property
    def texts(self) -> dict[str, str]:
        """The text of every field, by name."""
        return {i.field_name: i.value for i in self.inputs}

    def input_for(self, name: str) -> FieldInput:
        for field_input in self.inputs:
            if field_input.field_name == name:
                return field_input
        raise KeyError(name)

    def set_text(self, name: str, text: str) -> None:
        field_input = self.input_for(name)
        field_input.value = text
        field_input.cursor_position = len(text)

    def focus_field(self, name: str | None = None) -> None:
        """Focus a field (the first one by default)."""
        inputs = self.inputs
        if not inputs:
            return
        target = inputs[0] if name is None else self.input_for(name)
        target.focus()

    def set_errors(self, errors: Mapping[str, str]) -> None:
        """Show one error under each named field and clear the others."""
        for index, spec in enumerate(self.fields):
            box = self.query_one(f"#form-field-{index}", Vertical).query_one(".field-error", Static)
            message = errors.get(spec.name)
            box.update(Content(sanitize(message, limit=500)) if message else Content(""))
            box.set_class(bool(message), "-shown")
            self.input_for(spec.name).set_class(bool(message), "-invalid")

    def set_compact(self, compact: bool) -> None:
        """Inputs of one row without borders (Textual's compact style), or the usual three: for a tiny
        terminal, where a field's three rows and its suggestions did not fit in sight together."""
        for field_input in self.inputs:
            field_input.compact = compact

    def set_history(self, history: Sequence[HistoryValues]) -> None:
        """Earlier values, loaded after the form opened: a field that took the focus first offers them now
        (they were offered only on the next focus, so whether they showed hung on which came first)."""
        self._history = list(history)
        self._recall_index = -1
        self.refresh_bindings()
        focused = self._focused_input()
        if focused is not None:
            self._show(focused, [], keep_previous=True)

    @property
    def history(self) -> list[HistoryValues]:
        return list(self._history)

    @property
    def suggestions_shown(self) -> bool:
        return self._suggestion_list.has_class("-shown")

    @property
    def suggestion_values(self) -> list[str]:
        """The values now offered (raw, as they would be put into the field)."""
        return list(self._shown_values) if self.suggestions_shown else []

    # --- focus and typing ---------------------------------------------------------------------------------

    @property
    def _suggestion_list(self) -> _Suggestions:
        return self.query_one(_Suggestions)

    def _focused_input(self) -> FieldInput | None:
        focused = self.screen.focused if self.is_attached else None
        return focused if isinstance(focused, FieldInput) and focused in self.inputs else None

    @on(events.DescendantFocus)
    def _field_focused(self, event: events.DescendantFocus) -> None:
        field_input = event.widget
        if not isinstance(field_input, FieldInput):
            return
        if self._shown_for != field_input.field_name:
            self._hide()
            self._hide_note()  # it was about another field
        self._show(field_input, [])  # history at once, completions after the pause
        self._schedule(field_input)

    @on(events.DescendantBlur)
    def _field_blurred(self, event: events.DescendantBlur) -> None:
        if isinstance(event.widget, FieldInput) and self._focused_input() is None:
            self._cancel()
            self._hide()
            self._hide_note()

    @on(Input.Changed)
    def _text_changed(self, event: Input.Changed) -> None:
        field_input = event.input
        if not isinstance(field_input, FieldInput):
            return
        event.stop()
        self.post_message(self.Changed(self, field_input.field_name))
        if field_input is self._focused_input():
            self._show(field_input, [], keep_previous=True)
            self._schedule(field_input)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        if not isinstance(event.input, FieldInput):
            return
        event.stop()
        if self.suggestions_shown and self._suggestion_list.highlighted is not None:
            self.action_accept_suggestion()
            return
        self._cancel()
        self._hide()
        self.post_message(self.Submitted(self))

    @on(OptionList.OptionSelected, "#suggestions")
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._accept(event.option_index)

    # --- completion ---------------------------------------------------------------------------------------

    def _other_values(self, name: str) -> dict[str, str]:
        return {k: v for k, v in self.texts.items() if k != name and v}

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._token += 1
        self.workers.cancel_group(self, "argument-form-complete")

    def _schedule(self, field_input: FieldInput, delay: float | None = None) -> None:
        self._cancel()
        delay = self.debounce if delay is None else delay
        if self._complete is None:
            return
        token = self._token
        if delay <= 0:
            self._request(field_input, token)
            return
        self._timer = self.set_timer(delay, lambda: self._request(field_input, token))

    def _request(self, field_input: FieldInput, token: int) -> None:
        self._timer = None
        if token != self._token or self._complete is None or not field_input.is_attached:
            return
        name, value = field_input.field_name, field_input.value
        self.run_worker(
            Deferred(self._fetch, field_input, name, value, self._other_values(name), token),
            group="argument-form-complete",
            exclusive=True,
            exit_on_error=False,
        )

    async def _fetch(
        self, field_input: FieldInput, name: str, value: str, context: dict[str, str], token: int
    ) -> None:
        assert self._complete is not None
        found = await self._complete(name, value, context)
        if token != self._token or field_input.value != value or self._focused_input() is not field_input:
            return  # stale: the user typed on or moved away while the server was thinking
        self.last_reason = found.reason
        self._show(field_input, found.values)
        self._show_note(field_input, self._note_text(found))

    # --- the list -----------------------------------------------------------------------------------------

    def _history_values(self, spec: FieldSpec, typed: str) -> list[str]:
        out: list[str] = []
        lowered = typed.lower()
        for entry in self._history:
            value = entry.get(spec.name)
            if not value:
                continue
            text = format_value(spec, value)
            if text and text != typed and text.lower().startswith(lowered) and text not in out:
                out.append(text)
        return out[:5]

    def _show(
        self, field_input: FieldInput, server_values: Sequence[str], *, keep_previous: bool = False
    ) -> None:
        """Offer the field's recent values and `server_values` under the field (hidden when none)."""
        typed = field_input.value
        recent = self._history_values(field_input.spec, typed)
        offered: list[tuple[str, bool]] = [(v, True) for v in recent]
        self.hidden_unclean = 0
        for value in server_values:
            if not is_clean(value, multiline=False):
                self.hidden_unclean += 1
                continue
            if value != typed and value not in recent:
                offered.append((value, False))
        if keep_previous and self._shown_for == field_input.field_name:
            # keep what the server offered last until its new answer arrives (no flicker), if still relevant
            offered += [
                (v, False)
                for v in self._shown_values
                if v not in recent and v != typed and v.lower().startswith(typed.lower())
            ]
        offered = offered[:MAX_SHOWN]
        suggestions = self._suggestion_list
        if not offered:
            self._hide()
            return
        options = [
            Option(Content.assemble(sanitize_line(value, 200), ("  recent", "$text-muted") if mine else ""))
            for value, mine in offered
        ]
        picked = suggestions.highlighted
        kept = self._shown_values[picked] if picked is not None and picked < len(self._shown_values) else None
        suggestions.set_options(options)
        self._shown_values = [value for value, _ in offered]
        if kept is not None and kept in self._shown_values and self._shown_for == field_input.field_name:
            suggestions.highlighted = self._shown_values.index(kept)  # a fresh answer keeps the user's pick
        self._shown_for = field_input.field_name
        row = field_input.parent
        if isinstance(row, Vertical) and row.parent is self:
            self.move_child(suggestions, after=row)
        suggestions.add_class("-shown")
        self.call_after_refresh(self._bring_in, field_input)
        self.refresh_bindings()

    def _note_text(self, found: Suggestions) -> str | None:
        """Why the server's answer offers nothing (or less than it sent), in one short line; None when
        nothing needs saying. The reason is the server's or the connection's words: sanitized, cut."""
        if found.reason is not None:
            return f"No suggestions: {sanitize_line(found.reason, 100)}"
        said = []
        if self.hidden_unclean:
            what = "suggestion" if self.hidden_unclean == 1 else "suggestions"
            said.append(
                f"{self.hidden_unclean} {what} from the server not offered: they hold control characters"
            )
        if found.dropped:
            what = "value" if found.dropped == 1 else "values"
            said.append(f"{found.dropped} {what} from the server not offered: not text, or empty")
        return "; ".join(said) or None

    @property
    def completion_note(self) -> str | None:
        """The note shown under the field about the last completion (None when none is shown)."""
        note = self.query_one("#completion-note", Static)
        return str(note.content) if note.has_class("-shown") else None

    def _show_note(self, field_input: FieldInput, text: str | None) -> None:
        """Put `text` under the field (after its suggestions, if any), or hide the note when None."""
        note = self.query_one("#completion-note", Static)
        if text is None:
            note.remove_class("-shown")
            return
        note.update(Content(text))
        row = field_input.parent
        if self.suggestions_shown:
            self.move_child(note, after=self._suggestion_list)
        elif isinstance(row, Vertical) and row.parent is self:
            self.move_child(note, after=row)
        note.add_class("-shown")

    def _hide_note(self) -> None:
        self.query_one("#completion-note", Static).remove_class("-shown")

    def _bring_in(self, field_input: FieldInput) -> None:
        """On a short screen the list can open below the fold of the scrolling form: bring it in, but
        never at the cost of the field being typed into (at 40x12 the list alone filled the box): the
        list, then the field's label, then its input, each scrolled to only if it is out of sight."""
        self._suggestion_list.scroll_visible(animate=False, immediate=True)
        if isinstance(field_input.parent, Widget):
            field_input.parent.scroll_visible(animate=False, immediate=True)
        field_input.scroll_visible(animate=False, immediate=True)

    def _hide(self) -> None:
        suggestions = self._suggestion_list
        suggestions.remove_class("-shown")
        suggestions.highlighted = None
        self._shown_for = None
        self._shown_values = []
        self.refresh_bindings()

    def _accept(self, index: int) -> None:
        field_input = self._focused_input()
        if field_input is None or not 0 <= index < len(self._shown_values):
            return
        value = self._shown_values[index]
        self._hide()
        self.set_text(field_input.field_name, value)

    # --- actions ------------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("suggestion_up", "hide_suggestions"):
            return self.suggestions_shown
        if action == "accept_suggestion":
            return self.suggestions_shown and self._suggestion_to_accept() is not None
        if action == "recall":
            return bool(self._history) and bool(self.fields)
        if action in ("suggestion_down", "suggest_now"):
            return self._focused_input() is not None
        return True

    def action_suggestion_down(self) -> None:
        field_input = self._focused_input()
        if field_input is None:
            return
        if not self.suggestions_shown:
            self._schedule(field_input, delay=0)
            return
        self._suggestion_list.action_cursor_down()

    def action_suggestion_up(self) -> None:
        self._suggestion_list.action_cursor_up()

    def action_accept_suggestion(self) -> None:
        index = self._suggestion_to_accept()
        if index is not None:
            self._accept(index)

    def _suggestion_to_accept(self) -> int | None:
        """What `tab` takes: the highlighted suggestion, or the only one shown when it is not what the field
        holds already (typing `Eng` that leaves `Engineering` alone: tab took the user to the next field)."""
        highlighted = self._suggestion_list.highlighted
        if highlighted is not None:
            return highlighted
        field_input = self._focused_input()
        if len(self._shown_values) == 1 and field_input is not None:
            return 0 if self._shown_values[0] != field_input.value else None
        return None

    def action_hide_suggestions(self) -> None:
        self._cancel()
        self._hide()

    def action_suggest_now(self) -> None:
        field_input = self._focused_input()
        if field_input is not None:
            self._schedule(field_input, delay=0)

    def action_recall(self) -> None:
        """Fill every field from the next older remembered value set (cycling)."""
        if not self._history:
            return
        self._recall_index = (self._recall_index + 1) % len(self._history)
        entry = self._history[self._recall_index]
        focused = self._focused_input()
        self._cancel()
        self._hide()
        for spec in self.fields:
            field_input = self.input_for(spec.name)
            text = format_value(spec, entry.get(spec.name, ""))
            if field_input.value != text:
                field_input.value = text
                field_input.cursor_position = len(text)
        self.notify(
            f"Recalled values {self._recall_index + 1} of {len(self._history)}.", markup=False, timeout=3
        )
        if focused is not None:
            focused.focus()
