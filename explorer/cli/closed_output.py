"""A reader that closes stdout early (`mcp-url-explorer tree | head -1`): the command stops quietly, exit 141.
A stdout that refuses what is written for any other reason (a full disk, `> /dev/full`, started closed
with `>&-`): one line on stderr, `error: could not write the output: REASON`, and exit 1, never a traceback.

Why: click exits 1 on a broken pipe, and 1 says that a server or the operation failed; Python itself would
exit 120 with a message when the last flush fails. 141 is what a shell reports for a process that SIGPIPE
ended (128 + 13), as 130 is Ctrl+C's, so `set -o pipefail` scripts see what they see of `cat | head`. The
explorer does not let SIGPIPE end it: its stdio servers are stopped on the way out (the connections'
exits, the exit-time cleanup), so the pipe is an exception that ends the command, and the rest of what it
had to say (stdout and stderr alike) is dropped.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any, NoReturn

EXIT_OUTPUT_CLOSED = 141
EXIT_OUTPUT_FAILED = 1  # the operation failed, as README's exit codes say of 1


class OutputFailed(Exception):
    """Stdout refused what was written, and not because its reader went away (that is a broken pipe)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    @classmethod
    def because(cls, exc: OSError) -> OutputFailed:
        return cls(exc.strerror or str(exc) or type(exc).__name__)


class OutputClosed(Exception):
    """Stdout was closed while a server's job was writing (`read --watch`): the run ends, and it is no
    fault of the server's (a job's other exceptions are)."""


def is_closed_output(exc: BaseException) -> bool:
    """A broken pipe on our output, alone or as everything an exception group holds."""
    return _only(exc, (BrokenPipeError, OutputClosed))


def is_output_closed_in_job(exc: BaseException) -> bool:
    """`OutputClosed` or `OutputFailed` alone or in groups (a job writes in task groups); a bare broken pipe
    or OSError in a job is the server's pipe or socket, its fault."""
    return _only(exc, (OutputClosed, OutputFailed))


def _output_failure(exc: BaseException) -> OutputFailed | None:
    """The `OutputFailed` of an exception that is only about our output (a group may hold broken pipes
    too), or None."""
    if not _only(exc, (BrokenPipeError, OutputClosed, OutputFailed)):
        return None
    found: BaseException | None = exc
    if isinstance(exc, BaseExceptionGroup):
        found = exc.split(OutputFailed)[0]
        while isinstance(found, BaseExceptionGroup):
            found = found.exceptions[0]
    return found if isinstance(found, OutputFailed) else None


def _only(exc: BaseException, kinds: tuple[type[Exception], ...]) -> bool:
    if isinstance(exc, BaseExceptionGroup):
        return exc.split(kinds)[1] is None
    return isinstance(exc, kinds)


@contextlib.contextmanager
def quiet_when_output_closes() -> Iterator[None]:
    """Around a command: a closed stdout (or stderr) ends it quietly with 141; a stdout that refuses
    what is written ends it with one line and exit 1."""
    try:
        yield
    except (BrokenPipeError, OutputClosed, OutputFailed, BaseExceptionGroup) as exc:
        failed = _output_failure(exc)
        if failed is not None:
            exit_output_failed(failed.reason)
        if not is_closed_output(exc):
            raise
        exit_output_closed()


def exit_output_failed(reason: str) -> NoReturn:
    """One line on stderr and exit 1; what stdout still holds is dropped (it would fail again at exit,
    with Python's own complaint)."""
    if sys.stdout is not None:
        _to_devnull(sys.stdout)
    try:
        sys.stderr.write(f"error: could not write the output: {reason}\n")
        sys.stderr.flush()
    except (AttributeError, OSError, ValueError):  # stderr is closed or refuses too: nowhere to say it
        pass
    sys.exit(EXIT_OUTPUT_FAILED)


def exit_output_closed() -> NoReturn:
    """Exit 141, and nothing more on the terminal: not even Python's complaint when it flushes at exit."""
    _to_devnull(sys.stdout)
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        _to_devnull(sys.stderr)
    sys.exit(EXIT_OUTPUT_CLOSED)


def exit_flushed(code: Any) -> NoReturn:
    """Exit with `code` once stdout is flushed: what a closed pipe refuses at the end is 141 too, what a
    full disk refuses is one line and exit 1."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        exit_output_closed()
    except OSError as exc:
        exit_output_failed(OutputFailed.because(exc).reason)
    sys.exit(code)


def _to_devnull(stream: Any) -> None:
    """Point the stream's file descriptor at /dev/null, so what is still buffered goes nowhere, quietly."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a test harness's buffer): nothing to flush
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)
