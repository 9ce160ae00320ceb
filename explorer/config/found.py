"""The MCP configs users already have: Claude Desktop, Claude Code, VS Code, Cursor and Windsurf.

Where each client keeps its servers depends on the platform; `client_locations` is a pure function of
the home folder, working directory, platform and environment (`HostContext`), so tests drive it with a
fake home for every platform. A client may have several files (user and workspace): `-c NAME` merges
them, later files winning on equal server names, in the order the client itself gives them precedence.

Finding a config never starts its servers: the CLI and the TUI only say what they found (and the TUI
offers to open it) unless the user names it with `-c`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from explorer.config.loaders import load_config, load_servers_at
from explorer.config.spec import Config, ConfigError
from explorer.config.variables import HostContext
from explorer.sanitize import sanitize_line

CLIENTS: dict[str, str] = {
    "claude-desktop": "Claude Desktop",
    "claude-code": "Claude Code",
    "vscode": "VS Code",
    "cursor": "Cursor",
    "windsurf": "Windsurf",
}

Scope = Literal["user", "project", "local", "workspace"]


@dataclass(frozen=True)
class ClientLocation:
    """One place a client keeps MCP servers: a file, and for `~/.claude.json` the keys leading to them."""

    client: str
    path: Path
    scope: Scope
    keys: tuple[str, ...] | None = None  # None: the whole file is an MCP config

    @property
    def label(self) -> str:
        """The path, plus the project entry for Claude Code's per-project servers."""
        if self.keys:
            return f"{self.path} (projects entry {self.keys[-1]})" if len(self.keys) > 1 else str(self.path)
        return str(self.path)


@dataclass(frozen=True)
class FoundFile:
    """A location that exists: how many servers it has, or why it cannot be used."""

    location: ClientLocation
    servers: int = 0
    error: str | None = None


@dataclass(frozen=True)
class FoundConfig:
    """One client's configs merged: what `-c CLIENT` loads (None, with `error`, when a file is broken)."""

    client: str
    files: tuple[FoundFile, ...]
    config: Config | None = field(default=None, compare=False)
    error: str | None = None

    @property
    def label(self) -> str:
        return CLIENTS[self.client]

    @property
    def server_count(self) -> int:
        return len(self.config.servers) if self.config is not None else 0

    def summary(self) -> str:
        """`Claude Desktop (3 servers)`."""
        count = self.server_count
        return f"{self.label} ({count} server{'' if count == 1 else 's'})"


def app_config_dir(context: HostContext) -> Path:
    """Where desktop apps keep per-user settings: Application Support, %APPDATA% or $XDG_CONFIG_HOME."""
    if context.platform == "darwin":
        return context.home / "Library" / "Application Support"
    if context.platform.startswith(("win", "cygwin", "msys")):
        appdata = context.env.get("APPDATA")
        return Path(appdata) if appdata else context.home / "AppData" / "Roaming"
    xdg = context.env.get("XDG_CONFIG_HOME")
    return Path(xdg) if xdg and os.path.isabs(xdg) else context.home / ".config"


def client_locations(context: HostContext) -> list[ClientLocation]:
    """Every place each client keeps servers on this platform, per client lowest precedence first.

    Claude Code: user servers in `~/.claude.json`, then the project's `.mcp.json`, then the servers local
    to this project in `~/.claude.json` (`projects[<folder>]`), as Claude Code ranks them.
    """
    home, cwd, apps = context.home, context.cwd, app_config_dir(context)
    claude_dir = context.env.get("CLAUDE_CONFIG_DIR")
    claude_json = (Path(claude_dir) if claude_dir else home) / ".claude.json"
    return [
        ClientLocation("claude-desktop", apps / "Claude" / "claude_desktop_config.json", "user"),
        ClientLocation("claude-code", claude_json, "user", keys=()),
        ClientLocation("claude-code", cwd / ".mcp.json", "project"),
        ClientLocation("claude-code", claude_json, "local", keys=("projects", str(cwd))),
        ClientLocation("vscode", apps / "Code" / "User" / "mcp.json", "user"),
        ClientLocation("vscode", cwd / ".vscode" / "mcp.json", "workspace"),
        ClientLocation("cursor", home / ".cursor" / "mcp.json", "user"),
        ClientLocation("cursor", cwd / ".cursor" / "mcp.json", "workspace"),
        ClientLocation("windsurf", home / ".codeium" / "windsurf" / "mcp_config.json", "user"),
    ]


def _load(location: ClientLocation, context: HostContext) -> Config | None:
    """The location's servers; None when it is not there. Raises ConfigError when it cannot be used."""
    if not os.path.isfile(location.path):
        return None
    if location.keys is None:
        return load_config(location.path, context=context)
    return load_servers_at(location.path, location.keys, label=location.label, context=context)


