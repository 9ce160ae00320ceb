"""Config files -> `Config`: JSON `mcpServers`, VS Code `servers` (JSONC) and the explorer's TOML.

Its own module because reading files (formats, placeholder expansion, one-sentence error messages naming
file and server) is one job, separate from the types it produces and from the command line.

Relative paths (`cwd`, `envFile`) start from the workspace folder for a workspace `.vscode/mcp.json` or
`.cursor/mcp.json`, else from the config file's folder. A hostile or broken file (thousands of nesting
levels) is a ConfigError like any other, never a RecursionError. A server entry that cannot be used (a
wrong type, both `command` and `url`, a missing `cwd`, a NUL character) is left out with a warning naming
the file, the entry and why (`Config.broken`); only a file none of whose entries can be used is an error.
So is a value of the explorer's own settings (theme, keymap, listing bounds) that cannot be used: a warning
naming the file, the key and why, and its default is used.
"""

from __future__ import annotations

import json
import math
import os
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

from explorer.config.checks import (
    cwd_problem,
    header_name_problem,
    header_value_problem,
    process_problem,
    secret_url_problem,
    url_problem,
)
from explorer.config.dotenv import load_env_file
from explorer.config.inputs import parse_inputs
from explorer.config.spec import (
    Config,
    ConfigError,
    Grant,
    InputPrompt,
    ListingBounds,
    OAuthSettings,
    ServerSpec,
    SpecOrigin,
    Transport,
    quoted,
)
from explorer.config.typos import OTHER_CLIENT_OAUTH_KEYS, likely_meant
from explorer.config.variables import PLACEHOLDER, Expander, HostContext, workspace_of
from explorer.storage import FileTooLargeError, NotAFileError, read_regular_file
from explorer.value_kinds import value_kind

# What is read of one config file: Claude Code's ~/.claude.json keeps its history beside the servers and
# grows to megabytes; a file larger than this is not a config.
MAX_CONFIG_BYTES = 64 * 1024 * 1024


def load_config(path: Path, *, context: HostContext | None = None) -> Config:
    """Read a config file: TOML by its `.toml` suffix, JSON (`mcpServers` or `servers`) otherwise.

    `context` (the user's home, working directory and environment) defaults to this process's.
    """
    label = str(path)
    path = Path(path).expanduser()
    text = _read_text(path, label)
    loader = _Loader(label, path, context or HostContext.current())
    suffix = path.suffix.lower()
    is_toml = suffix == ".toml" or (suffix not in (".json", ".jsonc") and not text.lstrip().startswith("{"))
    config = loader.from_toml(text) if is_toml else loader.from_json(text)
    config.source = path
    config.files = (path,)
    return config


def load_servers_at(
    path: Path, keys: Sequence[str], *, label: str, context: HostContext | None = None
) -> Config | None:
    """The `mcpServers` of the JSON object at `keys` inside `path`; None when that object or its
    `mcpServers` is absent.

    For files that are not only MCP configs, such as Claude Code's `~/.claude.json`, which keeps servers
    at the top level and per project under `projects[<folder>]`.
    """
    path = Path(path).expanduser()
    loader = _Loader(label, path, context or HostContext.current())
    doc = _parse_json(_read_text(path, label), label)
    for key in keys:
        doc = doc.get(key) if isinstance(doc, dict) else None
    if not isinstance(doc, dict) or "mcpServers" not in doc:
        return None
    servers = loader.servers(doc["mcpServers"], "mcpServers")
    config = Config(servers=servers, warnings=loader.warnings, broken=loader.broken)
    config.source = path
    config.files = (path,)
    return config


def read_entry(
    label: str, path: Path, name: str, raw: dict[str, Any], context: HostContext | None = None
) -> tuple[ServerSpec, list[str]]:
    """One server entry of the explorer's TOML (`raw`, its table as read), as `load_config` would make
    it from a file at `path` named `label` in messages; the warnings it gave. ConfigError when the entry
    cannot be used (or is disabled: nothing to connect)."""
    loader = _Loader(label, path, context or HostContext.current())
    loader.table = "table"
    spec = loader.server(name, raw)
    if spec is None:
        raise loader.error(f"server {quoted(name)} is disabled")
    return spec, loader.warnings


