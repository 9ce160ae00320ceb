"""Whether a Streamable HTTP server is still there while nothing comes from it (`Liveness`).

Over stdio the end of the server's output, and over the legacy SSE transport the end of its event stream,
end the connection's read stream, which sets `ServerConnection.lost` at once. Streamable HTTP has no such
stream: the SDK gives its GET event stream up without a word after two tries (a server may also answer
that GET 405 and never have one), so a server that died was seen only by the next request, and an idle
TUI showed it connected for good, `read --watch` waited for good.

So while a Streamable HTTP connection is open, once nothing was sent to the server nor received from it
for `IDLE_BEFORE_PING` seconds, it is sent an MCP `ping` (shown in the protocol log as such; not one of
the user's requests: no progress, no count). A listing or a stream of reads is traffic: no ping goes out
among them. What the ping comes to:

- any answer, an error too (-32601 from a server that knows no ping), says the server is there; so does
  a late one, and one that does not come within the request timeout marks nothing here either (though
  over Streamable HTTP the HTTP client's read timeout, the same `--timeout`, ends the connection under
  any request left unanswered that long, a ping's as the user's: `transports._waits_at_most`; when it is
  the ping's, the fault says the server "did not answer a ping (the idle check)", `errors.IDLE_CHECK`,
  not as if a request of the user's had waited). The next ping waits for another quiet spell;
- the transport failing under it (nothing accepts connections, the connection reset, the session gone
  and none to be had) is the loss. With the SDK as pinned, a POST that fails this way fails the
  transport's own task group, which ends the connection at once with that error, as any request to a
  server that went away does (`ServerConnection.__aexit__` says "cannot connect: nothing accepted the
  connection ..."). When the failure comes back as the ping's own error instead, `lost` is set and `why`
  is what `ServerConnection.loss_fault` says. (A notification's POST that fails, sent by the SDK as the
  server goes, ends the SDK's writer and so the read stream: `lost` is set, and without a `why` the loss
  is said as "the connection to the server was lost (did the server stop?)".)

The quiet spell: 10 s, so a server that went away is seen within about 10 s of the last message (plus how
long the failing connect takes: at once when the port is closed), for one small request per quiet spell
per server. The requests of a short CLI command are traffic, so it sends no ping, and closing the
connection cancels the watch with nothing to wait for (no courtesy cancel is sent for a ping).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anyio

from explorer import sdk_door
from explorer.connection.errors import describe_exception
from explorer.connection.stream_wrappers import ReceiveWrapper, SendWrapper

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

__all__ = ["IDLE_BEFORE_PING", "Liveness"]

IDLE_BEFORE_PING = 10.0
"""Seconds without a message either way before the server is pinged (a module constant: tests set it)."""

LOST = "the connection to the server was lost"


class Liveness:
    """One Streamable HTTP connection's last traffic, and its watch (`run`)."""

    def __init__(self) -> None:
        self._last = anyio.current_time()
        self.why: str | None = None  # why the connection was lost, when a ping found out

    def watching(self, streams: tuple[Any, Any]) -> tuple[Any, Any]:
        """`streams` (read, write), each message either way noted as traffic."""
        read, write = streams
        return _NotedReceive(read, self), _NotedSend(write, self)

    def heard(self) -> None:
        self._last = anyio.current_time()

    async def run(
        self,
        session: ClientSession,
        timeout: float,
        lost: anyio.Event,
        may_ping: Callable[[], bool] = lambda: True,
    ) -> None:
        """Ping the server after each quiet spell until the connection closes (cancelled) or is lost
        (`lost` set, here or elsewhere). `may_ping` false: not this spell (a connection logged in with
        OAuth: a ping the server refuses once the token expired would start a login nobody asked for)."""
        while not lost.is_set():
            quiet = anyio.current_time() - self._last
            if quiet < IDLE_BEFORE_PING:
                await anyio.sleep(IDLE_BEFORE_PING - quiet)
                continue
            if not may_ping():
                self.heard()
                continue
            why = await ping(session, timeout)
            self.heard()  # answered or not: the next ping after another quiet spell
            if why is not None:
                self.why = why
                lost.set()


async def ping(session: ClientSession, timeout: float) -> str | None:
    """Send one `ping`; None unless the transport failed under it, then why (a sentence)."""
    from mcp import MCPError

    data: dict[str, Any] = {"method": "ping"}
    # No courtesy cancel when it is abandoned (the connection closing): nothing to wait for at close.
    opts: dict[str, Any] = {"timeout": timeout, "cancel_on_abandon": False}
    try:
        await sdk_door.send_raw_request(session, "ping", data, opts)
    except MCPError as exc:
        said = describe_exception(exc, action=LOST, timeout=timeout)
        return said.message if said.connection_closed else None  # an answer, or no answer in time
    except Exception as exc:
        if _transport_failed(exc):
            return describe_exception(exc, action=LOST, timeout=timeout).message
        return None
    return None


def _transport_failed(exc: BaseException) -> bool:
    """Whether `exc` (or an error a group holds) is the transport failing: a connection refused or broken,
    the session gone. The HTTP client's own timeouts are not: a slow server is still there."""
    if isinstance(exc, BaseExceptionGroup):
        return any(_transport_failed(inner) for inner in exc.exceptions)
    import httpx2

    from explorer.connection.http_sessions import SessionGone

    if isinstance(exc, httpx2.TimeoutException):
        return False
    broken = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream)
    return isinstance(exc, httpx2.TransportError | SessionGone | OSError | broken)


class _NotedReceive(ReceiveWrapper):
    def __init__(self, inner: Any, liveness: Liveness) -> None:
        super().__init__(inner)
        self._liveness = liveness

    async def receive(self) -> Any:
        item = await self._inner.receive()
        self._liveness.heard()
        return item


class _NotedSend(SendWrapper):
    def __init__(self, inner: Any, liveness: Liveness) -> None:
        super().__init__(inner)
        self._liveness = liveness

    async def send(self, item: Any) -> None:
        self._liveness.heard()
        await self._inner.send(item)
