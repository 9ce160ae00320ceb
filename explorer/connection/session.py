"""ServerConnection: one live MCP connection, the facade the CLI and the TUI share.

Enter and exit it in the same task (anyio cancel scopes); the TUI holds it in one long-lived worker.
Every failure leaves here as a `ServerFault` with one clear sentence, never a raw SDK exception.
"""

from __future__ import annotations

import warnings
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

import anyio

from explorer import __version__
from explorer.config import ServerSpec, redact, redact_value
from explorer.connection.errors import (
    CONNECTION_CLOSED,
    REQUEST_TIMEOUT,
    ProtocolProblems,
    ServerFault,
    describe_exception,
)
from explorer.connection.sdk_logs import route_sdk_logs
from explorer.connection.transports import open_transport, tail
from explorer.model.input_required import describe_unfinished, unfinished_data

if TYPE_CHECKING:
    from mcp import Client

    from explorer.connection.stdio import StderrPump

ProtocolMode = Literal["auto", "legacy", "2026-07-28"]
PROTOCOL_MODES: tuple[ProtocolMode, ...] = ("auto", "legacy", "2026-07-28")
MessageHandler = Callable[[Any], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class ServerIdentity:
    """What the server said about itself when we connected."""

    name: str | None
    version: str | None
    protocol_version: str
    era: Literal["handshake", "modern"]
    capabilities: dict[str, Any]
    instructions: str | None

    def has(self, capability: str) -> bool:
        return self.capabilities.get(capability) is not None


class ServerConnection:
    """A connected MCP server: identity, raw requests for listing, reads, completion, prompts."""

    def __init__(
        self,
        spec: ServerSpec,
        *,
        protocol: ProtocolMode = "auto",
        timeout: float = 30.0,
        stderr_log: Path | None = None,
        message_handler: MessageHandler | None = None,
    ) -> None:
        self.spec = spec
        self.protocol = protocol
        self.timeout = timeout
        self.stderr_log = stderr_log
        self._message_handler = message_handler
        self._stack: AsyncExitStack | None = None
        self._client: Client | None = None
        self._pumps: list[StderrPump] = []
        self.identity: ServerIdentity | None = None
        self.problems = ProtocolProblems()  # what the server sent that was not a message

    @property
    def name(self) -> str:
        return self.spec.name

    async def __aenter__(self) -> ServerConnection:
        from mcp import Client
        from mcp.types import Implementation
        from mcp.types.version import MODERN_PROTOCOL_VERSIONS

        route_sdk_logs(self.spec)
        stack = AsyncExitStack()
        try:
            streams = await stack.enter_async_context(
                open_transport(
                    self.spec,
                    timeout=self.timeout,
                    stderr_log=self.stderr_log,
                    problems=self.problems,
                    pump_holder=self._pumps,
                )
            )
            client = Client(
                _StreamsTransport(streams),
                mode=self.protocol,
                read_timeout_seconds=self.timeout,
                message_handler=self._handle_message,
                client_info=Implementation(name="mcp-url-explorer", version=__version__),
                cache=None,  # an explorer must always see what the server says now
            )
            await stack.enter_async_context(client)
            if self.protocol not in ("auto", "legacy"):
                # A pinned modern version makes the SDK skip server/discover entirely, which would
                # leave us without the server's name, capabilities and instructions: ask once.
                from mcp.types import DiscoverResult

                raw_discover = await client.session.send_discover(self.protocol)
                client.session.adopt(DiscoverResult.model_validate(raw_discover))
        except BaseException as exc:
            cause = await _close_collecting(stack)
            await self._settle_stderr()
            if isinstance(exc, Exception | BaseExceptionGroup):
                raise self._fault(exc, "connecting") from None
            if cause is not None:
                # The transport's own task group failed (e.g. connection refused) and cancelled us:
                # that failure, not the cancellation, is what the user must see.
                raise self._fault(cause, "connecting") from None
            raise
        self._stack = stack
        self._client = client
        info = client.server_info
        version = client.protocol_version
        self.identity = ServerIdentity(
            name=info.name if info is not None else None,
            version=info.version if info is not None else None,
            protocol_version=version,
            era="modern" if version in MODERN_PROTOCOL_VERSIONS else "handshake",
            capabilities=client.server_capabilities.model_dump(by_alias=True, mode="json", exclude_none=True),
            instructions=client.instructions,
        )
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        stack, self._stack, self._client = self._stack, None, None
        if stack is None:
            return
        cause = await _close_collecting(stack)
        if cause is not None and isinstance(exc, anyio.get_cancelled_exc_class()):
            # A transport that died mid-session cancels the caller; report why instead.
            raise self._fault(cause, "talking to the server") from None

    @property
    def client(self) -> Client:
        if self._client is None:
            raise ServerFault(f"{self.name}: not connected")
        return self._client

    async def _handle_message(self, message: Any) -> None:
        """Transport errors (an HTTP server's unparsable event) are counted; the rest goes to the caller."""
        if isinstance(message, Exception):
            self.problems.transport_error(message)
            return
        if self._message_handler is not None:
            await self._message_handler(message)

    async def _settle_stderr(self) -> None:
        """Let the stderr pump write what a server said before dying, so the fault can quote it."""
        for pump in self._pumps:
            await pump.settle()

    def _fault(self, exc: BaseException, action: str) -> ServerFault:
        """One sentence for the failure, with the stderr line or stdout problems that explain it.

        Masked here, at the one place every fault passes: a server may echo a token back in an error.
        """
        fault = describe_exception(exc, action=action, timeout=self.timeout)
        message = fault.message
        if fault.code in (None, CONNECTION_CLOSED) and self.spec.transport == "stdio":
            last = _last_line(tail(self.stderr_log, 2048))
            if last:
                message = f"{message}; its stderr ends with: {last}"
        problems = self.problems.describe()
        if problems is not None and fault.code in (None, CONNECTION_CLOSED, REQUEST_TIMEOUT):
            message = f"{message}; the server also {problems}"
        return ServerFault(redact(message, self.spec), fault.code, redact_value(fault.data, self.spec))

    def stderr_tail(self, max_bytes: int = 4096) -> str:
        """The end of a stdio server's stderr log (empty for HTTP servers)."""
        return tail(self.stderr_log, max_bytes)

    async def request(self, method: str, params: Mapping[str, Any] | None, *, action: str) -> dict[str, Any]:
        """Send one request and return the result JSON object exactly as the server sent it.

        Listing uses this instead of the typed calls so one malformed item does not cost the whole
        page (the SDK validates a page as a unit) and so unknown fields survive into JSON output.
        It goes through the session's own stamping (protocol version `_meta` in the modern era).
        """
        session = self.client.session
        data: dict[str, Any] = {"method": method}
        if params is not None:
            data["params"] = dict(params)
        opts: dict[str, Any] = {"timeout": self.timeout}
        try:
            session._stamp(data, opts)  # type: ignore[arg-type]
            raw = await session._dispatcher.send_raw_request(method, data.get("params"), opts)  # type: ignore[arg-type]
        except Exception as exc:
            if getattr(exc, "code", CONNECTION_CLOSED) == CONNECTION_CLOSED:
                await self._settle_stderr()
            raise self._fault(exc, action) from None
        if not isinstance(raw, dict):
            raise ServerFault(f"{action}: the server's result is not a JSON object")
        return raw

    async def read_resource(self, uri: str) -> dict[str, Any]:
        """resources/read; returns the raw result, checked to have a `contents` list."""
        raw = await self.request("resources/read", {"uri": uri}, action=f"reading {uri}")
        self._check_final(raw, f"reading {uri}")
        contents = raw.get("contents")
        if not isinstance(contents, list):
            raise ServerFault(f"reading {uri}: the server's result has no 'contents' list")
        return raw

    async def complete(
        self,
        ref: Mapping[str, Any],
        argument: str,
        value: str,
        context: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """completion/complete for a template variable or prompt argument (raw `completion` object)."""
        params: dict[str, Any] = {"ref": dict(ref), "argument": {"name": argument, "value": value}}
        if context:
            params["context"] = {"arguments": dict(context)}
        raw = await self.request("completion/complete", params, action=f"completing {argument}")
        completion = raw.get("completion")
        if not isinstance(completion, dict):
            raise ServerFault(f"completing {argument}: the server's result has no 'completion' object")
        return completion

    async def list_prompts(self, max_pages: int = 100) -> list[dict[str, Any]]:
        """Every prompt over all pages (prompts lists are small; a repeated cursor stops it)."""
        prompts: list[dict[str, Any]] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(max_pages):
            params = {"cursor": cursor} if cursor is not None else None
            raw = await self.request("prompts/list", params, action="listing prompts")
            page = raw.get("prompts")
            if not isinstance(page, list):
                raise ServerFault("listing prompts: the server's result has no 'prompts' list")
            prompts.extend(p for p in page if isinstance(p, dict) and isinstance(p.get("name"), str))
            nxt = raw.get("nextCursor")
            if not isinstance(nxt, str):
                break
            if nxt in seen:
                raise ServerFault(f"listing prompts: the server repeated cursor {nxt!r} (a pagination loop)")
            seen.add(nxt)
            cursor = nxt
        return prompts

    async def get_prompt(self, name: str, arguments: Mapping[str, str]) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name}
        if arguments:
            params["arguments"] = dict(arguments)
        raw = await self.request("prompts/get", params, action=f"getting prompt {name}")
        self._check_final(raw, f"getting prompt {name}")
        if not isinstance(raw.get("messages"), list):
            raise ServerFault(f"getting prompt {name}: the server's result has no 'messages' list")
        return raw

    def _check_final(self, raw: Mapping[str, Any], action: str) -> None:
        """An "input required" (or other unfinished) result is a fault that says what the server wants."""
        unfinished = describe_unfinished(raw)
        if unfinished is not None:
            data = redact_value(unfinished_data(raw), self.spec)
            raise ServerFault(redact(f"{action}: {unfinished}", self.spec), None, data)


class _StreamsTransport:
    """Hands already-open streams to `mcp.Client` (which wants a transport context manager)."""

    def __init__(self, streams: Any) -> None:
        self._streams = streams

    async def __aenter__(self) -> Any:
        return self._streams

    async def __aexit__(self, *exc: object) -> None:
        return None


async def _close_collecting(stack: AsyncExitStack) -> BaseException | None:
    """Close a transport; return the real error its tasks died of (if any), never raise it.

    Cancellations are not causes; an exception group counts when it holds a non-cancellation error.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            await stack.aclose()
        except BaseException as exc:
            if _has_real_error(exc):
                return exc
            if not isinstance(exc, Exception | BaseExceptionGroup):
                raise
    return None


def _has_real_error(exc: BaseException) -> bool:
    if isinstance(exc, BaseExceptionGroup):
        return any(_has_real_error(inner) for inner in exc.exceptions)
    return isinstance(exc, Exception)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""
