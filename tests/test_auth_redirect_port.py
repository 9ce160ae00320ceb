"""The loopback redirect port of a login: kept while the listener could bind it (a port whose last
login's connections wait in TIME_WAIT is free), and a port that changed never costs the stored tokens."""

from __future__ import annotations

import json
import socket
import urllib.parse
from pathlib import Path

import pytest

from explorer.auth.redirect import free_port
from tests.helpers.cli import run_cli
from tests.helpers.oauth_loopback import auth_server, login_in_print_flow

pytestmark = pytest.mark.slow


def _redirect_ports(events: list[dict[str, object]]) -> list[int | None]:
    return [urllib.parse.urlsplit(str(e["redirect_uri"])).port for e in events if e["event"] == "authorize"]


def _leave_in_time_wait(port: int) -> None:
    """A connection to `port` that its listening side closes first, as the redirect listener closes the
    browser's: the port waits in TIME_WAIT for a minute."""
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen()
        with socket.create_connection(("127.0.0.1", port)) as browser:
            accepted, _ = listener.accept()
            accepted.close()
            browser.recv(1)  # the listener's FIN has come


def test_a_retried_login_keeps_its_port_and_registration(isolated_home: Path) -> None:
    """The first login fails at the token endpoint; its callback's connection leaves the port in
    TIME_WAIT. Logging in again at once uses the same port and the same registration."""
    with auth_server("token_fail_once") as (url, state):
        first = login_in_print_flow(url, browser="linger")
        assert first.result.code == 1 and "try again" in first.result.stderr, first.result
        (port,) = _redirect_ports(state.events)
        assert port is not None
        _leave_in_time_wait(port)
        again = login_in_print_flow(url, browser="linger")
    assert again.result.code == 0, again.result
    assert "notes://a" in again.result.stdout
    assert state.count("register") == 1
    ports = _redirect_ports(state.events)
    assert len(ports) == 2 and ports[0] == ports[1]


def test_a_busy_redirect_port_keeps_the_stored_tokens(isolated_home: Path) -> None:
    with auth_server() as (url, state):
        assert login_in_print_flow(url).result.code == 0
        (port,) = _redirect_ports(state.events)
        with socket.socket() as squatter:  # another program took the port meanwhile
            squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # past the login's TIME_WAIT
            squatter.bind(("127.0.0.1", port))
            squatter.listen()
            later = run_cli("tree", "-s", url, "--auth-flow", "print", "--timeout", "10", timeout=60)
    assert later.code == 0, later
    assert "open this URL to log in" not in later.stderr  # the stored token was used
    assert state.count("register") == 1 and state.count("authorize") == 1
    (stored,) = (isolated_home / "data" / "oauth").glob("*.json")
    assert json.loads(stored.read_text())["tokens"]["access_token"] in state.access


def test_a_login_on_a_new_port_registers_it(isolated_home: Path) -> None:
    """The stored token is refused and the old port is taken: the login registers the new redirect URI
    (an authorization server compares it exactly) and goes through."""
    with auth_server() as (url, state):
        assert login_in_print_flow(url).result.code == 0
        (port,) = _redirect_ports(state.events)
        state.access.clear()  # the server forgot the token
        with socket.socket() as squatter:
            squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            squatter.bind(("127.0.0.1", port))
            squatter.listen()
            again = login_in_print_flow(url)
    assert again.result.code == 0, again.result
    assert "Logged in." in again.page
    registered = [e["redirect_uris"] for e in state.events if e["event"] == "register"]
    new_port = _redirect_ports(state.events)[1]
    assert new_port != port and registered[1] == [f"http://127.0.0.1:{new_port}/callback"]


def test_claude_codes_pre_registered_client_logs_in_as_it_was_registered(
    isolated_home: Path, tmp_path: Path
) -> None:
    """A `.mcp.json` entry's `oauth.clientId` and `callbackPort` (Claude Code's) were accepted and
    ignored: the explorer registered a client of its own on a random 127.0.0.1 port, where a server
    that allows only the pre-registered client refuses. They are that client now, at the redirect URI
    Claude Code registers, http://localhost:PORT/callback (the browser follows it to the listener)."""
    port = free_port()
    with auth_server() as (url, state):
        config = tmp_path / ".mcp.json"
        oauth = {"clientId": "pre-registered-client", "callbackPort": port, "scopes": "notes:read"}
        entry = {"type": "http", "url": url, "oauth": oauth}
        config.write_text(json.dumps({"mcpServers": {"guarded": entry}}))
        run = login_in_print_flow(url, target=("-c", str(config), "-s", "guarded"))
    assert run.result.code == 0, run.result
    assert "notes://a" in run.result.stdout
    assert state.count("register") == 0
    [authorize] = [event for event in state.events if event["event"] == "authorize"]
    assert authorize["client_id"] == "pre-registered-client"
    assert authorize["redirect_uri"] == f"http://localhost:{port}/callback"
    assert authorize["scope"] == "notes:read"
    [token] = [event for event in state.events if event["event"] == "token_request"]
    assert token["client_id"] == "pre-registered-client"
    assert token["redirect_uri"] == f"http://localhost:{port}/callback"
