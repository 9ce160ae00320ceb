"""Connect to every selected server at once and run one job on each, isolating failures.

One failing server never takes the others down: each job's fault is kept in its own outcome. An
`Interrupt` (the first Ctrl+C) stops the listings, keeping what arrived, and abandons the connections
still being made: such a server is stopped as usual and its outcome says it was interrupted. An
`Interrupt` made with `abandons` (`read`, `prompt`: nothing of a half-done job is worth keeping) abandons
the connected servers' jobs too, each outcome saying what was stopped.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import anyio

from explorer.cli.closed_output import is_output_closed_in_job
from explorer.cli.output import note
from explorer.config import ServerSpec, redact, redact_value
from explorer.connection.discovery import ListingStop
from explorer.connection.errors import ServerFault, describe_exception
from explorer.connection.session import ServerConnection, note_for
from explorer.connection.stderr_log import stderr_log_for, take_log_warnings
from explorer.connection.wire import WireLog
from explorer.model.identity import ServerIdentity, parse_protocol_mode

T = TypeVar("T")


@dataclass
class Outcome(Generic[T]):
    """What one server gave: its identity (when it connected), the job's value or a fault."""

    spec: ServerSpec
    identity: ServerIdentity | None = None
    value: T | None = None
    fault: ServerFault | None = None
    stderr_tail: str = ""
    problems: str | None = None  # what the server sent that was not a message (ignored), one phrase
    notes: list[str] = field(default_factory=list)  # how it connected, when that needs saying (a fallback)
    interrupted: bool = False  # the user's Ctrl+C came while it was connecting: `fault` says so

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def ok(self) -> bool:
        return self.fault is None

    def error_line(self) -> str:
        """One line for stderr, with the server's secrets masked."""
        assert self.fault is not None
        return redact(f"server {self.name}: {self.fault.message}", self.spec)


Job = Callable[[ServerConnection], Awaitable[T]]

STOPPED_CONNECTING = "connecting: stopped by Ctrl+C before the server answered"


def stopped_by_ctrl_c(action: str) -> str:
    """What an outcome says of a job the user stopped: `reading X: stopped by Ctrl+C before ...`."""
    return f"{action}: stopped by Ctrl+C before the server answered"


class Interrupt:
    """The user's stop of a run (Ctrl+C): the listings stop where they are (`listings`, given to the
    jobs), and the connections still being made are abandoned, not waited for up to their timeout.

    `abandons` (what the jobs do, "reading X") makes the stop abandon the connected servers' jobs as well.
    """

    def __init__(self, abandons: str | None = None) -> None:
        self.listings = ListingStop()
        self.abandons = abandons
        self._connecting: set[anyio.CancelScope] = set()

    @property
    def requested(self) -> bool:
        return self.listings.requested

    def stop(self) -> None:
        """Safe to call from a signal receiver's task on the event loop."""
        self.listings.stop()
        for scope in list(self._connecting):
            scope.cancel()

    def connecting(self) -> anyio.CancelScope:
        """A scope for one connection's whole life, which `stop` cancels until `connected` is called with
        it (at once when the stop came first). It cannot be the connect's alone: a connection's task
        groups stay open inside whatever scope it was entered in."""
        scope = anyio.CancelScope()
        self._connecting.add(scope)
        if self.requested:
            scope.cancel()
        return scope

    def connected(self, scope: anyio.CancelScope) -> None:
        """The connect is over: from here on the stop reaches the job through `listings` only (unless the
        stop `abandons` jobs: then `scope` stays cancellable until `finished`)."""
        if self.abandons is None:
            self._connecting.discard(scope)

    def finished(self, scope: anyio.CancelScope) -> None:
        """The server's job and connection are over: nothing left to stop."""
        self._connecting.discard(scope)

    def stopped_message(self, connected: bool) -> str:
        if connected and self.abandons is not None:
            return stopped_by_ctrl_c(self.abandons)
        return STOPPED_CONNECTING


wire_log: ContextVar[WireLog | None] = ContextVar("wire_log", default=None)
"""The protocol log of this run (`--wire-log FILE`): every connection of every command records into it."""


async def run_on_servers(
    specs: Sequence[ServerSpec],
    job: Job[T],
    *,
    protocol: str,
    timeout: float,
    interrupt: Interrupt | None = None,
) -> list[Outcome[T]]:
    """Run `job` on each server concurrently; outcomes come back in the order of `specs`."""
    outcomes: list[Outcome[T]] = [Outcome(spec) for spec in specs]

    async def one(outcome: Outcome[T]) -> None:
        conn = ServerConnection(
            outcome.spec,
            protocol=parse_protocol_mode(protocol),
            timeout=timeout,
            stderr_log=stderr_log_for(outcome.spec),
            wire=wire_log.get(),
        )
        scope = interrupt.connecting() if interrupt is not None else anyio.CancelScope()
        try:
            with scope:
                async with conn:
                    if interrupt is not None:
                        interrupt.connected(scope)
                    outcome.identity = conn.identity
                    outcome.value = await job(conn)
        except ServerFault as fault:
            outcome.fault = fault
        except Exception as exc:  # a server fault the facade did not classify: still one line
            if is_output_closed_in_job(exc):
                raise  # our reader went away (`read --watch | head`): the run ends, no fault of the server's
            outcome.fault = describe_exception(exc, action="talking to the server", timeout=timeout)
        finally:
            if interrupt is not None:
                interrupt.finished(scope)
        if scope.cancel_called and outcome.value is None:  # abandoned (its server stopped)
            outcome.interrupted = True
            connected = outcome.identity is not None
            message = interrupt.stopped_message(connected) if interrupt is not None else STOPPED_CONNECTING
            outcome.fault = ServerFault(message, local=True)  # not what the abandon left behind
        if outcome.fault is not None:
            raw = outcome.fault  # masked for every output (JSON too), not only the stderr line
            outcome.fault = ServerFault(
                redact(raw.message, outcome.spec),
                raw.code,
                redact_value(raw.data, outcome.spec),
                local=raw.local,
            )
            outcome.stderr_tail = redact(conn.stderr_tail(), outcome.spec)
        outcome.problems = conn.problems.describe()
        outcome.notes = [redact(note_for(text, outcome.spec), outcome.spec) for text in conn.notes]

    async with anyio.create_task_group() as group:
        for outcome in outcomes:
            group.start_soon(one, outcome)
    for line in take_log_warnings():  # a log we could not write (a read-only home): the servers ran without
        note(f"warning: {line}")
    return outcomes
