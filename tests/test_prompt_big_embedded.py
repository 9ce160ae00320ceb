"""A prompt result holding 20 MB (an embedded resource's text or blob, a message's text) shows its start
and says how much of how much that is.

The whole of such a text was laid out at once: 20 MB of short lines showed 50,000 of them and took 10
to 17 s to appear, with a line claiming a megabyte was shown. The scripted server below answers
`prompts/get` with each shape; the test reads what the prompts view shows (no timing: the waits are
hang guards only).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import OptionList

from explorer.app import ExplorerApp
from explorer.screens.prompts import PromptFormScreen, PromptsScreen
from explorer.widgets.prompt_result import PromptResultView
from tests.app_helpers import settled_app, stdio_spec, wait_for
from tests.helpers.tiny_server import tiny_server

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

BIG_PROMPTS = """
import base64
CAPABILITIES = {"prompts": {}}
FIRST = "first line of the big text\\n"
def big_text():
    return FIRST + "x\\n" * 10_000_000
def answer(method, params):
    if method == "prompts/list":
        return {"prompts": [{"name": "big-resource"}, {"name": "big-blob"}, {"name": "big-text"}]}
    if method != "prompts/get":
        return None
    name = params.get("name")
    if name == "big-resource":
        resource = {"uri": "file:///big.txt", "mimeType": "text/plain", "text": big_text()}
        content = {"type": "resource", "resource": resource}
    elif name == "big-blob":
        blob = base64.b64encode(b"BLOBSTART" + bytes(20_000_000 - 9)).decode()
        resource = {"uri": "file:///big.bin", "mimeType": "application/octet-stream", "blob": blob}
        content = {"type": "resource", "resource": resource}
    else:
        content = {"type": "text", "text": big_text()}
    return {"messages": [{"role": "user", "content": content}]}
"""

HANG_GUARD = 120.0


def prompts_screen(app: ExplorerApp) -> PromptsScreen:
    screen = next((s for s in app.screen_stack if isinstance(s, PromptsScreen)), None)
    assert screen is not None, "no prompts screen"
    return screen


async def get_prompt(pilot: object, app: ExplorerApp, name: str) -> PromptResultView:
    """Choose `name` in the list, submit its (empty) form, wait for the result; the result view."""
    screen = prompts_screen(app)
    index = next(i for i, e in enumerate(screen._options) if e is not None and e.name == name)
    screen.query_one("#prompt-list", OptionList).highlighted = index
    await pilot.pause()  # type: ignore[attr-defined]
    await pilot.press("enter")  # type: ignore[attr-defined]
    await wait_for(pilot, lambda: isinstance(app.screen, PromptFormScreen))  # type: ignore[arg-type]
    await pilot.press("enter")  # type: ignore[attr-defined]
    view = screen.result_view
    await wait_for(
        pilot,  # type: ignore[arg-type]
        lambda: app.screen is screen and view.state == "result" and view.shown and name in view.text,
        timeout=HANG_GUARD,
    )
    return view


async def test_a_20_mb_prompt_result_shows_its_start_and_how_much_of_it(tmp_path: Path) -> None:
    spec = stdio_spec("big", tiny_server(tmp_path, BIG_PROMPTS))
    async with settled_app(spec, timeout=HANG_GUARD) as (app, pilot):
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptsScreen))
        screen = prompts_screen(app)
        await wait_for(pilot, lambda: len(screen.prompts) == 3, timeout=HANG_GUARD)

        # 400 lines are shown: the first (27 bytes) and 399 of "x" (2 bytes each).
        view = await get_prompt(pilot, app, "big-resource")
        text = view.text
        assert "embedded resource  file:///big.txt" in text and "text/plain  ·  20.0 MB  ·  text" in text
        assert "first line of the big text\nx\nx\n" in text
        assert "Showing the first 825 B of 20.0 MB." in text
        assert "1.0 MB" not in text and "more bytes" not in text

        view = await get_prompt(pilot, app, "big-blob")
        text = view.text
        assert "application/octet-stream  ·  20.0 MB  ·  binary" in text
        assert "|BLOBSTAR" in text  # the dump's first line, its ASCII column
        assert "Showing the first 256 B of 20.0 MB." in text
        assert "more bytes" not in text  # the dump counted the decoded megabyte, not the content

        view = await get_prompt(pilot, app, "big-text")
        text = view.text
        assert "1. user\nfirst line of the big text\nx\n" in text
        assert "Showing the first 825 B of 20.0 MB." in text
        assert "chars]" not in text


class ViewApp(App[None]):
    def compose(self) -> ComposeResult:
        yield PromptResultView()


async def test_long_pretty_json_says_lines_and_a_short_text_says_nothing() -> None:
    data = json.dumps({f"key{i}": i for i in range(1_000)})  # 1,002 lines pretty-printed
    resource = {"uri": "file:///d.json", "mimeType": "application/json", "text": data}
    result = {
        "messages": [
            {"role": "user", "content": {"type": "resource", "resource": resource}},
            {"role": "assistant", "content": {"type": "text", "text": "a short answer\nof two lines"}},
        ]
    }
    app = ViewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(PromptResultView)
        view.show_result("srv", "json", result)
        await pilot.pause()
        text = view.text
        assert '{\n  "key0": 0,\n  "key1": 1,' in text and '"key398": 398,' in text and "key399" not in text
        assert "Showing the first 400 of 1,002 lines of the pretty-printed JSON." in text
        assert text.endswith("2. assistant\na short answer\nof two lines")  # whole: no note after it
