"""Ctrl+C in the headless commands: the first stops the run and keeps what is done, a second quits at once.

The first one stops the `Interrupt` the command's runs share: the listings stop (what arrived is kept,
marked `interrupted`), the connections still being made are abandoned and, with an `Interrupt` that
`abandons` jobs, so are the requests still waiting for an answer; each server not done says it was
stopped by Ctrl+C (`explorer.cli.runner`). The command then prints what it has and exits 130. A second
Ctrl+C cancels everything: the command prints nothing more and exits 130.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

import anyio

from explorer.cli.output import note
from explorer.cli.runner import Interrupt

FIRST_CTRL_C = "interrupted: stopping; what is done is printed (Ctrl+C again to quit)"


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
