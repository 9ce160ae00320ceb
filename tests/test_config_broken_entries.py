"""One broken server entry never takes the others down: it is left out with a warning naming the file,
the entry and why, the other servers run (CLI and TUI), and `-s NAME` of it says why (exit 2).

Also what the user is told when a command is a directory or a value holds a NUL character, and the
client configs found that cannot be used, which the TUI said nothing about."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from explorer.app import ExplorerApp
from explorer.cli.settings import Settings
from explorer.config.variables import HostContext
from tests.app_helpers import SIZE, main_screen, wait_for, wait_settled
from tests.helpers.cli import run_cli_at_home, warnings_of

DEMO = {"command": sys.executable, "args": ["-m", "explorer", "demo-server"]}


def toml_entry(name: str, **values: object) -> str:
    """A `[servers.NAME]` table; JSON's strings, numbers and lists are TOML's too (`\\u0000` included)."""
    lines = [f"[servers.{name}]"]
    for key, value in values.items():
        if isinstance(value, dict):
            inline = ", ".join(f"{k} = {json.dumps(v)}" for k, v in value.items())
            lines.append(f"{key} = {{ {inline} }}")
        else:
            lines.append(f"{key} = {json.dumps(value)}")
    return "\n".join(lines) + "\n"


def own_config(*entries: str) -> Path:
    """The explorer's own config.toml (under the test's isolated home), holding these tables."""
    path = Path(os.environ["MCP_URL_EXPLORER_HOME"]) / "config" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(entries), encoding="utf-8")
    return path


BAD_COMMAND = 'server "bad": "command" must be a non-empty string, not a number'


# ------------------------------------------------------------------------------------------- the CLI


@pytest.mark.parametrize("command", [["servers"], ["tree", "--depth", "1"]])
def test_a_broken_entry_is_left_out_and_the_others_run(tmp_path: Path, command: list[str]) -> None:
    config = own_config(toml_entry("demo", **DEMO), toml_entry("bad", command=42))
    result = run_cli_at_home(tmp_path, *command)
    assert result.code == 0, result
    assert warnings_of(result) == [f"warning: {config}: {BAD_COMMAND}; the server is left out"]
    assert ("# demo" if command[0] == "servers" else "docs://") in result.stdout


def test_s_names_a_good_entry_whatever_the_others_are(tmp_path: Path) -> None:
    own_config(toml_entry("demo", **DEMO), toml_entry("bad", command=42))
    result = run_cli_at_home(tmp_path, "-s", "demo", "tree", "--depth", "1")
    assert result.code == 0, result
    assert "docs://" in result.stdout


def test_s_names_the_broken_entry_exit_2_with_why(tmp_path: Path) -> None:
    config = own_config(toml_entry("demo", **DEMO), toml_entry("bad", command=42))
    result = run_cli_at_home(tmp_path, "-s", "bad", "tree")
    assert result.code == 2, result
    assert result.stderr == f"error: {config}: {BAD_COMMAND}\n"


def test_a_file_none_of_whose_entries_can_be_used_is_still_an_error(tmp_path: Path) -> None:
    config = own_config(toml_entry("bad", command=42), toml_entry("worse", url="ftp://h"))
    result = run_cli_at_home(tmp_path, "tree")
    assert result.code == 2, result
    assert result.stderr.startswith(f"error: {config}: {BAD_COMMAND}"), result
    assert "(1 more server entries cannot be used either)" in result.stderr
    own_config("servers = 5\n")
    result = run_cli_at_home(tmp_path, "tree")
    assert result.code == 2 and '"servers" must be a table of servers, not a number' in result.stderr


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        (
            {"command": sys.executable, "url": "http://127.0.0.1:1/mcp"},
            'server "other" has both "command" and "url"; keep the one to use',
        ),
        (
            {"type": "websocket", "url": "ws://127.0.0.1:1/"},
            'server "other" has unknown type "websocket"; use "stdio", "http" or "sse"',
        ),
    ],
)
def test_another_clients_json_keeps_its_good_servers(tmp_path: Path, entry: object, why: str) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"other": entry, "demo": DEMO}}), encoding="utf-8")
    result = run_cli_at_home(tmp_path, "-c", str(path), "tree", "--depth", "1")
    assert result.code == 0, result
    assert warnings_of(result) == [f"warning: {path}: {why}; the server is left out"]
    assert "docs://" in result.stdout


def test_a_missing_cwd_leaves_that_server_out_naming_the_file(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    config = own_config(toml_entry("demo", **DEMO), toml_entry("gone", **DEMO, cwd=str(gone)))
    result = run_cli_at_home(tmp_path, "tree", "--depth", "1")
    assert result.code == 0, result
    why = f'{config}: server "gone": cwd {gone} does not exist'
    assert warnings_of(result) == [f"warning: {why}; the server is left out"]
    assert "docs://" in result.stdout
    asked = run_cli_at_home(tmp_path, "-s", "gone", "tree")
    assert (asked.code, asked.stderr) == (2, f"error: {why}\n")


def test_a_command_that_is_a_directory_is_said_to_be_one(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"d": {"command": str(folder)}}}), encoding="utf-8")
    result = run_cli_at_home(tmp_path, "-c", str(path), "tree")
    assert result.code == 1, result
    assert f"the command {folder} is a directory, not a program" in result.stderr
    assert "permission denied" not in result.stderr


@pytest.mark.parametrize(
    ("values", "why"),
    [
        ({"env": {"TOKEN": "hunter2\u0000token"}}, 'env "TOKEN" contains a NUL character'),
        ({"args": ["a", "b\u0000"]}, '"args" item 2 contains a NUL character'),
        ({"command": "ru\u0000n"}, '"command" contains a NUL character'),
    ],
)
def test_a_nul_character_is_named_where_it_is(tmp_path: Path, values: dict[str, object], why: str) -> None:
    entry = {"command": "run", **values}
    config = own_config(toml_entry("demo", **DEMO), toml_entry("nul", **entry))
    result = run_cli_at_home(tmp_path, "-s", "nul", "tree")
    assert (result.code, result.stderr) == (2, f'error: {config}: server "nul": {why}\n'), result
    assert "hunter2" not in result.stderr  # the value is never shown


# ------------------------------------------------------------------------------------------- the TUI


def isolated_host(tmp_path: Path) -> HostContext:
    home, cwd = tmp_path / "home", tmp_path / "project"
    home.mkdir(exist_ok=True)
    cwd.mkdir(exist_ok=True)
    return HostContext(home=home, cwd=cwd, platform="linux", env={})


def tui_app(prepared_settings: Settings, context: HostContext) -> ExplorerApp:
    """The app as the CLI launches it without a command (`cli.main`: notices and found configs)."""
    prepared = prepared_settings.prepare(context)
    notices = [*(f"warning: {w}" for w in prepared.warnings), *prepared.notes]
    return ExplorerApp(
        prepared.specs,
        config=prepared.config,
        notices=notices,
        found_configs=prepared.found,
        remember_theme=False,
        timeout=10.0,
    )


@pytest.mark.anyio
async def test_the_tui_starts_with_the_good_server_and_says_what_was_left_out(tmp_path: Path) -> None:
    config = own_config(toml_entry("demo", **DEMO), toml_entry("bad", command=42))
    app = tui_app(Settings(), isolated_host(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        # Polled from the start: a notification expires after a few seconds, and a busy machine may take
        # longer than that to settle.
        warning = f"warning: {config}: {BAD_COMMAND}; the server is left out"
        await wait_for(pilot, lambda: warning in [str(n.message) for n in app._notifications])
        await wait_settled(pilot, app)
        servers = main_screen(app).catalogue.servers
        assert list(servers) == ["demo"] and servers["demo"].state == "ready"


@pytest.mark.anyio
async def test_the_tui_says_which_client_configs_it_found_but_cannot_use(tmp_path: Path) -> None:
    context = isolated_host(tmp_path)
    desktop = context.home / ".config/Claude/claude_desktop_config.json"
    desktop.parent.mkdir(parents=True)
    desktop.write_text('{"mcpServers": {"a": {"command": "x"},}', encoding="utf-8")
    (context.home / ".claude.json").write_text('{"mcpServers": null}', encoding="utf-8")
    app = tui_app(Settings(), context)
    async with app.run_test(size=SIZE) as pilot:

        def said() -> str:
            return "\n".join(str(n.message) for n in app._notifications)

        await wait_for(pilot, lambda: "note: found Claude Code config" in said())
        messages = said()
        # (its line is long: the notification cuts each line at 300 characters, after this much)
        assert (
            f"note: found Claude Desktop config at {desktop}, but it cannot be used: invalid JSON" in messages
        )
        claude = context.home / ".claude.json"
        assert (
            f"note: found Claude Code config at {claude}, but it cannot be used: "
            '"mcpServers" must be an object of servers, not null' in messages
        )
        await wait_settled(pilot, app)
