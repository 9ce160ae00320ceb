"""Options shared by every command, accepted before or after the command name.

Click parses group options before the command and command options after it; the same options are
declared on both and merged here (lists concatenate, a value after the command wins).

`Settings.prepare()` turns them into servers without asking anything (the TUI asks for VS Code inputs in
a dialog); `Settings.resolve()` is the CLI's way: it prints warnings and notes on stderr, then asks for
missing inputs on the terminal, or fails (exit 2) naming them when stdin is not a terminal.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import click

from explorer.cli.output import note
from explorer.config import (
    Config,
    ConfigError,
    InputPrompt,
    ListingBounds,
    ServerSpec,
    default_config_path,
    demo_server_spec,
    load_config,
    parse_header,
    select_servers,
)
from explorer.config.found import (
    FoundConfig,
    find_client_configs,
    found_notes,
    load_config_option,
    sources_note,
)
from explorer.config.inputs import fill_inputs, missing_inputs, parse_input_options
from explorer.config.options import check_startable, names_no_configured_server, parse_env_options
from explorer.config.variables import HostContext
from explorer.sanitize import sanitize_line

F = TypeVar("F", bound=Callable[..., Any])

PROTOCOL_CHOICES = ("auto", "legacy", "2026-07-28")
AUTH_FLOW_CHOICES = ("browser", "print", "fetch")


class Seconds(click.ParamType[float, Any]):
    """A positive, finite number of seconds: `nan` and `inf` would disable a bound or a timeout."""

    name = "seconds"

    def __init__(self, minimum: float = 0.1) -> None:
        self.minimum = minimum

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, float):
            number = value
        else:
            try:
                number = float(value)
            except (TypeError, ValueError):
                self.fail(f"{sanitize_line(str(value), 40)!r} is not a number of seconds", param, ctx)
        if not math.isfinite(number):
            self.fail(f"{number!r} is not a finite number of seconds", param, ctx)
        if number < self.minimum:
            self.fail(f"{number:g} is below the minimum of {self.minimum:g} seconds", param, ctx)
        return number


@dataclass
class Prepared:
    """What the options select, before any input is asked for.

    `specs` have the `--input` values filled in; inputs still missing stay pending on them. `warnings`
    and `notes` are lines for stderr (without their `warning:`/`note:` prefix). `found` lists the client
    configs found when nothing at all was configured (the demo server is used then); the CLI names them
    on stderr (`found_notes`), the TUI offers them in the palette.
    """

    config: Config | None
    specs: list[ServerSpec]
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    found: list[FoundConfig] = field(default_factory=list)


@dataclass
class Settings:
    """Every option that says which servers to talk to and how."""

    servers: list[str] = field(default_factory=list)
    config_path: Path | None = None
    headers: list[str] = field(default_factory=list)
    sse: bool = False
    protocol: str | None = None
    timeout: float | None = None
    env: list[str] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)
    wire_log: Path | None = None
    auth_flow: str | None = None

    def merged(self, later: Settings) -> Settings:
        return Settings(
            servers=[*self.servers, *later.servers],
            config_path=later.config_path or self.config_path,
            headers=[*self.headers, *later.headers],
            sse=self.sse or later.sse,
            protocol=later.protocol or self.protocol,
            timeout=later.timeout if later.timeout is not None else self.timeout,
            env=[*self.env, *later.env],
            inputs=[*self.inputs, *later.inputs],
            wire_log=later.wire_log or self.wire_log,
            auth_flow=later.auth_flow or self.auth_flow,
        )

    @property
    def protocol_mode(self) -> str:
        return self.protocol or "auto"

    @property
    def request_timeout(self) -> float:
        return self.timeout if self.timeout is not None else 30.0

    def load(self, context: HostContext | None = None) -> Config | None:
        """The config -c names (a file or a client name), else the user's own config.toml if it exists.

        With -c, the own config.toml's settings of the explorer itself (keymap, theme, listing bounds)
        still apply where the named config sets none: they were dropped without a word, though they are
        the user's, not the servers'."""
        path = default_config_path()
        if self.config_path is None:
            return load_config(path, context=context) if path is not None else None
        named = load_config_option(self.config_path, context)
        if path is None:
            return named
        # realpath, not resolve(): a config.toml in a symlink loop is said below, not a RuntimeError here
        if named.source is not None and os.path.realpath(named.source) == os.path.realpath(path):
            return named
        try:
            own = load_config(path, context=context)
        except ConfigError as problem:  # the named config is what was asked for: it still runs
            named.warnings.append(f"{_NOT_APPLIED}{problem}")
            return named
        return replace(
            named,
            keymap=named.keymap or own.keymap,
            theme=named.theme or own.theme,
            listing=own.listing if named.listing == ListingBounds() else named.listing,
            warnings=[*named.warnings, *own.setting_warnings],
        )

    def prepare(self, context: HostContext | None = None) -> Prepared:
        """The config and the servers to use, inputs not asked yet; raises ConfigError (exit 2).

        A config.toml that cannot be read (not TOML, a FIFO, ...) is an error when it would say which
        servers to use; when every `-s` is a URL or a command line of its own, it is a warning and the
        servers run with the default settings (it stopped every command, even `-s URL tree`)."""
        context = context or HostContext.current()
        not_applied: list[str] = []
        try:
            config = self.load(context)
        except ConfigError as problem:
            own_only = self.config_path is None  # -c: the named config is what was asked for
            if not (own_only and self.servers and all(map(names_no_configured_server, self.servers))):
                raise
            config = None
            not_applied.append(
                f"{problem}: the file was not read, so the -s servers run with the default settings"
            )
        headers = dict(parse_header(h) for h in self.headers)
        env = parse_env_options(self.env)
        given = parse_input_options(self.inputs)
        specs = select_servers(
            config, self.servers, sse=self.sse, headers=headers, default=demo_server_spec(), env=env
        )
        wanted = {prompt.id for spec in specs for prompt in spec.inputs}
        specs = [fill_inputs(spec, given) for spec in specs]
        for spec in specs:
            check_startable(spec)
        prepared = Prepared(
            config, specs, warnings=list(config.warnings) if config is not None else not_applied
        )
        for input_id in given:
            if input_id not in wanted:
                prepared.warnings.append(f"--input {input_id}: no server used here has ${{input:{input_id}}}")
        note_text = sources_note(config) if config is not None else None
        if note_text is not None:
            prepared.notes.append(note_text)
        if not self.servers and self.config_path is None and (config is None or not config.servers):
            # No server configured anywhere: the demo server is used; say what else there is.
            prepared.found = [f for f in find_client_configs(context) if f.server_count or f.error]
        return prepared

    def resolve(self) -> tuple[Config | None, list[ServerSpec]]:
        """The CLI's servers: warnings and notes printed on stderr, then missing inputs asked on the terminal.

        Raises ConfigError (exit 2) on any problem, and when an input is missing and stdin is no terminal.
        """
        prepared = self.prepare()
        for warning in prepared.warnings:
            note("warning: " + warning)
        for text in [*prepared.notes, *found_notes(prepared.found)]:
            note("note: " + text)
        specs = ask_inputs(prepared.specs)
        for spec in specs:
            check_startable(spec)  # a cwd that came from an input is only known now
        return prepared.config, specs

    def bounds(self, config: Config | None, **overrides: float | int | None) -> ListingBounds:
        base = config.listing if config is not None else ListingBounds()
        values = {k: v for k, v in overrides.items() if v is not None}
        return ListingBounds(
            max_items=int(values.get("max_items", base.max_items)),
            max_pages=int(values.get("max_pages", base.max_pages)),
            max_seconds=float(values.get("max_seconds", base.max_seconds)),
            max_bytes=int(values.get("max_bytes", base.max_bytes)),
        )


_NOT_APPLIED = "the explorer's own settings were not applied: "
_NOT_READ = "the file was not read, so the -s servers run with the default settings"


def ask_inputs(
    specs: Sequence[ServerSpec],
    *,
    interactive: bool | None = None,
    ask: Callable[[InputPrompt, str], str] | None = None,
) -> list[ServerSpec]:
    """`specs` with every pending input filled: asked on the terminal (stderr; no echo for a password).

    Without a terminal on stdin an input with a default takes it (as pressing enter would), and one
    without is a ConfigError naming it and the `--input` that gives it.
    """
    missing = missing_inputs(specs, {})
    if not missing:
        return list(specs)
    if interactive is None:
        interactive = sys.stdin is not None and sys.stdin.isatty()
    values: dict[str, str] = {}
    for prompt, server in missing:
        if interactive:
            values[prompt.id] = (ask or ask_on_terminal)(prompt, server)
        elif prompt.default is not None:
            values[prompt.id] = prompt.default
        else:
            about = f" ({sanitize_line(prompt.description, 100)})" if prompt.description else ""
            raise ConfigError(
                f'server "{sanitize_line(server, 80)}" needs input "{prompt.id}"{about}; stdin is not a '
                f"terminal to ask on, so give it with --input {prompt.id}=VALUE"
            )
    return [fill_inputs(spec, values) for spec in specs]


def ask_on_terminal(prompt: InputPrompt, server: str) -> str:
    """Ask for one input on stderr; Ctrl-C or end of input is a ConfigError (nothing is started)."""
    about = sanitize_line(prompt.description, 200) or prompt.id
    text = f'{about} [input "{sanitize_line(prompt.id, 80)}" for server "{sanitize_line(server, 80)}"]'
    if prompt.options:
        text += " (" + ", ".join(sanitize_line(option, 80) for option in prompt.options) + ")"
    default = prompt.default if prompt.default is not None else ""
    show_default: bool | str = False if prompt.password or not default else default
    while True:
        try:
            value = click.prompt(
                text, default=default, hide_input=prompt.password, show_default=show_default, err=True
            )
        except click.exceptions.Abort:
            raise ConfigError(f'no value was given for input "{prompt.id}"') from None
        problem = prompt.problem(str(value))
        if problem is None:
            return str(value)
        click.echo(problem, err=True)


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
            type=click.Path(path_type=Path),
            metavar="PATH|NAME",
            help="Config file (JSON with mcpServers or servers, or the explorer's TOML), or the configs a "
            "client already has: claude-desktop, claude-code, vscode, cursor, windsurf "
            "(see 'locate configs'). Without -s every configured server is used.",
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
            type=Seconds(),
            default=None,
            metavar="SECONDS",
            help="Timeout per request (default 30).",
        ),
        click.option(
            "-e",
            "--env",
            "env",
            multiple=True,
            metavar="KEY=VALUE",
            help="Environment variable for the stdio servers given with -s. Repeatable.",
        ),
        click.option(
            "--input",
            "inputs",
            multiple=True,
            metavar="ID=VALUE",
            help="Value of a VS Code ${input:ID} (else asked on the terminal). Repeatable.",
        ),
        click.option(
            "--wire-log",
            "wire_log",
            type=click.Path(path_type=Path, dir_okay=False),
            default=None,
            metavar="FILE",
            help="Append every JSON-RPC frame sent and received to FILE as JSON Lines (secrets masked).",
        ),
        click.option(
            "--auth-flow",
            type=click.Choice(AUTH_FLOW_CHOICES),
            default=None,
            help="How an OAuth login is approved: browser (default where one opens; the URL is shown "
            "too), print (show the URL, wait for the redirect), fetch (request the URL itself: for "
            "authorization servers that approve at once).",
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
        env=list(params.pop("env", ()) or ()),
        inputs=list(params.pop("inputs", ()) or ()),
        wire_log=params.pop("wire_log", None),
        auth_flow=params.pop("auth_flow", None),
    )
    parent = ctx.find_object(Settings)
    return parent.merged(own) if parent is not None else own


__all__ = [
    "AUTH_FLOW_CHOICES",
    "PROTOCOL_CHOICES",
    "ConfigError",
    "Prepared",
    "Seconds",
    "Settings",
    "ask_inputs",
    "ask_on_terminal",
    "server_options",
    "settings_from",
]
