"""Small JSON files kept between runs (history, bookmarks, the theme choice), written atomically.

Why one helper: a crash or a full disk must never leave half a file, and a broken file must never break
the feature that reads it. Writes go to a temporary file in the same folder, then `os.replace`; reads of a
missing or unreadable file give None. Nothing of the JSON helpers raises on I/O errors.

A saved file the user made a symlink (to their dotfiles) stays one: the write goes to the link's target,
replaced atomically in the target's folder; and a file that exists keeps its permission bits (a new one
gets the temporary file's, 0600).

Every file the explorer reads on the user's side (config files, envFiles, bookmarks, history, themes,
tokens) is read with `read_regular_file`, and every log it appends to is opened with `open_for_append`:
`open()` of a FIFO waits for the other end in C, where neither Ctrl+C nor a key reaches it (a FIFO as the
bookmarks file froze the TUI before its first frame), and a device reads forever (`/dev/zero` as an
envFile filled the memory). Both open without waiting and refuse what is not a regular file; a refusal is
an OSError whose `strerror` ends a sentence that starts with the path ("is a FIFO, not a file"). They live
here, in the base layer, so that every layer reaches them.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

if sys.platform != "win32":
    import fcntl

__all__ = [
    "LOCK_WAIT",
    "MAX_JSON_BYTES",
    "FileTooLargeError",
    "JsonRead",
    "NotAFileError",
    "create_new_file",
    "file_signature",
    "open_for_append",
    "read_json",
    "read_json_file",
    "read_regular_file",
    "update_lock",
    "version_problem",
    "write_json_atomically",
]

LOCK_WAIT = 2.0  # seconds a save waits for another process's save in the same folder
MAX_JSON_BYTES = 32 * 1024 * 1024  # read of one saved file (history, bookmarks: capped far below)


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
        text = read_regular_file(path, limit=MAX_JSON_BYTES).decode("utf-8")
    except FileNotFoundError:
        return JsonRead(missing=True)
    except (NotAFileError, FileTooLargeError, IsADirectoryError) as error:  # "is a FIFO, not a file"
        return JsonRead(problem=f"{path} {error.strerror}")
    except (OSError, ValueError) as error:  # ValueError: UnicodeDecodeError
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        return JsonRead(problem=f"{path} could not be read ({reason.lower()})")
    if not text.strip():
        return JsonRead(missing=True)  # an empty file holds nothing that writing it could lose
    try:
        return JsonRead(json.loads(text))
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno}"
        what = error.msg.lower().removesuffix(" at")  # "invalid control character at"
        return JsonRead(problem=f"{path} is not valid JSON ({what} at {where})")
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
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (a hand-edited file's `\ud800`): kept as its escape
            text = json.dumps(data, ensure_ascii=True, indent=1)
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


def file_signature(path: Path) -> tuple[int, int, int] | None:
    """What changes when the file is written (an atomic write makes a new inode); None when not there."""
    try:
        info = path.stat()
    except (OSError, ValueError, RuntimeError):
        return None
    return (info.st_ino, info.st_mtime_ns, info.st_size)


@contextlib.contextmanager
def update_lock(path: Path, *, wait: float | None = None) -> Iterator[str | None]:
    """Hold the lock for one read-merge-write of `path`, so two processes' (or threads') saves cannot
    interleave. Yields None while it is held, or where nothing can be locked (no `fcntl`, a folder that
    cannot be opened: the save goes on as before); a sentence when another holder kept it past `wait`
    seconds (default `LOCK_WAIT`): the caller does not write then.

    The lock is `flock` on the folder the write replaces the file in (a symlink's target's), not on a
    sidecar `.lock` file: that file would stay for ever beside the user's own (in their dotfiles, for a
    symlink), and removing it after each use races with the next locker.
    """
    if sys.platform == "win32":  # pragma: no cover - no flock there: saves merge, unlocked
        yield None
        return
    try:
        folder = _write_target(path).parent
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except (OSError, ValueError, RuntimeError):
        yield None  # the write fails too, and says so
        return
    try:
        seconds = LOCK_WAIT if wait is None else wait
        deadline = time.monotonic() + seconds
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if time.monotonic() < deadline:
                    time.sleep(0.01)
                    continue
                yield f"another explorer kept {folder} locked while saving (waited {seconds:g} s)"
                return
            except OSError:  # a file system without flock: unlocked, as before
                pass
            break
        yield None  # closing the descriptor releases the lock
    finally:
        os.close(fd)


# ------------------------------------------------------------- the user's files, never waited on

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_COMMON = _NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_READ_FLAGS = os.O_RDONLY | _COMMON
_APPEND_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | _COMMON
_CHUNK = 64 * 1024


class NotAFileError(OSError):
    """The path names a FIFO, a device or a socket, not a regular file."""


class FileTooLargeError(OSError):
    """The file is larger than its reader's cap."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def _refusal(path: str, mode: int) -> OSError:
    reason = f"is {_kind(mode)}, not a file"
    if stat.S_ISDIR(mode):
        return IsADirectoryError(errno.EISDIR, reason, path)
    return NotAFileError(errno.EINVAL, reason, path)


