"""Small JSON files kept between runs (history, bookmarks, the theme choice), written atomically.

Why one helper: a crash or a full disk must never leave half a file, and a broken file must never break
the feature that reads it. Writes go to a temporary file in the same folder, then `os.replace`; reads of a
missing or unreadable file give None. Nothing here raises on I/O errors.

A saved file the user made a symlink (to their dotfiles) stays one: the write goes to the link's target,
replaced atomically in the target's folder; and a file that exists keeps its permission bits (a new one
gets the temporary file's, 0600).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["JsonRead", "read_json", "read_json_file", "version_problem", "write_json_atomically"]


@dataclass(frozen=True)
class JsonRead:
    """What reading a saved JSON file found: its data, or why it could not be read.

    `missing` is a file that is not there, or empty (nothing lost by writing it); `problem` is a sentence
    for the user when the file is there but could not be read or parsed (writing over it would lose it).
    """

    data: Any = None
    missing: bool = False
    problem: str | None = None


def read_json_file(path: Path) -> JsonRead:
    """Read and parse `path`, telling a missing file from one that is there but unreadable."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return JsonRead(missing=True)
    except (OSError, ValueError) as error:  # ValueError: UnicodeDecodeError
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        return JsonRead(problem=f"{path} could not be read ({reason.lower()})")
    if not text.strip():
        return JsonRead(missing=True)  # an empty file holds nothing that writing it could lose
    try:
        return JsonRead(json.loads(text))
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno}"
        return JsonRead(problem=f"{path} is not valid JSON ({error.msg.lower()} at {where})")
    except (ValueError, RecursionError) as error:
        return JsonRead(problem=f"{path} is not valid JSON ({error})")


def read_json(path: Path) -> Any:
    """The parsed file, or None when it is missing, unreadable or not JSON."""
    return read_json_file(path).data


def version_problem(path: Path, data: dict[str, Any], known: int, what: str) -> str | None:
    """Why the file of `data` must not be written by a version that knows file version `known` (its
    `version` is newer, or not a number), or None. A missing `version` is taken as `known`."""
    version = data.get("version", known)
    if isinstance(version, bool) or not isinstance(version, int):
        return f"{path} has an unknown version ({str(version)[:40]!r}): {what} are not saved over it"
    if version > known:
        return (
            f"{path} was written by a newer version of the explorer (file version {version}, this one "
            f"knows {known}): {what} are read from it but not saved, so nothing in it is lost"
        )
    return None


def _write_target(path: Path) -> Path:
    """The file a write to `path` must replace: `path` itself, or where its symlink (chain) points."""
    if not path.is_symlink():
        return path
    return Path(os.path.realpath(path))


def write_json_atomically(path: Path, data: Any) -> bool:
    """Write `data` as JSON; False (and the old file untouched) when that fails."""
    try:
        target = _write_target(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(data, ensure_ascii=False, indent=1)
        try:
            mode: int | None = stat.S_IMODE(target.stat().st_mode)
        except FileNotFoundError:
            mode = None
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}-", suffix=".tmp", dir=target.parent)
    except (OSError, ValueError, RuntimeError):  # RuntimeError: a symlink loop (older Pythons)
        return False
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, target)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        return False
    return True
