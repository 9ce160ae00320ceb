"""What a failed request says: how to wait longer, why the connection under it ended, an idle check.

Before, a request whose `--timeout` ran out said "the server did not answer after 30 s (timeout)" and
never how to wait longer; a read that failed because the HTTP session was renewed with something followed
(the connection then ends) said "the server closed the connection (did it exit?)" while the server bar
said the server started over; and a Streamable HTTP connection that ended because the server was slower
than `--timeout` to answer the idle check's ping said only "the server did not answer within 1 s over
HTTP", as if a request of the user's had waited. Each wait here is a hang guard only.
"""

from __future__ import annotations

import shlex
import sys
import threading
from collections.abc import Iterator
from typing import Any, ClassVar

import anyio
import pytest

from explorer import sdk_door
from explorer.config import ServerSpec
from explorer.connection import liveness
from explorer.connection.errors import WAIT_LONGER, ServerFault
from explorer.connection.session import ServerConnection
from tests.app_helpers import main_screen, settled_app, wait_for
from tests.helpers.cli import run_cli
from tests.helpers.loopback_http import JsonRpcHandler, served
from tests.helpers.paths import FIXTURES
from tests.test_http_session_400 import URI, _ForgetsFollowed, _serve

HANG_GUARD = 60.0  # only stops a run that would hang for good
HINT = f"; {WAIT_LONGER})"
RAW = [sys.executable, str(FIXTURES / "raw_server.py")]
SILENT_AT_CONNECT = ServerSpec(
    name="silent", transport="stdio", command=RAW[0], args=(*RAW[1:], "--mode", "hang-init")
)


def raw_spec(*modes: str) -> str:
    return shlex.join([*RAW, *(word for mode in modes for word in ("--mode", mode))])


# -- 1. a wait of --timeout that ran out says how to wait longer ----------------------------------------


def test_a_request_left_unanswered_says_how_to_wait_longer() -> None:
    result = run_cli(
        "tree", "--protocol", "legacy", "--timeout", "1", "-s", raw_spec("hang-list"), timeout=HANG_GUARD
    )
    assert result.code == 1, result
    said = "listing resources: the server did not answer after 1 s (timeout; --timeout SECONDS waits longer)"
    assert said in result.stderr, result


class _SilentRead(JsonRpcHandler):
    """Answers everything but `resources/read`, which it leaves unanswered until the test ends."""

    stop: ClassVar[threading.Event]

    def answer(self, method: str, message: dict[str, Any]) -> None:
        if method == "resources/read":
            self.stop.wait(HANG_GUARD)
            return
        super().answer(method, message)


@pytest.fixture
def silent_read() -> Iterator[str]:
    _SilentRead.stop = threading.Event()
    yield from served(_SilentRead, stopping=_SilentRead.stop.set)


def test_a_read_left_unanswered_over_http_says_how_to_wait_longer(silent_read: str) -> None:
    result = run_cli("read", "--timeout", "1", "-s", silent_read, "x://a", timeout=HANG_GUARD)
    assert result.code == 1, result
    # The SDK's wait or the HTTP client's (both `--timeout`), whichever ran out first.
    assert "reading x://a: the server did not answer" in result.stderr, result
    assert HINT in result.stderr, result


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("protocol", "said"),
    [
        (
            "2026-07-28",
            "connecting: the server did not answer server/discover after 1 s (timeout; --timeout SECONDS "
            "waits longer); if it speaks only the handshake era, use --protocol auto or --protocol legacy",
        ),
        (
            "auto",
            "connecting: the server answered neither server/discover nor initialize (waited 1 s for each, "
            "2 s in all; --timeout SECONDS waits longer)",
        ),
    ],
)
async def test_a_connect_left_unanswered_says_how_to_wait_longer(protocol: Any, said: str) -> None:
    with anyio.fail_after(HANG_GUARD), pytest.raises(ServerFault) as caught:
        async with ServerConnection(SILENT_AT_CONNECT, protocol=protocol, timeout=1.0):
            pass
    assert caught.value.message == said


@pytest.mark.anyio
async def test_a_discover_wait_that_timeout_does_not_set_gives_no_such_hint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The SDK's probe waits at most its own time (0.5 s here), whatever `--timeout` says: waiting longer
    is not the option's to give."""
    import mcp.client.session as sdk_session

    monkeypatch.setattr(sdk_session, "DISCOVER_TIMEOUT_SECONDS", sdk_session.DISCOVER_TIMEOUT_SECONDS)
    monkeypatch.setattr(sdk_door, "_sdk_discover_timeout", 0.5)
    with anyio.fail_after(HANG_GUARD), pytest.raises(ServerFault) as caught:
        async with ServerConnection(SILENT_AT_CONNECT, protocol="2026-07-28", timeout=1.0):
            pass
    assert caught.value.message.startswith(
        "connecting: the server did not answer server/discover after 0.5 s (timeout); "
    )
    assert WAIT_LONGER not in caught.value.message


