"""Configs that are broken in ways a user makes: an empty command after expansion, a config.toml the
connect dialog's save cannot extend, a BOM, a new config.toml's mode, and messages worded for the dialog.

What is asserted is what the user sees: the one-line message, the exit code, the file's bytes."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from explorer.config import ConfigError, ServerSpec, load_config
from explorer.config.found import describe_found, find_client_configs
from explorer.config.variables import HostContext
from explorer.config.writer import save_server
from explorer.screens.connect_dialog import spec_from_fields


def context(home: Path, env: dict[str, str] | None = None) -> HostContext:
    return HostContext(home=home, cwd=home, platform="linux", env=env or {})


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def cli(*args: str, home: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The CLI as a user runs it, with a fake HOME, XDG folders and explorer home."""
    full = {
        **{k: v for k, v in os.environ.items() if k not in ("APPDATA", "CLAUDE_CONFIG_DIR", "FORCE_COLOR")},
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "MCP_URL_EXPLORER_HOME": str(home / "explorer"),
        **(env or {}),
    }
    for name in ("NOPE", "GITHUB_MCP_BIN"):
        full.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "explorer", *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        env=full,
        cwd=home,
        check=False,
    )


# ------------------------------------------------------------------ a command or URL empty after expansion


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('[servers.a]\ncommand = "${env:NOPE}"\n', '"command" is empty after expanding ${env:NOPE} (unset)'),
        (
            '[servers.a]\ncommand = "${NOPE:-}"\n',
            '"command" is empty after expanding ${NOPE:-} (unset, and its default is empty)',
        ),
        ('[servers.a]\nurl = "${env:NOPE}"\n', '"url" is empty after expanding ${env:NOPE} (unset)'),
    ],
)
def test_an_empty_command_after_expansion_is_a_config_error_naming_the_variable(
    tmp_path: Path, text: str, said: str
) -> None:
    path = write(tmp_path / "config.toml", text)
    with pytest.raises(ConfigError) as caught:
        load_config(path, context=context(tmp_path))
    assert str(caught.value) == f'{path}: server "a": {said}'


def test_a_variable_set_to_an_empty_string_says_so(tmp_path: Path) -> None:
    path = write(tmp_path / "mcp.json", json.dumps({"mcpServers": {"gh": {"command": "${GITHUB_MCP_BIN}"}}}))
    with pytest.raises(ConfigError) as caught:
        load_config(path, context=context(tmp_path, {"GITHUB_MCP_BIN": ""}))
    assert str(caught.value) == (
        f'{path}: server "gh": "command" is empty after expanding '
        "${GITHUB_MCP_BIN} (set to an empty string)"
    )


