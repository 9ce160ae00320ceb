"""The demo's `EXPLORER_DEMO_*` variables are settings (a period, a count, a path), not secrets: shown as
they are in the preview, "copy as" and the protocol log; a variable whose name says secret still is one."""

from __future__ import annotations

import shlex
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from explorer.config import demo_server_spec, redact
from explorer.config.spec import masked_forms
from explorer.model.copy_as import read_command
from explorer.widgets.preview import ContentPreview
from tests.app_helpers import main_screen, preview_text, settled_app, wait_for
from tests.helpers.tiny_server import tiny_server

COUNT = "1000000"
FOLDER = "/srv/demo/notes"
TOKEN = "demo-token-4242"


@pytest.fixture
def knobs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXPLORER_DEMO_CHANGE_SECONDS", COUNT)
    monkeypatch.setenv("EXPLORER_DEMO_NOTES", FOLDER)
    monkeypatch.setenv("EXPLORER_DEMO_API_TOKEN", TOKEN)


def test_demo_settings_are_shown_and_a_secret_named_one_is_masked(knobs: None) -> None:
    spec = demo_server_spec()
    text = f"tick {COUNT}, notes in {FOLDER}, token {TOKEN}"
    assert redact(text, spec) == f"tick {COUNT}, notes in {FOLDER}, token ***"
    assert not any(COUNT in form or FOLDER in form for form in masked_forms(spec))  # the protocol log's
    command = read_command(spec, "demo://docs/faq.md")
    words = shlex.split(command)
    shown = [
        "EXPLORER_DEMO_API_TOKEN=***",
        f"EXPLORER_DEMO_CHANGE_SECONDS={COUNT}",
        f"EXPLORER_DEMO_NOTES={FOLDER}",
    ]
    settings = [words[i + 1] for i, word in enumerate(words) if word == "-e"]  # the explorer passes them on
    assert words[0] == "mcp-url-explorer" and sorted(settings) == shown
    assert TOKEN not in command
    described = spec.describe()
    assert f"EXPLORER_DEMO_CHANGE_SECONDS={COUNT}" in described and "EXPLORER_DEMO_API_TOKEN=***" in described


def test_an_env_value_of_another_server_is_still_a_secret_whatever_its_name() -> None:
    spec = replace(
        demo_server_spec(), name="db", env={"DATABASE_URL": "postgres://u:pw@h/db"}, plain_env=frozenset()
    )
    assert redact("connecting to postgres://u:pw@h/db", spec) == "connecting to ***"


ECHOES = """
import os
def answer(method, params):
    if method == "resources/list":
        return {"resources": [{"uri": "echo://knobs", "name": "knobs"}]}
    if method == "resources/read":
        text = " ".join(os.environ[name] for name in sorted(os.environ) if name.startswith("EXPLORER_DEMO_"))
        return {"contents": [{"uri": params["uri"], "mimeType": "text/plain", "text": "knobs: " + text}]}
    return {"resourceTemplates": []}
"""


@pytest.mark.slow
@pytest.mark.anyio
async def test_the_preview_shows_the_demo_settings_a_server_echoes(knobs: None, tmp_path: Path) -> None:
    script = shlex.split(tiny_server(tmp_path, ECHOES))[1]
    spec = replace(demo_server_spec(), command=sys.executable, args=(script,))  # the demo's env, echoed
    async with settled_app(spec) as (app, pilot):
        screen = main_screen(app)
        screen.read("demo", "echo://knobs")
        preview = screen.query_one(ContentPreview)
        await wait_for(
            pilot, lambda: preview.uri == "echo://knobs" and preview.state == "contents" and preview.shown
        )
        assert f"knobs: *** {COUNT} {FOLDER}" in preview_text(app)


def test_a_demo_variable_given_again_with_dash_e_is_a_secret_again(knobs: None) -> None:
    from explorer.config import Config, select_servers

    config = Config(servers={"demo": demo_server_spec()})
    env = {"EXPLORER_DEMO_CHANGE_SECONDS": "given-with-e"}
    [spec] = select_servers(config, ["demo"], sse=False, headers={}, default=demo_server_spec(), env=env)
    assert redact("given-with-e and /srv/demo/notes", spec) == "*** and /srv/demo/notes"
