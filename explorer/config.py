"""Server specs, and the config files users already have.

Three file formats become one `Config`: JSON with `mcpServers` (Claude Desktop, Cursor, Claude Code,
the Inspector), JSON with `servers` (VS Code `mcp.json`, comments and trailing commas allowed), and the
explorer's own TOML (servers plus theme, keymap and listing bounds). The CLI's `-s/--server` values become
specs here too, so every way of naming a server ends in the same `ServerSpec`.

Header and env values usually hold tokens: `ServerSpec`'s repr and `describe()` mask them, and `redact()`
scrubs them from error messages and logs. Every problem a user can fix is a `ConfigError` whose message is
one sentence naming the file, the server and what is wrong; the CLI prints it and exits 2.
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import shutil
import sys
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

from explorer import paths
from explorer.sanitize import sanitize_line

__all__ = [
    "MASK",
    "Config",
    "ConfigError",
    "ListingBounds",
    "ServerSpec",
    "Transport",
    "default_config_path",
    "demo_server_spec",
    "load_config",
    "mask_url",
    "parse_header",
    "parse_server_option",
    "redact",
    "redact_value",
    "secrets_of",
    "select_servers",
]

Transport = Literal["stdio", "http", "sse"]
MASK = "***"

# Values shorter than this are not scrubbed by `redact`: `DEBUG=1` is no secret, and masking every "1" in a
# message would make it unreadable.
_MIN_SECRET_LENGTH = 4
# Query parameter names whose values are masked when a URL is shown (`?api_key=...`, `?token=...`).
_SECRET_PARAM = re.compile(r"token|key|secret|passw|pwd|auth|sig|credential|session|code", re.IGNORECASE)


class ConfigError(Exception):
    """A config or command-line problem the user can fix: one sentence saying where and what is wrong."""


# --------------------------------------------------------------------------------------------- ServerSpec


@dataclass(frozen=True, repr=False)
class ServerSpec:
    """How to reach one server: a stdio command, or a Streamable HTTP / legacy SSE endpoint."""

    name: str
    transport: Transport
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict, hash=False)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        # Own copies: a caller mutating its dict later must not change a spec that is already in use.
        object.__setattr__(self, "args", tuple(self.args))
        object.__setattr__(self, "env", dict(self.env))
        object.__setattr__(self, "headers", dict(self.headers))
        if self.transport not in ("stdio", "http", "sse"):
            raise ValueError(f"unknown transport {self.transport!r}")
        if self.transport == "stdio" and not self.command:
            raise ValueError("a stdio server spec needs a command")
        if self.transport != "stdio" and not self.url:
            raise ValueError(f"an {self.transport} server spec needs a url")

    def describe(self) -> str:
        """One short, safe line for people: `stdio: python -m x`, `http: https://h/mcp (headers: A: ***)`."""
        if self.transport == "stdio":
            text = f"stdio: {shlex.join([self.command or '', *self.args])}"
        else:
            text = f"{self.transport}: {mask_url(self.url or '')}"
        extras = []
        if self.cwd:
            extras.append(f"cwd: {self.cwd}")
        if self.env:
            extras.append("env: " + ", ".join(f"{key}={MASK}" for key in self.env))
        if self.headers:
            extras.append("headers: " + ", ".join(f"{key}: {MASK}" for key in self.headers))
        if extras:
            text += " (" + "; ".join(extras) + ")"
        return sanitize_line(text, limit=None)

    def __repr__(self) -> str:
        env = {key: MASK for key in self.env}
        headers = {key: MASK for key in self.headers}
        url = None if self.url is None else mask_url(self.url)
        return (
            f"ServerSpec(name={self.name!r}, transport={self.transport!r}, command={self.command!r}, "
            f"args={self.args!r}, env={env!r}, cwd={self.cwd!r}, url={url!r}, headers={headers!r})"
        )


def mask_url(url: str) -> str:
    """`url` with a userinfo password and secret-looking query values (`?token=...`) replaced by `***`."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc
    if parts.password:
        userinfo, _, hostport = netloc.rpartition("@")
        user = userinfo.partition(":")[0]
        netloc = f"{user}:{MASK}@{hostport}"
    query = "&".join(_mask_param(param) for param in parts.query.split("&")) if parts.query else ""
    if netloc == parts.netloc and query == parts.query:
        return url
    return parts._replace(netloc=netloc, query=query).geturl()


