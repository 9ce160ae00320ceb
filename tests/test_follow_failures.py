"""Following in the modern era says when the server will not follow, and re-opens a stream it closes.

A raw modern-era (2026-07-28) stdio server, written by the test, refuses `subscriptions/listen`, never
acknowledges it, acknowledges it without the URI, or acknowledges and closes it; a handshake-era one
refuses `resources/subscribe`. What is asserted is what the user sees: the CLI's exit code and `cannot
follow` line, the TUI's notification (through the supervisor's listener), the news that live updates
stopped.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

import explorer.connection.live as live
from explorer.config import ServerSpec
from explorer.connection.live import FollowTrouble, News, ResourceChanged
from explorer.connection.session import ServerConnection
from explorer.connection.supervisor import Settings, Supervisor
from tests.helpers.cli import run_cli, run_cli_patched

SERVER = r"""
import json, os, sys, threading, time
MODES = set(sys.argv[1:])
lock = threading.Lock()
listens = []
def send(obj):
    with lock:
        sys.stdout.write(json.dumps(obj) + "\n"); sys.stdout.flush()
CAPS = {"resources": {"listChanged": True, "subscribe": True}}
def listen(mid, params):
    listens.append(mid)
    notif = params.get("notifications", {})
    meta = {"io.modelcontextprotocol/subscriptionId": mid}
    if "listen-error" in MODES:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "Method not found"}}); return
    if "listen-noack" in MODES:
        return
    if "listen-slowack" in MODES:
        time.sleep(1.0)
    acked = dict(notif)
    if "listen-honor-none" in MODES:
        acked.pop("resourceSubscriptions", None)
    send({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
          "params": {"_meta": meta, "notifications": acked}})
    if "exit-after-follow" in MODES:
        time.sleep(0.2)
        sys.stderr.write("follow-test: giving up\n"); sys.stderr.flush()
        os._exit(3)
    if "listen-ackend" in MODES:
        time.sleep(0.1)
        if len(listens) > 1 and notif.get("resourceSubscriptions"):  # a re-opened stream still delivers
            send({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                  "params": {"_meta": meta, "uri": notif["resourceSubscriptions"][0]}})
            time.sleep(0.1)
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    mid, method, params = m["id"], m.get("method"), m.get("params") or {}
    if method == "server/discover" and "legacy" not in MODES:
        r = {"supportedVersions": ["2026-07-28"], "capabilities": CAPS, "resultType": "complete",
             "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "follow-test", "version": "1"}}}
    elif method == "initialize" and "legacy" in MODES:
        r = {"protocolVersion": "2025-06-18", "capabilities": CAPS,
             "serverInfo": {"name": "old", "version": "1"}}
    elif method == "subscriptions/listen":
        threading.Thread(target=listen, args=(mid, params), daemon=True).start(); continue
    elif method == "resources/list":
        r = {"resources": [{"uri": "x://a/1", "name": "one"}]}
    elif method == "resources/read":
        r = {"contents": [{"uri": params["uri"], "mimeType": "text/plain", "text": "hello"}]}
    elif method == "resources/subscribe" and "sub-refuse" not in MODES:
        if "exit-after-follow" in MODES:
            send({"jsonrpc": "2.0", "id": mid, "result": {}})
            time.sleep(0.2)
            sys.stderr.write("follow-test: giving up\n"); sys.stderr.flush()
            os._exit(3)
        r = {}
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "Method not found"}})
        continue
    send({"jsonrpc": "2.0", "id": mid, "result": r})
