"""Config files -> `Config`: JSON `mcpServers`, VS Code `servers` (JSONC) and the explorer's TOML.

Its own module because reading files (formats, placeholder expansion, one-sentence error messages naming
file and server) is one job, separate from the types it produces and from the command line.
"""

from __future__ import annotations

import json
import math
import os
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from explorer.config.spec import Config, ConfigError, ListingBounds, ServerSpec, Transport, _quote
from explorer.value_kinds import value_kind


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
            raise self.error(f"the top level must be a JSON object, not {value_kind(doc)}")
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
            raise self.error(f'"theme" must be a theme name, not {value_kind(theme, "table")}')
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
            raise self.error(
                f'"{key}" must be {value_kind({}, self.table)} of servers, not {value_kind(raw)}'
            )
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
            raise self.error(
                f"{where} must be {value_kind({}, self.table)}, not {value_kind(raw, self.table)}"
            )
        disabled = raw.get("disabled", False)
        if not isinstance(disabled, bool):
            raise self.error(f'{where}: "disabled" must be true or false, not {value_kind(disabled)}')
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
            raise self.error(f'{where}: "{key}" must be a string, not {value_kind(declared)}')
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
            raise self.error(
                f'"keymap" must be a table of binding ids to keys, not {value_kind(raw, "table")}'
            )
        keymap: dict[str, str] = {}
        for binding, keys in raw.items():
            if not isinstance(keys, str) or not keys.strip():
                raise self.error(f'keymap {_quote(binding)} must be a string of keys such as "slash,ctrl+f"')
            keymap[binding] = keys.strip()
        return keymap

    def listing(self, raw: object) -> ListingBounds:
        if not isinstance(raw, dict):
            raise self.error(f'"listing" must be a table of bounds, not {value_kind(raw, "table")}')
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
            raise self.error(
                f'{where}: "{key}" must be a non-empty string, not {value_kind(value, self.table)}'
            )
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
                f'{where}: "{key}" must be {value_kind({}, self.table)} of strings, not {value_kind(value)}'
            )
        result: dict[str, str] = {}
        for name, item in value.items():
            if not isinstance(item, str):
                raise self.error(
                    f'{where}: "{key}" value of {_quote(name)} must be a string, not {value_kind(item)}'
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
