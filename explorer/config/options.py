"""The command line -> servers: `-s/--server` and `-H/--header` values, and which servers a command uses.

Its own module because turning what a user typed (a configured name, a URL or a command line) into
`ServerSpec`s is one job, separate from reading config files; the defaults used when nothing is given
(the user's `config.toml`, the built-in demo server) live here too.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

from explorer import paths
from explorer.config.checks import (
    cwd_problem,
    header_name_problem,
    header_value_problem,
    process_problem,
    url_problem,
)
from explorer.config.spec import Config, ConfigError, ServerSpec, mask_url, name_looks_secret, quoted
from explorer.sanitize import sanitize_line


def default_config_path() -> Path | None:
    """The explorer's own `config.toml`, when the user has one; also when what is there cannot be read
    (a directory, a FIFO, a symlink loop or to nothing): loading it says why, where `is_file()` had it
    ignored without a word and the demo opened instead."""
    path = paths.config_file()
    return path if os.path.lexists(path) else None


DEMO_VARIABLES_PREFIX = "EXPLORER_DEMO_"
"""The demo server's own knobs (its clock's tick, how often its lists change): a stdio server inherits only
a few variables (`server_process`), and the demo's handbook tells to set these before starting."""


def demo_server_spec() -> ServerSpec:
    """The built-in demo server over stdio: what the explorer shows when nothing is configured."""
    knobs = {name: value for name, value in os.environ.items() if name.startswith(DEMO_VARIABLES_PREFIX)}
    return ServerSpec(
        name="demo",
        transport="stdio",
        command=sys.executable,
        args=("-m", "explorer", "demo-server"),
        env=knobs,
        # Settings (a period, a count, a path), not secrets: shown, never masked, unless a name says
        # otherwise (`EXPLORER_DEMO_TOKEN`).
        plain_env=frozenset(name for name in knobs if not name_looks_secret(name)),
    )


def parse_header(value: str, *, option: str = "-H/--header") -> tuple[str, str]:
    """`-H 'Name: value'` -> `("Name", "value")`; errors never echo the value, which is often a token.

    `option` names the source in messages (the connect dialog's field instead of `-H/--header`).
    """
    name, colon, content = value.partition(":")
    name, content = name.strip(), content.strip()
    if not colon:
        raise ConfigError(f"{option}: a header has no colon; expected 'Name: value'")
    if not name:
        raise ConfigError(f"{option}: a header has an empty name; expected 'Name: value'")
    name_problem = header_name_problem(name)
    if name_problem is not None:
        raise ConfigError(f"{option}: {quoted(name)} {name_problem}")
    value_problem = header_value_problem(content)
    if value_problem is not None:
        raise ConfigError(f"{option} {quoted(name)}: {value_problem}")
    return name, content


def _merge_headers(spec: ServerSpec, headers: Mapping[str, str]) -> ServerSpec:
    """CLI headers over the spec's own (names compare case-insensitively, as in HTTP); stdio is unchanged."""
    if spec.transport == "stdio" or not headers:
        return spec
    overridden = {name.lower() for name in headers}
    merged = {name: value for name, value in spec.headers.items() if name.lower() not in overridden}
    merged.update(headers)
    return replace(spec, headers=merged)


