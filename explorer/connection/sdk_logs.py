"""The MCP SDK's own log records go to a file, masked, capped and without repeats, never to the terminal.

The SDK logs a full traceback for every line a server writes that is not JSON (`logger.exception`) and for
every notification it cannot validate (`logger.warning(..., exc_info=True)`), and with no handler
configured Python prints WARNING and above to stderr: a hostile server could put tracebacks in the CLI's
output or write over the TUI. Its loggers are `mcp.*` and, for the client session, `client`. They are
routed once per process to `<log dir>/sdk.log`, with every secret of every server spec that connected
replaced by `***`.

A server can also make the SDK log without end: 20,000 invalid notifications were 20,000 tracebacks of
1.4 KB each (27 MB, appended run after run; 203 MB was seen), and formatting them cost seconds of CPU, so
a real answer timed out. So the file is capped (`MAX_LOG_BYTES`, then it becomes `sdk.log.1`, the one
backup), one record is cut at `MAX_RECORD_CHARS`, and the records of one kind (logger, level, message
template) are written `KEEP_EACH` times a run, the first `TRACEBACKS_EACH` with their traceback. The rest
are counted, never formatted, and a summary line says how many were left out (at 100, 1,000, ... and when
logging shuts down, at exit).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from explorer.config import MASK, ServerSpec
from explorer.config.spec import Redactor, masked_forms, runtime_secrets
from explorer.connection.stderr_log import keep_tail, note_log_problem
from explorer.storage import open_for_append

MAX_LOG_BYTES = 2 * 1024 * 1024  # per file; with the one backup at most 4 MB on disk
MAX_RECORD_CHARS = 16 * 1024  # a record quoting a server's message could be megabytes
KEEP_EACH = 5  # records of one kind written a run; the rest are counted
TRACEBACKS_EACH = 2  # of those, the first ones with their traceback (the others repeat it)
MAX_KINDS = 256  # kinds told apart; records of further kinds share one count
_KEY_CHARS = 500  # of a message template, to tell kinds apart (an f-string message can be long)
FORMAT = "%(asctime)s %(name)s %(levelname)s %(message)s"

_SDK_LOGGERS = ("mcp", "client")
_lock = threading.Lock()
_secrets: set[str] = set()
_routed = False

Kind = tuple[str, int, str]  # logger name, level, message template


class _MaskingFormatter(logging.Formatter):
    """Formats as usual (traceback included, for the file), then masks every known secret."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        for secret in sorted(_secrets, key=len, reverse=True):
            text = text.replace(secret, MASK)
        return Redactor(runtime_secrets()[1]).text(text)  # OAuth tokens learned while running


@dataclass
class _Tally:
    """The records of one kind this run: how many came, how many are written, what the summary says."""

    name: str
    level: int
    label: str  # `like this: <the first one's message>`, or `of other kinds`
    keep: int = KEEP_EACH
    seen: int = 0

    @property
    def left_out(self) -> int:
        return max(0, self.seen - self.keep)


def _milestone(count: int) -> bool:
    """100, 1,000, 10,000...: a long run says how many were left out as it goes, not only at exit."""
    return count >= 100 and count == 10 ** (len(str(count)) - 1)


def _without_traceback(record: logging.LogRecord) -> logging.LogRecord:
    """A copy of `record` without its traceback (the first records of its kind have it)."""
    plain = logging.makeLogRecord(record.__dict__)
    plain.msg = f"{record.getMessage()} (traceback left out: as in the first records like this)"
    plain.args = None
    plain.exc_info = plain.exc_text = plain.stack_info = None
    return plain


