"""Saving a server added at runtime into the explorer's own `config.toml`, and removing one from it.

Why append text rather than rewrite the file: the user's file keeps its comments, order and formatting;
only a new `[servers."NAME"]` table (and its `oauth` table) is added at the end. Every key and string is
written as a TOML basic string in ASCII only (`_string`: TOML's own escapes, `\\UXXXXXXXX` above
U+FFFF), which TOML reads back exactly; a lone surrogate, which no TOML file can hold, is refused with a
ConfigError. A name that the file already has is refused, never overwritten. The text is parsed with the
new table before it is written, and a file the table cannot extend (an inline `servers = {...}`) is left
unchanged.

Removing cuts the server's tables and pairs out of the text (`toml_entries`), checks that what is left
parses to the old file minus that server, and replaces the file atomically (its symlink and mode kept).
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from explorer.config.loaders import MAX_CONFIG_BYTES
from explorer.config.spec import ConfigError, ServerSpec
from explorer.config.toml_entries import InlineServers, Unreadable, cut_server
from explorer.storage import FileTooLargeError, NotAFileError, read_regular_file

# TOML's short escapes; every other control character (U+0000-U+001F, U+007F) is written `\uXXXX`.
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _string(value: str, field: str) -> str:
    """`value` as a TOML basic string, ASCII only, so the file stays readable whatever its reader's
    encoding and the diff shows every character. JSON's escapes are not TOML's above U+FFFF: JSON writes a
    surrogate pair (`\\ud83d\\ude00`), which TOML refuses, so such a character is `\\UXXXXXXXX` here.
    A lone surrogate (an undecodable byte in argv, say) is not a character TOML can hold at all:
    ConfigError naming `field`, the part of the server it is in."""
    out = ['"']
    for char in value:
        code = ord(char)
        if char in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[char])
        elif 0x20 <= code < 0x7F:
            out.append(char)
        elif 0xD800 <= code <= 0xDFFF:
            raise ConfigError(
                f"a lone surrogate (U+{code:04X}) in the server's {field} is not a character a TOML "
                "file can hold"
            )
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04X}")
        else:
            out.append(f"\\U{code:08X}")
    out.append('"')
    return "".join(out)


def server_toml(spec: ServerSpec) -> str:
    """The TOML tables describing `spec` (inputs already filled in); ConfigError when a value holds what
    no TOML file can (a lone surrogate)."""
    key = f"servers.{_string(spec.name, 'name')}"
    lines = [f"[{key}]"]
    if spec.transport == "stdio":
        lines.append(f"command = {_string(spec.command or '', 'command')}")
        if spec.args:
            lines.append("args = [" + ", ".join(_string(arg, "arguments") for arg in spec.args) + "]")
        if spec.cwd:
            lines.append(f"cwd = {_string(spec.cwd, 'working directory')}")
        if spec.env:
            pairs = ", ".join(
                f"{_string(k, 'env names')} = {_string(v, 'env values')}" for k, v in spec.env.items()
            )
            lines.append("env = { " + pairs + " }")
    else:
        lines.append(f"url = {_string(spec.url or '', 'url')}")
        if spec.transport == "sse":
            lines.append('transport = "sse"')
        if spec.headers:
            pairs = ", ".join(
                f"{_string(k, 'header names')} = {_string(v, 'header values')}"
                for k, v in spec.headers.items()
            )
            lines.append("headers = { " + pairs + " }")
        if spec.oauth is not None and spec.oauth.flow is not None:
            lines += ["", f"[{key}.oauth]", f"flow = {_string(spec.oauth.flow, 'OAuth flow')}"]
    return "\n".join(lines) + "\n"


def _read_bytes(path: Path) -> bytes:
    """The file's bytes, read as `load_config` reads them: a FIFO or a device is refused, never waited on
    (reading a FIFO as config.toml hung the save); FileNotFoundError when it is missing; ConfigError,
    saying the file is not changed, for anything else that cannot be read."""
    try:
        return read_regular_file(path, limit=MAX_CONFIG_BYTES)
    except FileNotFoundError:
        raise
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a directory, not a config file; not changed") from None
    except (NotAFileError, FileTooLargeError) as exc:  # "is a FIFO, not a file", "is too large (...)"
        raise ConfigError(f"{path}: {exc.strerror}; not changed") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the file ({exc.strerror or exc}); not changed") from None


def _read_toml(path: Path, data: bytes) -> tuple[str, dict[str, Any]]:
    """The file's text and what it parses to, read as `load_config` reads it (a UTF-8 BOM allowed);
    ConfigError, saying the file is not changed, when it is not UTF-8 TOML."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        where = f"invalid byte at offset {exc.start}"
        raise ConfigError(f"{path}: not UTF-8 text ({where}); not changed") from None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML ({exc}); not changed") from None


