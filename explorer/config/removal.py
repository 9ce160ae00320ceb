"""What removing a server at runtime does to the config files, and the sentence that says so.

Two verbs, because one is for good: "Disconnect and remove" drops a server for this session and says
which file brings it back; "Delete from config.toml" also deletes its entry, offered only for a server
whose entry is in the explorer's own config.toml (`deletable`). The explorer edits only that file (the
one the connect dialog saves to), and there only the entry the server came from. A server read from any
other file (another client's config such as Claude Desktop's, a `-c` file) is removed for this session
only: that file is never edited, and the notice says it brings the server back. A server given on the
command line or added in the connect dialog has no file of origin; the one the dialog saved to
config.toml is found there by its exact saved table, or, saved with placeholders, by that table read
back as the server connected.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from explorer.config.loaders import MAX_CONFIG_BYTES, read_entry
from explorer.config.spec import ConfigError, ServerSpec
from explorer.config.writer import remove_server, saved_table
from explorer.sanitize import sanitize_line
from explorer.storage import read_regular_file

__all__ = ["Forgotten", "deletable", "forget_server"]


@dataclass(frozen=True)
class Forgotten:
    """The notice after removing a server, and whether editing config.toml failed (a warning then)."""

    message: str
    failed: bool = False


def deletable(spec: ServerSpec, own_config: Path) -> bool:
    """Whether `spec`'s entry is in `own_config`, so that "Delete from config.toml" can remove it."""
    return _own_entry(spec, own_config) is not None


def forget_server(spec: ServerSpec, own_config: Path, *, delete: bool = False) -> Forgotten:
    """Say what removing `spec` from the session means for the config files; with `delete`, remove its
    entry from `own_config` first when it came from there.

    Called once the server is disconnected and dropped from the session; never raises.
    """
    name = _middle_cut(spec.name, _NAME_WIDTH)
    origin = spec.origin
    if origin is not None and not _same_file(origin.file, own_config):
        return Forgotten(
            f"Removed {name} for this session; it will come back from {_shown(origin.file)} at next "
            "start (the explorer never edits that file)."
        )
    entry = _own_entry(spec, own_config)
    if entry is None:
        return Forgotten(f"Removed {name}.")
    if not delete:
        return Forgotten(
            f"Removed {name} for this session; it will come back from {_shown(own_config)} at next start "
            '(the palette\'s "Delete from config.toml" deletes it there).'
        )
    entry_name, only_if = entry
    try:
        removed = remove_server(own_config, entry_name, only_if=only_if)
    except ConfigError as exc:
        return Forgotten(
            f"Removed {name} for this session only: {sanitize_line(str(exc), 300)}. The entry is still in "
            "that file.",
            failed=True,
        )
    if removed:
        return Forgotten(f"Removed {name}, and deleted it from {_shown(own_config)}.")
    return Forgotten(f"Removed {name}.")


def _own_entry(spec: ServerSpec, own_config: Path) -> tuple[str, dict[str, Any] | None] | None:
    """The entry name of `spec` in `own_config`, and the table it must still be (a server the connect
    dialog saved has no origin: it is found by its exact table); None when it is not there."""
    origin = spec.origin
    if origin is not None:
        return (origin.entry, None) if _same_file(origin.file, own_config) else None
    table = _saved_there(spec, own_config)
    return None if table is None else (spec.name, table)


_NAME_WIDTH = 60
_ELLIPSIS = "…"


def _middle_cut(name: str, width: int) -> str:
    """`name` sanitized, whole when it fits in `width` characters, else its head, `…` and its tail: cut at
    its end, `company-internal-search-production` and `...-staging` read alike, and the end is often what
    tells two servers apart (`-staging`, `-2`). A very long name is only read near its two ends."""
    if len(name) <= 4 * width:
        whole = sanitize_line(name, None)
        if len(whole) <= width:
            return whole
    room = width - 1
    return _fitted(name, room - room // 2, tail=False) + _ELLIPSIS + _fitted(name, room // 2, tail=True)


def _fitted(name: str, width: int, *, tail: bool) -> str:
    """The longest sanitized head (or tail) of `name` at most `width` characters long; an escape is never
    cut in two, since each piece is sanitized as a whole."""
    best = ""
    for count in range(1, min(len(name), width) + 1):
        shown = sanitize_line(name[-count:] if tail else name[:count], None)
        if len(shown) > width:
            break
        best = shown
    return best


def _same_file(a: Path, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def _shown(path: Path) -> str:
    return sanitize_line(str(path), 200)


def _saved_there(spec: ServerSpec, own_config: Path) -> dict[str, Any] | None:
    """The table `own_config` holds for this very server under its name, as the connect dialog saves it;
    None when it holds none. Never raises: the palette asks this of every server (`deletable`)."""
    try:
        data = read_regular_file(own_config, limit=MAX_CONFIG_BYTES)  # a FIFO: refused, not waited on
        servers = tomllib.loads(data.decode("utf-8-sig")).get("servers")
    except (OSError, ValueError):  # missing, unreadable, not UTF-8, not TOML: nothing saved there to find
        return None
    if not isinstance(servers, dict) or spec.name not in servers:
        return None
    entry = servers[spec.name]
    try:
        table = saved_table(spec)
    except ConfigError:  # a value no TOML file can hold (a lone surrogate): the dialog could not save it
        return None
    if entry == table:
        return table
    # Saved with placeholders (`${env:TOKEN}`), connected as they read back (`read_back.py`): the entry
    # is this server when it reads back as the server connected.
    if not isinstance(entry, dict) or "${" not in repr(entry):
        return None
    try:
        read, _ = read_entry(str(own_config), own_config, spec.name, entry)
    except ConfigError:
        return None
    return entry if replace(read, origin=None) == replace(spec, origin=None) else None
