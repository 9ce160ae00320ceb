"""Hostile resource templates (issue 9) against the headless commands and the terminal UI.

The raw fixture server lists, besides its usual templates, one of: a template with 1,200 adjacent
variables (`huge-template`; it ended the explorer with a RecursionError), one with 30,000 characters of
literal text (`long-literal-template`), and one with 250 query variables (`many-query-vars`; matching it
was quadratic: minutes and gigabytes). What must hold: the CLI prints one clear line and no traceback,
a template over the limits is reported "too large to use" and never attempted, the one under the limits
matches, and the TUI stays alive with the row marked and go-to answering without freezing the screen.
"""

from __future__ import annotations

import json

import pytest
from textual.widgets import Input, OptionList, Static

from explorer.app import ExplorerApp
from explorer.screens.goto import GoToDialog, GoToTarget
from explorer.screens.template_form import TemplateFormScreen
from explorer.widgets.detail import DetailPane
from tests.app_helpers import (
    main_screen,
    raw_spec,
    settled_app,
    tree_lines,
    wait_for,
)
from tests.fixtures.raw_server import (
    QUERY_VARIABLES,
    huge_template,
    long_literal_template,
    many_query_template,
)
from tests.helpers.cli import CliResult, raw_server, run_cli

pytestmark = pytest.mark.slow

PROTOCOL = ("--protocol", "legacy")
HUGE_WHY = "1,200 variables; the limit is 256"
LONG_WHY = "30,020 characters; the limit is 8,192"
MANY_URI = "fixture://search-many?" + "&".join(f"q{i}=value%20{i}" for i in range(QUERY_VARIABLES))
MANY_VALUES = {f"q{i}": f"value {i}" for i in range(QUERY_VARIABLES)}
LONG_URI = "fixture://long/" + "l" * 30_000 + "/7"


def assert_no_traceback(result: CliResult) -> None:
    assert "Traceback" not in result.stderr and "RecursionError" not in result.stderr, result
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert all(line.startswith(("error: ", "warning: ")) for line in lines), result


# ------------------------------------------------------------------------------------------------- CLI


@pytest.mark.parametrize(
    ("mode", "label", "why"),
    [("huge-template", "{v0}{v1}{v2}", HUGE_WHY), ("long-literal-template", "{id}", LONG_WHY)],
)
def test_tree_marks_a_template_too_large_to_use(mode: str, label: str, why: str) -> None:
    result = run_cli("tree", *PROTOCOL, "-s", raw_server(mode, resources=3))
    assert result.code == 0, result
    assert_no_traceback(result)
    [line] = [line for line in result.stdout.splitlines() if line.strip().startswith(label)]
    assert line.endswith(
        f"[template]  {'huge' if mode == 'huge-template' else 'long literal'}  [too large to use: {why}]"
    )
    assert max(len(line) for line in result.stdout.splitlines()) < 1000  # the long texts are capped


@pytest.mark.parametrize(
    ("mode", "uri", "why"),
    [("huge-template", "fixture://huge/abc", HUGE_WHY), ("long-literal-template", LONG_URI, LONG_WHY)],
    ids=["huge", "long-literal"],
)
def test_match_reports_the_template_too_large_in_one_line(mode: str, uri: str, why: str) -> None:
    result = run_cli("match", *PROTOCOL, "-s", raw_server(mode, resources=3), uri)
    assert result.code == 1, result
    assert_no_traceback(result)
    [miss] = [line for line in result.stdout.splitlines() if "near miss" in line]
    assert miss.endswith(f"near miss: the template is too large to use ({why})")
    [error] = result.stderr.splitlines()  # one line (a long URI in it is capped)
    assert error.startswith("error: no server lists fixture://")


def test_match_json_names_the_template_too_large() -> None:
    result = run_cli(
        "match", "--json", *PROTOCOL, "-s", raw_server("huge-template", resources=3), "fixture://huge/x"
    )
    assert result.code == 1, result
    assert_no_traceback(result)
    data = json.loads(result.stdout)
    assert data["matches"] == []
    [miss] = data["nearMisses"]
    assert miss["uriTemplate"] == huge_template()
    assert miss["problems"] == [f"the template is too large to use ({HUGE_WHY})"]


def test_read_warns_that_a_template_was_too_large_to_try() -> None:
    servers = ("-s", raw_server("huge-template", resources=3), "-s", raw_server(resources=3))
    result = run_cli("read", *PROTOCOL, *servers, "fixture://huge/abc")
    assert result.code == 1, result
    assert_no_traceback(result)
    warning, error = result.stderr.splitlines()
    assert warning.startswith("warning: server ") and warning.endswith(
        f"not tried: too large to use ({HUGE_WHY})"
    )
    assert error.startswith("error: server ") and "no template matches it" in error


def test_match_with_250_query_variables_gives_every_value() -> None:
    result = run_cli("match", "--json", *PROTOCOL, "-s", raw_server("many-query-vars", resources=3), MANY_URI)
    assert result.code == 0, result
    assert_no_traceback(result)
    [found] = json.loads(result.stdout)["matches"]
    assert found["uriTemplate"] == many_query_template()
    assert found["values"] == MANY_VALUES
    assert found["alternatives"] == []


def test_match_with_250_query_variables_and_an_unknown_one_is_no_match() -> None:
    result = run_cli("match", *PROTOCOL, "-s", raw_server("many-query-vars", resources=3), MANY_URI + "&zz=1")
    assert result.code == 1, result
    assert_no_traceback(result)
    assert "unknown query parameter 'zz'" in result.stdout  # the near miss says why


