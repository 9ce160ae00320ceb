"""`--protocol auto` against a Streamable HTTP endpoint that accepts connections and never answers: the
message names the waits the run really took, and no `initialize` is sent twice.

Over HTTP, the request of `server/discover` stays open after the SDK's probe gives up (at most 10 s), until
the HTTP client's read timeout (`--timeout`) fails it, and the transport with it. The SDK's own
`initialize`, sent when its probe gave up, either waits behind that request (an OAuth login's lock holds
each request until the one before it is answered: it never reaches the server, and the explorer connects
again with `initialize`, which is then the first on the wire), or, with nothing to hold it back (a static
Authorization header), reaches the server and has the rest of `--timeout`. Before, the message said the
probe's wait plus a full `--timeout` in both cases: "waited 10 s for server/discover and 20 s for
initialize, 30 s in all" after 40 s; and with nothing holding it back a second `initialize` went out over
a new connection and waited a full `--timeout` again.

The SDK's probe wait is set short here (as `test_connect_timeout_once` does); what is asserted is the
message and how many `initialize` requests reached the server, never how long it took.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from explorer import sdk_door
from explorer.auth.options import AuthOptions
from explorer.config import ServerSpec
from explorer.connection.errors import ServerFault
from explorer.connection.session import ServerConnection
from tests.helpers.cli import run_cli

pytestmark = pytest.mark.slow

HANG_GUARD = 60.0  # only stops a join that would hang for good
NEITHER = "connecting: the server answered neither server/discover nor initialize "


class _BlackHole:
    """A port that accepts connections and reads what is sent, never answering a byte."""

    def __init__(self) -> None:
        self._listener = socket.socket()
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(16)
        self._listener.settimeout(0.2)
        self._done = threading.Event()
        self._readers: list[threading.Thread] = []
        self._held: list[socket.socket] = []
        self._lock = threading.Lock()
        self._received: list[bytes] = []
        self._accepting = threading.Thread(target=self._accept, daemon=True)
        self._accepting.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}/mcp"

    def _accept(self) -> None:
        while not self._done.is_set():
            try:
                connection = self._listener.accept()[0]
            except OSError:
                continue
            self._held.append(connection)
            reader = threading.Thread(target=self._read, args=(connection,), daemon=True)
            self._readers.append(reader)
            reader.start()

    def _read(self, connection: socket.socket) -> None:
        received = bytearray()
        with connection:
            while True:
                try:
                    chunk = connection.recv(65536)
                except OSError:
                    break
                if not chunk:
                    break
                received += chunk
        with self._lock:
            self._received.append(bytes(received))

    def initialize_requests(self) -> int:
        """How many `initialize` requests reached this port, once every client has hung up."""
        self._done.set()
        self._accepting.join(HANG_GUARD)
        for reader in self._readers:
            reader.join(HANG_GUARD)
        with self._lock:
            return sum(data.count(b'"method":"initialize"') for data in self._received)

    def close(self) -> None:
        self._done.set()
        for connection in self._held:
            connection.close()
        self._listener.close()


@pytest.fixture
def black_hole() -> Iterator[_BlackHole]:
    hole = _BlackHole()
    try:
        yield hole
    finally:
        hole.close()


@pytest.fixture
def short_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK's probe waits 1 s for `server/discover`, less than `--timeout` (its 10 s, in a real run)."""
    import mcp.client.session as sdk_session

    monkeypatch.setattr(sdk_session, "DISCOVER_TIMEOUT_SECONDS", sdk_session.DISCOVER_TIMEOUT_SECONDS)
    monkeypatch.setattr(sdk_door, "_sdk_discover_timeout", 1.0)


async def failure(spec: ServerSpec, timeout: float, auth: AuthOptions | None = None) -> str:
    with pytest.raises(ServerFault) as caught:
        async with ServerConnection(spec, timeout=timeout, auth=auth):
            pass
    return caught.value.message


@pytest.mark.anyio
@pytest.mark.usefixtures("short_probe")
async def test_an_initialize_held_back_is_sent_once_and_both_full_waits_are_named(
    black_hole: _BlackHole,
) -> None:
    """An OAuth login (as the CLI and the TUI have for a URL without an Authorization header) holds the
    SDK's `initialize` behind the unanswered request: the explorer's own is the one that reaches the
    server, after the whole `--timeout` for server/discover."""
    spec = ServerSpec(name="silent", transport="http", url=black_hole.url)
    said = await failure(spec, 2.0, AuthOptions(flow="print"))
    assert said == NEITHER + "(waited 2 s for each, 4 s in all; --timeout SECONDS waits longer)"
    assert black_hole.initialize_requests() == 1


@pytest.mark.anyio
@pytest.mark.usefixtures("short_probe")
async def test_an_initialize_that_reached_the_server_is_not_sent_again(black_hole: _BlackHole) -> None:
    """With a static Authorization header nothing holds the SDK's `initialize` back: it reaches the server
    when the probe gives up, and waits until the discover's request fails the transport."""
    spec = ServerSpec(
        name="silent", transport="http", url=black_hole.url, headers={"Authorization": "Bearer x"}
    )
    said = await failure(spec, 3.0)
    assert said == NEITHER + (
        "(waited 1 s for server/discover and 2 s for initialize, 3 s in all; --timeout SECONDS waits longer)"
    )
    assert black_hole.initialize_requests() == 1


def test_the_cli_names_the_waits_it_took_and_sends_one_initialize(black_hole: _BlackHole) -> None:
    result = run_cli("servers", "--timeout", "2", "-s", black_hole.url, timeout=HANG_GUARD)
    assert result.code == 1, result
    assert f"{NEITHER}(waited 2 s for each, 4 s in all; --timeout SECONDS waits longer)" in result.stderr, (
        result
    )
    assert black_hole.initialize_requests() == 1
