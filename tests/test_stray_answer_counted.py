"""An answer naming a request never sent, come on the GET event stream while no request waits, is said.

Before, with a request waiting such a stray failed it (`test_http_leftovers_strays`), but with none waiting
it was dropped without a word: the user never learnt the server answered requests nobody sent. Now it is
counted in the connection's `ProtocolProblems`, and the warning the TUI gives when a listing ends says so.

The order is the server's: after the first listing (nothing waits then), it writes the strays and then a
`notifications/resources/list_changed` on the GET stream; the session reads that stream in order, so the
strays are counted before the refresh the announcement asks for begins, and that refresh, answered
normally, ends with the warning.
"""

from __future__ import annotations

import queue
import threading
from typing import Any, ClassVar

import pytest

from explorer.config import ServerSpec
from explorer.connection.errors import ProtocolProblems
from tests.app_helpers import main_screen, settled_app, wait_for
from tests.helpers.loopback_http import JsonRpcHandler, served
from tests.test_server_messages_http import event


class _Pushing(JsonRpcHandler):
    """A handshake-era Streamable HTTP server with a session whose GET event stream sends what the test
    puts in `events`, and whose listing is one resource."""

    server_name = "pushing"
    capabilities: ClassVar[dict[str, object]] = {"resources": {"listChanged": True}}
    result_headers = (("Mcp-Session-Id", "s1"),)
    events: ClassVar[queue.Queue[bytes]]
    stop: ClassVar[threading.Event]
    get_opened: ClassVar[threading.Event]

    listed: ClassVar[list[None]]  # one for each resources/list answered

    def results(self) -> dict[str, object]:
        return {**super().results(), "resources/list": {"resources": [{"uri": "x://h/one", "name": "one"}]}}

    def result(self, method: str, message: dict[str, Any]) -> object | None:
        found = super().result(method, message)
        if method == "resources/list":
            self.listed.append(None)
        return found

    def do_GET(self) -> None:
        self.get_opened.set()
        self.stream_events(self.events, self.stop, headers={"Mcp-Session-Id": "s1"})


def _answer(ident: object) -> bytes:
    return event({"jsonrpc": "2.0", "id": ident, "result": {"contents": []}})


SAID = "pushing sent 2 answers to requests never sent (first: id 9999), which it ignored"


async def _strays_then_list_changed(url: str, handler: type[_Pushing]) -> None:
    """The app on `url`: once listed, the GET stream sends two strays, then a list change."""
    spec = ServerSpec(name="pushing", transport="http", url=url)
    async with settled_app(spec) as (app, pilot):
        servers = main_screen(app).catalogue.servers
        assert servers["pushing"].state == "ready"
        await wait_for(pilot, handler.get_opened.is_set)
        assert len(handler.listed) == 1
        for ident in (9999, "never-sent"):
            handler.events.put(_answer(ident))
        handler.events.put(event({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"}))

        def warned() -> list[str]:
            return [n.message for n in app._notifications if n.message.startswith("pushing sent")]

        # The refresh ended; its end posted the warning (handled by the app's loop just after).
        await wait_for(pilot, lambda: len(handler.listed) == 2 and not servers["pushing"].busy)
        await wait_for(pilot, lambda: bool(warned()), timeout=10.0)
        assert warned() == [SAID]
        status = servers["pushing"]
        assert status.state == "ready" and status.error is None  # the refresh was answered normally
        assert status.listing is not None and [r.uri for r in status.listing.resources] == ["x://h/one"]


@pytest.mark.anyio
async def test_strays_while_nothing_waits_are_said_in_the_warning_after_the_next_listing() -> None:
    class Handler(_Pushing):
        pass

    Handler.events = queue.Queue()
    Handler.stop = threading.Event()
    Handler.get_opened = threading.Event()
    Handler.listed = []
    for url in served(Handler, stopping=Handler.stop.set):
        await _strays_then_list_changed(url, Handler)


def test_one_stray_is_said_with_its_id() -> None:
    problems = ProtocolProblems()
    problems.stray_answer("'abc'")
    assert problems.describe() == "sent an answer to a request never sent (id 'abc'), which it ignored"
