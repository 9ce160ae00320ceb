"""The `mcp-url-explorer` command line: parse, validate config (exit 2), run the TUI or a command.

Heavy imports (the MCP SDK costs ~1.5 s, Textual more) stay inside the commands that need them,
so `--help`, `expand` and usage errors answer at once.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import click

from explorer import __version__
from explorer.cli.closed_output import OutputFailed, exit_flushed, quiet_when_output_closes
from explorer.cli.output import EXIT_INTERRUPTED, EXIT_USAGE, error, note, out, register_secrets
from explorer.cli.settings import Seconds, Settings, server_options, settings_from
from explorer.config import ConfigError


def _fail_usage(message: str) -> NoReturn:
    error(" ".join(message.split()))  # click's own lists come on indented lines: one line of ours
    sys.exit(EXIT_USAGE)


def _resolve(settings: Settings) -> tuple[Any, list[Any]]:
    """The servers of a command; warnings and notes go to stderr once, config errors exit 2.

    Their secrets are masked in everything the command writes from here on.
    """
    try:
        config, specs = settings.resolve()
    except ConfigError as exc:
        _fail_usage(str(exc))
    register_secrets([*specs, *(config.servers.values() if config is not None else ())])
    _open_wire_log(settings)
    from explorer.cli.auth_cmd import use_cli_logins

    use_cli_logins(settings.auth_flow)
    return config, specs


def _open_wire_log(settings: Settings) -> None:
    """`--wire-log FILE`: every connection of this run records its frames there (a usage error if it
    cannot be opened)."""
    if settings.wire_log is None:
        return
    from explorer.cli.runner import wire_log
    from explorer.connection.wire import WireLog

    try:
        wire_log.set(WireLog(sink=settings.wire_log))
    except OSError as exc:
        _fail_usage(f"--wire-log {settings.wire_log}: cannot write there ({exc.strerror or exc})")


def _run(make: Callable[[], Any]) -> NoReturn:
    """Run an async command body and exit with its code; Ctrl-C exits quietly with 130."""
    import anyio

    from explorer.cli.ctrl_c import CUT_SHORT, WRITING, output_phase

    with output_phase():
        try:
            code = anyio.run(make)
        except KeyboardInterrupt:
            if WRITING.active:  # the second Ctrl+C while the output was being written
                note(CUT_SHORT)
            sys.exit(EXIT_INTERRUPTED)
        sys.exit(EXIT_INTERRUPTED if WRITING.interrupted else int(code))


bound_options = [
    click.option("--max-items", type=click.IntRange(min=1), default=None, help="Stop listing after N items."),
    click.option("--max-pages", type=click.IntRange(min=1), default=None, help="Stop listing after N pages."),
    click.option(
        "--max-bytes",
        type=click.IntRange(min=1),
        default=None,
        metavar="N",
        help="Stop listing a server after N bytes of metadata.",
    ),
    click.option(
        "--list-timeout",
        type=Seconds(),
        default=None,
        metavar="S",
        help="Wall time for a listing.",
    ),
]


BoundValues = tuple[int | None, int | None, int | None, float | None]


def _bounds(settings: Settings, config: Any, values: BoundValues) -> Any:
    max_items, max_pages, max_bytes, list_timeout = values
    return settings.bounds(
        config, max_items=max_items, max_pages=max_pages, max_bytes=max_bytes, max_seconds=list_timeout
    )


def with_bounds(func: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed(bound_options):
        func = option(func)
    return func


def _run_uri_command(
    name: str,
    ctx: click.Context,
    uri: str,
    as_json: bool,
    bound_values: BoundValues,
    params: dict[str, Any],
    extra: dict[str, Any] | None = None,
) -> NoReturn:
    """`read` and `match` differ only in what they do with the servers' listings (`extra`: read's)."""
    settings = settings_from(ctx, params)
    config, specs = _resolve(settings)
    bounds = _bounds(settings, config, bound_values)

    async def body() -> int:
        common: dict[str, Any] = {
            "protocol": settings.protocol_mode,
            "timeout": settings.request_timeout,
            "as_json": as_json,
        }
        if name == "read":
            from explorer.cli.read_cmd import read_command

            return await read_command(specs, uri, bounds, **common, **(extra or {}))
        from explorer.cli.match_cmd import match_command

        return await match_command(specs, uri, bounds, **common)

    _run(body)


def _parsed(command: click.Command, make: Callable[[], click.Context]) -> click.Context:
    """A command's parsed context, with what parsing wrote (`--help`, `--version`) refused by stdout an
    `OutputFailed` (one line, exit 1), and every text value checked to be UTF-8 (`_not_utf8`)."""
    try:
        ctx = make()
    except BrokenPipeError:
        raise
    except OSError as exc:  # parsing reads no file: only its `--help` and `--version` write, to stdout
        raise OutputFailed.because(exc) from exc
    problem = _not_utf8(command, ctx)
    if problem is not None:
        raise click.UsageError(problem, ctx=ctx)
    return ctx


def _not_utf8(command: click.Command, ctx: click.Context) -> str | None:
    """Arguments and option values that were not UTF-8 bytes arrive with surrogate escapes, which no URI,
    name, header or JSON string can hold: said as a usage error, as `expand` says it, never Python's
    UnicodeEncodeError later. Paths are not text values here: a file name may be any bytes."""
    position = 0
    for param in command.get_params(ctx):
        value = ctx.params.get(param.name or "")
        words = value if isinstance(value, tuple) else (value,)
        for word in words:
            if isinstance(param, click.Argument):
                position += 1
            if not isinstance(word, str):
                continue
            try:
                word.encode("utf-8")
            except UnicodeEncodeError as exc:
                where = f"an undecodable byte at character {exc.start + 1}"
                return f"{_which(param, position)} is not valid UTF-8 ({where})"
    return None


def _which(param: click.Parameter, position: int) -> str:
    """How a message names a parameter: `the URI`, `argument 2` (one of several), `the value of --header`."""
    if isinstance(param, click.Argument):
        if param.nargs != 1:
            return f"argument {position}"
        name = param.name or "argument"
        return "the " + (name.upper() if name in ("uri", "url") else name)
    return "the value of " + max(param.opts, key=len)


class _Command(click.Command):
    """A command whose parsing reports a refused stdout and non-UTF-8 values in one line (`_parsed`)."""

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        return _parsed(self, lambda: super(_Command, self).make_context(info_name, args, parent, **extra))


class _Commands(click.Group):
    """The command group; a closed stdout ends any command quietly with 141 (click would exit 1, which
    says a server failed), one that refuses what is written with one line and exit 1: around the
    subcommands and the group's own `--help` and `--version`."""

    command_class = _Command
    group_class = type  # `auth` is one of these too

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        with quiet_when_output_closes():
            return _parsed(
                self, lambda: super(_Commands, self).make_context(info_name, args, parent, **extra)
            )

    def invoke(self, ctx: click.Context) -> Any:
        with quiet_when_output_closes():
            return super().invoke(ctx)