"""


@pytest.fixture
def server(tmp_path: Path) -> Path:
    path = tmp_path / "follow_server.py"
    path.write_text(SERVER)
    return path


def spec(script: Path, *modes: str) -> ServerSpec:
    return ServerSpec(name="fs", transport="stdio", command=sys.executable, args=(str(script), *modes))


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("listen-error", "the server answered error -32601: Method not found"),
        ("listen-noack", "the server did not answer after 3 s (timeout; --timeout SECONDS waits longer)"),
        ("listen-honor-none", "the server did not agree to send its changes"),
    ],
)
def test_watch_says_it_cannot_follow_when_the_listen_stream_is_refused(
    server: Path, mode: str, reason: str
) -> None:
    command = f"{sys.executable} {server} {mode}"
    result = run_cli("read", "x://a/1", "--watch", "--for", "30", "--timeout", "3", "-s", command)
    assert result.code == 1, result
    assert "error: server " in result.stderr and "cannot follow x://a/1: " in result.stderr, result
    assert reason in result.stderr, result


@pytest.mark.parametrize("modes", [("exit-after-follow",), ("legacy", "exit-after-follow")])
def test_watch_says_at_once_that_the_server_went_away(server: Path, modes: tuple[str, ...]) -> None:
    """It waited out `--for` and then said no new version came (exit 3), the server long gone."""
    command = " ".join([sys.executable, str(server), *modes])
    result = run_cli("read", "x://a/1", "--watch", "--for", "600", "--timeout", "10", "-s", command)
    assert result.code == 1, result
    assert result.stdout.startswith("--- x://a/1 · version 1")
    [line] = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert "the server closed the connection" in line and "it exited with code 3" in line, line
    assert line.endswith("its stderr ends with: follow-test: giving up"), line
    assert "no new version" not in result.stderr


class Heard:
    """A supervisor listener that keeps what the TUI would notify of a follow."""

    def __init__(self) -> None:
        self.follow_failures: list[tuple[str, str | None, str]] = []
        self.connected = anyio.Event()

    def server_connected(self, name: str, notes: object) -> None:
        self.connected.set()

    def follow_failed(self, name: str, uri: str | None, message: str) -> None:
        self.follow_failures.append((name, uri, message))

    def __getattr__(self, name: str) -> object:
        return lambda *args, **kwargs: None


async def _pin_on(server_spec: ServerSpec, protocol: str) -> tuple[str, list[tuple[str, str | None, str]]]:
    heard = Heard()
    supervisor = Supervisor([server_spec], Settings(protocol=protocol, timeout=5, log_level=None), heard)  # type: ignore[arg-type]
    async with anyio.create_task_group() as group:
        group.start_soon(supervisor.run, "fs")
        with anyio.fail_after(60):
            await heard.connected.wait()
            outcome = await supervisor.toggle_pin("fs", "x://a/1")
        group.cancel_scope.cancel()
    assert ("fs", "x://a/1") not in supervisor.pinned  # no "following" mark in the tree
    return outcome, heard.follow_failures


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("modes", "protocol", "reason"),
    [
        (
            ("listen-error",),
            "auto",
            "listening for changes (subscriptions/listen): the server answered error -32601",
        ),
        (("legacy", "sub-refuse"), "legacy", "subscribing to x://a/1: the server answered error -32601"),
    ],
)
async def test_a_pin_the_server_refuses_is_said_not_marked(
    server: Path, modes: tuple[str, ...], protocol: str, reason: str
) -> None:
    outcome, failures = await _pin_on(spec(server, *modes), protocol)
    assert outcome == "failed"
    [(name, uri, message)] = [failure for failure in failures if failure[1] is not None]
    assert (name, uri) == ("fs", "x://a/1")
    assert reason in message


@pytest.mark.anyio
async def test_a_stream_the_server_closes_is_opened_again_then_given_up_and_said(
    server: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live, "REOPEN_DELAYS", (0.05, 0.05, 0.05))
    news: list[News] = []
    stopped = anyio.Event()

    def on_news(item: News) -> None:
        news.append(item)
        if isinstance(item, FollowTrouble):
            stopped.set()

    async with ServerConnection(spec(server, "listen-ackend"), timeout=10, on_news=on_news) as conn:
        assert await conn.follow("x://a/1")
        with anyio.fail_after(60):
            await stopped.wait()
        assert ResourceChanged("x://a/1") in news  # delivered on a stream opened again after the close
        [trouble] = [item for item in news if isinstance(item, FollowTrouble)]
        assert "the server's change stream ended 4 times in a row (the server closed it)" in trouble.message
        # Following again after the stop opens a stream again (it answered at once, from a stale set).
        news.clear()
        assert await conn.follow("x://a/1")
        with anyio.fail_after(60):
            while ResourceChanged("x://a/1") not in news:  # noqa: ASYNC110
                await anyio.sleep(0.05)


def test_watch_says_when_live_updates_stop(server: Path) -> None:
    """It waited, silent, for `--for` (or for ever) after the server's stream had ended for good."""
    prelude = "import explorer.connection.live as live\nlive.REOPEN_DELAYS = (0.05, 0.05)"
    command = f"{sys.executable} {server} listen-ackend"
    result = run_cli_patched(prelude, "read", "x://a/1", "--watch", "--for", "600", "-s", command)
    assert result.code == 1, result
    [line] = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert "following x://a/1: live updates stopped: the server's change stream ended 3 times" in line, line


