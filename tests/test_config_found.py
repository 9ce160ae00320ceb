"""The configs users already have: where each client keeps them on each platform, `-c NAME`, and the
palette entry that opens one in the TUI. Every test uses a fake home; none reads the real one."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from textual.command import CommandPalette
from textual.widgets import OptionList

from explorer import paths
from explorer.app import ExplorerApp
from explorer.cli.settings import Settings
from explorer.config import ConfigError
from explorer.config.found import (
    CLIENTS,
    client_locations,
    describe_found,
    find_client,
    find_client_configs,
    found_notes,
    load_config_option,
    sources_note,
)
from explorer.config.variables import HostContext
from tests.app_helpers import SIZE, demo_spec, main_screen, wait_for, wait_settled


def host(tmp_path: Path, platform: str = "linux", **env: str) -> HostContext:
    home = tmp_path / "home"
    cwd = tmp_path / "project"
    home.mkdir(exist_ok=True)
    cwd.mkdir(exist_ok=True)
    return HostContext(home=home, cwd=cwd, platform=platform, env=env)


def put(path: Path, content: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


def servers(*names: str, key: str = "mcpServers") -> dict[str, object]:
    return {key: {name: {"command": f"run-{name}"} for name in names}}


def paths_of(context: HostContext, client: str) -> list[Path]:
    return [loc.path for loc in client_locations(context) if loc.client == client]


# ------------------------------------------------------------------------------------------- locations


def test_linux_locations(tmp_path: Path) -> None:
    context = host(tmp_path)
    home, cwd = context.home, context.cwd
    assert paths_of(context, "claude-desktop") == [home / ".config/Claude/claude_desktop_config.json"]
    assert paths_of(context, "claude-code") == [
        home / ".claude.json",
        cwd / ".mcp.json",
        home / ".claude.json",
    ]
    assert paths_of(context, "vscode") == [home / ".config/Code/User/mcp.json", cwd / ".vscode/mcp.json"]
    assert paths_of(context, "cursor") == [home / ".cursor/mcp.json", cwd / ".cursor/mcp.json"]
    assert paths_of(context, "windsurf") == [home / ".codeium/windsurf/mcp_config.json"]


def test_linux_honours_xdg_config_home(tmp_path: Path) -> None:
    context = host(tmp_path, XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    assert paths_of(context, "claude-desktop") == [tmp_path / "xdg/Claude/claude_desktop_config.json"]
    assert paths_of(context, "vscode")[0] == tmp_path / "xdg/Code/User/mcp.json"
    relative = host(tmp_path, XDG_CONFIG_HOME="relative/xdg")  # not absolute: ignored, as the spec says
    assert paths_of(relative, "vscode")[0] == relative.home / ".config/Code/User/mcp.json"


def test_macos_locations(tmp_path: Path) -> None:
    context = host(tmp_path, "darwin")
    support = context.home / "Library" / "Application Support"
    assert paths_of(context, "claude-desktop") == [support / "Claude/claude_desktop_config.json"]
    assert paths_of(context, "vscode")[0] == support / "Code/User/mcp.json"
    assert paths_of(context, "cursor")[0] == context.home / ".cursor/mcp.json"


def test_windows_locations(tmp_path: Path) -> None:
    context = host(tmp_path, "win32", APPDATA=str(tmp_path / "Roaming"))
    assert paths_of(context, "claude-desktop") == [tmp_path / "Roaming/Claude/claude_desktop_config.json"]
    assert paths_of(context, "vscode")[0] == tmp_path / "Roaming/Code/User/mcp.json"
    without = host(tmp_path, "win32")
    assert paths_of(without, "claude-desktop") == [
        without.home / "AppData/Roaming/Claude/claude_desktop_config.json"
    ]


def test_claude_config_dir_moves_claude_json(tmp_path: Path) -> None:
    context = host(tmp_path, CLAUDE_CONFIG_DIR=str(tmp_path / "cc"))
    assert paths_of(context, "claude-code")[0] == tmp_path / "cc" / ".claude.json"


# ------------------------------------------------------------------------------------------- discovery


@pytest.mark.parametrize("platform", ["linux", "darwin", "win32"])
def test_every_client_is_found_with_its_server_count(tmp_path: Path, platform: str) -> None:
    context = host(tmp_path, platform)
    locations = {(loc.client, loc.scope): loc.path for loc in client_locations(context)}
    put(locations["claude-desktop", "user"], servers("a", "b", "c"))
    put(locations["vscode", "user"], servers("v", key="servers"))
    put(locations["cursor", "workspace"], servers("x", "y"))
    put(locations["windsurf", "user"], {"mcpServers": {"w": {"serverUrl": "https://w.test/mcp"}}})
    put(context.home / ".claude.json", {"numStartups": 3, "mcpServers": {"u": {"command": "u"}}})

    found = find_client_configs(context)
    assert [(f.client, f.server_count) for f in found] == [
        ("claude-desktop", 3),
        ("claude-code", 1),
        ("vscode", 1),
        ("cursor", 2),
        ("windsurf", 1),
    ]
    windsurf = found[-1].config
    assert windsurf is not None and windsurf.servers["w"].url == "https://w.test/mcp"
    assert [f.summary() for f in found][:2] == ["Claude Desktop (3 servers)", "Claude Code (1 server)"]


def test_nothing_found_in_an_empty_home(tmp_path: Path) -> None:
    context = host(tmp_path)
    assert find_client_configs(context) == []
    put(context.home / ".claude.json", {"numStartups": 1, "projects": {}})  # Claude Code, no servers
    assert find_client_configs(context) == []


def test_claude_code_scopes_merge_local_over_project_over_user(tmp_path: Path) -> None:
    context = host(tmp_path)
    put(
        context.home / ".claude.json",
        {
            "mcpServers": {"shared": {"command": "user-shared"}, "mine": {"command": "user-mine"}},
            "projects": {
                str(context.cwd): {"mcpServers": {"shared": {"command": "local-shared"}}},
                "/some/other/project": {"mcpServers": {"other": {"command": "other"}}},
            },
        },
    )
    put(
        context.cwd / ".mcp.json",
        {"mcpServers": {"shared": {"command": "project-shared"}, "p": {"command": "p"}}},
    )
    found = find_client("claude-code", context)
    assert found is not None and found.config is not None
    config = found.config
    assert {name: spec.command for name, spec in config.servers.items()} == {
        "shared": "local-shared",
        "mine": "user-mine",
        "p": "p",
    }
    assert [f.location.scope for f in found.files] == ["user", "project", "local"]
    assert [f.servers for f in found.files] == [2, 2, 1]
    assert found.files[2].location.label == f"{context.home / '.claude.json'} (projects entry {context.cwd})"


def test_vscode_workspace_wins_and_the_note_names_both_files(tmp_path: Path) -> None:
    context = host(tmp_path)
    user = put(context.home / ".config/Code/User/mcp.json", servers("same", "user-only", key="servers"))
    workspace = put(
        context.cwd / ".vscode/mcp.json",
        {"servers": {"same": {"command": "ws", "args": ["${workspaceFolder}/srv.py"]}}},
    )
    config = load_config_option("vscode", context)
    assert config.servers["same"].command == "ws"
    assert config.servers["same"].args == (f"{context.cwd}/srv.py",)  # the folder holding .vscode/
    assert "user-only" in config.servers
    assert config.files == (user, workspace)
    assert config.source == Path("vscode")  # what -c takes to load it again (copy-as uses it)
    assert sources_note(config) == f"-c vscode: read {user}, {workspace} (a later file wins on a server name)"


def test_a_broken_file_is_reported_not_raised_by_discovery(tmp_path: Path) -> None:
    context = host(tmp_path)
    broken = put(context.home / ".cursor/mcp.json", "{ not json")
    [found] = find_client_configs(context)
    assert found.config is None and found.error is not None
    assert found.error.startswith(f"{broken}: invalid JSON at line 1")
    with pytest.raises(ConfigError, match="invalid JSON"):
        load_config_option("cursor", context)
    [note] = found_notes([found])
    assert note.startswith(f"found Cursor config at {broken}, but it cannot be used: invalid JSON")
    [line] = describe_found([found])
    assert line.startswith("cursor          error: ")


def test_notes_and_locate_lines(tmp_path: Path) -> None:
    context = host(tmp_path)
    desktop = put(context.home / ".config/Claude/claude_desktop_config.json", servers("a", "b", "c"))
    user = put(context.home / ".cursor/mcp.json", servers("x"))
    workspace = put(context.cwd / ".cursor/mcp.json", servers("y"))
    found = find_client_configs(context)
    assert found_notes(found) == [
        f"found Claude Desktop config (3 servers) at {desktop}; use -c claude-desktop",
        f"found Cursor configs (2 servers) at {user}, {workspace}; use -c cursor",
    ]
    assert describe_found(found) == [
        f"claude-desktop  3 servers    {desktop}",
        f"cursor          1 server     {user}",
        f"cursor          1 server     {workspace}",
    ]


# ------------------------------------------------------------------------------------------- -c NAME


def test_unknown_name_is_an_error_naming_the_choices(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config_option("cursr", host(tmp_path))
    assert str(info.value) == (
        "-c/--config 'cursr': no such file, and not a client name; give a config file or one of: "
        + ", ".join(CLIENTS)
    )


def test_a_client_with_no_file_names_where_it_looked(tmp_path: Path) -> None:
    context = host(tmp_path)
    with pytest.raises(ConfigError) as info:
        load_config_option("windsurf", context)
    expected = context.home / ".codeium/windsurf/mcp_config.json"
    assert str(info.value) == f"-c windsurf: no Windsurf config found (looked for {expected})"


def test_paths_still_work_and_a_name_like_file_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    context = host(tmp_path)
    monkeypatch.chdir(tmp_path)
    put(tmp_path / "myservers", servers("m"))
    assert list(load_config_option("myservers", context).servers) == ["m"]
    with pytest.raises(ConfigError, match="file not found"):
        load_config_option(str(tmp_path / "nope.json"), context)


def test_settings_load_by_name_and_notes_found_configs_only_when_nothing_is_configured(
    tmp_path: Path,
) -> None:
    context = host(tmp_path)
    desktop = put(
        context.home / ".config/Claude/claude_desktop_config.json",
        {"mcpServers": {"files": {"command": sys.executable, "args": ["-V"]}}},
    )
    prepared = Settings().prepare(context)
    assert [spec.name for spec in prepared.specs] == ["demo"]  # never the user's servers unasked
    assert [f.client for f in prepared.found] == ["claude-desktop"]
    assert prepared.notes == []
    assert found_notes(prepared.found) == [
        f"found Claude Desktop config (1 server) at {desktop}; use -c claude-desktop"
    ]
    named = Settings(config_path=Path("claude-desktop")).prepare(context)
    assert [spec.name for spec in named.specs] == ["files"]
    assert named.found == [] and named.notes == [f"-c claude-desktop: read {desktop}"]
    with_server = Settings(servers=[f"{sys.executable} -V"]).prepare(context)
    assert with_server.found == [] and with_server.notes == []


# ------------------------------------------------------------------------------------------- the TUI


@pytest.mark.slow
@pytest.mark.anyio
async def test_tui_offers_found_configs_and_the_palette_opens_one(tmp_path: Path) -> None:
    context = host(tmp_path)
    demo_args = ["-m", "explorer", "demo-server"]
    put(
        context.home / ".config/Claude/claude_desktop_config.json",
        {"mcpServers": {"demo": {"command": sys.executable, "args": demo_args}}},
    )
    found = find_client_configs(context)
    notices = ['warning: c.json: server "x": ${env:T} is not set', "note: -c vscode: read a.json"]
    app = ExplorerApp([demo_spec()], found_configs=found, notices=notices, remember_theme=False, timeout=10.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        # Read at once: a notification expires after a few seconds, and a busy machine may take longer.
        messages = [n.message for n in app._notifications]
        assert "Found configs: Claude Desktop (1 server) (ctrl+p to open one)" in messages
        assert "\n".join(notices) in messages  # what the CLI prints on stderr, shown once
        await wait_settled(pilot, app)
        screen = main_screen(app)
        assert list(screen.catalogue.servers) == ["demo"]  # the user's servers are not started unasked
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"Open config")
        await wait_for(pilot, lambda: "Open config: Claude Desktop (1 server)" in palette_text(app))
        await pilot.press("enter")
        await wait_for(pilot, lambda: "demo-2" in screen.catalogue.servers)
        await wait_settled(pilot, app)
        assert screen.catalogue.servers["demo-2"].state == "ready"  # same name as the demo: made unique
        screen.open_config("claude-desktop")
        assert len(screen.catalogue.servers) == 2  # opened once only


def palette_text(app: ExplorerApp) -> str:
    if not isinstance(app.screen, CommandPalette):
        return ""
    options = app.screen.query_one(OptionList)
    return "\n".join(str(options.get_option_at_index(i).prompt) for i in range(options.option_count))


def test_found_configs_are_offered_when_config_toml_has_no_servers(tmp_path: Path) -> None:
    context = host(tmp_path)
    put(context.home / ".cursor/mcp.json", servers("x"))
    own = paths.config_file()
    own.parent.mkdir(parents=True)
    own.write_text('theme = "explorer-light"\n')
    assert [f.client for f in Settings().prepare(context).found] == ["cursor"]
    own.write_text('[servers.mine]\ncommand = "x"\n')
    assert Settings().prepare(context).found == []  # the explorer's own servers: nothing to offer


def test_the_explorers_own_settings_apply_with_another_config(tmp_path: Path, isolated_home: Path) -> None:
    """With -c, the keymap, theme and listing bounds of the user's own config.toml were dropped without a
    word; they are the user's, not the servers', and apply where the named config sets none."""
    context = host(tmp_path)
    own = isolated_home / "config" / "config.toml"
    own.parent.mkdir(parents=True, exist_ok=True)
    own.write_text('theme = "explorer-light"\n[keymap]\n"main.filter" = "ctrl+f"\n[listing]\nmax_items = 5\n')
    desktop = put(
        context.home / ".config/Claude/claude_desktop_config.json",
        {"mcpServers": {"files": {"command": sys.executable, "args": ["-V"]}}},
    )
    config = Settings(config_path=Path("claude-desktop")).load(context)
    assert config is not None and list(config.servers) == ["files"]
    assert config.keymap == {"main.filter": "ctrl+f"} and config.theme == "explorer-light"
    assert config.listing.max_items == 5
    assert desktop.is_file()