@click.group(
    cls=_Commands, invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]}
)
@server_options
@click.version_option(__version__, prog_name="mcp-url-explorer")
@click.pass_context
def cli(ctx: click.Context, /, **params: Any) -> None:
    """Explore what MCP servers expose: resources and templates as one URI-prefix tree.

    Without a command, opens the terminal UI on the configured servers (or the built-in demo server).
    """
    settings = settings_from(ctx, params)
    ctx.obj = settings
    if ctx.invoked_subcommand is None:
        try:
            prepared = settings.prepare()  # the TUI asks for VS Code inputs itself, in a dialog
        except ConfigError as exc:
            _fail_usage(str(exc))
        if settings.wire_log is not None:
            from explorer.storage import open_for_append

            try:  # a FIFO nothing reads: refused, not waited on (as `WireLog` opens it next)
                open_for_append(settings.wire_log, streams=True).close()
            except OSError as exc:
                _fail_usage(f"--wire-log {settings.wire_log}: cannot write there ({exc.strerror or exc})")
        from explorer.frame_rate import cap_frame_rate
        from explorer.model.heap import collector_paused

        cap_frame_rate()  # before Textual is imported
        with collector_paused():  # what the import builds lives as long as the app: no collection walks it
            from explorer.app import launch_tui

        sys.exit(
            launch_tui(
                prepared.config,
                prepared.specs,
                protocol=settings.protocol_mode,
                timeout=settings.request_timeout,
                notices=[*(f"warning: {w}" for w in prepared.warnings), *prepared.notes],
                found_configs=prepared.found,
                wire_log=settings.wire_log,
                auth_flow=settings.auth_flow,
            )
        )