def _read_text(path: Path, label: str) -> str:
    try:
        data = read_regular_file(path, limit=MAX_CONFIG_BYTES)  # a FIFO or a device: refused, not waited on
    except FileNotFoundError:
        if path.is_symlink():  # the explorer's own config.toml linked to a dotfile that is gone
            raise ConfigError(f"{label}: a symlink to {os.readlink(path)}, which does not exist") from None
        raise ConfigError(f"{label}: file not found") from None
    except IsADirectoryError:
        raise ConfigError(f"{label}: is a directory, not a config file") from None
    except PermissionError:
        raise ConfigError(f"{label}: permission denied") from None
    except (NotAFileError, FileTooLargeError) as exc:  # "is a FIFO, not a file", "is too large (...)"
        raise ConfigError(f"{label}: {exc.strerror}") from None
    except OSError as exc:
        raise ConfigError(f"{label}: cannot read the file ({exc.strerror or exc})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{label}: not UTF-8 text (invalid byte at offset {exc.start})") from None


_JSON_TYPES: dict[str, Transport] = {
    "stdio": "stdio",
    "local": "stdio",  # GitHub Copilot CLI
    "http": "http",
    "streamable-http": "http",
    "streamable_http": "http",
    "streamablehttp": "http",
    "sse": "sse",
}
_SERVER_KEYS = frozenset(
    {"command", "args", "env", "envFile", "cwd", "url", "headers", "transport", "type", "disabled", "oauth"}
)
# The URL under other names, read when there is no "url": Windsurf's, and Gemini CLI's Streamable HTTP one
# (its "url" is an SSE endpoint, which a Streamable HTTP attempt falls back to).
_URL_ALIASES = ("serverUrl", "httpUrl")
_JSON_SERVER_KEYS = _SERVER_KEYS | set(_URL_ALIASES)
_OAUTH_STRINGS = (
    "client_id",
    "client_secret",
    "private_key",
    "signing_algorithm",
    "token_endpoint_auth_method",
    "issuer",
    "client_metadata_url",
    "flow",
    "id_token",
    "idp_token_endpoint",
    "idp_client_id",
    "idp_client_secret",
)
_OAUTH_FILES = ("private_key_file", "id_token_file")
_OAUTH_KEYS = frozenset({*_OAUTH_STRINGS, *_OAUTH_FILES, "grant", "scopes", "redirect_port"})
_GRANTS = ("authorization_code", "client_credentials", "identity_assertion")
_IDP_KEYS = ("id_token", "id_token_file", "idp_token_endpoint", "idp_client_id", "idp_client_secret")
_SECRET_METHODS = ("client_secret_basic", "client_secret_post")
_SIGNING_ALGORITHMS = (
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "ES256",
    "ES384",
    "ES512",
    "EdDSA",
)
_TOP_KEYS = frozenset({"theme", "servers", "listing", "keymap"})
_INT_BOUNDS = ("max_items", "max_pages", "max_bytes")
# TOML dotted keys (`a.b.c... = 1`) nest without recursion, but tomllib's cost grows with the square of
# the depth (20,000 levels take 1.5 GB): a line with more dots than this outside strings is refused.
_MAX_TOML_KEY_PARTS = 500
_TOML_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'')
_TOO_DEEP = "nested too deeply (thousands of levels) to be a config file"


