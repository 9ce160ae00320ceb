"""Saving a server added at runtime into the explorer's own `config.toml`.

Why append text rather than rewrite the file: the user's file keeps its comments, order and formatting;
only a new `[servers."NAME"]` table (and its `oauth` table) is added at the end. Every key and string is
written as a TOML basic string with JSON's escapes (ASCII only), which TOML reads back exactly. A name
that the file already has is refused, never overwritten.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from explorer.config.spec import ConfigError, ServerSpec


def _string(value: str) -> str:
    return json.dumps(value, ensure_ascii=True)


def server_toml(spec: ServerSpec) -> str:
    """The TOML tables describing `spec` (inputs already filled in)."""
    key = f"servers.{_string(spec.name)}"
    lines = [f"[{key}]"]
    if spec.transport == "stdio":
        lines.append(f"command = {_string(spec.command or '')}")
        if spec.args:
            lines.append("args = [" + ", ".join(_string(arg) for arg in spec.args) + "]")
        if spec.cwd:
            lines.append(f"cwd = {_string(spec.cwd)}")
        if spec.env:
            lines.append(
                "env = { " + ", ".join(f"{_string(k)} = {_string(v)}" for k, v in spec.env.items()) + " }"
            )
    else:
        lines.append(f"url = {_string(spec.url or '')}")
        if spec.transport == "sse":
            lines.append('transport = "sse"')
        if spec.headers:
            pairs = ", ".join(f"{_string(k)} = {_string(v)}" for k, v in spec.headers.items())
            lines.append("headers = { " + pairs + " }")
        if spec.oauth is not None and spec.oauth.flow is not None:
            lines += ["", f"[{key}.oauth]", f"flow = {_string(spec.oauth.flow)}"]
    return "\n".join(lines) + "\n"


def save_server(path: Path, spec: ServerSpec) -> None:
    """Append `spec` to the config at `path` (created if missing); ConfigError when it cannot be."""
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    try:
        existing = tomllib.loads(text).get("servers", {})
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML ({exc}); not changed") from None
    if isinstance(existing, dict) and spec.name in existing:
        raise ConfigError(f'{path} already has a server "{spec.name}"; not changed')
    separator = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as handle:
            handle.write(separator + server_toml(spec))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot write the file ({exc.strerror or exc})") from None
