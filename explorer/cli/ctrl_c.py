"""Ctrl+C in the headless commands: the first stops the run and keeps what is done, a second quits at once.

The first one stops the `Interrupt` the command's runs share: the listings stop (what arrived is kept,
marked `interrupted`), the connections still being made are abandoned and, with an `Interrupt` that
`abandons` jobs, so are the requests still waiting for an answer; each server not done says it was
stopped by Ctrl+C (`explorer.cli.runner`). The command then prints what it has and exits 130. A second
Ctrl+C cancels everything: the command prints nothing more and exits 130.

Once the runs are done, the command writes what it has (10^6 rows of `tree --json` take a while into a
slow pipe): a first Ctrl+C then lets the output be written whole, so a JSON document is never cut in the
middle by one keypress, and the command exits 130 at its end; a second stops the writing at once, and
stderr says the output is incomplete (`finish_output_on_ctrl_c`, `WRITING`).
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from dataclasses import dataclass

import anyio

from explorer.cli.output import note
from explorer.cli.runner import Interrupt

FIRST_CTRL_C = "interrupted: stopping; what is done is printed (Ctrl+C again to quit)"
WHILE_WRITING = "interrupted: writing the rest of the output (Ctrl+C again to stop it, leaving it incomplete)"
CUT_SHORT = "stopped by Ctrl+C: the output is incomplete"


@dataclass
class Writing:
    """Ctrl+C after the runs: `active` once the output phase began, `interrupted` after its first one."""

    active: bool = False
    interrupted: bool = False


WRITING = Writing()


@dataclass
class CtrlC:
    """What the user did: nothing, stopped the run (`interrupted`), or gave up (`aborted`)."""

    interrupt: Interrupt
    aborted: bool = False  # a second Ctrl+C: nothing more is to be printed

    @property
    def interrupted(self) -> bool:
        return self.interrupt.requested


@asynccontextmanager
async def stopping_on_ctrl_c(interrupt: Interrupt) -> AsyncIterator[CtrlC]:
    """Ctrl+C stops `interrupt` while the block runs; a second one cancels the block (`aborted`)."""
    state = CtrlC(interrupt)
    async with anyio.create_task_group() as group:
        group.start_soon(_listen, state, group.cancel_scope.cancel)
        yield state
        group.cancel_scope.cancel()
    finish_output_on_ctrl_c(interrupted=state.interrupt.requested)


async def _listen(state: CtrlC, cancel_all: Callable[[], None]) -> None:
    if sys.platform == "win32":  # pragma: no cover - no signal receiver there: Ctrl+C ends the run
        return
    with anyio.open_signal_receiver(signal.SIGINT) as signals:
        async for _ in signals:
            if state.interrupt.requested:
                state.aborted = True
                cancel_all()
                return
            say_interrupted(FIRST_CTRL_C)
            state.interrupt.stop()


def say_interrupted(text: str) -> None:
    """The first Ctrl+C's note. On a terminal a progress line may be drawn in place on stderr (`\r`, no
    newline): it is cleared first, so the note starts a line of its own."""
    if sys.stderr.isatty():
        sys.stderr.write("\r\x1b[K")
    note(text)


@contextmanager
def output_phase() -> Iterator[None]:
    """One command's run: `WRITING` starts afresh and Python's own Ctrl+C handler is back at its end
    (a command run inside another program, as the tests do, leaves nothing behind)."""
    WRITING.active = WRITING.interrupted = False
    previous = signal.getsignal(signal.SIGINT)
    try:
        yield
    finally:
        WRITING.active = WRITING.interrupted = False
        if threading.current_thread() is threading.main_thread() and previous is not None:
            signal.signal(signal.SIGINT, previous)


def finish_output_on_ctrl_c(*, interrupted: bool) -> None:
    """From now on a first Ctrl+C lets the output be written whole (exit 130), a second stops it.

    Called when a command's signal receiver closes: asyncio then puts back Python's own handler, whose
    KeyboardInterrupt would cut the output wherever the writing is. `interrupted`: Ctrl+C was pressed
    during the runs already, so the next one is the second and stops at once, as promised then.
    """
    if sys.platform == "win32" or threading.current_thread() is not threading.main_thread():
        return  # pragma: no cover - signal handlers can be set in the main thread only
    WRITING.active = True
    WRITING.interrupted = WRITING.interrupted or interrupted
    signal.signal(signal.SIGINT, _while_writing)


def _while_writing(signum: int, frame: object) -> None:
    if WRITING.interrupted:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        raise KeyboardInterrupt
    WRITING.interrupted = True
    with suppress(RuntimeError):  # stderr was being written just then (a reentrant call): not said
        say_interrupted(WHILE_WRITING)