class _Loader:
    """One file's parse: its label for messages, the warnings gathered, and the dialect's word for {}."""

    def __init__(self, label: str, path: Path, context: HostContext) -> None:
        self.label = label
        self.path = path.absolute()  # what a spec's origin names
        self.context = context
        workspace = workspace_of(path)
        # ${workspaceFolder}: the folder holding .vscode/, else the current directory.
        self.workspace = workspace or context.cwd
        # Where relative `cwd` and `envFile` start: the workspace of a workspace file, else the file's folder.
        self.base_dir = workspace or path.absolute().parent
        self.inputs: Mapping[str, InputPrompt | str] = {}
        self.warnings: list[str] = []
        self.broken: dict[str, str] = {}  # entry name: why it is left out (see `leave_out`)
        self.table = "object"

    def error(self, problem: str) -> ConfigError:
        return ConfigError(f"{self.label}: {problem}")

    def warn(self, problem: str) -> None:
        message = f"{self.label}: {problem}"
        if message not in self.warnings:
            self.warnings.append(message)

    def warn_as_is(self, message: str) -> None:
        """A warning that already names where it comes from (an envFile line)."""
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
            self.inputs = parse_inputs(doc.get("inputs"), self.error)
        elif "servers" in doc:
            key, raw_servers = "servers", doc["servers"]
            self.inputs = parse_inputs(doc.get("inputs"), self.error)
        elif isinstance(doc.get("mcp"), dict) and "servers" in doc["mcp"]:  # VS Code settings.json
            key, raw_servers = "mcp.servers", doc["mcp"]["servers"]
            self.inputs = parse_inputs(doc["mcp"].get("inputs"), self.error)
        else:
            raise self.error('no "mcpServers" or "servers" object found (is this an MCP config file?)')
        return Config(servers=self.servers(raw_servers, key), warnings=self.warnings, broken=self.broken)

    def from_toml(self, text: str) -> Config:
        self.table = "table"
        if _toml_too_deep(text):
            raise self.error(_TOO_DEEP)
        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise self.error(f"invalid TOML ({exc})") from None
        except RecursionError:
            raise self.error(_TOO_DEEP) from None
        for key in doc:
            if key not in _TOP_KEYS:
                self.warn(f"unknown setting {quoted(key)} is ignored")
        servers = self.servers(doc.get("servers", {}), "servers")
        before = len(self.warnings)
        theme = doc.get("theme")
        if theme is not None and (not isinstance(theme, str) or not theme.strip()):
            self.warn(
                f'"theme" must be a theme name, not {value_kind(theme, "table")}; the default theme is used'
            )
            theme = None
        keymap = self.keymap(doc.get("keymap", {}))
        listing = self.listing(doc.get("listing", {}))
        return Config(
            servers=servers,
            keymap=keymap,
            theme=theme,
            listing=listing,
            warnings=self.warnings,
            broken=self.broken,
            setting_warnings=self.warnings[before:],
        )

    # -- sections

    def servers(self, raw: object, key: str) -> dict[str, ServerSpec]:
        if not isinstance(raw, dict):
            raise self.error(
                f'"{key}" must be {value_kind({}, self.table)} of servers, not {value_kind(raw)}'
            )
        servers: dict[str, ServerSpec] = {}
        for name, entry in raw.items():
            before = len(self.warnings)
            try:
                spec = self.server(str(name), entry)
            except ConfigError as problem:
                del self.warnings[before:]  # the entry is left out: its reason is the one thing to say
                self.leave_out(str(name), str(problem))
                continue
            if spec is not None:
                servers[spec.name] = spec
        if self.broken and not servers:  # nothing in the file can be used: that is an error, as it was
            first, *others = self.broken.values()
            more = f" ({len(others)} more server entries cannot be used either)" if others else ""
            raise ConfigError(first + more)
        return servers

    def leave_out(self, name: str, problem: str) -> None:
        """One server entry cannot be used: it is left out with a warning and kept in `broken`, so the
        other servers still run (one broken entry stopped every command, and the TUI) and `-s NAME` says
        why. The sentence names this file (a key file's or envFile's own problem names only that file)."""
        if not problem.startswith(f"{self.label}: "):
            problem = f"{self.label}: {problem}"
        self.broken[name] = problem
        self.warn_as_is(f"{problem}; the server is left out")

    def server(self, name: str, raw: object) -> ServerSpec | None:
        where = f"server {quoted(name)}"
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
        self.unknown_keys(raw, where)

        expand = Expander(where, self.context, self.workspace, self.inputs, warn=self.warn, fail=self.error)
        command = self.opt_str(raw, "command", where, expand)
        url_key = "url"
        if self.table == "object" and "url" not in raw:
            url_key = next((alias for alias in _URL_ALIASES if alias in raw), "url")
        first = len(expand.from_env)
        url = self.opt_str(raw, url_key, where, expand)
        in_url = len(expand.from_env)
        args = self.str_list(raw, "args", where, expand)
        # What the environment put in the arguments or the URL is masked as header and env values are:
        # `--token ${env:TOKEN}` showed the token in `servers`, in descriptions and in copied commands.
        # Not the URL's host and port: they name the server wherever it is shown.
        hidden = tuple(
            value
            for value in expand.from_env[first:in_url]
            if url is None or value not in _host_and_port(url)
        ) + tuple(expand.from_env[in_url:])
        env = self.str_map(raw, "env", where, expand)
        headers = self.str_map(raw, "headers", where, expand)
        cwd = self.opt_str(raw, "cwd", where, expand)
        transport = self.transport(raw, where, command=command, url=url)

        if transport == "stdio":
            assert command is not None
            if not command.strip():
                raise self.error(self.emptied(where, "command", raw["command"], expand))
            command = os.path.expanduser(command)
            if headers:
                self.warn(f'{where}: "headers" is ignored for a stdio server')
            if raw.get("oauth") is not None:
                self.warn(f'{where}: "oauth" is ignored for a stdio server')
            if cwd is not None and not PLACEHOLDER.search(cwd):  # an input is filled in later, as given
                cwd = str(self.base_dir / Path(cwd).expanduser())
                problem = cwd_problem(cwd)
                if problem is not None:  # else the start failed as "command not found: <the cwd>"
                    raise self.error(f"{where}: cwd {cwd} {problem}")
            env = {**self.env_file(raw, where, expand), **env}  # explicit env entries win over the file
            problem = process_problem(command, args, env)
            if problem is not None:
                raise self.error(f"{where}: {problem}")
            return self.spec(
                where,
                name=name,
                transport="stdio",
                command=command,
                args=tuple(args),
                env=env,
                cwd=cwd,
                inputs=tuple(expand.used_inputs.values()),
                secrets=hidden,
            )
        assert url is not None
        if not url.strip():
            raise self.error(self.emptied(where, url_key, raw[url_key], expand))
        if not PLACEHOLDER.search(url):  # with an input in it, it is checked once the input is filled in
            problem = url_problem(url)
            if problem is not None:
                raise self.error(f'{where}: "{url_key}" {problem}')
        for header, value in headers.items():
            name_problem = header_name_problem(header)
            if name_problem is not None:
                raise self.error(f"{where}: header {quoted(header)} {name_problem}")
            value_problem = header_value_problem(value)
            if value_problem is not None:
                raise self.error(f"{where}: header {quoted(header)}: {value_problem}")
        oauth = self.oauth(raw.get("oauth"), where, expand)
        ignored = [key for key, value in (("args", args), ("env", env), ("cwd", cwd)) if value]
        ignored += ["envFile"] if raw.get("envFile") is not None else []
        if ignored:
            self.warn(f"{where}: {', '.join(ignored)} ignored for an {transport} server")
        return self.spec(
            where,
            name=name,
            transport=transport,
            url=url,
            headers=headers,
            inputs=tuple(expand.used_inputs.values()),
            secrets=hidden,
            oauth=oauth,
        )

    def unknown_keys(self, raw: dict[str, Any], where: str) -> None:
        """Warn about the keys of a server entry that are not read.

        The explorer's TOML: every one (its tables are the explorer's alone). JSON: only a likely typo of a
        key that is read (`comand`, `Env`), never another client's own key (`autoApprove`, `dev`), which
        the user's other clients need there; each with its guess.
        """
        if self.table == "table":
            unknown = sorted(str(key) for key in set(raw) - _SERVER_KEYS)
            shown = [_with_guess(key, likely_meant(key, _SERVER_KEYS)) for key in unknown]
        else:
            guesses = ((str(key), likely_meant(str(key), _JSON_SERVER_KEYS)) for key in raw)
            shown = [_with_guess(key, meant) for key, meant in sorted(guesses) if meant is not None]
        if shown:
            self.warn(f"{where}: unknown setting(s) {', '.join(shown)} ignored")

    def unknown_oauth_keys(self, raw: dict[str, Any], where: str) -> None:
        """Warn about the keys of an `oauth` table that are not read, as `unknown_keys` does.

        The explorer's TOML: every one, with a guess even for another client's spelling (`clientId`, meant
        `client_id` there). JSON: only a likely typo, never the camelCase keys Claude Code, VS Code and
        Gemini CLI keep in the same `oauth` object (`clientId`, `callbackPort`: read as `client_id` and
        `redirect_port`, see `oauth`; the others are ignored).
        """
        if self.table == "table":
            unknown = sorted(str(key) for key in set(raw) - _OAUTH_KEYS)
            shown = [_with_guess(key, likely_meant(key, _OAUTH_KEYS, ())) for key in unknown]
        else:
            guesses = (
                (str(key), likely_meant(str(key), _OAUTH_KEYS, OTHER_CLIENT_OAUTH_KEYS)) for key in raw
            )
            shown = [_with_guess(key, meant) for key, meant in sorted(guesses) if meant is not None]
        if shown:
            self.warn(f"{where}: unknown setting(s) {', '.join(shown)} ignored")

    def emptied(self, where: str, key: str, raw: object, expand: Expander) -> str:
        """`server "a": "command" is empty after expanding ${env:NOPE} (unset)`."""
        reasons = expand.empty_reasons(raw if isinstance(raw, str) else "")
        return f'{where}: "{key}" is empty after expanding ' + (reasons or "its placeholders")

    def spec(self, where: str, **fields: Any) -> ServerSpec:
        """A `ServerSpec`, whose own checks (ValueError, TypeError) become a ConfigError naming the server.

        The checks above should leave none; this keeps a missed case one sentence, never a traceback.
        """
        try:
            return ServerSpec(**fields, origin=SpecOrigin(self.path, fields["name"]))
        except (ValueError, TypeError) as exc:
            raise self.error(f"{where}: {exc}") from None

    def oauth(self, raw: object, where: str, expand: Expander) -> OAuthSettings | None:
        """The server's `oauth` table (see `OAuthSettings`); string values may use `${env:NAME}`."""
        if raw is None:
            return None
        where = f"{where}: oauth"
        if not isinstance(raw, dict):
            raise self.error(
                f"{where} must be {value_kind({}, self.table)}, not {value_kind(raw, self.table)}"
            )
        self.unknown_oauth_keys(raw, where)
        grant = self.opt_str(raw, "grant", where, expand) or "authorization_code"
        if grant not in _GRANTS:
            raise self.error(f'{where}: "grant" must be one of {", ".join(_GRANTS)}')
        values = {key: self.opt_str(raw, key, where, expand) for key in _OAUTH_STRINGS}
        redirect_host = "127.0.0.1"
        port = raw.get("redirect_port")
        if self.table != "table":  # another client's config: its pre-registered client, as it registered it
            if values["client_id"] is None:
                values["client_id"] = self.opt_str(raw, "clientId", where, expand)
            if port is None and raw.get("callbackPort") is not None:
                port = raw.get(
                    "callbackPort"
                )  # Claude Code: its redirect URI is http://localhost:PORT/callback
                redirect_host = "localhost"
                if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
                    raise self.error(f'{where}: "callbackPort" must be a port number (1-65535), not {port!r}')
        key_file = self.opt_str(raw, "private_key_file", where, expand)
        if key_file is not None:
            if values["private_key"] is not None:
                raise self.error(f'{where} has both "private_key" and "private_key_file"; keep one')
            values["private_key"] = _read_text(
                self.base_dir / Path(key_file).expanduser(), f"{where} key file"
            )
        token_file = self.opt_str(raw, "id_token_file", where, expand)
        token_path: Path | None = None
        if token_file is not None:
            if values["id_token"] is not None:
                raise self.error(f'{where} has both "id_token" and "id_token_file"; keep one')
            token_path = (self.base_dir / Path(token_file).expanduser()).resolve()
            values["id_token"] = _read_text(token_path, f"{where} ID token file").strip()
        scopes_raw = raw.get("scopes")
        if isinstance(scopes_raw, str):
            scopes = tuple(expand(scopes_raw).split())
        else:
            scopes = tuple(
                word for item in self.str_list(raw, "scopes", where, expand) for word in item.split()
            )
        method = values["token_endpoint_auth_method"]
        if method is not None and method not in _SECRET_METHODS:
            raise self.error(
                f'{where}: "token_endpoint_auth_method" must be one of {", ".join(_SECRET_METHODS)}'
            )
        algorithm = values["signing_algorithm"]
        if algorithm is not None and algorithm not in _SIGNING_ALGORITHMS:
            raise self.error(f'{where}: "signing_algorithm" must be one of {", ".join(_SIGNING_ALGORITHMS)}')
        if values["flow"] is not None and values["flow"] not in ("browser", "print", "fetch"):
            raise self.error(f'{where}: "flow" must be "browser", "print" or "fetch"')
        if port is not None and (isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536):
            raise self.error(f'{where}: "redirect_port" must be a port number (1-65535), not {port!r}')
        if grant == "client_credentials":
            if values["client_id"] is None:
                raise self.error(f'{where}: the client_credentials grant needs "client_id"')
            if values["client_secret"] is None and values["private_key"] is None:
                raise self.error(
                    f'{where}: the client_credentials grant needs "client_secret", or "private_key" / '
                    '"private_key_file" for private_key_jwt'
                )
        elif grant == "identity_assertion":
            wanted = ("client_id", "client_secret", "id_token", "idp_token_endpoint")
            missing = [key for key in wanted if values[key] is None]
            if missing:
                raise self.error(
                    f"{where}: the identity_assertion grant needs {', '.join(missing)} "
                    '(the ID token may come from "id_token_file")'
                )
            if values["idp_client_secret"] is not None and values["idp_client_id"] is None:
                raise self.error(f'{where}: "idp_client_secret" needs "idp_client_id"')
            for key in ("idp_token_endpoint", "issuer"):
                url = values[key]
                problem = secret_url_problem(url) if url is not None else None
                if problem is not None:
                    raise self.error(f'{where}: "{key}" {problem}')
        idp_keys = [key for key in _IDP_KEYS if raw.get(key) is not None]
        if grant != "identity_assertion" and idp_keys:
            self.warn(f'{where}: {", ".join(idp_keys)} ignored (used only with grant = "identity_assertion")')
        if grant != "client_credentials" and values["private_key"] is not None:
            raise self.error(f'{where}: a private key is used only with grant = "client_credentials"')
        metadata_url = values["client_metadata_url"]
        if metadata_url is not None and not metadata_url.lower().startswith("https://"):
            raise self.error(f'{where}: "client_metadata_url" must be an https:// URL')
        return OAuthSettings(
            grant=cast(Grant, grant),  # one of _GRANTS, checked above
            client_id=values["client_id"],
            client_secret=values["client_secret"],
            private_key=values["private_key"],
            signing_algorithm=algorithm,
            scopes=scopes,
            token_endpoint_auth_method=method,
            issuer=values["issuer"],
            client_metadata_url=metadata_url,
            redirect_port=port,
            redirect_host=redirect_host,
            flow=values["flow"],
            id_token=values["id_token"],
            id_token_file=None if token_path is None else str(token_path),
            idp_token_endpoint=values["idp_token_endpoint"],
            idp_client_id=values["idp_client_id"],
            idp_client_secret=values["idp_client_secret"],
        )

    def env_file(self, raw: dict[str, Any], where: str, expand: Expander) -> dict[str, str]:
        """The variables of the server's `envFile` (VS Code), or none."""
        value = raw.get("envFile")
        if value is None:
            return {}
        if not isinstance(value, str) or not value.strip():
            raise self.error(
                f'{where}: "envFile" must be a non-empty string, not {value_kind(value, self.table)}'
            )
        before = len(expand.used_inputs)
        text = expand(value.strip())
        if len(expand.used_inputs) != before:
            raise self.error(f'{where}: "envFile" cannot use an input (${{input:...}})')
        path = self.base_dir / Path(text).expanduser()
        return load_env_file(path, f"{self.label}: {where}", warn=self.warn_as_is)

    def transport(
        self, raw: dict[str, Any], where: str, *, command: str | None, url: str | None
    ) -> Transport:
        key = "type" if "type" in raw else "transport"
        declared = raw.get(key)
        other = raw.get("transport") if key == "type" else None
        if other is not None and other != declared:
            self.warn(f'{where}: both "type" and "transport" are set; "type" ({declared!r}) is used')
        if command is not None and url is not None:
            raise self.error(f'{where} has both "command" and "url"; keep the one to use')
        if command is None and url is None:
            raise self.error(f'{where} has neither "command" nor "url"{_misspelt_target(raw)}')
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

    # The explorer's own settings: a value that cannot be used is a warning and its default is used, so a
    # wrong theme or bound never stops a command whose servers are fine (or come from -s).

    def keymap(self, raw: object) -> dict[str, str]:
        if not isinstance(raw, dict):
            self.warn(
                f'"keymap" must be a table of binding ids to keys, not {value_kind(raw, "table")}; '
                "the default keys are used"
            )
            return {}
        keymap: dict[str, str] = {}
        for binding, keys in raw.items():
            if not isinstance(keys, str) or not keys.strip():
                self.warn(
                    f'keymap {quoted(binding)} must be a string of keys such as "slash,ctrl+f"; '
                    "its default keys are used"
                )
                continue
            keymap[binding] = keys.strip()
        return keymap

    def listing(self, raw: object) -> ListingBounds:
        if not isinstance(raw, dict):
            self.warn(
                f'"listing" must be a table of bounds, not {value_kind(raw, "table")}; '
                "the default bounds are used"
            )
            return ListingBounds()
        values: dict[str, Any] = {}
        for key, value in raw.items():
            if key in _INT_BOUNDS:
                if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                    self.warn(
                        f'listing "{key}" must be a positive whole number, not {value!r}{_default_of(key)}'
                    )
                    continue
                values[key] = value
            elif key == "max_seconds":
                number_ok = isinstance(value, int | float) and not isinstance(value, bool)
                if not number_ok or not math.isfinite(value) or value <= 0:
                    self.warn(
                        f'listing "max_seconds" must be a positive number, not {value!r}{_default_of(key)}'
                    )
                    continue
                values[key] = float(value)
            else:
                self.warn(f"unknown listing setting {quoted(key)} is ignored")
        try:
            return ListingBounds(**values)
        except (ValueError, TypeError) as exc:
            self.warn(f"listing: {exc}; the default bounds are used")
            return ListingBounds()

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
                    f'{where}: "{key}" value of {quoted(name)} must be a string, not {value_kind(item)}'
                )
            result[name] = expand(item)
        return result