def parse_server_option(
    value: str,
    *,
    config: Config | None,
    sse: bool,
    headers: Mapping[str, str],
    option: str = "-s/--server",
) -> ServerSpec:
    """One `-s/--server` value: a configured name, an http(s) URL, or a shell-style stdio command line.

    `option` names the source in messages (the connect dialog's field instead of `-s/--server`).
    """
    text = value.strip()
    if not text:
        named = "a configured server name, " if config is not None else ""
        raise ConfigError(f"{option} is empty; give {named}an http(s) URL or a command line")
    if config is not None and text in config.servers:
        return _merge_headers(config.servers[text], headers)
    if config is not None and text in config.broken:  # asked for by name: its problem is the answer
        raise ConfigError(config.broken[text])
    if text.lower().startswith(("http://", "https://")):
        return _url_spec(text, sse=sse, headers=headers, option=option)
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        raise ConfigError(f"{option} {quoted(text)}: cannot split the command line ({exc})") from None
    if not argv or not argv[0]:
        raise ConfigError(f"{option} {quoted(text)}: the command is empty")
    if len(argv) == 1 and argv[0].lower().startswith(("http://", "https://")):
        # A URL pasted with its quotes ("https://x/mcp"): one word, a URL; no program is named so.
        return _url_spec(argv[0], sse=sse, headers=headers, option=option)
    command = os.path.expanduser(argv[0])
    if config is not None and len(argv) == 1 and not _is_runnable(command):
        names = ", ".join(config.servers) or "none"
        raise ConfigError(
            f"unknown server name '{sanitize_line(text, limit=80)}'; configured servers: {names}"
        )
    return ServerSpec(name=_command_name(argv), transport="stdio", command=command, args=tuple(argv[1:]))


def names_no_configured_server(value: str) -> bool:
    """Whether a `-s` value is a server of its own, whatever a config file says: an http(s) URL, or a
    command line whose program exists and which no name could be: words and arguments, or a path. A lone
    word (`time`, `git`) may be the name of a configured server even when a program of that name exists:
    a name wins over a program, so with the config unread it cannot be told."""
    text = value.strip()
    if text.lower().startswith(("http://", "https://")):
        return True
    try:
        argv = shlex.split(text)
    except ValueError:
        return False
    if not argv or not argv[0]:
        return False
    program = argv[0]
    path_like = "/" in program or program.startswith((".", "~"))
    return (len(argv) > 1 or path_like) and _is_runnable(os.path.expanduser(program))


def _is_runnable(command: str) -> bool:
    return shutil.which(command) is not None or Path(command).exists()


def _url_spec(url: str, *, sse: bool, headers: Mapping[str, str], option: str) -> ServerSpec:
    problem = url_problem(url)
    if problem is not None:
        raise ConfigError(f"{option} {quoted(mask_url(url))}: {problem}")
    name = urlsplit(url).netloc.rpartition("@")[2].lower()
    return ServerSpec(name=name, transport="sse" if sse else "http", url=url, headers=dict(headers))


# Launchers whose first operand (not the launcher itself) names the server, with the options that take a
# value (so the value is not mistaken for the operand) and leading sub-command words to skip.
_PYTHON = re.compile(r"(python|pypy)[0-9.]*|py")
_DOCKER_VALUE_OPTIONS = (
    "-e --env --env-file -v --volume --mount -p --publish --name -w --workdir -u --user"
    " --network --entrypoint --platform -l --label"
)
_LAUNCHERS: dict[str, tuple[str, str]] = {  # launcher: (options taking a value, sub-commands to skip)
    "node": ("-r --require --import --loader -e --eval", ""),
    "deno": ("--config -c --import-map", "run"),
    "bun": ("--cwd -r --preload", "run"),
    "tsx": ("", ""),
    "ts-node": ("", ""),
    "npx": ("-p --package -c --call", ""),
    "bunx": ("", ""),
    "pnpx": ("", ""),
    "npm": ("-p --package -c --call", "exec x"),
    "pnpm": ("", "dlx exec"),
    "yarn": ("", "dlx exec"),
    "uvx": ("--from --with --python -p --index --index-url", ""),
    "uv": ("--directory --project --with --from --python -p --env-file --extra", "run tool"),
    "pipx": ("--spec --python --index-url", "run"),
    "docker": (_DOCKER_VALUE_OPTIONS, "run container"),
    "podman": (_DOCKER_VALUE_OPTIONS, "run container"),
}
# Runners whose operand is a package or image spec, from which a version or tag is dropped.
_PACKAGE_RUNNERS = ("npx", "bunx", "pnpx", "npm", "pnpm", "yarn", "uvx", "uv", "pipx", "docker", "podman")


