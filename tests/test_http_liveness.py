"""A Streamable HTTP server that goes away while the connection is quiet is seen gone (`liveness`): the
connection pings it after a quiet spell, and the ping fails the way any request to it would.

Before, nothing was sent while the connection was quiet: the SDK gives its GET event stream up without a
word, so the TUI showed the server "● connected" for good, and `read --watch` waited for good (with
`--for`, it exited 3, "no new version", not 1, "the server went away"). A server that answers the ping
with an error (-32601: it knows no ping) is there, and stays connected.

The quiet spell is set short here (`IDLE_BEFORE_PING`); each wait is a hang guard only.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import anyio
import anyio.to_thread
import pytest

from explorer.config import ServerSpec
from explorer.connection import liveness
from explorer.connection.errors import ServerFault
from explorer.connection.session import ServerConnection
from explorer.connection.wire import WireLog
from explorer.widgets.server_bar import ServerBar
from tests.app_helpers import main_screen, settled_app, wait_for
from tests.helpers.cli import run_cli_patched
from tests.helpers.loopback_http import JsonRpcHandler
from tests.test_http_transports import start_reference

HANG_GUARD = 60.0  # only stops a run that would hang for good
QUIET = 0.1  # the quiet spell before a ping, in these tests
GONE = "cannot connect: nothing accepted the connection (is the server running, at that host and port?)"
URI = "test://live/doc"


class _Killable(ThreadingHTTPServer):
    """A loopback server that can die as a process does: its port closed and every connection it holds
    cut (`shutdown` alone leaves the kept-alive connections answering)."""

    daemon_threads = True

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(("127.0.0.1", 0), handler)
        self.held: list[socket.socket] = []

    def get_request(self) -> tuple[socket.socket, Any]:
        connection, address = super().get_request()
        self.held.append(connection)
        return connection, address

    def handle_error(self, request: Any, client_address: Any) -> None:
        return None  # a handler whose connection was cut: the death is the point

    def kill(self) -> None:
        self.shutdown()
        self.server_close()
        for connection in self.held:
            with suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
            connection.close()


@contextmanager
def killable(handler: type[BaseHTTPRequestHandler]) -> Iterator[tuple[str, _Killable]]:
    server = _Killable(handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp", server
    finally:
        server.kill()


class _Doc(JsonRpcHandler):
    """A handshake-era server of one resource that can be followed; counts the pings it is sent."""

    server_name = "doc"
    capabilities: ClassVar[dict[str, object]] = {"resources": {"subscribe": True}}
    pings: ClassVar[list[object]] = []

    def answer(self, method: str, message: dict[str, Any]) -> None:
        if method == "ping":
            type(self).pings.append(message.get("id"))
        super().answer(method, message)

    def results(self) -> dict[str, object]:
        return {
            **super().results(),
            "resources/list": {"resources": [{"uri": URI, "name": "doc"}]},
            "resources/read": {"contents": [{"uri": URI, "mimeType": "text/plain", "text": "first"}]},
        }


class _NoPing(_Doc):
    """Answers `ping` -32601: it knows no such method, and is there all the same."""

    pings: ClassVar[list[object]] = []

    def result(self, method: str, message: dict[str, Any]) -> object | None:
        return None if method == "ping" else super().result(method, message)


class _DiesWhenFollowed(_Doc):
    """Dies once it has answered `resources/subscribe`: the watch is waiting for news by then."""

    def answer(self, method: str, message: dict[str, Any]) -> None:
        super().answer(method, message)
        if method == "resources/subscribe":
            server = self.server
            assert isinstance(server, _Killable)
            threading.Thread(target=server.kill, daemon=True).start()


@pytest.fixture
def quiet_spell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(liveness, "IDLE_BEFORE_PING", QUIET)


def http_spec(url: str, name: str = "doc") -> ServerSpec:
    return ServerSpec(name=name, transport="http", url=url)


async def what_the_loss_says(conn: ServerConnection, kill: Callable[[], object]) -> str:
    """Kill the server once `conn` is up and quiet (a request answered: what the connection sent on its
    own while connecting has gone out), then wait for the loss as the TUI and `read --watch` do; what it
    is said as."""
    try:
        async with conn:
            await conn.request("resources/list", None, action="listing resources")
            await anyio.to_thread.run_sync(kill)
            await conn.lost.wait()
            raise await conn.loss_fault()
    except ServerFault as fault:
        return fault.message
    raise AssertionError("the connection ended without a fault")


@pytest.mark.anyio
@pytest.mark.usefixtures("quiet_spell")
async def test_a_quiet_connection_to_a_server_that_went_away_ends_saying_so() -> None:
    with killable(_Doc) as (url, server):
        conn = ServerConnection(http_spec(url), protocol="legacy", timeout=10.0)
        with anyio.fail_after(HANG_GUARD):
            said = await what_the_loss_says(conn, server.kill)
    assert said.endswith(GONE), said


@pytest.mark.anyio
@pytest.mark.usefixtures("quiet_spell")
async def test_a_server_that_answers_ping_with_an_error_is_there() -> None:
    wire = WireLog()
    _NoPing.pings.clear()
    with killable(_NoPing) as (url, _server):
        async with ServerConnection(http_spec(url), protocol="legacy", timeout=10.0, wire=wire) as conn:
            with anyio.fail_after(HANG_GUARD):
                while len(_NoPing.pings) < 3:  # noqa: ASYNC110  (counted in the server's threads)
                    await anyio.sleep(QUIET)
            assert not conn.lost.is_set()
            listed = await conn.request("resources/list", None, action="listing resources")
            assert listed["resources"][0]["uri"] == URI  # and it still works
    assert not conn.lost.is_set()
    pings = [frame for frame in wire.frames if frame.method == "ping"]
    assert pings and all(frame.kind == "request" and frame.direction == "send" for frame in pings)
    answers = {frame.id for frame in wire.frames if frame.kind == "error"}
    assert {frame.id for frame in pings[:3]} <= answers  # each answered -32601, as the log shows


@pytest.mark.interop
@pytest.mark.anyio
@pytest.mark.usefixtures("quiet_spell")
async def test_the_reference_server_killed_is_seen_gone(reference_server: str) -> None:
    """The npm reference server over Streamable HTTP, its process killed (its GET event stream included)."""
    proc, port = start_reference("streamableHttp")

    def kill() -> None:
        proc.kill()
        proc.wait()

    try:
        conn = ServerConnection(http_spec(f"http://127.0.0.1:{port}/mcp", "everything"), timeout=10.0)
        with anyio.fail_after(HANG_GUARD):
            said = await what_the_loss_says(conn, kill)
    finally:
        proc.kill()
        proc.wait()
    assert said.endswith(GONE), said


def test_read_watch_exits_1_at_once_when_the_server_goes_away() -> None:
    with killable(_DiesWhenFollowed) as (url, _server):
        result = run_cli_patched(
            f"import explorer.connection.liveness as liveness\nliveness.IDLE_BEFORE_PING = {QUIET}",
            "read", URI, "--watch", "--for", "30", "--timeout", "10", "-s", url,
            timeout=HANG_GUARD,
        )  # fmt: skip
    assert result.code == 1, result  # not 3: "no new version came within 30 seconds"
    assert "first" in result.stdout, result  # the first version was printed
    [line] = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert line.endswith(GONE), result
    assert "Traceback" not in result.stderr


@pytest.mark.anyio
@pytest.mark.usefixtures("quiet_spell")
async def test_the_tui_shows_a_quiet_http_server_that_went_away_failed() -> None:
    with killable(_Doc) as (url, server):
        async with settled_app(http_spec(url, "doc")) as (app, pilot):
            screen = main_screen(app)
            status = screen.catalogue.servers["doc"]
            assert status.state == "ready"
            await anyio.to_thread.run_sync(server.kill)
            await wait_for(pilot, lambda: status.state == "failed", timeout=HANG_GUARD)
            assert (status.error or "").endswith(GONE), status.error
            await pilot.pause()
            bar = str(screen.query_one(ServerBar).render())
            assert "✗" in bar and "doc" in bar, bar


@pytest.mark.anyio
async def test_no_ping_goes_out_while_the_connection_may_not_ping(monkeypatch: pytest.MonkeyPatch) -> None:
    """A connection logged in with OAuth is not pinged (`ServerConnection._may_ping`): a ping refused
    once the token expired would start a login no user action asked for. The watch asks again at each
    quiet spell, and pings once it may."""
    from explorer.connection import liveness

    monkeypatch.setattr(liveness, "IDLE_BEFORE_PING", 0.001)
    asked: list[bool] = []
    pinged: list[float] = []
    lost = anyio.Event()

    def may_ping() -> bool:
        asked.append(len(asked) >= 5)  # refused five spells, then allowed
        return asked[-1]

    async def ping(session: object, timeout: float) -> str | None:
        pinged.append(timeout)
        return "gone"  # the transport failed: the watch ends, `lost` set

    monkeypatch.setattr(liveness, "ping", ping)
    with anyio.fail_after(30):  # a hang guard
        await liveness.Liveness().run(None, 7.0, lost, may_ping)  # type: ignore[arg-type]
    assert asked == [False] * 5 + [True] and pinged == [7.0] and lost.is_set()