def _host_and_port(url: str) -> str:
    """The `host:port` of a URL (after any user name and password), or "" when it has none."""
    try:
        return urlsplit(url).netloc.rpartition("@")[2]
    except ValueError:
        return ""


def _default_of(bound: str) -> str:
    """`; the default (100000) is used`: what a listing bound that cannot be used is replaced by."""
    value = getattr(ListingBounds(), bound)
    shown = f"{value:g}" if isinstance(value, float) else str(value)
    return f"; the default ({shown}) is used"


def _misspelt_target(raw: Mapping[str, Any]) -> str:
    """` ("comand" looks like a typo of "command")` when a key of the entry is a near miss of one."""
    for key in sorted(str(key) for key in raw):
        meant = likely_meant(key, _JSON_SERVER_KEYS)
        if meant in ("command", "url", *_URL_ALIASES):
            return f' ("{quoted(key)[1:-1]}" looks like a typo of "{meant}")'
    return ""


def _with_guess(key: str, meant: str | None) -> str:
    """`comand (did you mean "command"?)`, or the key alone; a key is shown sanitized (it may be anything)."""
    shown = quoted(key)[1:-1]
    return shown if meant is None else f'{shown} (did you mean "{meant}"?)'


def _parse_json(text: str, label: str) -> Any:
    """Strict JSON first; then JSON with comments and trailing commas (VS Code writes `mcp.json` as JSONC)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as strict_error:
        error = strict_error
    except RecursionError:
        raise ConfigError(f"{label}: {_TOO_DEEP}") from None
    relaxed = _strip_jsonc(text)
    if relaxed != text:
        try:
            return json.loads(relaxed)
        except json.JSONDecodeError as relaxed_error:
            error = relaxed_error  # positions are preserved, and comments no longer mislead the message
        except RecursionError:
            raise ConfigError(f"{label}: {_TOO_DEEP}") from None
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


def _toml_too_deep(text: str) -> bool:
    """A line whose key has more parts than any config needs (see `_MAX_TOML_KEY_PARTS`)."""
    for line in text.splitlines():
        if (
            line.count(".") > _MAX_TOML_KEY_PARTS
            and _TOML_STRING.sub("", line).count(".") > _MAX_TOML_KEY_PARTS
        ):
            return True
    return False