def save_server(path: Path, spec: ServerSpec) -> None:
    """Append `spec` to the config at `path` (created if missing, mode 0600: it may hold header and env
    secrets); ConfigError, with the file unchanged, when it cannot be.

    The text is composed and parsed before anything is written: the new server must read back exactly
    as written and every other setting stay as it was, else nothing is written (a `servers = {...}`
    inline table cannot take a `[servers."NAME"]` table after it). A UTF-8 BOM, which loading accepts,
    stays where it is; the file's comments, symlink and mode are kept (it is appended to, not replaced).
    """
    try:
        data = _read_bytes(path)
    except FileNotFoundError:  # missing, or a symlink to a file not made yet: created below
        data = b""
    text, before = _read_toml(path, data)
    existing = before.get("servers", {})
    if isinstance(existing, dict) and spec.name in existing:
        raise ConfigError(f'{path} already has a server "{spec.name}"; not changed')
    try:
        wanted = saved_table(spec)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}; not changed") from None
    same = [name for name, table in existing.items() if table == wanted] if isinstance(existing, dict) else []
    if same:
        raise ConfigError(f'{path} already has this server, as "{same[0]}"; not changed')
    separator = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
    addition = separator + server_toml(spec)
    problem = _read_back_problem(text + addition, before, spec)
    if problem is not None:
        if _INLINE_SERVERS.search(text):
            problem = (
                "it declares servers inline (servers = { ... }), which a new table cannot extend; "
                "add the server there by hand"
            )
        raise ConfigError(f"{path}: {problem}; not changed")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # 0600 applies only when the file is created; an existing file keeps its mode.
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(descriptor, "a", encoding="utf-8") as handle:
            handle.write(addition)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot write the file ({exc.strerror or exc})") from None


# A top-level `servers = ...` (inline table) line, bare or quoted key.
_INLINE_SERVERS = re.compile(r"""^[ \t]*(servers|"servers"|'servers')[ \t]*=""", re.MULTILINE)


def _read_back_problem(text: str, before: dict[str, Any], spec: ServerSpec) -> str | None:
    """Why `text` (the file with `spec` appended) would not read back as the old file plus `spec`."""
    try:
        after = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return f"the server cannot be added to this file (it would make it invalid TOML: {exc})"
    wanted = saved_table(spec)
    servers = after.get("servers")
    if not isinstance(servers, dict) or servers.get(spec.name) != wanted:
        return "the server would not read back as saved"
    rest = {**after, "servers": {name: value for name, value in servers.items() if name != spec.name}}
    if "servers" not in before and not rest["servers"]:
        rest.pop("servers")
    if rest != before:
        return "saving the server would change other settings of the file"
    return None


def saved_table(spec: ServerSpec) -> dict[str, Any]:
    """The table `save_server` writes for `spec`, as TOML reads it back; ConfigError (never a TOML parse
    error, which no caller expects) when it cannot be written or read back."""
    try:
        table: dict[str, Any] = tomllib.loads(server_toml(spec))["servers"][spec.name]
    except (ValueError, KeyError) as exc:  # TOMLDecodeError is a ValueError
        raise ConfigError(f"the server cannot be written as TOML ({exc})") from None
    return table


def remove_server(path: Path, name: str, *, only_if: Mapping[str, Any] | None = None) -> bool:
    """Remove the server `name` from the config at `path`: True when done; False when the file is missing
    or has no such server (or, with `only_if`, has another table under that name); ConfigError, with the
    file unchanged, when it cannot be done.

    Only that server's tables and pairs go, with the comment block written just above its table; other
    servers, settings and comments stay as they are, and
    what is left must parse to the old file minus that server, else nothing is written. The new text
    replaces the file atomically: a failure never leaves half a file. A symlink stays a symlink (its
    target is replaced), the file keeps its mode, and a UTF-8 BOM stays.
    """
    try:
        data = _read_bytes(path)
    except FileNotFoundError:
        return False
    text, before = _read_toml(path, data)
    servers = before.get("servers")
    if not isinstance(servers, dict) or name not in servers:
        return False
    if only_if is not None and servers[name] != only_if:
        return False
    by_hand = "remove the server there by hand; not changed"
    try:
        after_text = cut_server(text, name)
    except InlineServers:
        raise ConfigError(f"{path}: it declares servers inline (servers = {{ ... }}); {by_hand}") from None
    except Unreadable:
        raise ConfigError(f"{path}: the server's entry could not be told apart; {by_hand}") from None
    problem = _removal_problem(after_text, before, name)
    if problem is not None:
        raise ConfigError(f"{path}: {problem}; {by_hand}")
    bom = "\ufeff" if data.startswith(b"\xef\xbb\xbf") else ""
    _replace_text(path, bom + after_text, data)
    return True


def _removal_problem(text: str, before: dict[str, Any], name: str) -> str | None:
    """Why `text` would not read back as the old file without the server `name`."""
    try:
        after = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return "removing the server would leave invalid TOML"
    wanted = {**before, "servers": {key: value for key, value in before["servers"].items() if key != name}}
    for doc in (wanted, after):
        if doc.get("servers") == {}:
            doc.pop("servers")  # `[servers]` left empty, or gone with its last table: the same
    if after != wanted:
        return "removing the server would change other settings of the file"
    return None


def _replace_text(path: Path, text: str, read: bytes) -> None:
    """Write `text` over `path` atomically (a temporary file in the target's folder, then a rename)."""
    try:
        target = Path(os.path.realpath(path)) if path.is_symlink() else path
        mode = stat.S_IMODE(target.stat().st_mode)
        descriptor, temp = tempfile.mkstemp(prefix=f".{target.name}-", suffix=".tmp", dir=target.parent)
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop (older Pythons)
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(f"{path}: cannot write the file ({reason}); not changed") from None
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        if read_regular_file(path, limit=MAX_CONFIG_BYTES) != read:
            raise ConfigError(f"{path}: the file changed while the server was being removed; not changed")
        os.replace(temp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise ConfigError(f"{path}: cannot write the file ({exc.strerror or exc}); not changed") from None
    except ConfigError:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