def find_client(client: str, context: HostContext) -> FoundConfig | None:
    """One client's files merged; None when it has none here."""
    files: list[FoundFile] = []
    configs: list[Config] = []
    error: str | None = None
    for location in client_locations(context):
        if location.client != client:
            continue
        try:
            config = _load(location, context)
        except ConfigError as exc:
            files.append(FoundFile(location, error=str(exc)))
            error = error or str(exc)
            continue
        except Exception as exc:  # one broken file of another client never stops the scan
            problem = (
                f"{location.label}: cannot be used ({type(exc).__name__}: {sanitize_line(str(exc), 200)})"
            )
            files.append(FoundFile(location, error=problem))
            error = error or problem
            continue
        if config is not None:
            files.append(FoundFile(location, servers=len(config.servers)))
            configs.append(config)
    if not files:
        return None
    merged = None if error is not None else merge_configs(client, configs)
    return FoundConfig(client, tuple(files), merged, error)


def find_client_configs(context: HostContext) -> list[FoundConfig]:
    """Every client with a config here, in the order of `CLIENTS`."""
    found = (find_client(client, context) for client in CLIENTS)
    return [item for item in found if item is not None]


def merge_configs(client: str, configs: list[Config]) -> Config:
    """Servers of every file, a later file winning on a name (a broken entry too, as the client would
    use it); warnings of all; `source` is the client."""
    merged = Config(source=Path(client), client=client)
    for config in configs:
        for name in config.servers:
            merged.broken.pop(name, None)
        for name in config.broken:
            merged.servers.pop(name, None)
        merged.servers.update(config.servers)
        merged.broken.update(config.broken)
        merged.warnings.extend(config.warnings)
        merged.files += config.files
    return merged


def load_config_option(value: str | Path, context: HostContext | None = None) -> Config:
    """`-c VALUE`: a client name (`vscode`: its files merged), else a config file.

    A client name wins over a file of that name in the current folder (write `./vscode` for the file). A
    word that is neither an existing file nor a client name is a ConfigError naming the choices.
    """
    text = str(value)
    if text in CLIENTS:
        context = context or HostContext.current()
        found = find_client(text, context)
        if found is None:
            places = ", ".join(str(loc.path) for loc in client_locations(context) if loc.client == text)
            raise ConfigError(f"-c {text}: no {CLIENTS[text]} config found (looked for {places})")
        if found.error is not None or found.config is None:
            raise ConfigError(found.error or f"-c {text}: the config cannot be used")
        return found.config
    if not os.path.lexists(text) and re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", text):
        raise ConfigError(
            f"-c/--config '{text}': no such file, and not a client name; give a config file or one of: "
            + ", ".join(CLIENTS)
        )
    return load_config(Path(text), context=context)


def sources_note(config: Config) -> str | None:
    """`-c vscode: read A, B (a later file wins on a server name)`: which files a client name loaded."""
    if config.client is None:
        return None
    files = ", ".join(str(path) for path in dict.fromkeys(config.files))
    several = " (a later file wins on a server name)" if len(set(config.files)) > 1 else ""
    return f"-c {config.client}: read {files}{several}"


def found_notes(found: list[FoundConfig]) -> list[str]:
    """One line per found client for stderr: where it is, and the `-c` that uses it."""
    notes: list[str] = []
    for item in found:
        paths = ", ".join(dict.fromkeys(f.location.label for f in item.files))
        if item.error is not None:
            why = item.error.removeprefix(f"{paths}: ")  # the error names the file too: said once
            notes.append(f"found {item.label} config at {paths}, but it cannot be used: {why}")
        else:
            kind = "configs" if len(item.files) > 1 else "config"
            count = item.server_count
            servers = f"{count} server{'' if count == 1 else 's'}"
            notes.append(f"found {item.label} {kind} ({servers}) at {paths}; use -c {item.client}")
    return notes


def describe_found(found: list[FoundConfig]) -> list[str]:
    """`locate configs`: one line per file: the `-c` name, its server count (or error) and its path."""
    lines: list[str] = []
    width = max(len(name) for name in CLIENTS)
    for item in found:
        for file in item.files:
            if file.error is not None:
                text = f"{item.client:<{width}}  error: {file.error}"
            else:
                count = f"{file.servers} server{'' if file.servers == 1 else 's'}"
                text = f"{item.client:<{width}}  {count:<11}  {file.location.label}"
            lines.append(sanitize_line(text, limit=2000))
    return lines
