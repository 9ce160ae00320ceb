""" "Copy as": the URI, the JSON-RPC request, or the headless command line that reproduces a read or a
prompt, so what a user found in the TUI can go into a bug report, a script or CI.

Secrets never leave through here: header and env values are replaced by `***`, and a server that
came from a config file is named through that file (`-c FILE -s NAME`) instead of spelled out.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from explorer.config import MASK, ServerSpec

Format = Literal["uri", "jsonrpc", "command"]


def jsonrpc_read(uri: str) -> str:
    """The resources/read request as it goes on the wire (id 1)."""
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": uri}})


def jsonrpc_prompt(name: str, arguments: Mapping[str, str]) -> str:
    params: dict[str, object] = {"name": name}
    if arguments:
        params["arguments"] = dict(arguments)
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": params})


def server_words(spec: ServerSpec, *, config_path: Path | None = None, in_config: bool = False) -> list[str]:
    """The options that select this server again, secrets masked."""
    if config_path is not None and in_config:
        return ["-c", str(config_path), "-s", spec.name]
    if spec.transport == "stdio":
        assert spec.command is not None
        words = ["-s", shlex.join([spec.command, *spec.args])]
    else:
        assert spec.url is not None
        words = ["-s", spec.url] + (["--sse"] if spec.transport == "sse" else [])
    for name in spec.headers:
        words += ["-H", f"{name}: {MASK}"]
    return [spec.mask_secrets(word) for word in words]  # VS Code input values filled into args or URL


def command_line(
    spec: ServerSpec,
    args: list[str],
    *,
    protocol: str = "auto",
    config_path: Path | None = None,
    in_config: bool = False,
) -> str:
    """`mcp-url-explorer ARGS -s SPEC` (with `env K=***` for a stdio server's environment)."""
    words = ["mcp-url-explorer", *args, *server_words(spec, config_path=config_path, in_config=in_config)]
    if protocol != "auto":
        words += ["--protocol", protocol]
    prefix = ""
    if spec.env and not in_config:
        prefix = "env " + " ".join(f"{name}={MASK}" for name in spec.env) + " "
    return prefix + shlex.join(words)


def read_command(
    spec: ServerSpec,
    uri: str,
    *,
    protocol: str = "auto",
    config_path: Path | None = None,
    in_config: bool = False,
) -> str:
    return command_line(spec, ["read", uri], protocol=protocol, config_path=config_path, in_config=in_config)


def prompt_command(
    spec: ServerSpec,
    name: str,
    arguments: Mapping[str, str],
    *,
    protocol: str = "auto",
    config_path: Path | None = None,
    in_config: bool = False,
) -> str:
    words = ["prompt", name, *(f"{k}={v}" for k, v in arguments.items())]
    return command_line(spec, words, protocol=protocol, config_path=config_path, in_config=in_config)
