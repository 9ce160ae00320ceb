"""ArgumentForm on its own: debounce, stale answers dropped, unsafe suggestions hidden, keys."""

from __future__ import annotations

import asyncio

import pytest
from textual.app import App, ComposeResult

from explorer.model.fields import FieldSpec
from explorer.model.suggestions import Suggestions
from explorer.widgets.argument_form import ArgumentForm
from tests.app_helpers import SIZE, wait_for

pytestmark = pytest.mark.anyio


class FormApp(App[None]):
    def __init__(self, form: ArgumentForm) -> None:
        super().__init__()
        self.form = form
        self.submitted = 0

    def compose(self) -> ComposeResult:
        yield self.form

    def on_mount(self) -> None:
        self.form.focus_field()

    def on_argument_form_submitted(self) -> None:
        self.submitted += 1


FIELDS = [FieldSpec("a", "{a}", True), FieldSpec("b", "{b}", False)]


@pytest.mark.slow
async def test_typing_is_debounced_and_stale_answers_are_dropped() -> None:
    calls: list[tuple[str, str, dict[str, str]]] = []
    cancelled: list[str] = []

    async def complete(name: str, value: str, context: dict[str, str]) -> Suggestions:
        calls.append((name, value, context))
        if value == "slow":
            try:
                await asyncio.sleep(5)
            except asyncio.CancelledError:
                cancelled.append(value)
                raise
            return Suggestions(["stale"])
        return Suggestions([value + "-1", value + "-2"])

    form = ArgumentForm(FIELDS, complete=complete, values={"b": "context"})
    form.debounce = 1.0  # generous, so a slow machine still types "abc" within one pause
    app = FormApp(form)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"abc")
        await wait_for(pilot, lambda: form.suggestion_values == ["abc-1", "abc-2"])
        assert [value for _, value, _ in calls] == ["abc"]  # no request per keystroke
        assert calls[0][2] == {"b": "context"}  # the other filled fields are the context
        form.set_text("a", "slow")
        await wait_for(pilot, lambda: any(value == "slow" for _, value, _ in calls))
        await pilot.press("x")  # a newer value cancels the pending request
        await wait_for(pilot, lambda: form.suggestion_values == ["slowx-1", "slowx-2"])
        await wait_for(pilot, lambda: cancelled == ["slow"])
        assert "stale" not in form.suggestion_values
        # pick with down, accept with enter; enter without a pick submits
        await pilot.press("down", "down", "enter")
        assert form.texts["a"] == "slowx-2" and app.submitted == 0
        await pilot.press("escape")  # hide whatever the new value brought
        await pilot.press("enter")
        assert app.submitted == 1


async def test_unsafe_suggestions_are_not_offered_and_labels_are_content() -> None:
    async def complete(name: str, value: str, context: dict[str, str]) -> Suggestions:
        return Suggestions(["ok", "bad\x1b[2J", "[@click=app.quit]x[/]", "rtl\u202e"])

    form = ArgumentForm([FieldSpec("a", "{a}", True, description="[/b] \x1b]0;t\x07")], complete=complete)
    app = FormApp(form)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+space")
        await wait_for(pilot, lambda: form.suggestions_shown)
        assert form.suggestion_values == ["ok", "[@click=app.quit]x[/]"]
        assert form.hidden_unclean == 2
        description = str(form.query_one(".field-description").render())
        assert "[/b]" in description and "\\x1b" in description
        await pilot.press("down", "down", "tab")
        assert form.texts["a"] == "[@click=app.quit]x[/]" and app.is_running


async def test_history_values_come_first_and_recall_cycles() -> None:
    history = [{"a": "two", "b": "x"}, {"a": "one"}]
    form = ArgumentForm(FIELDS, history=history)
    app = FormApp(form)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: form.suggestion_values == ["two", "one"])
        await pilot.press("t")
        assert form.suggestion_values == ["two"]
        await pilot.press("ctrl+r")
        assert form.texts == {"a": "two", "b": "x"}
        await pilot.press("ctrl+r")
        assert form.texts == {"a": "one", "b": ""}
        await pilot.press("ctrl+r")
        assert form.texts == {"a": "two", "b": "x"}


