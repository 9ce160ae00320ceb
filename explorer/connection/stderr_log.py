"""A stdio server's stderr log: one file per server per run, capped, quoted from this connection only.

Why: an error message that quotes the log must quote what *this* run of the server said, not a crash from
last week; and a server that writes to stderr forever must not fill the disk. The first connection of a
server in a run empties its log; a reconnect in the same run appends after a marker line, and quotes start
at that marker. Before each connection a log over the cap keeps only its newest part.

Our logs are never a reason for a server to fail: when a log cannot be written (a read-only home, a
read-only `logs/`, a full disk), the server runs without it (its stderr goes nowhere, so an error quotes
none of it) and the problem is kept as one line for the user, once a run: the front end takes them with
`take_log_warnings` and shows them (the CLI as `warning:` lines on stderr).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from explorer.config import ServerSpec
from explorer.storage import open_for_append

MAX_LOG_BYTES = 5 * 1024 * 1024

_lock = threading.Lock()
_begun: set[Path] = set()  # logs already started in this process (this run)
_warnings: list[str] = []  # problems with our logs, not yet taken by the front end
_told: set[str] = set()  # every problem noted this run (each is said once)


def _reason(error: OSError) -> str:
    reason = error.strerror or str(error) or type(error).__name__
    return reason[:1].lower() + reason[1:]  # "permission denied", and "is a FIFO, not a file" as said


def note_log_problem(what: str, error: OSError) -> str:
    """Keep one line for the user about a log that could not be written (`what` says which and what it
    costs); the same line is kept once a run. Returns the line."""
    where = f" {error.filename}" if error.filename is not None else ""
    line = f"{what}: could not write{where} ({_reason(error)})"
    with _lock:
        if line not in _told:
            _told.add(line)
            _warnings.append(line)
    return line


def take_log_warnings() -> list[str]:
    """The problems with our logs noted since the last call (for the user: one line each)."""
    with _lock:
        taken = list(_warnings)
        _warnings.clear()
    return taken


def stderr_log_for(spec: ServerSpec) -> Path | None:
    """Where a server's stderr goes: a stdio server's own log file; HTTP servers have none, and neither
    has a stdio server whose log cannot be written (noted for `take_log_warnings`): it runs without one."""
    if spec.transport != "stdio":
        return None
    from explorer.paths import server_log_path

    try:
        path = server_log_path(spec.name)
        # can it be written? (`begin_run` empties or appends to it next) A FIFO there is refused, not
        # waited on: open() waited for a reader, SIGINT unheard.
        with open_for_append(path):
            pass
    except OSError as error:
        note_log_problem(f"server {spec.name}: running without its stderr log", error)
        return None
    return path


def begin_run(path: Path, *, max_bytes: int = MAX_LOG_BYTES) -> int:
    """Prepare `path` for a new connection; returns the byte offset where this connection's stderr starts.
    A log that cannot be prepared is noted (`take_log_warnings`), never raised: it starts at 0."""
    try:
        return _begin_run(path, max_bytes)
    except OSError as error:
        note_log_problem("a server's stderr log could not be prepared", error)
        return 0


def _begin_run(path: Path, max_bytes: int) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    with _lock:
        first = path not in _begun
        _begun.add(path)
    if first or not path.exists():
        path.write_bytes(b"")
        return 0
    keep_tail(path, max_bytes // 2 if path.stat().st_size > max_bytes else None)
    with path.open("ab") as handle:
        handle.write(f"--- reconnected at {time.strftime('%Y-%m-%d %H:%M:%S')} ---\n".encode())
        return handle.tell()


def keep_tail(path: Path, keep: int | None) -> None:
    """Cut a log down to its last `keep` bytes (from the start of a line), if `keep` is given (also the
    SDK's log, `sdk_logs`, when a run finds it over its cap)."""
    if keep is None:
        return
    with path.open("rb") as handle:
        handle.seek(-keep, 2)
        data = handle.read()
    newline = data.find(b"\n")
    data = data[newline + 1 :] if 0 <= newline < len(data) - 1 else data
    path.write_bytes(b"--- earlier output dropped: the log is capped ---\n" + data)
