"""VS Code inputs: read from `mcp.json`, asked for (terminal, `--input`, TUI dialog), filled in, masked."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.widgets import Input

from explorer.cli.settings import Settings, ask_inputs
from explorer.config import ConfigError, InputPrompt, ServerSpec, load_config, redact, secrets_of
from explorer.config.inputs import fill_inputs, missing_inputs, parse_input_options
from explorer.model.copy_as import read_command
from explorer.screens.input_dialog import InputDialog
from tests.app_helpers import SIZE, main_screen, make_app, wait_for, wait_settled

TOKEN = "ghp-input-secret-123"


def vscode_file(tmp_path: Path, servers: dict[str, object], inputs: list[object]) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"inputs": inputs, "servers": servers}), encoding="utf-8")
    return path


API_KEY = {"type": "promptString", "id": "api-key", "description": "GitHub token", "password": True}
REGION = {"type": "pickString", "id": "region", "options": ["eu", "us"], "default": "eu"}


def github(tmp_path: Path) -> Path:
    return vscode_file(
        tmp_path,
        {
            "gh": {
                "type": "http",
                "url": "https://${input:region}.example.test/mcp",
                "headers": {"Authorization": "Bearer ${input:api-key}"},
            },
            "tool": {
                "command": "tool",
                "args": ["--key=${input:api-key}"],
                "env": {"KEY": "${input:api-key}"},
            },
            "plain": {"command": "plain"},
        },
        [API_KEY, REGION],
    )


def test_inputs_stay_pending_on_the_specs_that_use_them(tmp_path: Path) -> None:
    config = load_config(github(tmp_path))
    gh, tool, plain = config.servers["gh"], config.servers["tool"], config.servers["plain"]
    assert [p.id for p in gh.inputs] == ["region", "api-key"]
    assert tool.inputs == (InputPrompt("api-key", "GitHub token", password=True),)
    assert plain.inputs == ()
    assert gh.describe() == (
        "http: https://${input:region}.example.test/mcp "
        "(headers: Authorization: ***; needs input: region, api-key)"
    )
    assert missing_inputs(list(config.servers.values()), {}) == [
        (InputPrompt("region", default="eu", options=("eu", "us")), "gh"),
        (InputPrompt("api-key", "GitHub token", password=True), "gh"),
    ]
    assert missing_inputs(list(config.servers.values()), {"region": "us"}) == [(tool.inputs[0], "gh")]


def test_fill_puts_values_everywhere_and_they_become_secrets(tmp_path: Path) -> None:
    config = load_config(github(tmp_path))
    values = {"api-key": TOKEN, "region": "us"}
    gh = fill_inputs(config.servers["gh"], values)
    assert gh.url == "https://us.example.test/mcp"
    assert gh.headers == {"Authorization": f"Bearer {TOKEN}"}
    assert gh.inputs == ()
    tool = fill_inputs(config.servers["tool"], values)
    assert tool.args == (f"--key={TOKEN}",) and tool.env == {"KEY": TOKEN}
    # The value sits in args too, where only `secrets` masks it.
    assert TOKEN in secrets_of(tool)
    for text in (repr(tool), tool.describe(), redact(f"bad --key={TOKEN}", tool)):
        assert TOKEN not in text and "***" in text
    assert tool.describe() == "stdio: tool --key=*** (env: KEY=***)"


def test_a_partial_fill_leaves_the_rest_pending(tmp_path: Path) -> None:
    gh = load_config(github(tmp_path)).servers["gh"]
    half = fill_inputs(gh, {"region": "eu"})
    assert half.url == "https://eu.example.test/mcp"
    assert [p.id for p in half.inputs] == ["api-key"]
    assert half.headers == {"Authorization": "Bearer ${input:api-key}"}


def test_filled_values_are_checked_where_they_land(tmp_path: Path) -> None:
    config = load_config(github(tmp_path))
    with pytest.raises(ConfigError, match='server "gh": input "region" must be one of: eu, us'):
        fill_inputs(config.servers["gh"], {"region": "mars", "api-key": "x"})
    with pytest.raises(ConfigError) as info:
        fill_inputs(config.servers["gh"], {"region": "eu", "api-key": "tok…"})
    assert "non-ASCII character U+2026" in str(info.value) and "tok" not in str(info.value)
    bad_url = load_config(vscode_file(tmp_path, {"u": {"url": "${input:url}"}}, [{"id": "url"}])).servers["u"]
    with pytest.raises(ConfigError, match='"url" with its inputs filled in: must start with http'):
        fill_inputs(bad_url, {"url": "ftp://h"})
    with pytest.raises(ConfigError, match='server "u": "url" is empty once its inputs are filled in'):
        fill_inputs(bad_url, {"url": ""})
    bad_command = load_config(vscode_file(tmp_path, {"c": {"command": "${input:cmd}"}}, [{"id": "cmd"}]))
    with pytest.raises(ConfigError, match='server "c": "command" is empty once its inputs are filled in'):
        fill_inputs(bad_command.servers["c"], {"cmd": ""})


@pytest.mark.parametrize(
    ("inputs", "servers", "problem"),
    [
        ([], {"a": {"command": "${input:nope}"}}, 'server "a": ${input:nope} names no entry of "inputs"'),
        (
            [{"type": "command", "id": "c", "command": "x.y"}],
            {"a": {"command": "${input:c}"}},
            'server "a": ${input:c} is an input of type "command", which the explorer cannot ask',
        ),
        ({"id": "x"}, {}, '"inputs" must be a list of inputs, not an object'),
        (["x"], {}, '"inputs" entry 1 must be an object, not a string'),
        ([{"type": "promptString"}], {}, '"inputs" entry 1 has no "id" string'),
        ([{"id": "p", "password": "yes"}], {}, 'input "p": "password" must be true or false, not a string'),
        ([{"id": "p", "type": "pickString"}], {}, 'input "p": "options" must be a list, not null'),
        (
            [{"id": "p", "type": "pickString", "options": []}],
            {},
            'input "p": a pickString input needs a non-empty "options" list',
        ),
    ],
)
def test_input_errors(tmp_path: Path, inputs: object, servers: dict[str, object], problem: str) -> None:
    path = vscode_file(tmp_path, servers, inputs)  # type: ignore[arg-type]
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == f"{path}: {problem}"


def test_an_unused_command_input_is_no_error(tmp_path: Path) -> None:
    path = vscode_file(tmp_path, {"a": {"command": "a"}}, [{"type": "command", "id": "c", "command": "x"}])
    assert list(load_config(path).servers) == ["a"]


def test_input_options() -> None:
    assert parse_input_options(["api-key=a=b", "empty="]) == {"api-key": "a=b", "empty": ""}
    for bad in (["novalue"], ["=x"]):
        with pytest.raises(ConfigError, match="--input: expected ID=VALUE"):
            parse_input_options(bad)


# ------------------------------------------------------------------------------------- asking (CLI)


def test_without_a_terminal_a_missing_input_is_an_error_naming_it(tmp_path: Path) -> None:
    settings = Settings(config_path=github(tmp_path), servers=["tool"])
    specs = settings.prepare().specs
    with pytest.raises(ConfigError) as info:
        ask_inputs(specs, interactive=False)
    assert str(info.value) == (
        'server "tool" needs input "api-key" (GitHub token); stdin is not a terminal to ask on, '
        "so give it with --input api-key=VALUE"
    )


def test_input_option_fills_and_a_default_serves_without_a_terminal(tmp_path: Path) -> None:
    settings = Settings(config_path=github(tmp_path), inputs=[f"api-key={TOKEN}", "unused=1"])
    prepared = settings.prepare()
    assert prepared.warnings == ["--input unused: no server used here has ${input:unused}"]
    gh, tool, _plain = ask_inputs(prepared.specs, interactive=False)
    assert gh.url == "https://eu.example.test/mcp"  # region's default, as pressing enter would give
    assert tool.env == {"KEY": TOKEN}


def test_on_a_terminal_each_input_is_asked_once(tmp_path: Path) -> None:
    asked: list[tuple[str, str]] = []

    def ask(prompt: InputPrompt, server: str) -> str:
        asked.append((prompt.id, server))
        return {"region": "us", "api-key": TOKEN}[prompt.id]

    specs = Settings(config_path=github(tmp_path)).prepare().specs
    gh, tool, _ = ask_inputs(specs, interactive=True, ask=ask)
    assert asked == [("region", "gh"), ("api-key", "gh")]
    assert gh.headers["Authorization"] == f"Bearer {TOKEN}" and tool.args == (f"--key={TOKEN}",)


# ------------------------------------------------------------------------------------- asking (TUI)


def demo_with_input(name: str, prompt: InputPrompt) -> ServerSpec:
    """The demo server, whose start needs an input: `${input:ID}` is its sub-command and in its env."""
    return ServerSpec(
        name=name,
        transport="stdio",
        command=sys.executable,
        args=("-m", "explorer", f"${{input:{prompt.id}}}"),
        env={"TOKEN": f"${{input:{prompt.id}}}"},
        inputs=(prompt,),
    )


def dialog_ready(app: App[Any]) -> bool:
    """The input dialog is up and its box mounted (a busy machine pushes the screen before composing it)."""
    return isinstance(app.screen, InputDialog) and bool(app.screen.query(Input))


@pytest.mark.slow
@pytest.mark.anyio
async def test_tui_asks_in_a_masked_dialog_once_then_connects() -> None:
    prompt = InputPrompt("sub", "Which sub-command", password=True)
    app = make_app(demo_with_input("one", prompt), demo_with_input("two", prompt))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: dialog_ready(app))
        dialog = app.screen
        assert isinstance(dialog, InputDialog)
        box = dialog.query_one(Input)
        assert box.password  # masked: what is typed never shows
        await pilot.press(*"demo-server", "enter")
        await wait_settled(pilot, app)
        assert not isinstance(app.screen, InputDialog)  # the second server used the same value
        screen = main_screen(app)
        for name in ("one", "two"):
            status = screen.catalogue.servers[name]
            assert status.state == "ready", status.error
            assert status.spec.env == {"TOKEN": "demo-server"} and status.spec.inputs == ()


@pytest.mark.slow
@pytest.mark.anyio
async def test_tui_cancelled_input_leaves_the_server_unconnected_and_asks_again() -> None:
    app = make_app(demo_with_input("one", InputPrompt("sub")))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: dialog_ready(app))
        await pilot.press("escape")
        screen = main_screen(app)
        status = screen.catalogue.servers["one"]
        await wait_for(pilot, lambda: status.state == "failed")
        assert status.error == 'not connected: no value was given for input "sub"'
        screen.connect("one")  # what `e` then `r` (reconnect) do
        await wait_for(pilot, lambda: dialog_ready(app))
        await pilot.press(*"demo-server", "enter")
        await wait_settled(pilot, app)
        assert status.state == "ready"


def test_copy_as_never_spells_out_a_filled_in_input(tmp_path: Path) -> None:
    tool = fill_inputs(load_config(github(tmp_path)).servers["tool"], {"api-key": TOKEN})
    line = read_command(tool, "x://y")
    assert TOKEN not in line and "--key=***" in line
