"""Unknown keys of a server entry: the explorer's TOML warns about each; a JSON config, shared with other
clients, only about a likely typo of a key the explorer reads, never about another client's own keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.config import ConfigError, load_config


def write(path: Path, doc: object) -> Path:
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(
    "entry",
    [
        {"type": "stdio", "command": "npx", "args": ["-y", "srv"], "headersHelper": "x"},  # Claude Code
        {"type": "stdio", "command": "node", "dev": {"watch": "src/**"}, "gallery": True, "version": "1"},
        {"command": "npx", "envFile": ".env", "auth": {"CLIENT_ID": "x"}},  # Cursor
        {"serverUrl": "https://h.test/mcp", "disabledTools": ["x"], "alwaysAllow": []},  # Windsurf
        {"command": "npx", "autoApprove": [], "timeout": 60, "transportType": "stdio", "disabled": False},
        {"command": "npx", "cwd": ".", "trust": True, "includeTools": ["a"], "description": "x"},  # Gemini
    ],
)
def test_keys_other_clients_keep_in_json_are_not_warned_about(
    tmp_path: Path, entry: dict[str, object]
) -> None:
    (tmp_path / ".env").write_text("A=1\n")
    config = load_config(write(tmp_path / "mcp.json", {"mcpServers": {"s": entry}}))
    assert list(config.servers) == ["s"]
    assert config.warnings == []


def test_a_likely_typo_in_json_is_warned_about_with_the_key_it_misspells(tmp_path: Path) -> None:
    entry = {"command": "npx", "Env": {"A": "1"}, "agrs": ["x"], "autoApprove": [], "timeout": 5}
    path = write(tmp_path / "claude_desktop_config.json", {"mcpServers": {"files": entry}})
    assert load_config(path).warnings == [
        f'{path}: server "files": unknown setting(s) Env (did you mean "env"?), '
        'agrs (did you mean "args"?) ignored'
    ]


def test_a_vs_code_entry_with_a_misspelt_env_file_is_warned_about(tmp_path: Path) -> None:
    path = write(tmp_path / "mcp.json", {"servers": {"local": {"command": "uv", "env_file": ".env"}}})
    assert load_config(path).warnings == [
        f'{path}: server "local": unknown setting(s) env_file (did you mean "envFile"?) ignored'
    ]


def test_toml_still_warns_about_every_unknown_key_and_guesses_the_misspelt(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[servers.s]\ncommand = "npx"\nheadres = {}\nautoApprove = []\n')
    assert load_config(path).warnings == [
        f'{path}: server "s": unknown setting(s) autoApprove, headres (did you mean "headers"?) ignored'
    ]


def test_a_misspelt_command_is_named_in_the_error_it_leads_to(tmp_path: Path) -> None:
    path = write(tmp_path / "mcp.json", {"mcpServers": {"s": {"comand": "npx", "args": []}}})
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value) == (
        f'{path}: server "s" has neither "command" nor "url" ("comand" looks like a typo of "command")'
    )