@cli.command()
@server_options
@click.option(
    "--prefix", default=None, metavar="P", help="Only resources and templates under this URI prefix."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--depth", type=click.IntRange(min=1), default=None, help="Text output: show N levels.")
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Pages, items and rate on stderr while listing (default: only when stderr is a terminal).",
)
@with_bounds
@click.pass_context
def tree(
    ctx: click.Context,
    /,
    prefix: str | None,
    as_json: bool,
    depth: int | None,
    progress: bool | None,
    max_items: int | None,
    max_pages: int | None,
    max_bytes: int | None,
    list_timeout: float | None,
    **params: Any,
) -> None:
    """Every resource and template of every server, merged into one URI-prefix tree.

    With --prefix, servers are asked for what is under P only (SEP-1269's `prefix`, filtered here too).
    Ctrl+C stops the listing and the connects still waiting, and prints what arrived, marked incomplete
    (again: quit at once).
    """
    settings = settings_from(ctx, params)
    config, specs = _resolve(settings)
    bounds = _bounds(settings, config, (max_items, max_pages, max_bytes, list_timeout))

    async def body() -> int:
        from explorer.cli import tree_cmd
        from explorer.cli.progress import wanted

        run = await tree_cmd.list_for_tree(
            specs,
            bounds,
            prefix=prefix,
            protocol=settings.protocol_mode,
            timeout=settings.request_timeout,
            progress=wanted(progress),
        )
        if run.aborted:
            return EXIT_INTERRUPTED
        if as_json:
            tree_cmd.print_json(run)
        else:
            tree_cmd.print_text(run, depth=depth)
        tree_cmd.report_errors(run.outcomes)
        return tree_cmd.exit_code(run.outcomes, interrupted=run.interrupted)

    _run(body)


@cli.command()
@server_options
@click.argument("uri")
@click.option("--json", "as_json", is_flag=True, help="Print the raw result as JSON.")
@click.option("--watch", is_flag=True, help="Then print every new version the server announces.")
@click.option("--count", type=click.IntRange(min=0), metavar="N", help="--watch: stop after N new versions.")
@click.option("--for", "watch_for", type=Seconds(), metavar="SECONDS", help="--watch: stop after SECONDS.")
@with_bounds
@click.pass_context
def read(
    ctx: click.Context,
    /,
    uri: str,
    as_json: bool,
    watch: bool,
    count: int | None,
    watch_for: float | None,
    max_items: int | None,
    max_pages: int | None,
    max_bytes: int | None,
    list_timeout: float | None,
    **params: Any,
) -> None:
    """Read URI on the server that lists it (else on one whose template matches it).

    With --watch, follow it: print every new version as the server announces it, until Ctrl-C, --count N
    new versions or --for SECONDS (exit 0 when a new version arrived, 3 when none did).
    """
    if (count is not None or watch_for is not None) and not watch:
        _fail_usage("--count and --for go with --watch")
    extra: dict[str, Any] = {}
    if watch:
        from explorer.cli.read_cmd import Watch

        extra["watch"] = Watch(count=count, duration=watch_for)
    bounds = (max_items, max_pages, max_bytes, list_timeout)
    _run_uri_command("read", ctx, uri, as_json, bounds, params, extra)


@cli.command()
@click.argument("template")
@click.argument("values", nargs=-1, metavar="[NAME=VALUE]...")
def expand(template: str, values: tuple[str, ...]) -> None:
    """Expand an RFC 6570 TEMPLATE (no server needed); values are read as the template form reads them.

    An explode variable takes several values: NAME=a/b in {/x*}, NAME=a.b in {.x*}, NAME=a,b elsewhere;
    under ? & ; items that are all key=value make pairs (NAME=a=1,b=2 gives ?a=1&b=2), and a key may
    repeat (NAME=a=1,a=2 gives ?a=1&a=2).
    """
    from explorer.cli.match_cmd import expand_command

    sys.exit(expand_command(template, values))


