"""The command line with the configs users already have (fake HOME), inputs, -e, and every usage or
config error: one line on stderr, exit 2, never a traceback."""

from __future__ import annotations

import json
import os
import pty
import select
import shlex
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from tests.helpers.cli import CliResult, demo_server
from tests.helpers.paths import ROOT

SECRET = "pty-typed-secret-4242"


def run(
    *args: str | bytes, home: Path, cwd: Path | None = None, env: dict[str, str] | None = None
) -> CliResult:
    """The CLI with a fake HOME (and XDG config), stdin not a terminal."""
    full_env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), **(env or {})}
    full_env.pop("FORCE_COLOR", None)
    full_env.pop("APPDATA", None)
    full_env.pop("CLAUDE_CONFIG_DIR", None)
    proc = subprocess.run(
        [sys.executable, "-m", "explorer", *args],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        env=full_env,
        cwd=cwd or ROOT,
        check=False,
    )
    return CliResult(proc.returncode, proc.stdout.decode(), proc.stderr.decode(errors="replace"))


def one_line_usage_error(result: CliResult) -> str:
    assert result.code == 2, result
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result
    assert "Traceback" not in result.stderr
    return result.stderr


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


def put(path: Path, content: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(content), encoding="utf-8")
    return path


def demo_entry(**extra: object) -> dict[str, object]:
    return {"command": sys.executable, "args": ["-m", "explorer", "demo-server"], **extra}


def env_dumper(tmp_path: Path) -> tuple[str, Path]:
    """A "server" that writes the TOKEN it was given (and its arguments) to a file, then exits."""
    script = tmp_path / "dump_env.py"
    out = tmp_path / "dumped.json"
    script.write_text(
        "import json, os, sys\n"
        "seen = {'TOKEN': os.environ.get('TOKEN'), 'args': sys.argv[1:]}\n"
        f"open({str(out)!r}, 'w').write(json.dumps(seen))\n"
    )
    return str(script), out


# --------------------------------------------------------------------------------- found configs


def test_locate_configs_lists_each_found_file_with_its_server_count(home: Path, tmp_path: Path) -> None:
    desktop = put(
        home / ".config/Claude/claude_desktop_config.json",
        {"mcpServers": {"a": demo_entry(), "b": demo_entry()}},
    )
    project = tmp_path / "project"
    workspace = put(project / ".vscode/mcp.json", {"servers": {"v": demo_entry()}})
    result = run("locate", "configs", home=home, cwd=project)
    assert result.code == 0, result
    assert result.stdout.splitlines() == [
        f"claude-desktop  2 servers    {desktop}",
        f"vscode          1 server     {workspace}",
    ]
    empty = run("locate", "configs", home=tmp_path / "empty", cwd=tmp_path)
    assert empty.code == 0 and empty.stdout == ""
    assert empty.stderr.startswith("note: no MCP client config found")


@pytest.mark.slow
def test_tree_without_c_uses_the_demo_and_names_the_found_configs(home: Path) -> None:
    desktop = put(home / ".config/Claude/claude_desktop_config.json", {"mcpServers": {"mine": demo_entry()}})
    result = run("tree", "--depth", "1", "--max-pages", "1", home=home)
    assert result.code == 3, result  # the demo server, stopped at the page bound
    assert result.stdout.startswith("# demo: mcp-url-explorer-demo")
    assert (
        f"note: found Claude Desktop config (1 server) at {desktop}; use -c claude-desktop\n" in result.stderr
    )


@pytest.mark.slow
def test_c_client_name_uses_its_servers_and_says_which_files(home: Path, tmp_path: Path) -> None:
    desktop = put(
        home / ".config/Claude/claude_desktop_config.json",
        {"mcpServers": {"mine": demo_entry(env={"UNUSED": "${env:EXPLORER_SURELY_UNSET}"})}},
    )
    result = run("tree", "--json", "--max-pages", "1", "-c", "claude-desktop", home=home)
    assert [s["name"] for s in json.loads(result.stdout)["servers"]] == ["mine"], result
    lines = result.stderr.splitlines()
    assert f"note: -c claude-desktop: read {desktop}" in lines
    warnings = [line for line in lines if line.startswith(f"warning: {desktop}")]
    assert warnings == [
        f'warning: {desktop}: server "mine": ${{env:EXPLORER_SURELY_UNSET}} is not set in the environment; '
        "the server gets an empty string there"
    ]
    assert any(line.startswith("warning: server mine: ") and "max-pages bound" in line for line in lines)


@pytest.mark.slow
def test_unknown_config_name_is_one_line_naming_the_choices(home: Path) -> None:
    message = one_line_usage_error(run("tree", "-c", "claud-desktop", home=home))
    assert "claude-desktop, claude-code, vscode, cursor, windsurf" in message
    absent = one_line_usage_error(run("tree", "-c", "cursor", home=home))
    assert "no Cursor config found (looked for" in absent


# --------------------------------------------------------------------------------- inputs and -e


def input_config(tmp_path: Path, script: str) -> Path:
    return put(
        tmp_path / "ws/.vscode/mcp.json",
        {
            "inputs": [{"type": "promptString", "id": "tok", "description": "API token", "password": True}],
            "servers": {
                "dump": {
                    "command": sys.executable,
                    "args": [script, "${input:tok}"],
                    "env": {"TOKEN": "${input:tok}"},
                }
            },
        },
    )


def test_a_missing_input_without_a_terminal_is_exit_2_naming_it(home: Path, tmp_path: Path) -> None:
    script, out = env_dumper(tmp_path)
    config = input_config(tmp_path, script)
    message = one_line_usage_error(run("tree", "-c", str(config), home=home))
    assert 'needs input "tok" (API token)' in message and "--input tok=VALUE" in message
    assert not out.exists()  # nothing was started


