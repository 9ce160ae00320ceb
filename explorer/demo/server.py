"""The built-in demo MCP server, on the low-level `mcp.server.Server`.

Entry points: `build_server()` for in-process use (`mcp.Client(build_server())`), `serve_stdio()` and
`main()` for `mcp-url-explorer demo-server`.

Change notifications, by protocol era:

- handshake era (initialize, up to 2025-11-25): `resources/subscribe` + `notifications/resources/updated`
  for `metrics://live/clock`; `notifications/resources/list_changed` pushed on the connection when an inbox
  note arrives (once the client has made a request).
- modern era (2026-07-28): `subscriptions/listen` streams, fed by a per-connection `InMemorySubscriptionBus`;
  `resources/subscribe` does not exist there.

Prefix listing (SEP-1269, closed unaccepted; its successor SEP-2564 proposes a `filter` instead): the
demo is a reference implementation of the proposal. `resources/list` and `resources/templates/list`
accept an optional string param `prefix`. Resources are listed when their URI starts with it; templates
when their `uriTemplate` starts with it or their literal part (the text before the first `{`) is a prefix
of it. The cursor is a position in the filtered list and names the prefix it was issued for; a cursor
used with another prefix is -32602 ("invalid cursor: it was issued for ..."). Pages stay at 100. As no
released spec has the param, it is advertised as an experimental capability, in both eras:
`capabilities.experimental["prefixFilter"] = {"methods": ["resources/list", "resources/templates/list"],
"param": "prefix"}`. The SDK's params model drops unknown members, so the two list handlers are
registered with their own model (`paging.PrefixListParams`), which the SDK validates in both eras.

Per-connection state lives in the server lifespan, which the SDK enters once per stdio connection and once
per in-process `Client`.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

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
from explorer.demo.catalogue import CLOCK_URI, INBOX_PREFIX, catalogue, entries_under
from explorer.demo.live import (
    CHANGE_ENV,
    DEFAULT_CHANGE_SECONDS,
    DEFAULT_TICK_SECONDS,
    TICK_ENV,
    Live,
    seconds_from_env,
)
from explorer.demo.paging import (
    INVALID_CURSOR,
    CursorError,
    PrefixListParams,
    page_of,
    template_matches,
)
from explorer.demo.templates import TEMPLATES

logger = logging.getLogger(__name__)

SERVER_NAME = "mcp-url-explorer-demo"
RESOURCE_NOT_FOUND_LEGACY = -32002
STATIC_TTL_MS = 300_000
# Advertises SEP-1269's `prefix` param (see the module docstring): experimental, as no spec has it.
PREFIX_FILTER_CAPABILITY = "prefixFilter"
PREFIX_FILTER_SETTINGS: dict[str, Any] = {
    "methods": ["resources/list", "resources/templates/list"],
    "param": "prefix",
}

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
T = TypeVar("T")


class DemoServer(Server[ConnectionState]):
    """`Server` that advertises `resources.listChanged` in the handshake era by default, and the prefix
    filter in both eras (the SDK derives the modern era's capabilities through `get_capabilities`)."""

    def get_capabilities(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
        *,
        protocol_version: str | None = None,
    ) -> types.ServerCapabilities:
        experimental = {PREFIX_FILTER_CAPABILITY: PREFIX_FILTER_SETTINGS, **(experimental_capabilities or {})}
        return super().get_capabilities(
            notification_options, experimental, extensions, protocol_version=protocol_version
        )

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
    return MCPError(code=INVALID_PARAMS, message=INVALID_CURSOR)


def _page(items: Sequence[T], cursor: str | None, prefix: str) -> tuple[list[T], str | None]:
    try:
        return page_of(items, cursor, prefix)
    except CursorError as error:
        raise MCPError(code=INVALID_PARAMS, message=str(error)) from None


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

    async def list_resources(ctx: Context, params: PrefixListParams) -> types.ListResourcesResult:
        _state(ctx)
        prefix = params.prefix or ""
        matching = [*entries_under(prefix), *(e for e in live.inbox_entries() if e.uri.startswith(prefix))]
        page, next_cursor = _page(matching, params.cursor, prefix)
        return types.ListResourcesResult(resources=[e.to_resource() for e in page], next_cursor=next_cursor)

    async def list_templates(ctx: Context, params: PrefixListParams) -> types.ListResourceTemplatesResult:
        _state(ctx)
        prefix = params.prefix or ""
        matching = [t for t in TEMPLATES if template_matches(t.uri_template, prefix)]
        page, next_cursor = _page(matching, params.cursor, prefix)
        return types.ListResourceTemplatesResult(resource_templates=page, next_cursor=next_cursor)

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

    server = DemoServer(
        SERVER_NAME,
        version=__version__,
        title="mcp-url-explorer demo",
        description="A handbook, a fake source tree and a big synthetic dataset, to explore.",
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        on_read_resource=read_resource,
        on_subscribe_resource=subscribe,
        on_unsubscribe_resource=unsubscribe,
        on_subscriptions_listen=listen,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_completion=complete,
    )
    # Registered with their own params model, so that `prefix` reaches them (see PrefixListParams).
    server.add_request_handler("resources/list", PrefixListParams, list_resources)
    server.add_request_handler("resources/templates/list", PrefixListParams, list_templates)
    return server


async def serve_stdio() -> None:
    """Serve the demo on this process's stdin/stdout until the client closes the connection."""
    from mcp.server.stdio import stdio_server

    server = build_server()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main() -> None:
    """`mcp-url-explorer demo-server`: the demo on stdio."""
    anyio.run(serve_stdio)