# Wrappers that run another command line: `env A=1 npx pkg`, `cmd /c npx pkg`; the name comes from that one.
_ENV_VALUE_OPTIONS = ("-u", "--unset", "-C", "--chdir", "-S", "--split-string")


def _command_name(argv: Sequence[str]) -> str:
    """A recognisable name for a command line: `python -m pkg` -> `pkg`, `npx -y @s/srv@1` -> `srv`,
    `env TOKEN=x uvx srv` -> `srv`."""
    executable = re.split(r"[\\/]", argv[0])[-1]
    base = re.sub(r"\.(exe|cmd|bat)$", "", executable, flags=re.IGNORECASE)
    launcher = base.lower()
    inner = _wrapped_command(launcher, argv[1:])
    if inner:
        return _command_name(inner)
    operand: str | None = None
    if _PYTHON.fullmatch(launcher):
        operand = _python_target(argv[1:])
    elif launcher in _LAUNCHERS:
        value_options, sub_commands = _LAUNCHERS[launcher]
        operand = _first_operand(argv[1:], value_options.split(), sub_commands.split())
    if operand:
        operand = _script_name(operand)
        if launcher in _PACKAGE_RUNNERS:
            operand = _package_name(operand)
    return operand or base or executable


# A script named like an entry point says nothing: `node …/server-filesystem/dist/index.js` is named after
# its package folder, found above the build folders.
_ENTRY_POINTS = frozenset({"index", "main", "cli", "server", "app", "__main__", "run", "start"})
_BUILD_FOLDERS = frozenset({"dist", "build", "lib", "bin", "src", "out", "esm", "cjs", "target", "release"})


def _script_name(operand: str) -> str:
    """The last path segment, or for a generic entry point the nearest folder that is not a build folder."""
    parts = [p for p in re.split(r"[\\/]", operand.rstrip("/\\")) if p]
    if not parts:
        return operand
    stem = re.sub(r"\.(m?[jt]s|c[jt]s|py|pyz)$", "", parts[-1], flags=re.IGNORECASE)
    folders = parts[:-1]
    if stem.lower() in _ENTRY_POINTS and folders and folders[-1].lower() in _BUILD_FOLDERS:
        for folder in reversed(folders):
            if folder.lower() not in _BUILD_FOLDERS and folder not in (".", ".."):
                return folder
    return parts[-1]


def _wrapped_command(launcher: str, args: Sequence[str]) -> Sequence[str] | None:
    """The command line `env` (after its options and NAME=VALUE words) or `cmd /c` runs, if any."""
    index = 0
    if launcher == "env":
        while index < len(args):
            arg = args[index]
            if arg == "--":
                index += 1
                break
            if arg in _ENV_VALUE_OPTIONS:
                index += 2
            elif arg.startswith("-") or re.match(r"[^=\s]+=", arg):
                index += 1
            else:
                break
        return args[index:] or None
    if launcher == "cmd" and args and args[0].lower() in ("/c", "/k"):
        return args[1:] or None
    return None


def _python_target(args: Sequence[str]) -> str | None:
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "-m":
            return args[index + 1] if index + 1 < len(args) else None
        if arg.startswith("-m") and not arg.startswith("--"):
            return arg[2:]
        if arg.startswith("-c"):  # inline code: nothing better than "python"
            return None
        if arg in ("-X", "-W"):
            index += 2
            continue
        if not arg.startswith("-"):
            return arg
        index += 1
    return None


def _first_operand(args: Sequence[str], value_options: list[str], sub_commands: list[str]) -> str | None:
    index = 0
    leading = True
    while index < len(args):
        arg = args[index]
        if arg == "--":
            return args[index + 1] if index + 1 < len(args) else None
        if arg.startswith("-"):
            index += 2 if arg in value_options else 1
            continue
        if leading and arg in sub_commands:
            index += 1
            continue
        leading = False
        return arg
    return None