async def test_earlier_values_loaded_after_the_field_took_the_focus_are_offered_at_once() -> None:
    form = ArgumentForm(FIELDS)
    app = FormApp(form)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.focused is form.input_for("a"))
        assert not form.suggestions_shown
        form.set_history([{"a": "two"}, {"a": "one"}])
        await wait_for(pilot, lambda: form.suggestion_values == ["two", "one"])


async def test_tab_moves_between_fields_when_nothing_is_picked() -> None:
    async def complete(name: str, value: str, context: dict[str, str]) -> Suggestions:
        return Suggestions(["s1", "s2"])

    form = ArgumentForm(FIELDS, complete=complete)
    app = FormApp(form)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: form.suggestions_shown)
        await pilot.press("tab")
        assert app.focused is form.input_for("b")
        await wait_for(pilot, lambda: form.suggestions_shown)
        form.set_errors({"b": "bad value"})
        await pilot.pause()
        assert "bad value" in str(form.query(".field-error.-shown").first().render())
        form.set_errors({})
        await pilot.pause()
        assert not form.query(".field-error.-shown")


@pytest.mark.slow
async def test_tab_takes_the_only_suggestion_left_by_what_was_typed() -> None:
    """Typing `Eng` leaves `Engineering` alone in the list: tab takes it (it moved on to the next field,
    and the user had to press down first); once the field holds it, tab moves on again."""

    async def complete(name: str, value: str, context: dict[str, str]) -> Suggestions:
        return Suggestions([d for d in ("Engineering", "Sales") if d.lower().startswith(value.lower())])

    form = ArgumentForm(FIELDS, complete=complete)
    app = FormApp(form)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"Eng")
        await wait_for(pilot, lambda: form.suggestions_shown and form.suggestion_values == ["Engineering"])
        await pilot.press("tab")
        assert form.input_for("a").value == "Engineering"
        assert app.focused is form.input_for("a")
        await pilot.pause()
        await pilot.press("tab")
        assert app.focused is form.input_for("b")


async def test_why_completion_gave_nothing_is_shown_where_the_suggestions_would_be() -> None:
    """A server that fails completion (-32000) or sends only values it cannot offer: the form says so
    under the field, sanitized and short, instead of showing nothing."""
    answers = {
        "a": Suggestions(reason="the server answered -32000: no completions today \x1b[31m" + "x" * 300),
        "b": Suggestions(["bad\x1b[2J", "rtl\u202e"]),
    }

    async def complete(name: str, value: str, context: dict[str, str]) -> Suggestions:
        return answers[name]

    form = ArgumentForm(FIELDS, complete=complete)
    app = FormApp(form)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+space")
        await wait_for(pilot, lambda: form.completion_note is not None)
        note = form.completion_note or ""
        assert note.startswith("No suggestions: the server answered -32000: no completions today")
        assert "\x1b" not in note and len(note) < 140
        assert not form.suggestions_shown
        assert form.query_one("#completion-note").region.height > 0  # on screen, under the field
        await pilot.press("tab")  # to field b: the note was about a
        await pilot.press("ctrl+space")
        await wait_for(
            pilot,
            lambda: (
                form.completion_note
                == "2 suggestions from the server not offered: they hold control characters"
            ),
        )


async def test_values_the_server_sent_that_cannot_be_offered_are_counted_under_the_field() -> None:
    async def complete(name: str, value: str, context: dict[str, str]) -> Suggestions:
        return Suggestions(["eu-west"], dropped=2)  # `parse_completion` of ["eu-west", "", 7]

    form = ArgumentForm(FIELDS, complete=complete)
    app = FormApp(form)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+space")
        await wait_for(pilot, lambda: form.suggestions_shown and form.completion_note is not None)
        assert form.suggestion_values == ["eu-west"]
        assert form.completion_note == "2 values from the server not offered: not text, or empty"