def _size_text(size: int) -> str:
    """`312 bytes`, `812 KiB`, `5.3 MiB`: a size as a sentence says it."""
    if size < 1024:
        return f"{size:,} bytes"
    if size < 1024 * 1024:
        return f"{size / 1024:,.0f} KiB"
    return f"{size / (1024 * 1024):,.1f} MiB".replace(".0 MiB", " MiB")


def _too_large(path: str, size: int | None, limit: int) -> FileTooLargeError:
    said = f"{_size_text(size)}; at most {_size_text(limit)} is read" if size is not None else None
    why = said or f"more than the {_size_text(limit)} read"
    return FileTooLargeError(errno.EFBIG, f"is too large ({why})", path)


def read_regular_file(path: Path | str, *, limit: int) -> bytes:
    """The bytes of the regular file at `path` (symlinks followed), at most `limit` of them.

    Raises FileNotFoundError, PermissionError and the like as `open` does; IsADirectoryError or
    NotAFileError for what is not a regular file (never opened when a first look tells, never waited
    on); FileTooLargeError past `limit`, the size said.
    """
    name = os.fspath(path)
    mode = os.stat(name).st_mode
    if not stat.S_ISREG(mode):
        raise _refusal(name, mode)
    descriptor = os.open(name, _READ_FLAGS)
    try:
        found = os.fstat(descriptor)  # what was opened, if the path changed since the first look
        if not stat.S_ISREG(found.st_mode):
            raise _refusal(name, found.st_mode)
        if found.st_size > limit:
            raise _too_large(name, found.st_size, limit)
        if _NONBLOCK:
            os.set_blocking(descriptor, True)
        chunks: list[bytes] = []
        total = 0
        while total <= limit:  # reads of the size it says, so a small file costs no buffer of `limit`
            chunk = os.read(descriptor, min(limit + 1 - total, max(found.st_size + 1 - total, _CHUNK)))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    finally:
        os.close(descriptor)
    if total > limit:  # grew since, or a file that says size 0 (/proc)
        raise _too_large(name, None, limit)
    return b"".join(chunks)


def open_for_append(path: Path | str, *, streams: bool = False) -> BinaryIO:
    """`path` opened to append bytes (created if missing, as `open(path, "ab")` does).

    Anything but a regular file is refused (NotAFileError, IsADirectoryError) and never waited on. With
    `streams` (a file the user named for this run, such as `--wire-log /dev/stderr`), a device or a FIFO
    that a reader has open is taken too; a FIFO nobody reads is refused, since writing it would wait.
    """
    name = os.fspath(path)
    try:
        mode: int | None = os.stat(name).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode) and not (streams and _is_stream(mode)):
        raise _refusal(name, mode)
    try:
        descriptor = os.open(name, _APPEND_FLAGS, 0o666)
    except OSError as error:
        if error.errno == errno.ENXIO:  # a FIFO with no reader, opened without waiting
            raise NotAFileError(errno.ENXIO, "is a FIFO that nothing reads, not a file", name) from None
        raise
    try:
        found = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(found) and not (streams and _is_stream(found)):
            raise _refusal(name, found)
        if _NONBLOCK:
            os.set_blocking(descriptor, True)
    except BaseException:
        os.close(descriptor)
        raise
    return os.fdopen(descriptor, "ab")


_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | _COMMON


def create_new_file(path: Path | str) -> BinaryIO:
    """A new regular file at `path`, opened to write bytes.

    Whatever is already there (a file, a FIFO, a symlink, even a dangling one) raises FileExistsError and
    is neither opened nor written: a new export never overwrites an earlier one, nor waits on a FIFO.
    """
    descriptor = os.open(os.fspath(path), _CREATE_FLAGS, 0o666)
    try:
        if _NONBLOCK:
            os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "wb")
    except BaseException:
        os.close(descriptor)
        raise


def _is_stream(mode: int) -> bool:
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)