def _mask_param(param: str) -> str:
    name, sep, value = param.partition("=")
    if sep and value and _SECRET_PARAM.search(unquote(name)):
        return f"{name}={MASK}"
    return param


def _url_secrets(url: str) -> list[str]:
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found = [parts.password] if parts.password else []
    for param in parts.query.split("&"):
        name, sep, value = param.partition("=")
        if sep and value and _SECRET_PARAM.search(unquote(name)):
            found.extend((value, unquote(value)))
    return found


def secrets_of(spec: ServerSpec) -> list[str]:
    """Every header value, env value and URL secret of `spec`, longest first; what `redact` masks.

    The credential after an auth scheme (`Bearer abc`) counts on its own too. Values shorter than 4
    characters are left out (`DEBUG=1` is no secret).
    """
    candidates: list[str] = []
    for value in [*spec.headers.values(), *spec.env.values()]:
        candidates.append(value.strip())
        scheme, _, credential = value.strip().partition(" ")
        if scheme and credential:
            candidates.append(credential.strip())
    if spec.url:
        candidates.extend(_url_secrets(spec.url))
    secrets = {value for value in candidates if len(value) >= _MIN_SECRET_LENGTH}
    return sorted(secrets, key=len, reverse=True)  # longest first: a value containing another


def redact(text: str, spec: ServerSpec) -> str:
    """`text` with every header value, env value and URL secret of `spec` replaced by `***`.

    For error messages, stderr tails and logs, which may echo a token back.
    """
    for secret in secrets_of(spec):
        text = text.replace(secret, MASK)
    return text


def redact_value(value: Any, spec: ServerSpec) -> Any:
    """`redact` applied to every string inside a JSON-like value (error `data` a server sent back)."""
    if isinstance(value, str):
        return redact(value, spec)
    if isinstance(value, dict):
        return {redact(str(k), spec): redact_value(v, spec) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(v, spec) for v in value]
    return value


# ------------------------------------------------------------------------------------------------ Config


@dataclass(frozen=True)
class ListingBounds:
    """Limits of one server's listing; reaching one leaves the listing visibly incomplete."""

    max_items: int = 100_000
    max_pages: int = 1_000
    max_seconds: float = 60.0
    max_bytes: int = 64 * 1024 * 1024

    def __post_init__(self) -> None:
        for name in ("max_items", "max_pages", "max_seconds", "max_bytes"):
            value = getattr(self, name)
            if not value > 0 or not math.isfinite(value):
                raise ValueError(f"{name} must be a positive number, got {value!r}")


@dataclass
class Config:
    """Everything a config file says; `warnings` lists what was ignored or left unexpanded."""

    servers: dict[str, ServerSpec] = field(default_factory=dict)
    keymap: dict[str, str] = field(default_factory=dict)
    theme: str | None = None
    listing: ListingBounds = field(default_factory=ListingBounds)
    source: Path | None = None
    warnings: list[str] = field(default_factory=list)


def default_config_path() -> Path | None:
    """The explorer's own `config.toml`, when the user has one."""
    path = paths.config_file()
    return path if path.is_file() else None


def demo_server_spec() -> ServerSpec:
    """The built-in demo server over stdio: what the explorer shows when nothing is configured."""
    return ServerSpec(
        name="demo", transport="stdio", command=sys.executable, args=("-m", "explorer", "demo-server")
    )


# ------------------------------------------------------------------------------------------------ loading


def load_config(path: Path) -> Config:
    """Read a config file: TOML by its `.toml` suffix, JSON (`mcpServers` or `servers`) otherwise."""
    label = str(path)
    path = Path(path).expanduser()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{label}: file not found") from None
    except IsADirectoryError:
        raise ConfigError(f"{label}: is a directory, not a config file") from None
    except PermissionError:
        raise ConfigError(f"{label}: permission denied") from None
    except OSError as exc:
        raise ConfigError(f"{label}: cannot read the file ({exc.strerror or exc})") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{label}: not UTF-8 text (invalid byte at offset {exc.start})") from None
    loader = _Loader(label, base_dir=path.absolute().parent)
    suffix = path.suffix.lower()
    is_toml = suffix == ".toml" or (suffix not in (".json", ".jsonc") and not text.lstrip().startswith("{"))
    config = loader.from_toml(text) if is_toml else loader.from_json(text)
    config.source = path
    return config


