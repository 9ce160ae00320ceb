""" "Copy as": the URI, the JSON-RPC request, or the headless command line that reproduces a read or a
prompt, so what a user found in the TUI can go into a bug report, a script or CI.

Secrets never leave through here: header and env values (but a spec's plain settings, the demo's
knobs) and the credentials in a server URL are replaced by `***`, and a server that came from a config
file is named through that file (`-c FILE -s NAME`) instead of spelled out.

Nothing a server sent reaches the clipboard raw either: pasted into a terminal, a control character in
a URI (ESC, a newline, the end of a bracketed paste) would act. So every copy path goes through one of
these, and the UI says when it changed something:

- a URI: `uri_for_clipboard` percent-encodes (UTF-8, `%1B`) every character `sanitize` would escape
  (controls, format and invisible characters, line separators, lone surrogates) and every whitespace
  character but the plain space. None of them is valid in a URI (RFC 3986), so the copied URI is what
  the server should have sent; printable characters, a plain space included, are kept as they are.
- a shell word (the command line): `shell_word` quotes like `shlex.quote`, but a word holding such a
  character is written in ANSI-C quoting, `$'greet\\x1bX'` (bash, zsh, ksh), which gives back the
  exact string when run: the `read` command carries the exact URI (one holding NUL, which no
  command-line word can, percent-encoded). A prompt argument whose name that word form cannot carry
  (an `=` in it, a leading `-`, NUL) goes in an `--arg-json` object instead (`prompt_command`).
- other text (a prompt name): `text_for_clipboard` shows those characters as the escapes the screen
  shows (`\\x1b`).
- JSON-RPC requests are JSON with every non-ASCII and control character escaped (`\\u001b`): exact and
  safe as they are. To a modern-era server (2026-07-28, stateless: no `initialize` said who is asking) a
  request carries the protocol version, client info and capabilities in its `_meta`, as the explorer's own
  requests do; without them such a server refuses it.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from explorer import __version__
from explorer.config import MASK, ServerSpec, mask_url
from explorer.model.identity import ServerIdentity
from explorer.sanitize import is_clean, sanitize_line

Format = Literal["uri", "jsonrpc", "command"]


@dataclass(frozen=True, slots=True)
class Clip:
    """What goes on the clipboard, and how many characters of the original were encoded to get it."""

    text: str
    changed: int = 0
    how: str = "percent-encoded"

    def notice(self) -> str:
        """`" (2 control characters percent-encoded)"`, or "" when nothing changed."""
        if not self.changed:
            return ""
        plural = "s" if self.changed != 1 else ""
        return f" ({self.changed} control or invisible character{plural} {self.how})"


def _unsafe(char: str) -> bool:
    return (char.isspace() and char != " ") or not is_clean(char, multiline=False)


def uri_for_clipboard(uri: str) -> Clip:
    """`uri` with every control, invisible or non-space whitespace character percent-encoded (UTF-8)."""
    parts: list[str] = []
    changed = 0
    for char in uri:
        if _unsafe(char):
            changed += 1
            parts.append("".join(f"%{byte:02X}" for byte in char.encode("utf-8", errors="surrogatepass")))
        else:
            parts.append(char)
    return Clip("".join(parts), changed) if changed else Clip(uri)


def text_for_clipboard(text: str) -> Clip:
    """`text` with those characters as the visible escapes the screen shows (`\\x1b`, `\\u202e`)."""
    changed = sum(1 for char in text if _unsafe(char))
    if not changed:
        return Clip(text)
    return Clip(sanitize_line(text, limit=None), changed, "shown as escapes")


def shell_word(word: str) -> str:
    """`word` quoted for a POSIX shell; with ANSI-C quoting (`$'...'`) when it holds such a character."""
    if not any(_unsafe(char) for char in word):
        return shlex.quote(word)
    out = ["$'"]
    for char in word:
        code = ord(char)
        if char in "\\'":
            out.append("\\" + char)
        elif not _unsafe(char):
            out.append(char)
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return "".join(out) + "'"


def shell_join(words: list[str]) -> str:
    return " ".join(shell_word(word) for word in words)


def modern_version(identity: ServerIdentity | None) -> str | None:
    """The version a modern-era server speaks (its requests carry `_meta`), or None."""
    return identity.protocol_version if identity is not None and identity.era == "modern" else None


def request_meta(modern_version: str | None) -> dict[str, object] | None:
    """The `_meta` every request to a modern-era server carries (who asks, in which version), or None in
    the handshake era (`initialize` said it once for the session)."""
    if modern_version is None:
        return None
    return {
        "io.modelcontextprotocol/protocolVersion": modern_version,
        "io.modelcontextprotocol/clientInfo": {"name": "mcp-url-explorer", "version": __version__},
        "io.modelcontextprotocol/clientCapabilities": {},
    }


def jsonrpc_read(uri: str, *, modern_version: str | None = None) -> str:
    """The resources/read request as it goes on the wire (id 1); ASCII JSON, so safe to paste.
    `modern_version`: the server's version when it speaks the modern era (its requests carry `_meta`)."""
    return _jsonrpc("resources/read", {"uri": uri}, modern_version)


