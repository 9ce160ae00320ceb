"""The built-in demo MCP server, on the low-level `mcp.server.Server`.

Entry points: `build_server()` for in-process use (`mcp.Client(build_server())`), `serve_stdio()` and
`main()` for `mcp-url-explorer demo-server`.

Change notifications, by protocol era:

- handshake era (initialize, up to 2025-11-25): `resources/subscribe` + `notifications/resources/updated`
  for `metrics://live/clock`; `notifications/resources/list_changed` pushed on the connection when an inbox
  note arrives (once the client has made a request).
- modern era (2026-07-28): `subscriptions/listen` streams, fed by a per-connection `InMemorySubscriptionBus`;
  `resources/subscribe` does not exist there.

Per-connection state lives in the server lifespan, which the SDK enters once per stdio connection and once
per in-process `Client`.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp.types as types
from mcp import MCPError
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.models import InitializationOptions
from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    ResourcesListChanged,
    ResourceUpdated,
)
from mcp.types import INVALID_PARAMS
from mcp.types.version import MODERN_PROTOCOL_VERSIONS

from explorer import __version__
from explorer.demo import completions, contents, datafiles, prompts
from explorer.demo.catalogue import (
    CLOCK_URI,
    INBOX_PREFIX,
    PAGE_SIZE,
    catalogue,
    decode_cursor,
    encode_cursor,
)
from explorer.demo.live import (
    CHANGE_ENV,
    DEFAULT_CHANGE_SECONDS,
    DEFAULT_TICK_SECONDS,
    TICK_ENV,
    Live,
    seconds_from_env,
)
from explorer.demo.templates import TEMPLATES

logger = logging.getLogger(__name__)

SERVER_NAME = "mcp-url-explorer-demo"
RESOURCE_NOT_FOUND_LEGACY = -32002
STATIC_TTL_MS = 300_000

INSTRUCTIONS = datafiles.text("instructions.txt").rstrip("\n")


@dataclass
class ConnectionState:
    """What one connection needs: the shared live state, its listen bus, and its handshake-era session."""

    live: Live
    bus: InMemorySubscriptionBus = field(default_factory=InMemorySubscriptionBus)
    listen: ListenHandler = field(init=False)
    legacy_session: ServerSession | None = None
    legacy_subscriptions: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.listen = ListenHandler(self.bus)


Context = ServerRequestContext[ConnectionState, Any]


class DemoServer(Server[ConnectionState]):
    """`Server` that advertises `resources.listChanged` in the handshake era by default."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(resources_changed=True),
            experimental_capabilities,
            extensions,
        )


def _is_modern(ctx: Context) -> bool:
    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


def _state(ctx: Context) -> ConnectionState:
    """The connection's state; in the handshake era, also remember the session to push notifications on."""
    state = ctx.lifespan_context
    if not _is_modern(ctx):
        state.legacy_session = ctx.session
    return state


def _not_found(ctx: Context, uri: str) -> MCPError:
    code = INVALID_PARAMS if _is_modern(ctx) else RESOURCE_NOT_FOUND_LEGACY
    return MCPError(code=code, message=f"Resource not found: {uri}", data={"uri": uri})


def _invalid_cursor() -> MCPError:
    return MCPError(code=INVALID_PARAMS, message="invalid cursor")


async def _push(session: ServerSession | None, notification: types.ServerNotification) -> None:
    """Best effort: a client that went away must not stop the tickers."""
    if session is None:
        return
    try:
        await session.send_notification(notification)
    except Exception:  # boundary: the transport may already be closed
        logger.debug("could not deliver %s", type(notification).__name__, exc_info=True)


async def _clock_ticker(state: ConnectionState) -> None:
    live = state.live
    while True:
        await anyio.sleep(live.seconds_to_next_tick())
        await state.bus.publish(ResourceUpdated(uri=CLOCK_URI))
        if CLOCK_URI in state.legacy_subscriptions:
            updated = types.ResourceUpdatedNotification(
                params=types.ResourceUpdatedNotificationParams(uri=CLOCK_URI)
            )
            await _push(state.legacy_session, updated)


async def _inbox_ticker(state: ConnectionState) -> None:
    live = state.live
    while (delay := live.seconds_to_next_note()) is not None:
        await anyio.sleep(delay)
        await state.bus.publish(ResourcesListChanged())
        await _push(state.legacy_session, types.ResourceListChangedNotification())