@cli.command()
@server_options
@click.argument("uri")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@with_bounds
@click.pass_context
def match(
    ctx: click.Context,
    /,
    uri: str,
    as_json: bool,
    max_items: int | None,
    max_pages: int | None,
    max_bytes: int | None,
    list_timeout: float | None,
    **params: Any,
) -> None:
    """Which templates of which servers produce URI, and with which values."""
    _run_uri_command("match", ctx, uri, as_json, (max_items, max_pages, max_bytes, list_timeout), params)


def _run_listing_command(
    name: str, ctx: click.Context, as_json: bool, bound_values: BoundValues, params: dict[str, Any]
) -> NoReturn:
    """`servers` lists every list of every server, `tools` the tools only (a server's resources can be
    many: they would cost the time and bounds of a command that never shows them)."""
    settings = settings_from(ctx, params)
    config, specs = _resolve(settings)
    bounds = _bounds(settings, config, bound_values)

    async def body() -> int:
        from explorer.cli import servers_cmd

        kinds = servers_cmd.SERVERS_KINDS if name == "servers" else servers_cmd.TOOLS_KINDS
        outcomes, ctrl_c = await servers_cmd.list_servers(
            specs, bounds, kinds, protocol=settings.protocol_mode, timeout=settings.request_timeout
        )
        if ctrl_c.aborted:
            return EXIT_INTERRUPTED
        stopped = ctrl_c.interrupted  # what arrived is printed, marked interrupted
        if name == "servers":
            return servers_cmd.print_servers(outcomes, as_json=as_json, interrupted=stopped)
        return servers_cmd.print_tools(outcomes, as_json=as_json, interrupted=stopped)

    _run(body)


@cli.command()
@server_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@with_bounds
@click.pass_context
def servers(
    ctx: click.Context,
    /,
    as_json: bool,
    max_items: int | None,
    max_pages: int | None,
    max_bytes: int | None,
    list_timeout: float | None,
    **params: Any,
) -> None:
    """Each server at a glance: identity, era, capabilities, instructions, counts, listing health."""
    _run_listing_command("servers", ctx, as_json, (max_items, max_pages, max_bytes, list_timeout), params)


@cli.command()
@server_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@with_bounds
@click.pass_context
def tools(
    ctx: click.Context,
    /,
    as_json: bool,
    max_items: int | None,
    max_pages: int | None,
    max_bytes: int | None,
    list_timeout: float | None,
    **params: Any,
) -> None:
    """The tools of every server: names, arguments, descriptions (shown, never called)."""
    _run_listing_command("tools", ctx, as_json, (max_items, max_pages, max_bytes, list_timeout), params)


@cli.command()
@server_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@with_bounds
@click.pass_context
def prompts(
    ctx: click.Context,
    /,
    as_json: bool,
    max_items: int | None,
    max_pages: int | None,
    max_bytes: int | None,
    list_timeout: float | None,
    **params: Any,
) -> None:
    """The prompts of every server (exit 3 when a bound stopped a listing)."""
    settings = settings_from(ctx, params)
    config, specs = _resolve(settings)
    bounds = _bounds(settings, config, (max_items, max_pages, max_bytes, list_timeout))

    async def body() -> int:
        from explorer.cli.prompt_cmd import prompts_command

        return await prompts_command(
            specs,
            protocol=settings.protocol_mode,
            timeout=settings.request_timeout,
            as_json=as_json,
            bounds=bounds,
        )

    _run(body)