def test_watch_json_says_a_refused_follow_on_stdout(server: Path) -> None:
    command = f"{sys.executable} {server} listen-error"
    result = run_cli("read", "x://a/1", "--watch", "--json", "--for", "30", "-s", command)
    assert result.code == 1, result
    decoder, text, documents = json.JSONDecoder(), result.stdout.strip(), []
    while text:
        document, end = decoder.raw_decode(text)
        documents.append(document)
        text = text[end:].strip()
    first, failed = documents
    assert first["ok"] is True and first["version"] == 1
    assert failed["ok"] is False and "cannot follow x://a/1" in failed["error"]["message"]


@pytest.mark.anyio
async def test_a_server_without_listen_streams_is_not_a_warning_at_connect(server: Path) -> None:
    """With nothing followed, a refused lists-only stream was "live updates stopped" at every connect;
    it is kept for the overview, and a follow asked later is refused at once, with the reason."""
    heard = Heard()
    settings = Settings(protocol="auto", timeout=5, log_level=None)
    supervisor = Supervisor([spec(server, "listen-error")], settings, heard)  # type: ignore[arg-type]
    async with anyio.create_task_group() as group:
        group.start_soon(supervisor.run, "fs")
        with anyio.fail_after(60):
            await heard.connected.wait()
            conn = supervisor.connection("fs")
            assert conn is not None
            while conn.follower.problem is None:  # noqa: ASYNC110
                await anyio.sleep(0.05)
            assert heard.follow_failures == []
            assert "-32601" in conn.follower.problem
            assert await supervisor.toggle_pin("fs", "x://a/1") == "failed"
        group.cancel_scope.cancel()
    [(_, uri, message)] = heard.follow_failures
    assert uri == "x://a/1" and "-32601" in message


@pytest.mark.anyio
async def test_a_pin_withdrawn_while_the_server_is_asked_is_not_a_failure(server: Path) -> None:
    """Pinned then unpinned before the server acknowledged: it read "did not agree to send its changes"."""
    heard = Heard()
    settings = Settings(protocol="auto", timeout=5, log_level=None)
    supervisor = Supervisor([spec(server, "listen-slowack")], settings, heard)  # type: ignore[arg-type]
    async with anyio.create_task_group() as group:
        group.start_soon(supervisor.run, "fs")
        with anyio.fail_after(60):
            await heard.connected.wait()
            outcomes: list[str] = []

            async def pin() -> None:
                outcomes.append(await supervisor.toggle_pin("fs", "x://a/1"))

            group.start_soon(pin)
            while ("fs", "x://a/1") not in supervisor.pinned:  # noqa: ASYNC110
                await anyio.sleep(0.01)
            outcomes.append(await supervisor.toggle_pin("fs", "x://a/1"))
            while len(outcomes) < 2:  # noqa: ASYNC110
                await anyio.sleep(0.05)
        group.cancel_scope.cancel()
    assert sorted(outcomes) == ["stopped", "withdrawn"]
    assert heard.follow_failures == []
