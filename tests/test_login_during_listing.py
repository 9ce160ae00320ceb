"""A login the SDK begins after connecting (the server refused the token on a later request) shows on the
server's row, with its URL, as one while connecting does.

It showed only while connecting: a token refused in the middle of the listing left the row at "listing
templates, 0 pages · 0 items · 0/s", then "incomplete (max-seconds bound)", and the URL was nowhere but in
the palette's "Copy login URL". The server here is a loopback OAuth-protected MCP server whose first token
is refused from its first `resources/list` on; the test is the browser, and logs in only when it says so.
"""

from __future__ import annotations

import json
import secrets
import threading
import urllib.parse
from collections.abc import Iterator
from typing import Any, ClassVar

import anyio
import httpx2
import pytest

from explorer.app import ExplorerApp
from explorer.auth.options import AuthOptions
from explorer.config import ServerSpec
from explorer.model.catalogue import ServerStatus
from explorer.screens.error_dialog import error_report
from explorer.widgets.server_bar import ServerBar
from tests.app_helpers import SIZE, main_screen, wait_for
from tests.helpers.loopback_http import JsonRpcHandler, served

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

HANG_GUARD = 60.0  # generous: a shared machine; a login never shown fails by this, not by a timing


class RefusesItsFirstToken(JsonRpcHandler):
    """An MCP server with its own authorization server that approves every authorization at once. The
    first access token it grants is refused (401) from the first `resources/list` on: the server has
    revoked it in the middle of the listing. No refresh tokens: a refused token means a new login."""

    lock: ClassVar[threading.Lock] = threading.Lock()
    tokens: ClassVar[list[str]] = []  # access tokens granted, in order
    revoked: ClassVar[set[str]] = set()

    def base(self) -> str:
        return f"http://{self.headers['Host']}"  # 127.0.0.1 and this server's port

    def do_GET(self) -> None:
        path = urllib.parse.urlsplit(self.path)
        base = self.base()
        if path.path.startswith("/.well-known/oauth-protected-resource"):
            self.send_json({"resource": base + "/mcp", "authorization_servers": [base]})
        elif path.path.startswith(("/.well-known/oauth-authorization-server", "/.well-known/openid")):
            self.send_json(
                {
                    "issuer": base,
                    "authorization_endpoint": base + "/authorize",
                    "token_endpoint": base + "/token",
                    "registration_endpoint": base + "/register",
                    "response_types_supported": ["code"],
                    "code_challenge_methods_supported": ["S256"],
                    "grant_types_supported": ["authorization_code"],
                    "token_endpoint_auth_methods_supported": ["none"],
                }
            )
        elif path.path == "/authorize":
            query = dict(urllib.parse.parse_qsl(path.query))
            back = {"code": secrets.token_urlsafe(16), "state": query.get("state", "")}
            self.send(302, headers=[("Location", query["redirect_uri"] + "?" + urllib.parse.urlencode(back))])
        else:
            self.send(405)

    def do_POST(self) -> None:
        path = urllib.parse.urlsplit(self.path).path
        if path == "/register":
            metadata = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            self.send_json({**metadata, "client_id": "client-" + secrets.token_hex(4)}, status=201)
        elif path == "/token":
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            token = "ACCESS-" + secrets.token_hex(12)
            with self.lock:
                self.tokens.append(token)
            self.send_json({"access_token": token, "token_type": "Bearer", "expires_in": 3600})
        else:
            message = self.read_message()
            token = self.headers.get("Authorization", "").removeprefix("Bearer ")
            with self.lock:
                if (
                    token == (self.tokens[0] if self.tokens else None)
                    and message.get("method") == "resources/list"
                ):
                    self.revoked.add(token)
                refused = token not in self.tokens or token in self.revoked
            if refused:
                challenge = (
                    f'Bearer resource_metadata="{self.base()}/.well-known/oauth-protected-resource/mcp"'
                )
                self.send(401, headers=[("WWW-Authenticate", challenge)])
            else:
                self.answer(str(message.get("method")), message)

    def results(self) -> dict[str, object]:
        return {**super().results(), "resources/list": {"resources": [{"uri": "notes://a", "name": "a"}]}}

    def send_json(self, body: dict[str, Any], status: int = 200) -> None:
        self.send(status, json.dumps(body).encode())


