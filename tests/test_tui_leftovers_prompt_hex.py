"""A binary content in a prompt's result is dumped as wide as its pane shows whole, as the preview does:
16 bytes a line where they fit, else 8, else 4, and again when the pane's width changes. Before, it was
always 16 bytes (78 cells) and wrapped in a narrow pane, the ASCII column on a line of its own."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from textual.app import App, ComposeResult

from explorer.widgets.prompt_result import PromptResultView
from tests.app_helpers import wait_for
from tests.test_preview import screen_text

pytestmark = pytest.mark.anyio

LETTERS = bytes(range(0x41, 0x41 + 26)) * 4  # 104 bytes: A..Z four times


class _ResultApp(App[None]):
    def compose(self) -> ComposeResult:
        yield PromptResultView()


def _binary_result() -> dict[str, Any]:
    blob = base64.b64encode(LETTERS).decode()
    resource = {"uri": "bin://letters", "blob": blob, "mimeType": "application/octet-stream"}
    return {"messages": [{"role": "user", "content": {"type": "resource", "resource": resource}}]}


async def test_the_hex_dump_of_a_prompt_result_fits_the_pane_at_each_width() -> None:
    app = _ResultApp()
    async with app.run_test(size=(60, 40)) as pilot:
        view = app.query_one(PromptResultView)
        view.show_result("srv", "letters", _binary_result())
        eight = "00000000  41 42 43 44 45 46 47 48  |ABCDEFGH|"
        await wait_for(pilot, lambda: eight in screen_text(app))
        assert "00000008  49 4a 4b 4c 4d 4e 4f 50  |IJKLMNOP|" in screen_text(app)
        assert "00000060  53 54 55 56 57 58 59 5a  |STUVWXYZ|" in screen_text(app)  # the last line
        await pilot.resize_terminal(40, 60)
        await wait_for(pilot, lambda: "00000000  41 42 43 44  |ABCD|" in screen_text(app))
        assert "00000064  57 58 59 5a  |WXYZ|" in screen_text(app)  # the last line, in sight
        await pilot.resize_terminal(100, 40)
        sixteen = "00000000  41 42 43 44 45 46 47 48  49 4a 4b 4c 4d 4e 4f 50  |ABCDEFGHIJKLMNOP|"
        await wait_for(pilot, lambda: sixteen in screen_text(app))
        assert "binary" in view.text and sixteen in view.text  # the dump is still in the view's text
