"""A stdio server's stderr log: one file per server per run, capped, quoted from this connection only.

Why: an error message that quotes the log must quote what *this* run of the server said, not a crash from
last week; and a server that writes to stderr forever must not fill the disk. The first connection of a
server in a run empties its log; a reconnect in the same run appends after a marker line, and quotes start
at that marker. Before each connection a log over the cap keeps only its newest part.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from explorer.config import ServerSpec

MAX_LOG_BYTES = 5 * 1024 * 1024

_lock = threading.Lock()
_begun: set[Path] = set()  # logs already started in this process (this run)


def stderr_log_for(spec: ServerSpec) -> Path | None:
    """Where a server's stderr goes: a stdio server's own log file; HTTP servers have none."""
    from explorer.paths import server_log_path

    return server_log_path(spec.name) if spec.transport == "stdio" else None


def begin_run(path: Path, *, max_bytes: int = MAX_LOG_BYTES) -> int:
    """Prepare `path` for a new connection; returns the byte offset where this connection's stderr starts."""
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
