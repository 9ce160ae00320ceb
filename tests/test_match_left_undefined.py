"""A URI that leaves a required variable out matches, but says so: `match` a note (and `undefined` in
JSON), the go-to box `⚠ NAME undefined` on the choice.

A hunt found `match docs://handbook/` answering that `docs://handbook/{chapter}` produces it with no
values at all, and the go-to box "1 template produces it": true by RFC 6570 (an undefined variable
expands to nothing), but the one debugging was told the URI resolves while the form calls `{chapter}`
required ("the URI has a hole without it") and the server then refused the read.
"""

from __future__ import annotations

import json

import pytest
from textual.widgets import Input, OptionList

from explorer.screens.goto import GoToDialog
from tests.app_helpers import demo_spec, settled_app, wait_for
from tests.helpers.cli import demo_server, run_cli

pytestmark = pytest.mark.slow

HOLE = "note: docs://handbook/{chapter}: chapter left undefined: the URI has a hole where it goes"


def test_match_says_a_required_variable_is_left_undefined() -> None:
    result = run_cli("-s", demo_server(), "match", "docs://handbook/")
    assert result.code == 0, result
    assert HOLE in result.stderr, result.stderr
    filled = run_cli("-s", demo_server(), "match", "docs://handbook/intro")
    assert "left undefined" not in filled.stderr, filled.stderr


def test_match_json_names_the_variables_left_undefined() -> None:
    result = run_cli("-s", demo_server(), "match", "docs://handbook/", "--json")
    matches = {m["uriTemplate"]: m for m in json.loads(result.stdout)["matches"]}
    assert matches["docs://handbook/{chapter}"]["undefined"] == ["chapter"]
    assert matches["docs://handbook/{chapter}{#section}"]["undefined"] == ["chapter"]  # not `section`
    filled = run_cli("-s", demo_server(), "match", "docs://handbook/intro", "--json")
    assert all(m["undefined"] == [] for m in json.loads(filled.stdout)["matches"])


@pytest.mark.anyio
async def test_the_go_to_choice_marks_the_variable_left_undefined() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        await pilot.press("g")
        dialog = app.screen
        assert isinstance(dialog, GoToDialog)
        await pilot.pause()
        dialog.query_one(Input).value = "docs://handbook/"
        await wait_for(
            pilot, lambda: dialog.resolution is not None and dialog.resolution.uri == "docs://handbook/"
        )
        options = dialog.query_one(OptionList)
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        chapter = next(p for p in prompts if p.startswith("template  docs://handbook/{chapter}  "))
        assert chapter.endswith("⚠ chapter undefined"), prompts
