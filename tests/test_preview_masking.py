"""A secret of the server's config (its env, headers) that the server echoes back in a read is masked in
the preview, as in the CLI's `read`, the protocol log and every error: it was shown as sent."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from explorer.widgets.preview import ContentPreview
from tests.app_helpers import main_screen, preview_text, settled_app, stdio_spec, wait_for
from tests.helpers.tiny_server import tiny_server

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SECRET = "hunter2secretvalue"
ECHOES = """
import os
def answer(method, params):
    if method == "resources/list":
        return {"resources": [{"uri": "echo://token", "name": "token"}]}
    if method == "resources/read":
        return {"contents": [{"uri": params["uri"], "mimeType": "text/plain",
                              "text": "secret=" + os.environ["TOKEN"] + " end"}]}
    return {"resourceTemplates": []}
"""


async def test_a_secret_echoed_in_a_read_is_masked_in_the_preview(tmp_path: Path) -> None:
    spec = replace(stdio_spec("echo", tiny_server(tmp_path, ECHOES)), env={"TOKEN": SECRET})
    async with settled_app(spec) as (app, pilot):
        screen = main_screen(app)
        screen.read("echo", "echo://token")
        preview = screen.query_one(ContentPreview)
        await wait_for(
            pilot, lambda: preview.uri == "echo://token" and preview.state == "contents" and preview.shown
        )
        shown = preview_text(app)
        assert "secret=*** end" in shown and SECRET not in shown