def test_read_chooses_the_server_whose_250_variable_template_matches() -> None:
    servers = ("-s", raw_server(resources=3), "-s", raw_server("many-query-vars", resources=3))
    result = run_cli("read", *PROTOCOL, *servers, MANY_URI)
    assert_no_traceback(result)
    # The fixtures are named after their script, the second one "-2". The read went to the second
    # because its template matched (without a match it goes to the first); it answers "not found".
    [error] = result.stderr.splitlines()
    assert error.startswith("error: server raw_server.py-2: reading fixture://search-many?q0=value%200&")


def test_match_prefers_the_reading_with_the_most_variables_and_shows_the_other() -> None:
    spec = raw_server("ambiguous-template", resources=3)
    result = run_cli("match", *PROTOCOL, "-s", spec, "fixture://docs/readme.md")
    assert result.code == 0, result
    assert result.stdout.splitlines() == [
        "raw_server.py  fixture://docs/{name}{.ext}  name=readme  ext=md",
        "    or  name=readme.md",
    ]
    result = run_cli("match", "--json", *PROTOCOL, "-s", spec, "fixture://docs/readme.md")
    [found] = json.loads(result.stdout)["matches"]
    assert found["values"] == {"name": "readme", "ext": "md"}
    assert found["alternatives"] == [{"name": "readme.md"}]


# ------------------------------------------------------------------------------------------------- TUI


def detail_text(app: ExplorerApp) -> str:
    return str(main_screen(app).query_one(DetailPane).query_one("#detail-body", Static).render())


def resolved(dialog: GoToDialog, uri: str) -> bool:
    return dialog.resolution is not None and dialog.resolution.uri == uri


@pytest.mark.anyio
async def test_the_app_lives_and_marks_templates_too_large_to_use() -> None:
    async with settled_app(raw_spec("hostile", "huge-template", "long-literal-template", resources=3)) as (
        app,
        pilot,
    ):
        screen = main_screen(app)
        assert screen.catalogue.servers["hostile"].state == "ready"
        for template, why in ((huge_template(), HUGE_WHY), (long_literal_template(), LONG_WHY)):
            assert screen.tree_widget.select_prefix(template)
            await pilot.pause()
            row = next(line for line in tree_lines(app) if "⟨T⟩" in line and "too large" in line)
            assert "⚠ too large to use" in row
            assert f"the template is too large to use ({why})" in detail_text(app)
            await pilot.press("right")  # a drill: nothing to complete, nothing crashes
            await pilot.press("enter")  # the form says why it cannot be filled
            await wait_for(pilot, lambda: isinstance(app.screen, TemplateFormScreen))
            status = str(app.screen.query_one("#tf-status", Static).render())
            assert f"cannot be filled: the template is too large to use ({why})" in status
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, TemplateFormScreen))
        await pilot.press("g")
        dialog = app.screen
        assert isinstance(dialog, GoToDialog)
        dialog.query_one(Input).value = "fixture://huge/abc"
        await wait_for(pilot, lambda: resolved(dialog, "fixture://huge/abc"))
        options = dialog.query_one(OptionList)
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert any("near miss" in p and f"too large to use ({HUGE_WHY})" in p for p in prompts)
        await pilot.press("escape")
        assert app.is_running


@pytest.mark.anyio
async def test_go_to_with_a_long_uri_answers_from_a_worker_and_keys_still_work() -> None:
    async with settled_app(raw_spec("many", "many-query-vars", resources=3)) as (app, pilot):
        await pilot.press("g")
        dialog = app.screen
        assert isinstance(dialog, GoToDialog)
        dialog.query_one(Input).value = MANY_URI
        await wait_for(pilot, lambda: resolved(dialog, MANY_URI))
        resolution = dialog.resolution
        assert resolution is not None
        [found] = resolution.matches
        assert found.entry.uri_template == many_query_template() and found.values == MANY_VALUES
        summary = str(dialog.query_one("#goto-summary", Static).render())
        assert "1 template produces it" in summary
        # A new text replaces the answer; the one for the old text is never shown after it.
        dialog.query_one(Input).value = MANY_URI + "&zz=1"
        await wait_for(pilot, lambda: resolved(dialog, MANY_URI + "&zz=1"))
        assert dialog.resolution is not None and not dialog.resolution.matches
        await pilot.press("escape")
        assert app.is_running


@pytest.mark.anyio
async def test_go_to_prefers_the_reading_with_the_most_variables_and_lists_the_other() -> None:
    async with settled_app(raw_spec("docs", "ambiguous-template", resources=3)) as (app, pilot):
        chosen: list[GoToTarget | None] = []
        dialog = GoToDialog(main_screen(app).catalogue.tree)
        app.push_screen(dialog, chosen.append)
        await pilot.pause()
        dialog.query_one(Input).value = "fixture://docs/readme.md"
        await wait_for(pilot, lambda: resolved(dialog, "fixture://docs/readme.md"))
        options = dialog.query_one(OptionList)
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert (
            prompts[0].startswith("template  fixture://docs/{name}{.ext}")
            and "name=readme  ext=md" in prompts[0]
        )
        assert prompts[1].strip() == "or  name=readme.md"
        options.focus()
        options.highlighted = 1
        await pilot.press("enter")  # the other reading: the go-to carries its values
        await wait_for(pilot, lambda: bool(chosen))
        [target] = chosen
        assert target is not None and target.values == {"name": "readme.md"}
        assert target.template == "fixture://docs/{name}{.ext}"
        assert app.is_running