@pytest.mark.slow
def test_input_option_reaches_the_server_and_is_masked(
    home: Path, tmp_path: Path, isolated_home: Path
) -> None:
    script, out = env_dumper(tmp_path)
    config = input_config(tmp_path, script)
    result = run("tree", "--json", "-c", str(config), "--input", f"tok={SECRET}", home=home)
    assert result.code == 1, result  # the dumper exits at once: a failed server, reported
    assert json.loads(out.read_text()) == {"TOKEN": SECRET, "args": [SECRET]}
    assert SECRET not in result.stdout + result.stderr
    for log in isolated_home.rglob("*.log"):
        assert SECRET not in log.read_text(errors="replace")


@pytest.mark.slow
def test_on_a_terminal_a_password_input_is_asked_on_stderr_without_echo(home: Path, tmp_path: Path) -> None:
    script, out = env_dumper(tmp_path)
    config = input_config(tmp_path, script)
    master, slave = pty.openpty()
    env = {**os.environ, "HOME": str(home)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "explorer", "tree", "-c", str(config)],
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
        start_new_session=True,  # no controlling terminal: the prompt must use stdin, as asked
    )
    try:
        deadline = time.monotonic() + 60
        # Wait until the prompt has turned echo off on the terminal, then type.
        while termios.tcgetattr(slave)[3] & termios.ECHO:
            assert proc.poll() is None and time.monotonic() < deadline, "no password prompt"
            time.sleep(0.05)
        os.write(master, f"{SECRET}\n".encode())
        _stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(slave)
    echoed = b""
    while select.select([master], [], [], 0.1)[0]:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        echoed += chunk
    os.close(master)
    assert SECRET.encode() not in echoed  # not shown on the terminal
    assert b'API token [input "tok" for server "dump"]' in stderr
    assert SECRET.encode() not in stderr
    assert json.loads(out.read_text())["TOKEN"] == SECRET


@pytest.mark.slow
def test_env_option_sets_the_environment_of_s_servers(home: Path, tmp_path: Path) -> None:
    script, out = env_dumper(tmp_path)
    spec = shlex.join([sys.executable, script])
    result = run("tree", "-e", f"TOKEN={SECRET}", "-s", spec, home=home)
    assert result.code == 1, result
    assert json.loads(out.read_text())["TOKEN"] == SECRET
    assert SECRET not in result.stderr
    assert "no -s was given" in one_line_usage_error(run("tree", "-e", "A=1", home=home))
    assert "expected KEY=VALUE" in one_line_usage_error(run("tree", "-e", "NOEQUALS", "-s", spec, home=home))


# --------------------------------------------------------------------------------- one-line errors


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["-H", "Authorization: Bearer …"], "non-ASCII character U+2026"),
        (["-H", "no colon"], "has no colon"),
        (["-s", "https://h.test:99999/mcp"], "its port is not a number from 0 to 65535"),
        (["--timeout", "nan"], "'--timeout': nan is not a finite number of seconds"),
        (["--timeout", "0"], "'--timeout': 0 is below the minimum of 0.1 seconds"),
        (["--list-timeout", "inf"], "'--list-timeout': inf is not a finite number of seconds"),
        (["--list-timeout", "nan"], "'--list-timeout': nan is not a finite number of seconds"),
        (["--protocol", "bogus"], "'--protocol': 'bogus' is not one of"),
        (["--input", "novalue"], "--input: expected ID=VALUE"),
    ],
)
def test_usage_errors_are_one_line(home: Path, args: list[str], expected: str) -> None:
    assert expected in one_line_usage_error(run("tree", *args, "-s", demo_server(), home=home))


def test_clicks_own_lists_are_one_line_of_words_not_escapes(home: Path) -> None:
    said = one_line_usage_error(run("locate", home=home))
    assert "Choose from: config, configs, themes, logs, data" in said and "\\n" not in said


@pytest.mark.slow
def test_config_problems_are_one_line(home: Path, tmp_path: Path) -> None:
    missing_cwd = put(tmp_path / "cwd.json", {"mcpServers": {"s": demo_entry(cwd=str(tmp_path / "gone"))}})
    assert f'server "s": cwd {tmp_path / "gone"} does not exist' in one_line_usage_error(
        run("tree", "-c", str(missing_cwd), home=home)
    )
    deep = tmp_path / "deep.json"
    deep.write_text('{"mcpServers": ' + "[" * 5000 + "]" * 5000 + "}")
    assert "nested too deeply" in one_line_usage_error(run("tree", "-c", str(deep), home=home))
    deep_toml = tmp_path / "deep.toml"
    deep_toml.write_text("a = " + "{b = " * 5000 + "1" + "}" * 5000 + "\n")
    assert "nested too deeply" in one_line_usage_error(run("tree", "-c", str(deep_toml), home=home))
    kind = put(tmp_path / "kind.json", {"mcpServers": {"s": demo_entry(args=["${command:x}"])}})
    assert "${command:x} runs a VS Code command" in one_line_usage_error(
        run("tree", "-c", str(kind), home=home)
    )
    env_file = put(tmp_path / "envfile.json", {"mcpServers": {"s": demo_entry(envFile="missing.env")}})
    assert "envFile" in one_line_usage_error(run("tree", "-c", str(env_file), home=home))


@pytest.mark.slow
def test_non_utf8_expand_arguments_are_one_line(home: Path) -> None:
    template = one_line_usage_error(run("expand", b"x://{a}\xff", "a=1", home=home))
    assert "the template is not valid UTF-8" in template
    value = one_line_usage_error(run("expand", "x://{a}", b"a=\xff", home=home))
    assert "argument 2 is not valid UTF-8" in value
