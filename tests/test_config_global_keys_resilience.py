"""A setting of the explorer's own config.toml that cannot be used (theme, keymap, listing bounds) is a
warning naming the file, the key and why, and its default is used: it stopped every command, even one
whose servers all come from `-s`. A config.toml that cannot be read at all (not TOML, a FIFO) is a
warning when every server comes from `-s` (URLs, command lines), and still an error otherwise: without
it the servers cannot be known."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from explorer.app import CONFIG_WARNING_SECONDS
from explorer.cli.settings import Settings
from explorer.config import ListingBounds
from tests.app_helpers import SIZE, main_screen, wait_for, wait_settled
from tests.helpers.cli import CliResult, demo_server, run_cli_at_home, warnings_of
from tests.test_config_broken_entries import DEMO, isolated_host, own_config, toml_entry, tui_app

BAD_SETTINGS = """theme = 3
[listing]
max_items = 0
max_pages = 700
[keymap]
filter = 1
"main.goto" = "g"
"""
NOT_TOML = "[servers.a\ncommand = \n"
TOML_ERROR = "invalid TOML (Expected ']' at the end of a table declaration (at line 1, column 11))"
NOT_READ = ": the file was not read, so the -s servers run with the default settings"


def bad_settings_warnings(config: Path) -> list[str]:
    return [
        f'warning: {config}: "theme" must be a theme name, not a number; the default theme is used',
        f'warning: {config}: keymap "filter" must be a string of keys such as "slash,ctrl+f"; '
        "its default keys are used",
        f'warning: {config}: listing "max_items" must be a positive whole number, not 0; '
        f"the default ({ListingBounds().max_items}) is used",
    ]


def assert_demo_tree(result: CliResult) -> None:
    assert result.code == 0, result
    assert "docs://" in result.stdout and "metrics://" in result.stdout, result


# ------------------------------------------------------------------------------- invalid settings


def test_invalid_settings_warn_and_a_dash_s_command_runs(tmp_path: Path) -> None:
    config = own_config(BAD_SETTINGS)
    result = run_cli_at_home(tmp_path, "-s", demo_server(), "tree", "--depth", "1")
    assert_demo_tree(result)
    assert warnings_of(result) == bad_settings_warnings(config), result


def test_invalid_settings_warn_and_the_files_own_servers_run(tmp_path: Path) -> None:
    config = own_config(BAD_SETTINGS, toml_entry("demo", **DEMO))
    result = run_cli_at_home(tmp_path, "tree", "--depth", "1")
    assert_demo_tree(result)
    assert warnings_of(result) == bad_settings_warnings(config), result


def test_the_good_settings_beside_a_bad_one_still_apply(tmp_path: Path) -> None:
    own_config(BAD_SETTINGS)
    config = Settings().load(isolated_host(tmp_path))
    assert config is not None
    assert config.listing == ListingBounds(max_pages=700) and config.keymap == {"main.goto": "g"}
    assert config.theme is None


def test_with_c_the_own_settings_warnings_are_said(tmp_path: Path) -> None:
    """With -c the own config.toml's settings still apply: so do its warnings (its servers' do not)."""
    own = own_config(BAD_SETTINGS, toml_entry("bad", command=42), toml_entry("demo", **DEMO))
    named = tmp_path / "servers.json"
    named.write_text('{"mcpServers": {"x": {"command": "x"}}}', encoding="utf-8")
    config = Settings(config_path=named).load(isolated_host(tmp_path))
    assert config is not None and list(config.servers) == ["x"]
    assert [f"warning: {w}" for w in config.warnings] == bad_settings_warnings(own)


@pytest.mark.anyio
async def test_the_tui_starts_and_says_which_setting_is_not_used(tmp_path: Path) -> None:
    config = own_config(BAD_SETTINGS, toml_entry("demo", **DEMO))
    app = tui_app(Settings(), isolated_host(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        # Polled from the start: a notification expires after a few seconds. The notices come as one.
        said = "\n".join(bad_settings_warnings(config))
        await wait_for(pilot, lambda: said in [str(n.message) for n in app._notifications])
        [note] = [n for n in app._notifications if str(n.message) == said]
        assert note.timeout == CONFIG_WARNING_SECONDS  # up long enough to be read, not Textual's 5 s
        await wait_settled(pilot, app)
        servers = main_screen(app).catalogue.servers
        assert list(servers) == ["demo"] and servers["demo"].state == "ready"


# ------------------------------------------------------------------------------- a file not read


def test_not_toml_with_every_server_from_s_is_a_warning(tmp_path: Path) -> None:
    config = own_config(NOT_TOML)
    result = run_cli_at_home(tmp_path, "-s", demo_server(), "tree", "--depth", "1")
    assert_demo_tree(result)
    assert warnings_of(result) == [f"warning: {config}: {TOML_ERROR}{NOT_READ}"], result


def test_not_toml_without_s_is_still_an_error(tmp_path: Path) -> None:
    config = own_config(NOT_TOML)
    result = run_cli_at_home(tmp_path, "tree")
    assert result.code == 2, result
    assert result.stderr == f"error: {config}: {TOML_ERROR}\n", result


def test_not_toml_with_an_s_that_may_name_a_configured_server_is_still_an_error(tmp_path: Path) -> None:
    """`-s a` may be a server of the file that cannot be read: what is wrong with the file is the answer."""
    config = own_config(NOT_TOML)
    # `time` is a program too, but a name of the file wins over a program: with the file unread, it may be
    for spec in ("a", "no-such-program-here --stdio", "time", "python3"):
        result = run_cli_at_home(tmp_path, "-s", demo_server(), "-s", spec, "tree")
        assert result.code == 2, result
        assert result.stderr == f"error: {config}: {TOML_ERROR}\n", result


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_config_toml_with_a_url_from_s_is_a_warning(tmp_path: Path) -> None:
    """Unreadable (a FIFO, refused, never waited on), with the servers from -s: the command goes on."""
    path = Path(os.environ["MCP_URL_EXPLORER_HOME"]) / "config" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    url = "http://127.0.0.1:9/mcp"
    prepared = Settings(servers=[url, f"{sys.executable} -m explorer demo-server"]).prepare(
        isolated_host(tmp_path)
    )
    assert [spec.url for spec in prepared.specs] == [url, None]
    assert prepared.warnings == [f"{path}: is a FIFO, not a file{NOT_READ}"]
    assert prepared.config is None