@cli.command()
@server_options
@click.argument("name")
@click.argument("arguments", nargs=-1, metavar="[NAME=VALUE]...")
@click.option(
    "--arg-json",
    "arg_json",
    multiple=True,
    metavar="JSON",
    help='Arguments as a JSON object, \'{"NAME": "VALUE"}\': exact names and values (JSON escapes).',
)
@click.option("--json", "as_json", is_flag=True, help="Print the raw result as JSON.")
@click.pass_context
def prompt(
    ctx: click.Context,
    /,
    name: str,
    arguments: tuple[str, ...],
    arg_json: tuple[str, ...],
    as_json: bool,
    **params: Any,
) -> None:
    """Get prompt NAME with arguments and print its messages.

    A name may be given as `prompts` shows it (`who\\x1b`); NAME=VALUE is cut at the first `=` that
    leaves an argument's name.
    """
    from explorer.cli.prompt_cmd import GivenArguments

    settings = settings_from(ctx, params)
    _config, specs = _resolve(settings)
    try:
        given = GivenArguments.parse(arguments, arg_json)
    except ValueError as exc:
        _fail_usage(str(exc))

    async def body() -> int:
        from explorer.cli.prompt_cmd import prompt_command

        return await prompt_command(
            specs,
            name,
            given,
            protocol=settings.protocol_mode,
            timeout=settings.request_timeout,
            as_json=as_json,
        )

    _run(body)


@cli.group()
def auth() -> None:
    """OAuth logins the explorer keeps (tokens and client registrations, per server URL)."""


@auth.command("list")
def auth_list() -> None:
    """Every stored login: server URL, client ID, scopes and whether the token is still valid."""
    from explorer.cli.auth_cmd import list_command

    sys.exit(list_command())


@auth.command("logout")
@click.argument("server", metavar="NAME|URL")
@click.option(
    "-c",
    "--config",
    "config_path",
    type=click.Path(path_type=Path),
    metavar="PATH|NAME",
    help="The config that names the server (default: the explorer's own config.toml).",
)
def auth_logout(server: str, config_path: Path | None) -> None:
    """Forget the tokens and client registration of a server (a configured NAME or its URL)."""
    from explorer.cli.auth_cmd import logout_command

    sys.exit(logout_command(server, config_path))


@cli.command("demo-server")
def demo_server() -> None:
    """Run the built-in demo MCP server on stdio."""
    from explorer.demo.server import main as serve

    serve()


@cli.command()
@click.argument("what", type=click.Choice(["config", "configs", "themes", "logs", "data"]))
def locate(what: str) -> None:
    """Print where the explorer keeps its config file, user themes, logs or data; `configs`: the MCP
    configs other clients have here (Claude Desktop, Claude Code, VS Code, Cursor, Windsurf)."""
    from explorer import paths

    if what == "configs":
        from explorer.config.found import describe_found, find_client_configs
        from explorer.config.variables import HostContext

        found = find_client_configs(HostContext.current())
        for line in describe_found(found):
            out(line)
        if not found:
            from explorer.cli.output import note

            note("note: no MCP client config found (Claude Desktop, Claude Code, VS Code, Cursor, Windsurf)")
        return
    location = {
        "config": paths.config_file,
        "themes": paths.themes_dir,
        "logs": paths.log_dir,
        "data": paths.data_dir,
    }[what]()
    out(str(location))
    if what == "config" and (location.is_symlink() or location.exists()):  # unreadable: said, as elsewhere
        from explorer.cli.output import note
        from explorer.config.loaders import MAX_CONFIG_BYTES
        from explorer.storage import read_regular_file

        try:
            read_regular_file(location, limit=MAX_CONFIG_BYTES)
        except OSError as exc:
            note(f"warning: {location} is there but cannot be read ({exc.strerror or exc})")


def main() -> NoReturn:
    """Console-script entry point: every exit flushes stdout first, so a reader that closed it early
    makes it 141 (`explorer.cli.closed_output`), never Python's 120 and its message."""
    try:
        with quiet_when_output_closes():  # what is written here, outside the group (usage errors)
            _main()
    except SystemExit as exc:
        exit_flushed(exc.code)
    exit_flushed(0)


def _main() -> NoReturn:
    """Click's usage errors become one line on stderr and exit 2."""
    try:
        code = cli.main(prog_name="mcp-url-explorer", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as exc:  # `auth` alone: its help as help, not one flat line
        sys.stderr.write(exc.ctx.get_help() + "\n" if exc.ctx is not None else exc.format_message() + "\n")
        sys.exit(EXIT_USAGE)
    except click.UsageError as exc:
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
        _fail_usage(exc.format_message() + hint)
    except click.ClickException as exc:
        error(exc.format_message())
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)
