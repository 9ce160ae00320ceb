"""One connection to the demo: its state, what is pushed on it, and what the server says on it.

Per-connection state lives in the server lifespan, which the SDK enters once per stdio connection and
once per in-process `Client` (over Streamable HTTP it would be shared by every session of the server).
Two background tasks run per connection: the clock ticker and the inbox ticker.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
)
from mcp.types.version import MODERN_PROTOCOL_VERSIONS

from explorer.demo import voice
from explorer.demo.catalogue import CLOCK_URI
from explorer.demo.live import Live


@dataclass
class ConnectionState:
    """What one connection needs: the shared live state, its listen bus and open listen requests, its
    handshake-era session, subscriptions and log level."""

    live: Live
    bus: InMemorySubscriptionBus = field(default_factory=InMemorySubscriptionBus)
    listen: ListenHandler = field(init=False)
    listeners: list[Context] = field(default_factory=list)  # modern era: open subscriptions/listen requests
    legacy_session: ServerSession | None = None
    legacy_subscriptions: set[str] = field(default_factory=set)
    log_level: types.LoggingLevel = voice.DEFAULT_LEVEL  # handshake era: set by logging/setLevel

    def __post_init__(self) -> None:
        self.listen = ListenHandler(self.bus)


Context = ServerRequestContext[ConnectionState, Any]


def is_modern(ctx: Context) -> bool:
    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


def state_of(ctx: Context) -> ConnectionState:
    """The connection's state; in the handshake era, also remember the session to push notifications on."""
    state = ctx.lifespan_context
    if not is_modern(ctx):
        state.legacy_session = ctx.session
    return state


def may_log(ctx: Context, level: types.LoggingLevel) -> bool:
    """Whether an entry at `level` may be sent for this request (see `explorer.demo.voice`)."""
    if is_modern(ctx):
        requested = voice.requested_level(ctx.meta)
        return requested is not None and voice.at_least(level, requested)
    return voice.at_least(level, ctx.lifespan_context.log_level)


async def log(
    ctx: Context, level: types.LoggingLevel, logger_name: str, message: str, **details: Any
) -> None:
    """A log entry about this request, on its stream, if the client asked for that level."""
    if may_log(ctx, level):
        entry = voice.entry(level, logger_name, message, **details)
        await voice.send(ctx.session, entry, ctx.request_id)


async def announce(
    state: ConnectionState, level: types.LoggingLevel, logger_name: str, message: str, **details: Any
) -> None:
    """A log entry about no request in particular: on the handshake-era connection, or on the modern
    era's open listen streams that opted in to that level."""
    entry = voice.entry(level, logger_name, message, **details)
    if state.legacy_session is not None and voice.at_least(level, state.log_level):
        await voice.send(state.legacy_session, entry, None)
    for ctx in list(state.listeners):
        requested = voice.requested_level(ctx.meta)
        if requested is not None and voice.at_least(level, requested):
            await voice.send(ctx.session, entry, ctx.request_id)


async def push(session: ServerSession | None, notification: types.ServerNotification) -> None:
    """A handshake-era notification on the connection, best effort: a client gone must not stop a ticker."""
    if session is not None:
        await voice.send(session, notification, None)


async def clock_ticker(state: ConnectionState) -> None:
    live = state.live
    while True:
        await anyio.sleep(live.seconds_to_next_tick())
        await state.bus.publish(ResourceUpdated(uri=CLOCK_URI))
        if CLOCK_URI in state.legacy_subscriptions:
            updated = types.ResourceUpdatedNotification(
                params=types.ResourceUpdatedNotificationParams(uri=CLOCK_URI)
            )
            await push(state.legacy_session, updated)


async def inbox_ticker(state: ConnectionState) -> None:
    live = state.live
    announced = len(live.inbox_entries())
    while (delay := live.seconds_to_next_note()) is not None:
        await anyio.sleep(delay)
        await state.bus.publish(ResourcesListChanged())
        await push(state.legacy_session, types.ResourceListChangedNotification())
        notes = live.inbox_entries()
        if notes and not announced:  # the first note brings the inbox prompt: the prompt list changed
            await state.bus.publish(PromptsListChanged())
            await push(state.legacy_session, types.PromptListChangedNotification())
        for note in notes[announced:]:
            await announce(state, "notice", voice.LOGGER_INBOX, f"New note: {note.title}", uri=note.uri)
        announced = len(notes)