def build_server(*, change_seconds: float | None = None, tick_seconds: float | None = None) -> DemoServer:
    """A fresh demo server.

    Periods default to $EXPLORER_DEMO_CHANGE_SECONDS (30, 0 = never) and $EXPLORER_DEMO_TICK_SECONDS (2).
    """
    live = Live(
        change_seconds=seconds_from_env(CHANGE_ENV, DEFAULT_CHANGE_SECONDS)
        if change_seconds is None
        else change_seconds,
        tick_seconds=seconds_from_env(TICK_ENV, DEFAULT_TICK_SECONDS)
        if tick_seconds is None
        else tick_seconds,
    )
    catalogue()  # build the static catalogue now rather than on the first request

    @asynccontextmanager
    async def lifespan(_: Server[ConnectionState]) -> AsyncIterator[ConnectionState]:
        state = ConnectionState(live)
        async with anyio.create_task_group() as tg:
            tg.start_soon(_clock_ticker, state)
            tg.start_soon(_inbox_ticker, state)
            try:
                yield state
            finally:
                state.listen.close()
                tg.cancel_scope.cancel()

    async def list_resources(
        ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        _state(ctx)
        cursor = params.cursor if params is not None else None
        offset = 0
        if cursor is not None:
            decoded = decode_cursor(cursor)
            if decoded is None:
                raise _invalid_cursor()
            offset = decoded
        entries = catalogue().entries
        inbox = live.inbox_entries()
        total = len(entries) + len(inbox)
        if offset >= total:
            raise _invalid_cursor()
        end = min(offset + PAGE_SIZE, total)
        page = [*entries[offset:end], *inbox[max(0, offset - len(entries)) : max(0, end - len(entries))]]
        return types.ListResourcesResult(
            resources=[e.to_resource() for e in page],
            next_cursor=encode_cursor(end) if end < total else None,
        )

    async def list_templates(
        ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        _state(ctx)
        if params is not None and params.cursor is not None:
            raise _invalid_cursor()
        return types.ListResourceTemplatesResult(resource_templates=list(TEMPLATES))

    async def read_resource(
        ctx: Context, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        _state(ctx)
        found = contents.read(params.uri, live)
        if found is None:
            raise _not_found(ctx, params.uri)
        # 2026-07-28 caching hints (dropped on the handshake wire): static contents stay fresh for a while.
        changing = params.uri == CLOCK_URI or params.uri.startswith(INBOX_PREFIX)
        return types.ReadResourceResult(
            contents=found,
            ttl_ms=0 if changing else STATIC_TTL_MS,
            cache_scope="private" if changing else "public",
        )

    async def subscribe(ctx: Context, params: types.SubscribeRequestParams) -> types.EmptyResult:
        state = _state(ctx)
        if contents.read(params.uri, live) is None:
            raise _not_found(ctx, params.uri)
        state.legacy_subscriptions.add(params.uri)
        return types.EmptyResult()

    async def unsubscribe(ctx: Context, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        _state(ctx).legacy_subscriptions.discard(params.uri)
        return types.EmptyResult()

    async def listen(
        ctx: Context, params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        return await _state(ctx).listen(ctx, params)

    async def list_prompts(
        ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        _state(ctx)
        if params is not None and params.cursor is not None:
            raise _invalid_cursor()
        return types.ListPromptsResult(prompts=list(prompts.PROMPTS))

    async def get_prompt(ctx: Context, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        _state(ctx)
        return prompts.get_prompt(params.name, params.arguments)

    async def complete(ctx: Context, params: types.CompleteRequestParams) -> types.CompleteResult:
        _state(ctx)
        context = params.context.arguments if params.context is not None else None
        return types.CompleteResult(completion=completions.complete(params.ref, params.argument, context))

    return DemoServer(
        SERVER_NAME,
        version=__version__,
        title="mcp-url-explorer demo",
        description="A handbook, a fake source tree and a big synthetic dataset, to explore.",
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
        on_subscribe_resource=subscribe,
        on_unsubscribe_resource=unsubscribe,
        on_subscriptions_listen=listen,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_completion=complete,
    )


async def serve_stdio() -> None:
    """Serve the demo on this process's stdin/stdout until the client closes the connection."""
    from mcp.server.stdio import stdio_server

    server = build_server()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main() -> None:
    """`mcp-url-explorer demo-server`: the demo on stdio."""
    anyio.run(serve_stdio)