def jsonrpc_prompt(name: str, arguments: Mapping[str, str], *, modern_version: str | None = None) -> str:
    """The prompts/get request, like `jsonrpc_read`."""
    params: dict[str, object] = {"name": name}
    if arguments:
        params["arguments"] = dict(arguments)
    return _jsonrpc("prompts/get", params, modern_version)


def _jsonrpc(method: str, params: dict[str, object], modern_version: str | None) -> str:
    meta = request_meta(modern_version)
    if meta is not None:
        params = {**params, "_meta": meta}
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})


def server_words(spec: ServerSpec, *, config_path: Path | None = None, in_config: bool = False) -> list[str]:
    """The options that select this server again, secrets masked."""
    if config_path is not None and in_config:  # absolute: the line may be pasted in another folder
        return ["-c", os.path.abspath(config_path), "-s", spec.name]
    if spec.transport == "stdio":
        words = ["-s", spec.shown_command()]  # each word masked before it is quoted (a secret may hold `'`)
    else:
        assert spec.url is not None
        words = ["-s", mask_url(spec.url)] + (["--sse"] if spec.transport == "sse" else [])
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
    """`mcp-url-explorer ARGS -s SPEC` (with `-e 'K=***'` for a stdio server's environment).

    Each word is quoted by `shell_word`, so a server string in ARGS reaches the shell exact and inert.
    """
    words = ["mcp-url-explorer", *args, *server_words(spec, config_path=config_path, in_config=in_config)]
    if spec.env and not in_config:
        words += _env_words(spec)
    if protocol != "auto":
        words += ["--protocol", protocol]
    return shell_join(words)


def _env_words(spec: ServerSpec) -> list[str]:
    """`-e NAME=***` for each variable (`NAME=VALUE` for a plain setting such as the demo's knobs): the
    explorer's own option, as it passes a stdio server only a few variables of its own environment (an
    `env NAME=...` in front would never reach the server)."""
    words: list[str] = []
    for name in spec.env:
        words += ["-e", spec.mask_secrets(f"{name}={spec.shown_env(name)}")]
    return words


def read_command(
    spec: ServerSpec,
    uri: str,
    *,
    protocol: str = "auto",
    config_path: Path | None = None,
    in_config: bool = False,
) -> str:
    """The `read` command line, which reads the same URI again.

    The URI comes last, after `--` (one starting with `-` would read as an option), exact: `shell_word`
    quotes its control characters (`$'...'`). One no command-line word can hold (NUL, a lone surrogate)
    goes as `uri_for_clipboard` gives it, percent-encoded.
    """
    exact = uri if _argv_safe(uri) else uri_for_clipboard(uri).text
    head = command_line(spec, ["read"], protocol=protocol, config_path=config_path, in_config=in_config)
    return head + " " + shell_join(["--", exact])


def prompt_command(
    spec: ServerSpec,
    name: str,
    arguments: Mapping[str, str],
    *,
    protocol: str = "auto",
    config_path: Path | None = None,
    in_config: bool = False,
) -> str:
    """The `prompt` command line, which gets the same prompt with the same arguments again.

    An argument goes as a `NAME=VALUE` word when the CLI reads that word back as exactly that name (see
    `_as_word`); the others go in one `--arg-json` object, ASCII JSON, exact in any shell. A prompt name
    that starts with `-` comes after `--` (else it reads as an option); one no command-line word can
    hold (NUL) goes as the explorer shows it, which the CLI matches too.
    """
    words = [f"{key}={value}" for key, value in arguments.items() if _as_word(key, value)]
    exact = {key: value for key, value in arguments.items() if not _as_word(key, value)}
    options = ["--arg-json", _ascii_json(exact)] if exact else []
    if not _argv_safe(name):
        name = sanitize_line(name, limit=None)
    if name.startswith("-"):
        head = command_line(
            spec, ["prompt", *options], protocol=protocol, config_path=config_path, in_config=in_config
        )
        return head + " " + shell_join(["--", name, *words])
    words = ["prompt", name, *words, *options]
    return command_line(spec, words, protocol=protocol, config_path=config_path, in_config=in_config)


def _as_word(name: str, value: str) -> bool:
    """Whether `NAME=VALUE` reads back as this name and value: the CLI cuts the word at the first `=` that
    ends a declared name, so the name holds none (and is not empty), does not start like an option, and
    neither holds what no command-line word can."""
    return bool(name) and "=" not in name and not name.startswith("-") and _argv_safe(name + value)


def _argv_safe(text: str) -> bool:
    """A command-line word cannot hold NUL (C strings end there) nor a lone surrogate (not UTF-8)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return "\x00" not in text


def _ascii_json(value: Mapping[str, str]) -> str:
    """JSON with every non-ASCII and control character escaped; DEL too, which `json.dumps` keeps raw."""
    return json.dumps(dict(value)).replace("\x7f", "\\u007f")
