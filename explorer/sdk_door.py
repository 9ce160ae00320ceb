"""The one door to the MCP SDK's private names (docs/architecture.md, "One door to the SDK").

The explorer leans on a few things the SDK does not export: the session's request stamping and raw
dispatch (listing keeps unknown fields and survives one malformed item), the HTTP client factory, the
legacy SSE client's event limit, the `server/discover` probe timeout and two hooks of the OAuth providers
(a stdio server's process is started and stopped without the SDK: `connection/server_process.py`).
Every such name is reached through this module only, so a new `mcp` release that moves one breaks here,
and `tests/test_sdk_door.py` says which name moved.

Imports are lazy: the SDK costs start-up time, and the CLI's usage errors must not pay it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import httpx2
    from mcp.client._transport import TransportStreams as TransportStreams
    from mcp.client.session import ClientSession

# (module, attribute) of every private name used, for the canary test and for `missing_names`.
PRIVATE_NAMES: tuple[tuple[str, str], ...] = (
    ("mcp.client.session", "ClientSession._stamp"),
    ("mcp.client.session", "ClientSession._dispatcher"),
    ("mcp.client.session", "DISCOVER_TIMEOUT_SECONDS"),
    ("mcp.client._transport", "TransportStreams"),
    ("mcp.shared._httpx_utils", "create_mcp_http_client"),
    ("mcp.shared._httpx_utils", "sse_within_origin"),
    ("mcp.client.sse", "sse_within_origin"),
    ("mcp.client.auth", "OAuthClientProvider._initialize"),
    ("mcp.client.auth", "OAuthClientProvider._perform_authorization"),
)

# Set on each session in its constructor, so only a live session shows them (the canary test does).
SESSION_INSTANCE_NAMES = frozenset({"ClientSession._stamp", "ClientSession._dispatcher"})


def missing_names() -> list[str]:
    """The private names this SDK release no longer has, as `module:attribute` (empty when all are there).

    Instance attributes (`SESSION_INSTANCE_NAMES`) cannot be seen on the class; they are checked on a
    live session by the canary test instead.
    """
    import importlib

    missing: list[str] = []
    for module_name, dotted in PRIVATE_NAMES:
        if dotted in SESSION_INSTANCE_NAMES:
            continue
        try:
            target: Any = importlib.import_module(module_name)
        except ImportError:
            missing.append(f"{module_name}:{dotted}")
            continue
        for part in dotted.split("."):
            if not hasattr(target, part):
                missing.append(f"{module_name}:{dotted}")
                break
            target = getattr(target, part)
    return missing


# -- the session: raw requests --------------------------------------------------------------------


def allocate_request_id(session: ClientSession) -> Any:
    """The id the session's dispatcher would choose next, or None when it cannot say.

    Taking it first lets the caller find the response's size the transport recorded under that id.
    """
    allocate = getattr(session._dispatcher, "_allocate_id", None)
    return allocate() if allocate is not None else None


async def send_raw_request(
    session: ClientSession, method: str, data: dict[str, Any], opts: dict[str, Any]
) -> Any:
    """Send `{"method", "params"}` as the session would (its stamping: protocol version, `_meta`), but take
    the result as raw JSON, unvalidated: one malformed item must not cost a whole page."""
    session._stamp(data, opts)  # type: ignore[arg-type]
    return await session._dispatcher.send_raw_request(method, data.get("params"), opts)  # type: ignore[arg-type]


# -- the `server/discover` probe -----------------------------------------------------------------

_sdk_discover_timeout: float | None = None


def bound_discover_timeout(timeout: float) -> float:
    """Make `--protocol auto` wait at most `timeout` for `server/discover`; returns the wait now set.

    The SDK probes with a module constant read at call time (10 s), so a server that silently ignores
    unknown methods cost that much whatever the user asked for. Never raised above the SDK's own value
    (the wait returned is what a failure must name); process-wide, which is right because one run uses
    one `--timeout`.
    """
    import mcp.client.session as sdk_session

    global _sdk_discover_timeout
    if _sdk_discover_timeout is None:
        _sdk_discover_timeout = float(sdk_session.DISCOVER_TIMEOUT_SECONDS)
    bound = min(_sdk_discover_timeout, timeout)
    sdk_session.DISCOVER_TIMEOUT_SECONDS = bound
    return bound


# -- HTTP -----------------------------------------------------------------------------------------


def http_client(headers: dict[str, str] | None, timeout: Any, auth: Any) -> httpx2.AsyncClient:
    """An HTTP client with the SDK's defaults (redirects followed, its timeouts unless given)."""
    from mcp.shared._httpx_utils import create_mcp_http_client

    return create_mcp_http_client(headers=headers, timeout=timeout, auth=auth)


def raise_sse_event_limit(limit: int) -> None:
    """Let the legacy SSE client (`mcp.client.sse.sse_client`) take server-sent events of up to `limit` bytes.

    Each event is one JSON-RPC message, a whole page of a listing: a server that cannot paginate sends
    everything in one (about 2 MB for 20,000 resources). The client opens its stream through
    `sse_within_origin`, whose 1 MiB default it has no parameter for, so such a listing failed at once.
    Streamable HTTP takes the limit as a parameter instead. Process-wide (one limit for every server),
    and calling it again only sets the limit again.
    """
    import mcp.client.sse as sdk_sse
    from mcp.shared._httpx_utils import sse_within_origin

    def within_origin(
        client: httpx2.AsyncClient,
        url: Any,
        *,
        headers: dict[str, str] | None = None,
        max_event_size: int | None = limit,
    ) -> Any:
        return sse_within_origin(client, url, headers=headers, max_event_size=max_event_size)

    sdk_sse.sse_within_origin = within_origin  # type: ignore[attr-defined]


# -- OAuth providers ------------------------------------------------------------------------------

Provider = TypeVar("Provider")


def hooked_provider(
    base: type[Provider],
    *,
    after_initialize: Callable[[Any], None],
    before_authorization: Callable[[Any], None],
) -> type[Provider]:
    """A subclass of an SDK OAuth provider that calls back after it loads its state (so stored tokens and
    a configured client can be put in) and before each authorization (counted, scopes widened)."""
    parent: Any = base

    class Hooked(parent):  # type: ignore[misc]
        async def _initialize(self) -> None:
            await super()._initialize()
            after_initialize(self)

        async def _perform_authorization(self) -> Any:
            before_authorization(self)
            return await super()._perform_authorization()

    Hooked.__name__ = Hooked.__qualname__ = f"Hooked{base.__name__}"
    hooked: type[Provider] = Hooked
    return hooked


__all__ = [
    "PRIVATE_NAMES",
    "allocate_request_id",
    "bound_discover_timeout",
    "hooked_provider",
    "http_client",
    "missing_names",
    "raise_sse_event_limit",
    "send_raw_request",
]