def test_a_servers_own_timeout_error_and_the_listing_bound_give_no_such_hint() -> None:
    """A server's -32001 is its words; a listing out of its --list-timeout is not a request's wait."""
    read = run_cli("read", "--protocol", "legacy", "-s", raw_spec("read-errors"), "err://-32001")
    assert "reading err://-32001: the server answered error -32001" in read.stderr, read
    listed = run_cli(
        "tree", "--protocol", "legacy", "--list-timeout", "1", "--timeout", "30",
        "-s", raw_spec("slow-list") + " --delay 3",
        timeout=HANG_GUARD,
    )  # fmt: skip
    assert "incomplete" in listed.stderr, listed
    for result in (read, listed):
        assert "--timeout SECONDS" not in result.stdout + result.stderr, result


# -- 2. a request that failed as the connection ended says why it ended ----------------------------------


class _ForgetsFollowedSlowly(_ForgetsFollowed):
    """As `_ForgetsFollowed` (a followed resource; every session forgotten at the first read), answering
    the read sent again in the new session only once the test says so: the connection ends meanwhile."""

    answer_read: ClassVar[threading.Event]

    def read_answer(self, message: dict[str, object]) -> None:
        self.answer_read.wait(HANG_GUARD)
        super().read_answer(message)


@pytest.fixture
def forgets_followed_slowly() -> Iterator[str]:
    _ForgetsFollowedSlowly.answer_read = threading.Event()
    try:
        yield from _serve(_ForgetsFollowedSlowly)
    finally:
        _ForgetsFollowedSlowly.answer_read.set()


@pytest.mark.anyio
async def test_a_read_cut_short_by_a_renewed_session_says_the_server_started_over(
    forgets_followed_slowly: str,
) -> None:
    spec = ServerSpec(name="forgets", transport="http", url=forgets_followed_slowly)
    async with settled_app(spec, timeout=HANG_GUARD) as (app, pilot):
        screen = main_screen(app)
        supervisor = screen.supervisor
        assert await supervisor.toggle_pin("forgets", URI) == "following"
        with pytest.raises(ServerFault) as failed:
            await supervisor.read("forgets", URI)  # the server forgets its sessions here
        status = screen.catalogue.servers["forgets"]
        await wait_for(pilot, lambda: status.state == "failed", timeout=HANG_GUARD)
    said = failed.value.message
    assert said.startswith(f"reading {URI}: the server started over"), said
    assert "reconnect to follow it again" in said and "closed the connection" not in said, said
    assert status.error is not None and said.endswith(status.error), (said, status.error)


# -- 3. the idle check's ping that went unanswered says it was one ---------------------------------------


class _SlowPing(JsonRpcHandler):
    """Answers everything at once but `ping`, which it leaves unanswered until the test ends."""

    stop: ClassVar[threading.Event]

    def answer(self, method: str, message: dict[str, Any]) -> None:
        if method == "ping":
            self.stop.wait(HANG_GUARD)
            return
        super().answer(method, message)

    def results(self) -> dict[str, object]:
        return {**super().results(), "resources/list": {"resources": [{"uri": URI, "name": "b"}]}}


@pytest.fixture
def slow_ping() -> Iterator[str]:
    _SlowPing.stop = threading.Event()
    yield from served(_SlowPing, stopping=_SlowPing.stop.set)


@pytest.mark.anyio
async def test_a_connection_ended_by_an_unanswered_idle_ping_says_it_was_the_idle_check(
    slow_ping: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Listed, then quiet: the idle check's ping is the request the connection ends under (`--timeout`)."""
    monkeypatch.setattr(liveness, "IDLE_BEFORE_PING", 0.1)
    spec = ServerSpec(name="slow", transport="http", url=slow_ping)
    async with settled_app(spec, timeout=1.0) as (app, pilot):
        status = main_screen(app).catalogue.servers["slow"]
        assert status.state == "ready", status.error
        await wait_for(pilot, lambda: status.state == "failed", timeout=HANG_GUARD)
    said = "the server did not answer a ping (the idle check) within 1 s over HTTP (no answer came in time"
    assert status.error is not None and said in status.error, status.error
    assert status.error.endswith(HINT), status.error
