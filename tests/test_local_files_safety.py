"""The user's own files that are not files: a FIFO, a device, a directory, a symlink loop, a broken token.

`open()` of a FIFO waits for its other end in C, where neither Ctrl+C nor `q` reached it: a FIFO as the
bookmarks file left the TUI on a blank screen, as a token file `auth list` never returned, as a server's
stderr log `servers` ignored SIGINT, and `/dev/zero` as an envFile was read until the memory ran out. A
config.toml that was a directory or a symlink loop was ignored without a word and the demo opened. Each
test runs the explorer in a process of its own (killed at its timeout: a hang fails the test, it never
hangs the suite) and checks what the user is told. The explorer's folders are the test's own
(`MCP_URL_EXPLORER_HOME`, set for every test by `conftest.isolated_home`).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.cli import demo_server, run_cli, run_cli_patched
from tests.helpers.paths import ROOT
from tests.helpers.pty_tui import pty_tui

pytestmark = [
    pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX"),
    pytest.mark.slow,
]

HANG_GUARD = 60.0  # seconds a process gets before it is killed and the test fails


def fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def in_a_process(code: str) -> str:
    """What `code` prints, run in a fresh interpreter (killed, and the test failed, if it hangs)."""
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def demo_config(tmp_path: Path, **entry: object) -> Path:
    """A JSON config naming the demo server `demo`, with these extra keys in its entry."""
    words = shlex.split(demo_server())
    path = tmp_path / "servers.json"
    server = {"command": words[0], "args": words[1:], **entry}
    path.write_text(json.dumps({"mcpServers": {"demo": server}}))
    return path


# ------------------------------------------------------------------------------------- saved JSON files


def test_a_fifo_as_the_bookmarks_file_is_said_not_waited_on(isolated_home: Path) -> None:
    fifo(isolated_home / "data" / "bookmarks.json")

    said = in_a_process("from explorer.bookmarks import Bookmarks\nprint(Bookmarks().problem)")

    assert "bookmarks.json is a FIFO, not a file; bookmarks are not saved over it" in said


def test_a_fifo_as_the_history_file_is_said_not_waited_on(isolated_home: Path) -> None:
    fifo(isolated_home / "data" / "history")

    said = in_a_process("from explorer.history import History\nprint(History.load().problem)")

    assert "history is a FIFO, not a file; history is not saved over it" in said


def test_a_fifo_as_a_theme_file_or_the_theme_choice_is_said_not_waited_on(isolated_home: Path) -> None:
    fifo(isolated_home / "config" / "themes" / "x.yaml")
    fifo(isolated_home / "data" / "theme.json")

    said = in_a_process(
        "from explorer import theming\n"
        "print(theming.load_themes([theming.user_themes_dir()])[1])\n"
        "print(theming.load_theme_choice())"
    )

    assert "x.yaml could not be read (is a FIFO, not a file)." in said
    assert said.splitlines()[-1] == "None"  # no choice remembered: the default theme


def test_the_tui_starts_and_quits_with_fifos_as_its_bookmarks_and_a_theme(
    isolated_home: Path, tmp_path: Path
) -> None:
    """The TUI itself: it got no further than a blank screen, and `q` did nothing."""
    fifo(isolated_home / "data" / "bookmarks.json")
    fifo(isolated_home / "config" / "themes" / "x.yaml")
    started = tmp_path / "server.pid"
    spec = shlex.join(["sh", "-c", f'echo $$ > "{started}"; exec {demo_server()}'])

    with pty_tui(spec, isolated_home) as tui:
        tui.wait_for(started, timeout=HANG_GUARD)  # the server starts once the first frame is painted
        assert started.exists(), bytes(tui.written[-2000:])
        os.write(tui.master, b"q")
        assert tui.exit_status(timeout=HANG_GUARD) == 0


# ------------------------------------------------------------------------------------------ token files


def test_auth_list_says_a_fifo_token_file_and_returns(isolated_home: Path) -> None:
    token = fifo(isolated_home / "data" / "oauth" / "x.json")

    result = run_cli("auth", "list", timeout=HANG_GUARD)

    assert result.code == 0, result
    assert f"warning: token file {token} is a FIFO, not a file" in result.stderr, result
    assert "no stored OAuth logins that can be read" in result.stderr, result


# -------------------------------------------------------------------------------------------- envFiles


def test_a_fifo_as_an_envfile_is_a_config_error_not_a_hang(tmp_path: Path) -> None:
    env_file = fifo(tmp_path / "fifo.env")
    config = demo_config(tmp_path, envFile=str(env_file))

    result = run_cli("-c", str(config), "servers", timeout=HANG_GUARD)

    assert result.code == 2, result
    assert f'server "demo": envFile {env_file} is a FIFO, not a file' in result.stderr, result


def test_an_envfile_linked_to_dev_zero_is_refused_not_read_for_ever(tmp_path: Path) -> None:
    env_file = tmp_path / "zero.env"
    env_file.symlink_to("/dev/zero")
    config = demo_config(tmp_path, envFile=str(env_file))

    # A bound on the address space: the unfixed read filled it (a MemoryError), not the machine's memory.
    limit = "import resource\nresource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))"
    result = run_cli_patched(limit, "-c", str(config), "servers", timeout=HANG_GUARD)

    assert result.code == 2, result
    assert f"envFile {env_file} is a character device, not a file" in result.stderr, result
    assert "Traceback" not in result.stderr, result


# ------------------------------------------------------------------------------------------------- logs


def test_a_fifo_as_a_servers_stderr_log_is_a_warning_and_the_server_runs(
    isolated_home: Path, tmp_path: Path
) -> None:
    log = fifo(isolated_home / "logs" / "demo.log")

    result = run_cli("-c", str(demo_config(tmp_path)), "servers", timeout=HANG_GUARD)

    assert result.code == 0, result
    assert "Server:       mcp-url-explorer-demo" in result.stdout, result
    without = "warning: server demo: running without its stderr log"
    assert f"{without}: could not write {log} (is a FIFO, not a file)" in result.stderr, result


def test_a_wire_log_fifo_that_nothing_reads_is_a_usage_error(tmp_path: Path) -> None:
    sink = fifo(tmp_path / "wire.fifo")

    result = run_cli("--wire-log", str(sink), "-s", demo_server(), "servers", timeout=HANG_GUARD)

    assert result.code == 2, result
    assert f"--wire-log {sink}: cannot write there (is a FIFO that nothing reads" in result.stderr, result


# ------------------------------------------------------------------------------------- the own config


@pytest.fixture
def own_config(isolated_home: Path) -> Path:
    folder = isolated_home / "config"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "config.toml"


def test_a_config_toml_that_is_a_directory_is_said_not_ignored(own_config: Path) -> None:
    own_config.mkdir()

    result = run_cli("servers", timeout=HANG_GUARD)

    assert result.code == 2, result
    assert f"error: {own_config}: is a directory, not a config file" in result.stderr, result
    assert "Server:" not in result.stdout, result  # not the demo instead


def test_a_config_toml_in_a_symlink_loop_is_said_not_ignored(own_config: Path, tmp_path: Path) -> None:
    loop = own_config.with_name("loop2")
    own_config.symlink_to(loop.name)
    loop.symlink_to(own_config.name)

    result = run_cli("tree", timeout=HANG_GUARD)
    located = run_cli("locate", "config", timeout=HANG_GUARD)
    with_named = run_cli("-c", str(demo_config(tmp_path)), "servers", timeout=HANG_GUARD)

    assert result.code == 2, result
    assert f"error: {own_config}: cannot read the file (too many levels of symbolic links)" in (
        result.stderr.lower()
    ), result
    assert located.code == 0 and located.stdout.strip() == str(own_config), located
    assert "is there but cannot be read" in located.stderr, located
    # -c names the config to use: it runs, and the own settings not applied are said (resolve() of the
    # loop raised a RuntimeError)
    assert with_named.code == 0, with_named
    assert "warning: the explorer's own settings were not applied" in with_named.stderr, with_named


# ------------------------------------------------------------------------------------------- auth list


def token_file(isolated_home: Path, name: str, text: str) -> Path:
    path = isolated_home / "data" / "oauth" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def login(url: str, expires_at: str) -> str:
    return f'{{"server_url": "{url}", "tokens": {{"access_token": "abcdefgh"}}, "expires_at": {expires_at}}}'


def test_auth_list_says_a_truncated_token_file(isolated_home: Path) -> None:
    broken = token_file(isolated_home, "trunc-2.json", '{"server_url": "https://trunc.test/mcp", "tok')

    result = run_cli("auth", "list", timeout=HANG_GUARD)

    assert result.code == 0, result
    assert f"warning: token file {broken} is not valid JSON (" in result.stderr, result
    assert "no stored OAuth logins that can be read" in result.stderr, result


def test_auth_list_says_an_absurd_expiry_time_as_such(isolated_home: Path) -> None:
    token_file(isolated_home, "big-1.json", login("https://big.test/mcp", "1e308"))
    token_file(isolated_home, "inf-2.json", login("https://inf.test/mcp", "1e999"))
    token_file(isolated_home, "int-3.json", login("https://int.test/mcp", "1" + "0" * 400))
    token_file(isolated_home, "nan-4.json", login("https://nan.test/mcp", "NaN"))
    token_file(isolated_home, "ok-5.json", login("https://ok.test/mcp", "4102444800"))  # 2100-01-01

    result = run_cli("auth", "list", timeout=HANG_GUARD)

    assert result.code == 0, result
    lines = dict(line.split("  ", 1) for line in result.stdout.splitlines())
    for url in (
        "https://big.test/mcp",
        "https://inf.test/mcp",
        "https://int.test/mcp",
        "https://nan.test/mcp",
    ):
        assert lines[url] == "expires at an invalid time (ignored)", result
    assert re.fullmatch(r"valid for [\d,]+ h", lines["https://ok.test/mcp"]), result
    assert not re.search(r"\d{20}", result.stdout) and "inf h" not in result.stdout, result


def test_auth_logout_of_a_server_whose_token_file_is_broken_deletes_it_and_says_so(
    isolated_home: Path,
) -> None:
    url = "https://trunc.test/mcp"
    path = Path(
        in_a_process(f"from explorer.auth.store import entry_path\nprint(entry_path({url!r}))").strip()
    )
    token_file(isolated_home, path.name, '{"server_url": "https://trunc.test/mcp", "tok')

    result = run_cli("auth", "logout", url, timeout=HANG_GUARD)

    assert result.code == 0, result
    assert f"forgot the OAuth login of {url} (its token file {path} is not valid JSON (" in result.stdout
    assert not path.exists()