class CappedLog(logging.Handler):
    """A log file of at most `max_bytes` (then it moves to `NAME.1`) that writes a few records of each
    kind a run and counts the rest: a server cannot fill the disk, nor spend the CPU on tracebacks."""

    def __init__(self, path: Path, *, max_bytes: int = MAX_LOG_BYTES) -> None:
        super().__init__(logging.WARNING)
        self.path = path
        self.max_bytes = max_bytes
        self._stream: BinaryIO | None = None
        self._unwritable: OSError | None = None  # why the file could not be opened (not tried again)
        self._size = 0
        self._tallies: dict[Kind, _Tally] = {}

    def emit(self, record: logging.LogRecord) -> None:
        try:
            tally = self._tally(record)
            tally.seen += 1
            if tally.seen <= tally.keep:
                self._write(self._record_text(record, tally.seen))
            elif _milestone(tally.left_out):
                self._write_summary(tally, final=False)
        except Exception:  # raised here it would reach the SDK's code that logged
            self.handleError(record)

    def handleError(self, record: logging.LogRecord) -> None:
        """A log that cannot be written (disk full, no permission) says nothing: never on the terminal."""

    def close(self) -> None:
        """At exit (`logging.shutdown`): a summary line for each kind of which records were left out."""
        self.acquire()
        try:
            with contextlib.suppress(Exception):  # as `handleError`: nothing on the terminal at exit
                for tally in self._tallies.values():
                    if tally.left_out:
                        self._write_summary(tally, final=True)
                if self._stream is not None:
                    self._stream.close()
            self._stream = None
            self._tallies.clear()
        finally:
            self.release()
        super().close()

    def _tally(self, record: logging.LogRecord) -> _Tally:
        kind: Kind = (record.name, record.levelno, str(record.msg)[:_KEY_CHARS])
        tally = self._tallies.get(kind)
        if tally is None:
            if len(self._tallies) >= MAX_KINDS:
                return self._others()
            label = f"like this: {record.getMessage()[:_KEY_CHARS]}"
            tally = self._tallies[kind] = _Tally(record.name, record.levelno, label)
        return tally

    def _others(self) -> _Tally:
        """The one count of the records of every kind past the first `MAX_KINDS` (none is written)."""
        kind: Kind = ("", 0, "")
        if kind not in self._tallies:
            label = f"of other kinds (past the first {MAX_KINDS} kinds)"
            self._tallies[kind] = _Tally("explorer", logging.WARNING, label, keep=0)
        return self._tallies[kind]

    def _record_text(self, record: logging.LogRecord, seen: int) -> str:
        if seen > TRACEBACKS_EACH and (record.exc_info or record.exc_text or record.stack_info):
            record = _without_traceback(record)
        text = self.format(record)
        if len(text) > MAX_RECORD_CHARS:
            text = f"{text[:MAX_RECORD_CHARS]} [… {len(text) - MAX_RECORD_CHARS:,} characters cut]"
        if seen == KEEP_EACH:
            text += "\n(further records like this are counted, not written: see the summary lines)"
        return text

    def _write_summary(self, tally: _Tally, *, final: bool) -> None:
        when = "in all" if final else "so far"
        message = f"… {tally.left_out:,} more records {tally.label} (left out {when})"
        summary = logging.makeLogRecord(
            {"name": tally.name, "levelno": tally.level, "levelname": logging.getLevelName(tally.level)}
        )
        summary.msg = message
        self._write(self.format(summary))

    def _write(self, text: str) -> None:
        data = (text + "\n").encode("utf-8", "backslashreplace")[: self.max_bytes]  # never over the cap
        stream = self._open()
        if self._size and self._size + len(data) > self.max_bytes:
            stream = self._rotate()
        stream.write(data)
        stream.flush()
        self._size += len(data)

    def _open(self) -> BinaryIO:
        """The open file; one that cannot be opened is noted for the user once (`take_log_warnings`) and
        its records are dropped (`handleError`), never tried again this run."""
        if self._stream is None:
            if self._unwritable is not None:
                raise self._unwritable
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                if self.path.exists() and self.path.stat().st_size > self.max_bytes:
                    keep_tail(self.path, self.max_bytes // 2)  # written before the cap existed
                self._stream = open_for_append(self.path)  # a FIFO there: refused, not waited on
            except OSError as error:
                self._unwritable = error
                note_log_problem("the MCP SDK's log is not kept", error)
                raise
            self._size = self._stream.tell()
        return self._stream

    def _rotate(self) -> BinaryIO:
        """The full file becomes the one backup (an older backup goes), and a new file begins."""
        if self._stream is not None:
            self._stream.close()
            self._stream = None
        os.replace(self.path, self.path.with_name(self.path.name + ".1"))
        return self._open()


def route_sdk_logs(spec: ServerSpec) -> None:
    """Send the SDK's records to the log file (once) and learn `spec`'s secrets for masking."""
    global _routed
    with _lock:
        _secrets.update(masked_forms(spec))
        if _routed:
            return
        _routed = True
    handler: logging.Handler
    try:
        from explorer.paths import log_dir

        handler = CappedLog(log_dir() / "sdk.log")  # the folder is made when a first record comes
    except OSError as error:
        note_log_problem("the MCP SDK's log is not kept", error)
        handler = logging.NullHandler()
    handler.setFormatter(_MaskingFormatter(FORMAT))
    for name in _SDK_LOGGERS:
        logger = logging.getLogger(name)
        logger.setLevel(logging.WARNING)  # below it no record is made, whatever the root's level
        logger.addHandler(handler)
        logger.propagate = False  # never up to the root logger, nor Python's last-resort stderr handler