_JSON_TYPES: dict[str, Transport] = {
    "stdio": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamable_http": "http",
    "streamablehttp": "http",
    "sse": "sse",
}
_SERVER_KEYS = frozenset({"command", "args", "env", "cwd", "url", "headers", "transport", "type", "disabled"})
_TOP_KEYS = frozenset({"theme", "servers", "listing", "keymap"})
_INT_BOUNDS = ("max_items", "max_pages", "max_bytes")
_PLACEHOLDER = re.compile(r"\$\{([^}]*)\}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _kind(value: object, table: str = "object") -> str:
    """How a wrong value is named in an error message: "a string", "a list", "null"."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return f"an {table}" if table[0] in "aeiou" else f"a {table}"
    return f"a {type(value).__name__}"


def _quote(name: str) -> str:
    return '"' + sanitize_line(name, limit=80) + '"'


class _Loader:
    """One file's parse: its label for messages, the warnings gathered, and the dialect's word for {}."""

    def __init__(self, label: str, *, base_dir: Path) -> None:
        self.label = label
        self.base_dir = base_dir
        self.warnings: list[str] = []
        self.table = "object"

    def error(self, problem: str) -> ConfigError:
        return ConfigError(f"{self.label}: {problem}")

    def warn(self, problem: str) -> None:
        message = f"{self.label}: {problem}"
        if message not in self.warnings:
            self.warnings.append(message)

    # -- formats

    def from_json(self, text: str) -> Config:
        doc = _parse_json(text, self.label)
        if not isinstance(doc, dict):
            raise self.error(f"the top level must be a JSON object, not {_kind(doc)}")
        if "mcpServers" in doc:
            key, raw_servers = "mcpServers", doc["mcpServers"]
            if "servers" in doc:
                self.warn('both "mcpServers" and "servers" are present; "servers" is ignored')
        elif "servers" in doc:
            key, raw_servers = "servers", doc["servers"]
        elif isinstance(doc.get("mcp"), dict) and "servers" in doc["mcp"]:  # VS Code settings.json
            key, raw_servers = "mcp.servers", doc["mcp"]["servers"]
        else:
            raise self.error('no "mcpServers" or "servers" object found (is this an MCP config file?)')
        return Config(servers=self.servers(raw_servers, key), warnings=self.warnings)

    def from_toml(self, text: str) -> Config:
        self.table = "table"
        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise self.error(f"invalid TOML ({exc})") from None
        for key in doc:
            if key not in _TOP_KEYS:
                self.warn(f"unknown setting {_quote(key)} is ignored")
        theme = doc.get("theme")
        if theme is not None and (not isinstance(theme, str) or not theme.strip()):
            raise self.error(f'"theme" must be a theme name, not {_kind(theme, "table")}')
        return Config(
            servers=self.servers(doc.get("servers", {}), "servers"),
            keymap=self.keymap(doc.get("keymap", {})),
            theme=theme,
            listing=self.listing(doc.get("listing", {})),
            warnings=self.warnings,
        )

    # -- sections

    def servers(self, raw: object, key: str) -> dict[str, ServerSpec]:
        if not isinstance(raw, dict):
            raise self.error(f'"{key}" must be {_kind({}, self.table)} of servers, not {_kind(raw)}')
        servers: dict[str, ServerSpec] = {}
        for name, entry in raw.items():
            spec = self.server(str(name), entry)
            if spec is not None:
                servers[spec.name] = spec
        return servers

    def server(self, name: str, raw: object) -> ServerSpec | None:
        where = f"server {_quote(name)}"
        if not name.strip():
            raise self.error("a server has an empty name")
        if not isinstance(raw, dict):
            raise self.error(f"{where} must be {_kind({}, self.table)}, not {_kind(raw, self.table)}")
        disabled = raw.get("disabled", False)
        if not isinstance(disabled, bool):
            raise self.error(f'{where}: "disabled" must be true or false, not {_kind(disabled)}')
        if disabled:
            self.warn(f"{where} is disabled and is skipped")
            return None
        if self.table == "table":
            unknown = sorted(set(raw) - _SERVER_KEYS)
            if unknown:
                self.warn(f"{where}: unknown setting(s) {', '.join(unknown)} ignored")
        if "envFile" in raw:
            self.warn(f'{where}: "envFile" is not supported and is ignored')

        expand = self.expander(where)
        command = self.opt_str(raw, "command", where, expand)
        windsurf = self.table == "object" and "url" not in raw and "serverUrl" in raw
        url_key = "serverUrl" if windsurf else "url"
        url = self.opt_str(raw, url_key, where, expand)
        args = self.str_list(raw, "args", where, expand)
        env = self.str_map(raw, "env", where, expand)
        headers = self.str_map(raw, "headers", where, expand)
        cwd = self.opt_str(raw, "cwd", where, expand)
        transport = self.transport(raw, where, command=command, url=url)

        if transport == "stdio":
            assert command is not None
            command = os.path.expanduser(command)
            if headers:
                self.warn(f'{where}: "headers" is ignored for a stdio server')
            if cwd is not None:
                cwd = str(self.base_dir / Path(cwd).expanduser())  # relative to the config file
            return ServerSpec(
                name=name, transport="stdio", command=command, args=tuple(args), env=env, cwd=cwd
            )
        assert url is not None
        if not url.lower().startswith(("http://", "https://")):
            raise self.error(f'{where}: "{url_key}" must start with http:// or https://')
        ignored = [key for key, value in (("args", args), ("env", env), ("cwd", cwd)) if value]
        if ignored:
            self.warn(f"{where}: {', '.join(ignored)} ignored for an {transport} server")
        return ServerSpec(name=name, transport=transport, url=url, headers=headers)

    def transport(
        self, raw: dict[str, Any], where: str, *, command: str | None, url: str | None
    ) -> Transport:
        key = "type" if "type" in raw else "transport"
        declared = raw.get(key)
        if command is not None and url is not None:
            raise self.error(f'{where} has both "command" and "url"; keep the one to use')
        if command is None and url is None:
            raise self.error(f'{where} has neither "command" nor "url"')
        if declared is None:
            return "stdio" if command is not None else "http"
        if not isinstance(declared, str):
            raise self.error(f'{where}: "{key}" must be a string, not {_kind(declared)}')
        transport = _JSON_TYPES.get(declared.strip().lower())
        if transport is None:
            raise self.error(f'{where} has unknown {key} "{declared}"; use "stdio", "http" or "sse"')
        if transport == "stdio" and command is None:
            raise self.error(f'{where} has {key} "stdio" but no "command"')
        if transport != "stdio" and url is None:
            raise self.error(f'{where} has {key} "{declared}" but no "url"')
        return transport

    def keymap(self, raw: object) -> dict[str, str]:
        if not isinstance(raw, dict):
            raise self.error(f'"keymap" must be a table of binding ids to keys, not {_kind(raw, "table")}')
        keymap: dict[str, str] = {}
        for binding, keys in raw.items():
            if not isinstance(keys, str) or not keys.strip():
                raise self.error(f'keymap {_quote(binding)} must be a string of keys such as "slash,ctrl+f"')
            keymap[binding] = keys.strip()
        return keymap

    def listing(self, raw: object) -> ListingBounds:
        if not isinstance(raw, dict):
            raise self.error(f'"listing" must be a table of bounds, not {_kind(raw, "table")}')
        values: dict[str, Any] = {}
        for key, value in raw.items():
            if key in _INT_BOUNDS:
                if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                    raise self.error(f'listing "{key}" must be a positive whole number, not {value!r}')
                values[key] = value
            elif key == "max_seconds":
                number_ok = isinstance(value, int | float) and not isinstance(value, bool)
                if not number_ok or not math.isfinite(value) or value <= 0:
                    raise self.error(f'listing "max_seconds" must be a positive number, not {value!r}')
                values[key] = float(value)
            else:
                self.warn(f"unknown listing setting {_quote(key)} is ignored")
        return ListingBounds(**values)

    # -- values

    def opt_str(self, raw: dict[str, Any], key: str, where: str, expand: Callable[[str], str]) -> str | None:
        value = raw.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            raise self.error(f'{where}: "{key}" must be a non-empty string, not {_kind(value, self.table)}')
        return expand(value.strip())

    def str_list(self, raw: dict[str, Any], key: str, where: str, expand: Callable[[str], str]) -> list[str]:
        value = raw.get(key, [])
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise self.error(f'{where}: "{key}" must be a list of strings')
        return [expand(item) for item in value]

    def str_map(
        self, raw: dict[str, Any], key: str, where: str, expand: Callable[[str], str]
    ) -> dict[str, str]:
        value = raw.get(key, {})
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.error(
                f'{where}: "{key}" must be {_kind({}, self.table)} of strings, not {_kind(value)}'
            )
        result: dict[str, str] = {}
        for name, item in value.items():
            if not isinstance(item, str):
                raise self.error(
                    f'{where}: "{key}" value of {_quote(name)} must be a string, not {_kind(item)}'
                )
            result[name] = expand(item)
        return result

    def expander(self, where: str) -> Callable[[str], str]:
        """Expand `${env:NAME}`, `${NAME}`, `${NAME:-default}` and `${userHome}`; warn about the rest."""

        def substitute(match: re.Match[str]) -> str:
            placeholder, inner = match.group(0), match.group(1)
            if inner == "userHome":
                return str(Path.home())
            if inner in ("pathSeparator", "/"):
                return os.sep
            if inner.startswith("env:"):  # VS Code and Cursor style
                name, sep, default = inner[4:], "", ""
            else:  # shell style, as Claude Code writes it
                name, sep, default = inner.partition(":-")
            if _ENV_NAME.fullmatch(name):
                if name in os.environ:
                    return os.environ[name]
                if sep:
                    return default
                self.warn(f"{where}: {placeholder} is not set in the environment and is left as is")
            elif inner.startswith("input:"):
                self.warn(f"{where}: {placeholder} is a VS Code input prompt, which the explorer cannot ask")
            else:
                self.warn(f"{where}: {placeholder} is not supported and is left as is")
            return placeholder

        return lambda value: _PLACEHOLDER.sub(substitute, value)


def _parse_json(text: str, label: str) -> Any:
    """Strict JSON first; then JSON with comments and trailing commas (VS Code writes `mcp.json` as JSONC)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as strict_error:
        error = strict_error
    relaxed = _strip_jsonc(text)
    if relaxed != text:
        try:
            return json.loads(relaxed)
        except json.JSONDecodeError as relaxed_error:
            error = relaxed_error  # positions are preserved, and comments no longer mislead the message
    raise ConfigError(
        f"{label}: invalid JSON at line {error.lineno}, column {error.colno} ({error.msg})"
    ) from None


def _strip_jsonc(text: str) -> str:
    """Blank out `//` and `/* */` comments and trailing commas, keeping every line and column in place."""
    out = list(text)
    length = len(text)
    in_string = False
    pending_comma: int | None = None
    index = 0
    while index < length:
        char = text[index]
        if in_string:
            if char == "\\":
                index += 2
                continue
            if char == '"':
                in_string = False
            index += 1
            continue
        if char == "/" and text.startswith("//", index):
            end = text.find("\n", index)
            end = length if end < 0 else end
        elif char == "/" and text.startswith("/*", index):
            close = text.find("*/", index + 2)
            if close < 0:
                break  # unterminated: leave it for the JSON parser to report
            end = close + 2
        else:
            if char == '"':
                in_string = True
            if char in "]}" and pending_comma is not None:
                out[pending_comma] = " "
            if not char.isspace():
                pending_comma = index if char == "," else None
            index += 1
            continue
        for blank in range(index, end):
            if out[blank] not in "\r\n":
                out[blank] = " "
        index = end
    return "".join(out)


# ---------------------------------------------------------------------------------------- command line


def parse_header(value: str) -> tuple[str, str]:
    """`-H 'Name: value'` -> `("Name", "value")`; errors never echo the value, which is often a token."""
    name, colon, content = value.partition(":")
    name, content = name.strip(), content.strip()
    if not colon:
        raise ConfigError("-H/--header: a header has no colon; expected 'Name: value'")
    if not name:
        raise ConfigError("-H/--header: a header has an empty name; expected 'Name: value'")
    if not re.fullmatch(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+", name):  # an RFC 9110 token
        raise ConfigError(f"-H/--header: {_quote(name)} is not a valid header name")
    if re.search(r"[\x00-\x08\x0a-\x1f\x7f]", content):
        raise ConfigError(f"-H/--header {_quote(name)}: the value contains control characters")
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
    value: str, *, config: Config | None, sse: bool, headers: Mapping[str, str]
) -> ServerSpec:
    """One `-s/--server` value: a configured name, an http(s) URL, or a shell-style stdio command line."""
    text = value.strip()
    if not text:
        raise ConfigError(
            "-s/--server is empty; give a configured server name, an http(s) URL or a command line"
        )
    if config is not None and text in config.servers:
        return _merge_headers(config.servers[text], headers)
    if text.lower().startswith(("http://", "https://")):
        return _url_spec(text, sse=sse, headers=headers)
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        raise ConfigError(f"-s/--server {_quote(text)}: cannot split the command line ({exc})") from None
    if not argv or not argv[0]:
        raise ConfigError(f"-s/--server {_quote(text)}: the command is empty")
    command = os.path.expanduser(argv[0])
    if config is not None and len(argv) == 1 and not _is_runnable(command):
        names = ", ".join(config.servers) or "none"
        raise ConfigError(
            f"unknown server name '{sanitize_line(text, limit=80)}'; configured servers: {names}"
        )
    return ServerSpec(name=_command_name(argv), transport="stdio", command=command, args=tuple(argv[1:]))


def _is_runnable(command: str) -> bool:
    return shutil.which(command) is not None or Path(command).exists()


def _url_spec(url: str, *, sse: bool, headers: Mapping[str, str]) -> ServerSpec:
    shown = _quote(mask_url(url))
    if re.search(r"[\s\x00-\x1f\x7f]", url):
        raise ConfigError(f"-s/--server {shown}: a URL cannot contain spaces or control characters")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - validates the port, raising ValueError when it is not a number
    except ValueError as exc:
        raise ConfigError(f"-s/--server {shown}: invalid URL ({exc})") from None
    if not parts.hostname:
        raise ConfigError(f"-s/--server {shown}: the URL has no host")
    name = parts.netloc.rpartition("@")[2].lower()
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


def _command_name(argv: Sequence[str]) -> str:
    """A recognisable name for a command line: `python -m pkg` -> `pkg`, `npx -y @s/srv@1` -> `srv`."""
    executable = re.split(r"[\\/]", argv[0])[-1]
    base = re.sub(r"\.(exe|cmd|bat)$", "", executable, flags=re.IGNORECASE)
    launcher = base.lower()
    operand: str | None = None
    if _PYTHON.fullmatch(launcher):
        operand = _python_target(argv[1:])
    elif launcher in _LAUNCHERS:
        value_options, sub_commands = _LAUNCHERS[launcher]
        operand = _first_operand(argv[1:], value_options.split(), sub_commands.split())
    if operand:
        operand = re.split(r"[\\/]", operand.rstrip("/\\"))[-1]
        if launcher in _PACKAGE_RUNNERS:
            operand = _package_name(operand)
    return operand or base or executable


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


def select_servers(
    config: Config | None,
    server_options: Sequence[str],
    *,
    sse: bool,
    headers: Mapping[str, str],
    default: ServerSpec,
) -> list[ServerSpec]:
    """The servers a command talks to: every `-s` in order, else every configured server, else `default`.

    CLI headers apply to every HTTP/SSE server used. Names are made unique (`name`, `name-2`, ...) so
    they can label tree badges, log files and JSON output without ambiguity.
    """
    if server_options:
        specs = [
            parse_server_option(value, config=config, sse=sse, headers=headers) for value in server_options
        ]
    elif config is not None and config.servers:
        specs = [_merge_headers(spec, headers) for spec in config.servers.values()]
    else:
        specs = [_merge_headers(default, headers)]
    return _unique_names(specs)


def _unique_names(specs: Sequence[ServerSpec]) -> list[ServerSpec]:
    originals = {spec.name for spec in specs}
    used: set[str] = set()
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
