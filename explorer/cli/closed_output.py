"""A reader that closes stdout early (`mcp-url-explorer tree | head -1`): the command stops quietly, exit 141.

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


class OutputClosed(Exception):
    """Stdout was closed while a server's job was writing (`read --watch`): the run ends, and it is no
    fault of the server's (a job's other exceptions are)."""


def is_closed_output(exc: BaseException) -> bool:
    """A broken pipe on our output, alone or as everything an exception group holds."""
    return _only(exc, (BrokenPipeError, OutputClosed))


def is_output_closed_in_job(exc: BaseException) -> bool:
    """`OutputClosed` alone or in groups (a job writes in task groups); a bare broken pipe in a job is the
    server's pipe, its fault."""
    return _only(exc, (OutputClosed,))


def _only(exc: BaseException, kinds: tuple[type[Exception], ...]) -> bool:
    if isinstance(exc, BaseExceptionGroup):
        return exc.split(kinds)[1] is None
    return isinstance(exc, kinds)


@contextlib.contextmanager
def quiet_when_output_closes() -> Iterator[None]:
    """Around a command: a closed stdout (or stderr) ends it quietly with 141."""
    try:
        yield
    except (BrokenPipeError, OutputClosed, BaseExceptionGroup) as exc:
        if not is_closed_output(exc):
            raise
        exit_output_closed()


def exit_output_closed() -> NoReturn:
    """Exit 141, and nothing more on the terminal: not even Python's complaint when it flushes at exit."""
    _to_devnull(sys.stdout)
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        _to_devnull(sys.stderr)
    sys.exit(EXIT_OUTPUT_CLOSED)


def exit_flushed(code: Any) -> NoReturn:
    """Exit with `code` once stdout is flushed: what a closed pipe refuses at the end is 141 too."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        exit_output_closed()
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
