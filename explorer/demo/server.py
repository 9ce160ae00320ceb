"""The built-in demo MCP server, on the low-level `mcp.server.Server`.

Entry points: `build_server()` for in-process use (`mcp.Client(build_server())`), `serve_stdio()` and
`main()` for `mcp-url-explorer demo-server`. It stands in for a third-party server in the tests, in both
protocol eras, so what it does in each is spelled out here (and, for its users, in its `instructions`).

Change notifications:

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

Log messages (`notifications/message`; the `logging` capability is declared), with the logger names of
`explorer.demo.voice` and `data` = `{"message": ..., details}`:

- debug, `demo.resources`: a read of more than 16 KiB (the station index and the stations folder);
- info, `demo.completions`: every completion/complete answer;
- info, `demo.rollup`: the slow roll-up is done;
- notice, `demo.inbox`: a note arrived in docs://inbox/;
- warning, `demo.resources`: a read or subscribe of a URI that names nothing;
  warning, `demo.listing`: a rejected cursor;
- error, `demo.resources`: a read that failed inside the server (also answered with -32603).

Handshake era: `logging/setLevel` sets the connection's level (`info` until then). Modern era: there is
no `logging/setLevel` (-32601); a request opts in with `_meta["io.modelcontextprotocol/logLevel"]` and
gets the entries about it on its own stream, and the inbox notice reaches only open `subscriptions/listen`
streams that opted in. Without the opt-in a modern client gets no entries at all.

Progress: reading `metrics://rollup` (the global roll-up) is deliberately slow, five steps of 0.2 s, one
per region; a request that carries a `progressToken` gets `notifications/progress` after each step
(progress 1..5, total 5, message "Rolled up <region>"). Both eras.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import anyio
import mcp.types as types
from mcp import MCPError
from mcp.server import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.models import InitializationOptions
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS

from explorer import __version__
from explorer.demo import completions, contents, datafiles, metrics, prompts, voice
from explorer.demo.catalogue import CLOCK_URI, INBOX_PREFIX, catalogue, entries_under
from explorer.demo.connection import (
    ConnectionState,
    Context,
    clock_ticker,
    inbox_ticker,
    is_modern,
    log,
    may_log,
    state_of,
)
from explorer.demo.live import (
    CHANGE_ENV,
    DEFAULT_CHANGE_SECONDS,
    DEFAULT_TICK_SECONDS,
    TICK_ENV,
    Live,
    seconds_from_env,
)
from explorer.demo.paging import CursorError, PrefixListParams, page_of, template_matches
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
LARGE_READ_BYTES = 16 * 1024  # reads above this are logged at debug
ROLLUP_URI = "metrics://rollup"  # the global roll-up: the deliberately slow read
ROLLUP_STEP_SECONDS = 0.2

INSTRUCTIONS = datafiles.text("instructions.txt").rstrip("\n")

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


async def _not_found(ctx: Context, uri: str) -> MCPError:
    await log(ctx, "warning", voice.LOGGER_RESOURCES, f"{ctx.method}: no resource at {uri}", uri=uri)
    code = INVALID_PARAMS if is_modern(ctx) else RESOURCE_NOT_FOUND_LEGACY
    return MCPError(code=code, message=f"Resource not found: {uri}", data={"uri": uri})


async def _page(
    ctx: Context, items: Sequence[T], cursor: str | None, prefix: str
) -> tuple[list[T], str | None]:
    try:
        return page_of(items, cursor, prefix)
    except CursorError as error:
        await log(
            ctx, "warning", voice.LOGGER_LISTING, f"{ctx.method}: {error}", cursor=cursor, prefix=prefix
        )
        raise MCPError(code=INVALID_PARAMS, message=str(error)) from None


def _size(found: list[contents.Contents]) -> int:
    return sum(
        len(base64.b64decode(c.blob)) if isinstance(c, types.BlobResourceContents) else len(c.text.encode())
        for c in found
    )


async def _slow_rollup(ctx: Context, step_seconds: float) -> None:
    """Five steps, one per region, with progress after each (when the request carries a progressToken)."""
    regions = metrics.REGIONS
    for step, region in enumerate(regions, start=1):
        await anyio.sleep(step_seconds)
        await ctx.session.report_progress(step, len(regions), f"Rolled up {region}")
    deployments = sum(len(metrics.REGION_SERVICES[r]) for r in regions)
    message = f"Rolled up {deployments} deployments in {len(regions)} regions"
    await log(ctx, "info", voice.LOGGER_ROLLUP, message, uri=ROLLUP_URI, steps=len(regions))


def build_server(
    *,
    change_seconds: float | None = None,
    tick_seconds: float | None = None,
    rollup_step_seconds: float = ROLLUP_STEP_SECONDS,
) -> DemoServer:
    """A fresh demo server.

    Periods default to $EXPLORER_DEMO_CHANGE_SECONDS (30, 0 = never) and $EXPLORER_DEMO_TICK_SECONDS (2);
    `rollup_step_seconds` paces the slow read of `metrics://rollup` (five steps).
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
            tg.start_soon(clock_ticker, state)
            tg.start_soon(inbox_ticker, state)
            try:
                yield state
            finally:
                state.listen.close()
                tg.cancel_scope.cancel()

    async def list_resources(ctx: Context, params: PrefixListParams) -> types.ListResourcesResult:
        state_of(ctx)
        prefix = params.prefix or ""
        matching = [*entries_under(prefix), *(e for e in live.inbox_entries() if e.uri.startswith(prefix))]
        page, next_cursor = await _page(ctx, matching, params.cursor, prefix)
        return types.ListResourcesResult(resources=[e.to_resource() for e in page], next_cursor=next_cursor)

    async def list_templates(ctx: Context, params: PrefixListParams) -> types.ListResourceTemplatesResult:
        state_of(ctx)
        prefix = params.prefix or ""
        matching = [t for t in TEMPLATES if template_matches(t.uri_template, prefix)]
        page, next_cursor = await _page(ctx, matching, params.cursor, prefix)
        return types.ListResourceTemplatesResult(resource_templates=page, next_cursor=next_cursor)

    async def read_resource(
        ctx: Context, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        state_of(ctx)
        uri = params.uri
        if uri == ROLLUP_URI:
            await _slow_rollup(ctx, rollup_step_seconds)
        try:
            found = contents.read(uri, live)
        except Exception as error:  # boundary: a reader's bug reaches the client as one clear error
            logger.exception("reading %s failed", uri)
            await log(ctx, "error", voice.LOGGER_RESOURCES, f"Reading {uri} failed: {error}", uri=uri)
            raise MCPError(code=INTERNAL_ERROR, message=f"Internal error while reading {uri}") from error
        if found is None:
            raise await _not_found(ctx, uri)
        if may_log(ctx, "debug") and (size := _size(found)) > LARGE_READ_BYTES:
            message = f"Read {uri}: {size:,} bytes"
            await log(ctx, "debug", voice.LOGGER_RESOURCES, message, uri=uri, bytes=size)
        # 2026-07-28 caching hints (dropped on the handshake wire): static contents stay fresh for a while.
        changing = uri == CLOCK_URI or uri.startswith(INBOX_PREFIX)
        return types.ReadResourceResult(
            contents=found,
            ttl_ms=0 if changing else STATIC_TTL_MS,
            cache_scope="private" if changing else "public",
        )

    async def subscribe(ctx: Context, params: types.SubscribeRequestParams) -> types.EmptyResult:
        state = state_of(ctx)
        if contents.read(params.uri, live) is None:
            raise await _not_found(ctx, params.uri)
        state.legacy_subscriptions.add(params.uri)
        return types.EmptyResult()

    async def unsubscribe(ctx: Context, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        state_of(ctx).legacy_subscriptions.discard(params.uri)
        return types.EmptyResult()

    async def listen(
        ctx: Context, params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        state = state_of(ctx)
        state.listeners.append(ctx)  # for log entries about no request (see connection.announce)
        try:
            return await state.listen(ctx, params)
        finally:
            state.listeners.remove(ctx)

    async def list_prompts(
        ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        state = state_of(ctx)
        listed = prompts.live_prompts(len(state.live.inbox_entries()))
        page, next_cursor = await _page(ctx, listed, params.cursor if params else None, "")
        return types.ListPromptsResult(prompts=page, next_cursor=next_cursor)

    async def get_prompt(ctx: Context, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        state = state_of(ctx)
        notes = state.live.inbox_entries()
        if params.name == prompts.TRIAGE_INBOX.name and notes:
            return prompts.triage_inbox([(n.uri, n.title or n.name) for n in notes])
        return prompts.get_prompt(params.name, params.arguments)

    async def complete(ctx: Context, params: types.CompleteRequestParams) -> types.CompleteResult:
        state_of(ctx)
        context = params.context.arguments if params.context is not None else None
        completion = completions.complete(params.ref, params.argument, context)
        ref = params.ref.uri if isinstance(params.ref, types.ResourceTemplateReference) else params.ref.name
        name, count, total = params.argument.name, len(completion.values), completion.total
        await log(
            ctx,
            "info",
            voice.LOGGER_COMPLETIONS,
            f"Completed {name} of {ref}: {count} of {total} values",
            ref=ref,
            argument=name,
            typed=params.argument.value,
            values=count,
            total=total,
        )
        return types.CompleteResult(completion=completion)

    async def set_level(ctx: Context, params: types.SetLevelRequestParams) -> types.EmptyResult:
        state_of(ctx).log_level = params.level
        return types.EmptyResult()

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
    # Registered here rather than with on_set_logging_level, which warns (logging is deprecated in
    # 2026-07-28); the SDK declares the logging capability for it and answers -32601 in the modern era.
    server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, set_level)
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