@pytest.fixture
def server_url() -> Iterator[str]:
    RefusesItsFirstToken.tokens = []
    RefusesItsFirstToken.revoked = set()
    yield from served(RefusesItsFirstToken)


def browse(url: str) -> None:
    """What a browser does with the login URL: follow the authorization server's redirect to the
    explorer's loopback listener (in a thread: the listener runs on the app's event loop)."""
    page = httpx2.get(url, follow_redirects=True, timeout=30)
    assert page.status_code == 200 and "Logged in" in page.text, page.text


def state_of(status: ServerStatus) -> str:
    return status.state  # read anew each time (an assert on `status.state` would narrow it for mypy)


def row_of(app: ExplorerApp, name: str) -> str:
    bar = main_screen(app).query_one(ServerBar)
    rows = [row.plain for row in bar.render().split("\n")]
    mine = [row for row in rows if f" {name} " in row]
    assert len(mine) == 1, rows
    return mine[0]


async def test_a_token_refused_while_listing_shows_the_login_and_its_url(server_url: str) -> None:
    spec = ServerSpec(name="notes", transport="http", url=server_url)
    app = ExplorerApp([spec], timeout=20.0, remember_theme=False, auth=AuthOptions(flow="print"))
    async with app.run_test(size=SIZE) as pilot:
        status: ServerStatus = main_screen(app).catalogue.servers["notes"]

        # The first login, while connecting.
        await wait_for(pilot, lambda: status.login is not None, HANG_GUARD)
        assert status.login is not None and state_of(status) == "connecting"
        first = status.login.url
        assert "log in: open in a browser:" in row_of(app, "notes")
        await anyio.to_thread.run_sync(browse, first)

        # The token is refused in the middle of the listing: the SDK begins a new login, and the row says
        # so with the URL until the user has logged in again.
        await wait_for(pilot, lambda: status.login is not None and status.login.url != first, HANG_GUARD)
        assert state_of(status) == "listing"
        await pilot.pause(0.3)  # frames painted since; the login still waits for the test
        row = row_of(app, "notes")
        assert "log in again: open in a browser:" in row, row
        assert status.login is not None and status.login.url in row
        assert "listing" not in row and "incomplete" not in row
        report = error_report(status)  # the error dialog's text
        assert f"Login: waiting for you; open this URL in a browser: {status.login.url}" in report
        await anyio.to_thread.run_sync(browse, status.login.url)

        await wait_for(pilot, lambda: status.state == "ready", HANG_GUARD)
        await pilot.pause(0.2)
        row = row_of(app, "notes")
        assert "1 resource" in row and "complete" in row and "log in" not in row, row
    assert len(RefusesItsFirstToken.tokens) == 2


async def test_the_time_a_login_waits_does_not_count_against_the_listings_time_bound(server_url: str) -> None:
    """Before, the wall-time bound ran while the user was in the browser: the listing ended "incomplete
    (max-seconds bound)" with nothing listed, though the login then succeeded."""
    from explorer.config import ListingBounds

    spec = ServerSpec(name="notes", transport="http", url=server_url)
    bounds = ListingBounds(max_seconds=10.0)  # far more than a loopback listing needs, less than the login
    app = ExplorerApp(
        [spec], timeout=60.0, bounds=bounds, remember_theme=False, auth=AuthOptions(flow="print")
    )
    async with app.run_test(size=SIZE) as pilot:
        status: ServerStatus = main_screen(app).catalogue.servers["notes"]
        await wait_for(pilot, lambda: status.login is not None, HANG_GUARD)
        assert status.login is not None
        first = status.login.url
        await anyio.to_thread.run_sync(browse, first)
        await wait_for(pilot, lambda: status.login is not None and status.login.url != first, HANG_GUARD)
        await pilot.pause(12)  # the user takes longer in the browser than the listing may take in all
        assert status.login is not None
        await anyio.to_thread.run_sync(browse, status.login.url)
        await wait_for(pilot, lambda: not status.busy, HANG_GUARD)
        assert status.listing is not None and status.listing.complete, status.listing.stopped_by
        assert [entry.uri for entry in status.listing.resources] == ["notes://a"]
