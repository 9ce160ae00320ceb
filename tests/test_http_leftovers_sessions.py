"""Streamable HTTP sessions the server ends, and session ids too long to send back.

Before, a server that answered 404 to every request after connecting (its session ended) was said to have
"answered error -32600: Session terminated" (an error the SDK made up), every later request failed the
same way, and the TUI kept the server shown connected. Now the session is started again once; when the new
one gets 404 too, the server is failed with a sentence that says so. A session id of 90 KB was sent back in
every request's header, which the server refused (HTTP 431) or hung up on.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import ClassVar

import pytest

from explorer.app import ExplorerApp
from explorer.config import ServerSpec
from explorer.connection.http_sessions import MOST_SESSION_ID
from explorer.widgets.server_bar import ServerBar
from tests.app_helpers import main_screen, settled_app, wait_for
from tests.helpers.cli import run_cli
from tests.helpers.loopback_http import QuietHandler, served

NEVER = "60"  # a request that waits for its timeout fails the run (`RUN_AT_MOST`), not just its text
RUN_AT_MOST = 45.0


class _Sessions(QuietHandler):
    """Streamable HTTP in the handshake era with sessions: each `initialize` opens session `s1`, `s2`...;
    a request in a session that is not alive is answered 404. Subclasses end sessions (`ends`)."""

    lock: ClassVar[threading.Lock]
    alive: ClassVar[set[str]]
    opened: ClassVar[int]
    seen: ClassVar[list[tuple[str, str | None]]]  # (method, session id) of each POST
    session_id: ClassVar[str] = ""  # the id `initialize` gives, when set (else s1, s2...)
    capabilities: ClassVar[dict[str, object]] = {"resources": {}}

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        method, sent = str(message.get("method")), self.headers.get("Mcp-Session-Id")
        with self.lock:
            type(self).seen.append((method, sent))
        if self.answered(message):
            return
        if method == "server/discover":  # the handshake era: the method is unknown
            error = {"code": -32601, "message": "Method not found"}
            self._json(200, {"jsonrpc": "2.0", "id": message["id"], "error": error})
        elif method == "initialize":
            with self.lock:
                type(self).opened += 1
                given = self.session_id or f"s{self.opened}"
                if self.welcomes(self.opened):
                    self.alive.add(given)
            result = {
                "protocolVersion": "2025-11-25",
                "capabilities": self.capabilities,
                "serverInfo": {"name": "sessions", "version": "1"},
            }
            self._json(200, {"jsonrpc": "2.0", "id": message["id"], "result": result}, given)
        elif sent not in self.alive or self.ends(method, sent):
            self.unknown_session()
        elif "id" not in message:
            self._empty(202)
        else:
            self._json(200, {"jsonrpc": "2.0", "id": message["id"], "result": self.result(method, message)})

    def answered(self, message: dict[str, object]) -> bool:
        """Answer `message` otherwise than the rules below; True when it did."""
        return False

    def welcomes(self, opened: int) -> bool:
        """Whether the `opened`-th session starts alive."""
        return True

    def unknown_session(self) -> None:
        """The answer to a request in a session that is not alive: 404, as the spec says."""
        self._empty(404)

    def ends(self, method: str, sent: str | None) -> bool:
        """Whether `method` in session `sent` ends that session (answered 404 from then on)."""
        return False

    def result(self, method: str, message: dict[str, object]) -> dict[str, object]:
        params = message.get("params")
        uri = params.get("uri") if isinstance(params, dict) else None
        return {
            "resources/list": {"resources": [{"uri": "http://a/b", "name": "b"}]},
            "resources/templates/list": {"resourceTemplates": []},
            "resources/read": {"contents": [{"uri": uri, "text": "hello"}]},
        }.get(method, {})

    def do_GET(self) -> None:
        self._empty(405)

    def do_DELETE(self) -> None:
        self._empty(200)

    def _json(self, status: int, answer: dict[str, object], session: str | None = None) -> None:
        body = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        if session is not None:
            self.send_header("Mcp-Session-Id", session)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _empty(self, status: int) -> None:
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()


def bar_text(app: ExplorerApp) -> str:
    """The server bar as the user reads it."""
    return str(main_screen(app).query_one(ServerBar).render())


def _serve(handler: type[_Sessions]) -> Iterator[str]:
    handler.lock = threading.Lock()
    handler.alive = set()
    handler.opened = 0
    handler.seen = []
    yield from served(handler)


class _EndsAtOnce(_Sessions):
    """The first session ends right after connecting; no new session lives either."""

    def welcomes(self, opened: int) -> bool:
        return False


class _EndsOnce(_Sessions):
    """The first session ends at the first resources/list; the second one works."""

    def unknown_session(self) -> None:
        """The answer to a request in a session that is not alive: 404, as the spec says."""
        self._empty(404)

    def ends(self, method: str, sent: str | None) -> bool:
        if method == "resources/list" and sent == "s1":
            self.alive.discard("s1")
            return True
        return False


class _OwnErrorIn404(_Sessions):
    """resources/templates/list is answered 404 with a JSON-RPC error naming the request (some servers
    say "method not found" so): that is the request's answer, not the session's end."""

    def answered(self, message: dict[str, object]) -> bool:
        if message.get("method") != "resources/templates/list":
            return False
        error = {"code": -32601, "message": "Method not found"}
        self._json(404, {"jsonrpc": "2.0", "id": message["id"], "error": error})
        return True


@pytest.fixture
def ends_at_once() -> Iterator[str]:
    yield from _serve(_EndsAtOnce)


@pytest.fixture
def ends_once() -> Iterator[str]:
    yield from _serve(_EndsOnce)


@pytest.fixture
def own_error() -> Iterator[str]:
    yield from _serve(_OwnErrorIn404)


def test_404_to_every_request_after_connecting_fails_the_server_saying_so(ends_at_once: str) -> None:
    result = run_cli("tree", "--timeout", NEVER, "-s", ends_at_once, timeout=RUN_AT_MOST)
    assert result.code == 1 and "Traceback" not in result.stderr, result
    said = f"the server answered 404 (Not Found) to every request at {ends_at_once}: it ended the session"
    assert said in result.stderr, result
    assert "Session terminated" not in result.stderr and "-32600" not in result.stderr
    assert _EndsAtOnce.opened == 2  # a new session was tried once, no more


def test_a_session_the_server_ended_is_started_again_and_the_request_sent_again(ends_once: str) -> None:
    result = run_cli("tree", "--timeout", NEVER, "-s", ends_once, timeout=RUN_AT_MOST)
    assert result.code == 0, result
    assert "http://a/b" in result.stdout
    assert _EndsOnce.opened == 2
    assert ("resources/list", "s1") in _EndsOnce.seen and ("resources/list", "s2") in _EndsOnce.seen
    assert ("notifications/initialized", "s2") in _EndsOnce.seen


def test_a_404_that_is_the_requests_own_error_ends_no_session(own_error: str) -> None:
    result = run_cli("tree", "--timeout", NEVER, "-s", own_error, timeout=RUN_AT_MOST)
    assert result.code == 0, result
    assert "http://a/b" in result.stdout
    assert _OwnErrorIn404.opened == 1


@pytest.mark.anyio
async def test_the_tui_shows_the_server_failed_with_the_404_sentence(ends_at_once: str) -> None:
    spec = ServerSpec(name="gone", transport="http", url=ends_at_once)
    async with settled_app(spec, timeout=float(NEVER)) as (app, pilot):
        screen = main_screen(app)
        await wait_for(pilot, lambda: not screen.supervisor.is_connected("gone"), timeout=RUN_AT_MOST)
        status = screen.catalogue.servers["gone"]
        assert status.state == "failed"
        assert status.error is not None
        assert f"the server answered 404 (Not Found) to every request at {ends_at_once}" in status.error
        await pilot.pause(0.1)
        assert "the server answered 404 (Not Found) to every request" in bar_text(app)
        assert "Session terminated" not in bar_text(app)


# ------------------------------------------------------------------------------------------ a long id


class _LongId(_Sessions):
    """`initialize` gives a session id of 90 KB; a request carrying it gets what a common server answers."""

    session_id = "s" * 90_000


@pytest.fixture
def long_id() -> Iterator[str]:
    yield from _serve(_LongId)


def test_a_session_id_too_long_to_send_back_is_refused_at_once(long_id: str) -> None:
    result = run_cli("tree", "--timeout", NEVER, "-s", long_id, timeout=RUN_AT_MOST)
    assert result.code == 1 and "Traceback" not in result.stderr, result
    said = (
        "connecting: the server's answer to initialize gives a session id (Mcp-Session-Id) of 90,000 bytes, "
        "over the 8 KiB the explorer sends back in a header: refused"
    )
    assert said in result.stderr, result
    assert "closed the connection" not in result.stderr and "HTTP 431" not in result.stderr  # not the port
    assert all(sent is None or len(sent) <= MOST_SESSION_ID for _, sent in _LongId.seen)
