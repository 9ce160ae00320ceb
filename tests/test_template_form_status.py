"""The template form's line on where suggestions come from stays true: the server's completions working,
failing, answering nothing or malformed, not offered at all, and the values used before (history).

It said "Suggestions: from the server's completions" while every `completion/complete` failed and the
field said why there were none. Two scripted servers: one completes (and fails for some values), one
does not offer completions.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from explorer.app import ExplorerApp
from explorer.paths import history_file
from explorer.screens.template_form import TemplateFormScreen
from explorer.widgets.argument_form import ArgumentForm
from tests.app_helpers import main_screen, settled_app, stdio_spec, wait_for
from tests.helpers.tiny_server import tiny_server

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

TEMPLATES = """
CAPABILITIES = {"resources": {}, "completions": {}} if sys.argv[1] == "completes" else {"resources": {}}
SCHEME = sys.argv[2]
def answer(method, params):
    if method == "resources/list":
        return {"resources": []}
    if method == "resources/templates/list":
        return {"resourceTemplates": [{"uriTemplate": SCHEME + "://{name}", "name": SCHEME}]}
    if method == "resources/read":
        return {"contents": [{"uri": params["uri"], "mimeType": "text/plain", "text": "read"}]}
    if method == "completion/complete":
        value = params["argument"]["value"]
        if value.startswith("x"):
            return None  # an error: method not found
        if value.startswith("m"):
            return {"completion": {"hasMore": False}}  # no values list
        if value.startswith("n"):
            return {"completion": {"values": []}}
        return {"completion": {"values": [v for v in ("apple", "apricot") if v.startswith(value)]}}
    return None
"""

FROM_SERVER = "Suggestions: from the server's completions."


def status_line(screen: TemplateFormScreen) -> str:
    return str(screen.query_one("#tf-meta", Static).render()).splitlines()[-1]


async def open_form(pilot: object, app: ExplorerApp, template: str) -> TemplateFormScreen:
    assert main_screen(app).tree_widget.select_prefix(template)
    await pilot.pause()  # type: ignore[attr-defined]
    await pilot.press("enter")  # type: ignore[attr-defined]
    await wait_for(pilot, lambda: isinstance(app.screen, TemplateFormScreen))  # type: ignore[arg-type]
    screen = app.screen
    assert isinstance(screen, TemplateFormScreen)
    return screen


async def type_and_wait(pilot: object, screen: TemplateFormScreen, text: str, line: str) -> None:
    """Replace the field's text with `text` (typed) and wait for the status line to read `line`."""
    form = screen.query_one(ArgumentForm)
    form.set_text("name", "")
    await pilot.press(*text)  # type: ignore[attr-defined]
    try:
        await wait_for(pilot, lambda: status_line(screen) == line)  # type: ignore[arg-type]
    except AssertionError:
        raise AssertionError(f"the line reads {status_line(screen)!r}, not {line!r}") from None


async def test_the_suggestions_line_follows_the_servers_answers(tmp_path: Path) -> None:
    completes = stdio_spec("completes", tiny_server(tmp_path, TEMPLATES, "completes", "fruit", name="a.py"))
    async with settled_app(completes) as (app, pilot):
        screen = await open_form(pilot, app, "fruit://{name}")
        form = screen.query_one(ArgumentForm)
        assert status_line(screen).startswith("Suggestions: from the server's completions")

        failed = "completing name: the server answered error -32601: Method not found"
        await type_and_wait(
            pilot, screen, "x", f"No suggestions from the server: its last answer failed: {failed}."
        )
        assert form.completion_note == f"No suggestions: {failed}"  # the field said so already

        await type_and_wait(pilot, screen, "ap", FROM_SERVER)
        assert form.suggestion_values == ["apple", "apricot"]

        await type_and_wait(
            pilot,
            screen,
            "m",
            "No suggestions from the server: its last answer failed: "
            "the server's completion has no 'values' list.",
        )
        await type_and_wait(
            pilot, screen, "n", "Suggestions: from the server's completions (its last answer offered none)."
        )
        assert "enter reads it · escape cancels" in str(screen.query_one("#tf-status", Static).render())
        assert "ctrl+r" not in str(screen.query_one("#tf-status", Static).render())  # nothing to recall


async def test_a_server_without_completions_offers_only_earlier_values(tmp_path: Path) -> None:
    plain = stdio_spec("plain", tiny_server(tmp_path, TEMPLATES, "plain", "leaf", name="b.py"))
    async with settled_app(plain) as (app, pilot):
        screen = await open_form(pilot, app, "leaf://{name}")
        without = "No suggestions from the server: the server does not offer completions."
        assert "does not offer completions" in status_line(screen)
        await pilot.press(*"oak", "enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, TemplateFormScreen))
        await wait_for(pilot, lambda: history_file().exists())

        screen = await open_form(pilot, app, "leaf://{name}")
        await wait_for(pilot, lambda: status_line(screen) == f"{without} Your earlier values are offered.")
        form = screen.query_one(ArgumentForm)
        assert form.suggestion_values == ["oak"]
        assert "ctrl+r" in str(screen.query_one("#tf-status", Static).render())