def _package_name(last_segment: str) -> str:
    """Drop a version, extras or tag: `name@1.2` -> `name`, `pkg[cli]==1` -> `pkg`, `fetch:3` -> `fetch`."""
    return re.split(r"[\[=<>~!@:; ]", last_segment.lstrip("@"), maxsplit=1)[0]


def parse_env_options(words: Sequence[str], *, option: str = "-e/--env") -> dict[str, str]:
    """`-e/--env KEY=VALUE` words; a word without `=`, an empty KEY or a NUL is a ConfigError (exit 2).

    The message names the KEY, never the value (often a token); `option` names the source in it.
    """
    env: dict[str, str] = {}
    for word in words:
        key, sep, value = word.partition("=")
        if not sep or not key:
            for_what = " (an environment variable for -s stdio servers)" if option == "-e/--env" else ""
            raise ConfigError(f"{option}: expected KEY=VALUE{for_what}")
        if "\0" in key or "\0" in value:
            raise ConfigError(
                f"{option} {quoted(key)}: an environment variable cannot contain a NUL character"
            )
        env[key] = value
    return env


def select_servers(
    config: Config | None,
    server_options: Sequence[str],
    *,
    sse: bool,
    headers: Mapping[str, str],
    default: ServerSpec,
    env: Mapping[str, str] | None = None,
) -> list[ServerSpec]:
    """The servers a command talks to: every `-s` in order, else every configured server, else `default`.

    CLI headers apply to every HTTP/SSE server used; `env` (`-e`) to every stdio server given with `-s`
    (over the server's own env), and is a ConfigError when there is none. Names are made unique (`name`,
    `name-2`, ...) so they can label tree badges, log files and JSON output without ambiguity.
    """
    if server_options:
        specs = [
            parse_server_option(value, config=config, sse=sse, headers=headers) for value in server_options
        ]
        if env:
            if not any(spec.transport == "stdio" for spec in specs):
                raise ConfigError("-e/--env: none of the -s servers is a stdio command to give it to")
            specs = [
                replace(spec, env={**spec.env, **env}, plain_env=spec.plain_env - env.keys())
                if spec.transport == "stdio"
                else spec
                for spec in specs
            ]
    elif env:
        raise ConfigError("-e/--env applies to stdio servers given with -s; no -s was given")
    elif config is not None and config.servers:
        specs = [_merge_headers(spec, headers) for spec in config.servers.values()]
    else:
        specs = [_merge_headers(default, headers)]
    return unique_names(specs)


def check_startable(spec: ServerSpec) -> None:
    """Raise ConfigError when `spec` could not even be started: its `cwd` is missing or not a folder, or a
    NUL character is in its command line or environment (an input's value may bring one).

    A value still waiting for an input is checked once the input is filled in. The message names the
    config file the server comes from, if any.
    """
    if spec.transport != "stdio":
        return
    where = f"server {quoted(spec.name)}"
    if spec.origin is not None:
        where = f"{spec.origin.file}: {where}"
    if spec.cwd is not None and "${input:" not in spec.cwd:
        problem = cwd_problem(spec.cwd)
        if problem is not None:
            raise ConfigError(f"{where}: cwd {sanitize_line(spec.cwd, limit=None)} {problem}")
    problem = process_problem(spec.command or "", spec.args, spec.env)
    if problem is not None:
        raise ConfigError(f"{where}: {problem}")


def unique_names(specs: Sequence[ServerSpec], taken: Collection[str] = ()) -> list[ServerSpec]:
    """`specs` with repeated names (or names in `taken`) made unique: `name`, `name-2`, `name-3`..."""
    originals = {spec.name for spec in specs}
    used: set[str] = set(taken)
    result: list[ServerSpec] = []
    for spec in specs:
        name = spec.name
        if name in used:
            number = 2
            while f"{spec.name}-{number}" in used or f"{spec.name}-{number}" in originals:
                number += 1
            name = f"{spec.name}-{number}"
            spec = replace(spec, name=name)
        used.add(name)
        result.append(spec)
    return result
