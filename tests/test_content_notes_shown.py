"""A content's note is shown wherever the content is, muted when it only says how the content was read.

- A prompt message's embedded resource was shown as sent without its note: a JSON resource holding
  `NaN` showed its text, not "not strict JSON: NaN ...: shown as sent, not reformatted".
- The preview showed every note in the error colour, "decoded from the declared charset latin-1" too;
  a note on how a content was read is now muted, a real problem (bytes not in the charset) stays red.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from textual.app import App, ComposeResult
from textual.widgets import OptionList, Static

from explorer.model.contents import classify
from explorer.screens.prompts import PromptFormScreen, PromptsScreen
from explorer.widgets.preview import ContentPreview, TextView
from explorer.widgets.prompt_result import PromptResultView
from tests.app_helpers import settled_app, stdio_spec, wait_for
from tests.helpers.tiny_server import tiny_server

pytestmark = [pytest.mark.anyio]

NAN_NOTE = "not strict JSON: NaN at line 1, column 7: shown as sent, not reformatted"
LATIN_NOTE = "decoded from the declared charset latin-1"

PROMPTS = """
CAPABILITIES = {"prompts": {}}
def answer(method, params):
    if method == "prompts/list":
        return {"prompts": [{"name": "nan-json"}]}
    if method != "prompts/get":
        return None
    resource = {"uri": "file:///d.json", "mimeType": "application/json", "text": '{"a": NaN}'}
    return {"messages": [{"role": "user", "content": {"type": "resource", "resource": resource}}]}
"""


def statics(root: Any, selector: str) -> dict[str, Static]:
    """The Statics matching `selector` under `root`, by the text they show."""
    return {str(s.render()): s for s in root.query(selector).results(Static)}


async def test_an_embedded_resource_in_a_prompt_result_shows_its_note(tmp_path: Path) -> None:
    spec = stdio_spec("tiny", tiny_server(tmp_path, PROMPTS))
    async with settled_app(spec) as (app, pilot):
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptsScreen))
        screen = app.screen
        assert isinstance(screen, PromptsScreen)
        await wait_for(pilot, lambda: len(screen.prompts) == 1)
        index = next(i for i, e in enumerate(screen._options) if e is not None and e.name == "nan-json")
        screen.query_one("#prompt-list", OptionList).highlighted = index
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptFormScreen))
        await pilot.press("enter")
        view = screen.result_view
        await wait_for(pilot, lambda: app.screen is screen and view.state == "result" and view.shown)
        text = view.text
        assert '{"a": NaN}' in text and NAN_NOTE in text
        note = statics(view, "Static")[NAN_NOTE]
        assert note.has_class("-note")  # shown as sent is a note, not an error


class _PromptApp(App[None]):
    def compose(self) -> ComposeResult:
        yield PromptResultView()


async def test_a_prompt_result_mutes_a_charset_note_and_not_a_real_problem() -> None:
    def resource(uri: str, data: bytes, mime: str) -> dict[str, Any]:
        item = {"uri": uri, "mimeType": mime, "blob": base64.b64encode(data).decode()}
        return {"role": "user", "content": {"type": "resource", "resource": item}}

    result = {
        "messages": [
            resource("c://latin", b"caf\xe9", "text/plain; charset=latin-1"),
            resource("c://bad", b"caf\xe9", "text/plain"),
        ]
    }
    app = _PromptApp()
    async with app.run_test(size=(110, 30)) as pilot:
        view = app.query_one(PromptResultView)
        view.show_result("srv", "p", result)
        await pilot.pause()
        shown = statics(view, ".pr-error-detail")
        bad = "declared as text, but the bytes are not UTF-8 (unexpected end of data at byte 3)"
        assert set(shown) == {LATIN_NOTE, bad}
        assert shown[LATIN_NOTE].has_class("-note") and not shown[bad].has_class("-note")
        assert shown[LATIN_NOTE].styles.color != shown[bad].styles.color
        assert "café" in view.text


class _PreviewApp(App[None]):
    def compose(self) -> ComposeResult:
        yield ContentPreview()


def _blob(uri: str, data: bytes, mime: str) -> dict[str, Any]:
    return {"uri": uri, "mimeType": mime, "blob": base64.b64encode(data).decode()}


async def test_the_preview_mutes_a_charset_note_and_not_a_real_problem() -> None:
    latin = _blob("c://latin", b"caf\xe9", "text/plain; charset=latin-1")
    bad = _blob("c://bad", b"caf\xe9", "text/plain")
    app = _PreviewApp()
    async with app.run_test(size=(110, 40)) as pilot:
        preview = app.query_one(ContentPreview)
        await preview.show_contents("c://latin", classify({"contents": [latin]}), server="s")
        with anyio.fail_after(30):
            while not app.query(TextView):
                await pilot.pause()
        await pilot.pause()
        note = statics(app, ".preview-problem")[LATIN_NOTE]
        assert note.has_class("-note")
        muted = note.styles.color

        await preview.show_contents("c://bad", classify({"contents": [bad]}), server="s")
        problem_text = "declared as text, but the bytes are not UTF-8 (unexpected end of data at byte 3)"
        with anyio.fail_after(30):
            while problem_text not in statics(app, ".preview-problem"):
                await pilot.pause()
        problem = statics(app, ".preview-problem")[problem_text]
        assert not problem.has_class("-note")
        assert problem.styles.color != muted  # the error colour, not the muted one


def test_only_notes_on_how_a_content_was_read_are_informational() -> None:
    def one(item: dict[str, Any]) -> tuple[str | None, bool]:
        content = classify({"contents": [item]})[0]
        return content.problem, content.informational

    json_item = {"uri": "j://a", "mimeType": "application/json"}
    assert one({**json_item, "text": '{"a": NaN}'}) == (NAN_NOTE, True)
    assert one({**json_item, "text": "{"})[1] is False  # not JSON at all: a problem
    assert one(_blob("c://l", b"caf\xe9", "text/plain; charset=latin-1")) == (LATIN_NOTE, True)
    assert one(_blob("c://b", b"caf\xe9", "text/plain"))[1] is False
    # The charset's note, then a JSON problem of the text: a problem still.
    broken = _blob("j://b", b"{\xe9", "application/json; charset=latin-1")
    assert one(broken)[1] is False
    nan = _blob(
        "j://n", json.dumps({"a": 1}).replace("1", "NaN").encode(), "application/json; charset=latin-1"
    )
    assert one(nan) == (f"{LATIN_NOTE}; {NAN_NOTE}", True)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