def test_the_cli_says_it_in_one_line_and_exits_2(tmp_path: Path) -> None:
    path = write(tmp_path / "empty.toml", '[servers.a]\ncommand = "${env:NOPE}"\n')
    result = cli("-c", str(path), "servers", home=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.strip() == (
        f'error: {path}: server "a": "command" is empty after expanding ${{env:NOPE}} (unset)'
    )


def test_another_clients_broken_config_never_stops_the_scan(tmp_path: Path) -> None:
    """A Cursor config with a command from an unset variable: `locate configs` and `tree` still run."""
    write(
        tmp_path / ".cursor" / "mcp.json",
        json.dumps({"mcpServers": {"gh": {"command": "${GITHUB_MCP_BIN}"}}}),
    )
    located = cli("locate", "configs", home=tmp_path)
    assert located.returncode == 0, located.stderr
    assert "Traceback" not in located.stderr
    assert '"command" is empty after expanding ${GITHUB_MCP_BIN} (unset)' in located.stdout
    tree = cli("tree", "--json", home=tmp_path)
    assert tree.returncode == 0, tree.stderr
    assert "Traceback" not in tree.stderr
    assert "found Cursor config" in tree.stderr and "cannot be used" in tree.stderr


def test_an_unexpected_error_in_one_found_file_is_that_files_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / ".cursor" / "mcp.json", json.dumps({"mcpServers": {"x": {"command": "x"}}}))
    write(
        tmp_path / ".codeium" / "windsurf" / "mcp_config.json",
        json.dumps({"mcpServers": {"w": {"command": "w"}}}),
    )
    import explorer.config.found as found_module

    real = found_module.load_config

    def broken(path: Path, **kwargs: object) -> object:
        if ".cursor" in str(path):
            raise RuntimeError("boom")
        return real(path, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(found_module, "load_config", broken)
    found = find_client_configs(context(tmp_path))
    by_client = {item.client: item for item in found}
    assert by_client["cursor"].config is None and "RuntimeError: boom" in (by_client["cursor"].error or "")
    assert by_client["windsurf"].server_count == 1
    assert any("cursor" in line and "error:" in line for line in describe_found(found))


# ------------------------------------------------------------------------------ saving to config.toml


def stdio(name: str = "new") -> ServerSpec:
    return ServerSpec(name=name, transport="stdio", command="run-me", args=("--x",), env={"TOKEN": "t0ken"})


def test_an_inline_servers_table_is_not_corrupted_by_a_save(tmp_path: Path) -> None:
    text = '# mine\nservers = { demo = { command = "demo-cmd", args = ["a"] } }\n'
    path = write(tmp_path / "config.toml", text)
    with pytest.raises(ConfigError) as caught:
        save_server(path, stdio())
    assert "declares servers inline" in str(caught.value) and "add the server there by hand" in str(
        caught.value
    )
    assert str(caught.value).endswith("not changed")
    assert path.read_text(encoding="utf-8") == text
    assert set(load_config(path, context=context(tmp_path)).servers) == {"demo"}


def test_a_dotted_servers_key_takes_the_new_table(tmp_path: Path) -> None:
    path = write(tmp_path / "config.toml", 'servers.demo.command = "demo-cmd"\n')
    save_server(path, stdio())
    assert set(load_config(path, context=context(tmp_path)).servers) == {"demo", "new"}


def test_a_file_with_a_bom_is_saved_to_and_keeps_its_bom(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b'\xef\xbb\xbf# comment\n[servers.demo]\ncommand = "demo-cmd"\n')
    save_server(path, stdio())
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf# comment\n[servers.demo]\n")
    config = load_config(path, context=context(tmp_path))
    assert set(config.servers) == {"demo", "new"}
    assert config.servers["new"].args == ("--x",)


def test_a_saved_server_reads_back_and_comments_mode_and_symlink_stay(tmp_path: Path) -> None:
    real = write(tmp_path / "dotfiles" / "config.toml", '# keep me\n[servers.demo]\ncommand = "demo-cmd"\n')
    real.chmod(0o640)
    link = tmp_path / "config.toml"
    link.symlink_to(real)
    save_server(link, stdio())
    assert link.is_symlink()
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert real.read_text(encoding="utf-8").startswith("# keep me\n[servers.demo]\n")
    assert tomllib.loads(real.read_text(encoding="utf-8"))["servers"]["new"]["env"] == {"TOKEN": "t0ken"}


def test_a_new_config_toml_is_created_private(tmp_path: Path) -> None:
    path = tmp_path / "config" / "config.toml"
    save_server(path, stdio())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert tomllib.loads(path.read_text(encoding="utf-8"))["servers"]["new"]["command"] == "run-me"


def test_the_same_server_is_never_saved_twice_under_another_name(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    save_server(path, stdio("127.0.0.1:9"))
    before = path.read_text(encoding="utf-8")
    with pytest.raises(
        ConfigError, match=re.escape('already has this server, as "127.0.0.1:9"; not changed')
    ):
        save_server(path, stdio("127.0.0.1:9-2"))
    assert path.read_text(encoding="utf-8") == before


# --------------------------------------------------------------------------- the dialog's own words


@pytest.mark.parametrize(
    ("target", "headers", "env"),
    [
        ("", "", ""),
        ("http://", "", ""),
        ("'unclosed", "", ""),
        ("https://example.test/mcp", "no colon", ""),
        ("run-me", "", "NOEQUALS"),
    ],
)
def test_dialog_errors_never_name_command_line_options(target: str, headers: str, env: str) -> None:
    with pytest.raises(ConfigError) as caught:
        spec_from_fields(target, headers, env, "default")
    message = str(caught.value)
    for option in ("-s/--server", "-H/--header", "-e/--env", "-s "):
        assert option not in message, message


def test_the_command_line_keeps_its_option_names(tmp_path: Path) -> None:
    result = cli("-s", "", "servers", home=tmp_path)
    assert result.returncode == 2 and "-s/--server is empty" in result.stderr
