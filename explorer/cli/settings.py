"""Options shared by every command, accepted before or after the command name.

Click parses group options before the command and command options after it; the same options are
declared on both and merged here (lists concatenate, a value after the command wins).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import click

from explorer.config import (
    Config,
    ConfigError,
    ListingBounds,
    ServerSpec,
    default_config_path,
    demo_server_spec,
    load_config,
    parse_header,
    select_servers,
)

F = TypeVar("F", bound=Callable[..., Any])

PROTOCOL_CHOICES = ("auto", "legacy", "2026-07-28")


@dataclass
class Settings:
    """Every option that says which servers to talk to and how."""

    servers: list[str] = field(default_factory=list)
    config_path: Path | None = None
    headers: list[str] = field(default_factory=list)
    sse: bool = False
    protocol: str | None = None
    timeout: float | None = None

    def merged(self, later: Settings) -> Settings:
        return Settings(
            servers=[*self.servers, *later.servers],
            config_path=later.config_path or self.config_path,
            headers=[*self.headers, *later.headers],
            sse=self.sse or later.sse,
            protocol=later.protocol or self.protocol,
            timeout=later.timeout if later.timeout is not None else self.timeout,
        )

    @property
    def protocol_mode(self) -> str:
        return self.protocol or "auto"

    @property
    def request_timeout(self) -> float:
        return self.timeout if self.timeout is not None else 30.0

    def load(self) -> Config | None:
        """The config file named by -c, else the user's own config.toml when it exists."""
        path = self.config_path or default_config_path()
        return load_config(path) if path is not None else None

    def resolve(self) -> tuple[Config | None, list[ServerSpec]]:
        """The config and the servers to use; raises ConfigError (exit 2) on any problem."""
        config = self.load()
        headers = dict(parse_header(h) for h in self.headers)
        specs = select_servers(
            config, self.servers, sse=self.sse, headers=headers, default=demo_server_spec()
        )
        return config, specs

    def bounds(self, config: Config | None, **overrides: float | int | None) -> ListingBounds:
        base = config.listing if config is not None else ListingBounds()
        values = {k: v for k, v in overrides.items() if v is not None}
        return ListingBounds(
            max_items=int(values.get("max_items", base.max_items)),
            max_pages=int(values.get("max_pages", base.max_pages)),
            max_seconds=float(values.get("max_seconds", base.max_seconds)),
            max_bytes=int(values.get("max_bytes", base.max_bytes)),
        )


def server_options(func: F) -> F:
    """Declare the shared options on a group or a command."""
    options = [
        click.option(
            "-s",
            "--server",
            "servers",
            multiple=True,
            metavar="SPEC",
            help="A configured server NAME, an http(s) URL (Streamable HTTP; with --sse: SSE), "
            "or a command line run as a stdio server. Repeatable.",
        ),
        click.option(
            "-c",
            "--config",
            "config_path",
            type=click.Path(path_type=Path, dir_okay=False),
            help="Config file: JSON with mcpServers (Claude Desktop, Cursor) or servers (VS Code), "
            "or the explorer's TOML. Without -s every configured server is used.",
        ),
        click.option(
            "-H", "--header", "headers", multiple=True, metavar="'NAME: VALUE'", help="HTTP header."
        ),
        click.option("--sse", is_flag=True, default=False, help="Use legacy HTTP+SSE for URL servers."),
        click.option(
            "--protocol",
            type=click.Choice(PROTOCOL_CHOICES),
            default=None,
            help="Protocol negotiation: auto (default), legacy (initialize), 2026-07-28.",
        ),
        click.option(
            "--timeout",
            type=click.FloatRange(min=0.1),
            default=None,
            metavar="SECONDS",
            help="Timeout per request (default 30).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def settings_from(ctx: click.Context, params: dict[str, Any]) -> Settings:
    """This command's options merged over the ones given before the command name."""
    own = Settings(
        servers=list(params.pop("servers", ()) or ()),
        config_path=params.pop("config_path", None),
        headers=list(params.pop("headers", ()) or ()),
        sse=bool(params.pop("sse", False)),
        protocol=params.pop("protocol", None),
        timeout=params.pop("timeout", None),
    )
    parent = ctx.find_object(Settings)
    return parent.merged(own) if parent is not None else own


__all__ = ["PROTOCOL_CHOICES", "ConfigError", "Settings", "server_options", "settings_from"]
