"""A server that ends its event stream at once, again and again, asking to be resumed a millisecond later:
the explorer stops resuming after a budget, fails that request with a sentence, and the rest still works.

Before, the SDK resumed some 950 times a second until its recursion overflowed; the CLI then spun at full
CPU and ignored its timeouts and Ctrl+C (only SIGKILL ended it)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, ClassVar

import httpx2
import pytest

from explorer.connection.http_limits import EventsRefused
from explorer.connection.resumptions import MOST_IN_WINDOW, MOST_PER_CONNECTION, WINDOW, Resumptions
from tests.helpers.cli import run_cli
from tests.helpers.loopback_http import JsonRpcHandler, served

pytestmark = pytest.mark.anyio


class _Resuming(JsonRpcHandler):
    """Everything is answered in JSON but `resources/list`, whose event stream ends after a priming event
    (`retry: 1`); each resumption (GET) does the same with a new id. A method not listed is unknown."""

    server_name = "resuming"
    capabilities: ClassVar[dict[str, object]] = {"resources": {}, "tools": {}}
    gets = 0

    def _events(self, event_id: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(f"id: {event_id}\nretry: 1\ndata: \n\n".encode())
        self.close_connection = True

    def answer(self, method: str, message: dict[str, Any]) -> None:
        if "id" in message and method == "resources/list":
            self._events("ev0")
        else:
            super().answer(method, message)

    def result(self, method: str, message: dict[str, Any]) -> object | None:
        return self.results().get(method)

    def results(self) -> dict[str, object]:
        tools = [{"name": "still-listed", "inputSchema": {"type": "object"}}]
        return {**super().results(), "tools/list": {"tools": tools}}

    def do_GET(self) -> None:
        if "Last-Event-ID" not in self.headers:
            self.send(405)
            return
        type(self).gets += 1
        self._events(f"ev{type(self).gets}")


@pytest.fixture
def resuming_server() -> Iterator[str]:
    yield from served(_Resuming)


@pytest.mark.slow
def test_a_stream_resumed_without_end_fails_its_request_and_the_other_lists_come(
    resuming_server: str,
) -> None:
    _Resuming.gets = 0
    result = run_cli("tree", "--list-timeout", "60", "-s", resuming_server, timeout=60)
    assert result.code == 1, result
    assert (
        "listing resources: the server's answer never came: it ended its event stream early" in result.stderr
    )
    # Which budget stops it depends on the machine's pace (21 within 10 s, or 501 in all on a crawl):
    # either way it is said and bounded.
    within = f"had it resumed {MOST_IN_WINDOW + 1} times within {WINDOW:g} s; stopped resuming"
    in_all = f"had it resumed {MOST_PER_CONNECTION + 1} times on this connection; stopped resuming"
    assert within in result.stderr or in_all in result.stderr
    assert _Resuming.gets <= MOST_PER_CONNECTION + 10  # the SDK's few attempts after a refusal, no more
    tools = run_cli("tools", "--json", "-s", resuming_server, timeout=60)
    assert [entry["tool"]["name"] for entry in json.loads(tools.stdout)["tools"]] == ["still-listed"]


# ------------------------------------------------------------------------------------------ the budget


def resumption(url: str = "http://x/mcp", *, resumed: bool = True) -> httpx2.Response:
    headers = {"Last-Event-ID": "ev1"} if resumed else {}
    request = httpx2.Request("GET", url, headers=headers)
    return httpx2.Response(
        200, headers={"Content-Type": "text/event-stream"}, stream=_Body(), request=request
    )


class _Body(httpx2.AsyncByteStream):
    async def __aiter__(self):  # type: ignore[no-untyped-def]
        yield b"id: ev2\ndata: \n\n"

    async def aclose(self) -> None:
        return None


async def refused(response: httpx2.Response) -> str | None:
    """The refusal reading the body meets, or None when the body reads as the server sent it."""
    try:
        async for _ in response.aiter_bytes():
            pass
    except EventsRefused as refusal:
        return str(refusal)
    return None


async def test_resumptions_within_the_window_pass_and_the_one_past_it_is_refused() -> None:
    now = [0.0]
    budget = Resumptions(clock=lambda: now[0])
    for _ in range(MOST_IN_WINDOW):
        response = resumption()
        await budget.on_response(response)
        assert await refused(response) is None
        now[0] += 0.01
    response = resumption()
    await budget.on_response(response)
    assert f"resumed {MOST_IN_WINDOW + 1} times within" in (await refused(response) or "")


async def test_resumptions_spaced_as_servers_ask_pass_up_to_the_connections_total() -> None:
    now = [0.0]
    budget = Resumptions(clock=lambda: now[0])
    for _ in range(MOST_PER_CONNECTION):
        response = resumption()
        await budget.on_response(response)
        assert await refused(response) is None
        now[0] += 1.0  # a second apart: the SDK's default delay
    response = resumption()
    await budget.on_response(response)
    assert f"resumed {MOST_PER_CONNECTION + 1} times on this connection" in (await refused(response) or "")


async def test_only_resumptions_count() -> None:
    """A GET that opens a stream (no `Last-Event-ID`) and every POST's answer are none of its business."""
    budget = Resumptions(clock=lambda: 0.0)
    for _ in range(3 * MOST_IN_WINDOW):
        response = resumption(resumed=False)
        await budget.on_response(response)
        assert await refused(response) is None
    assert budget.total == 0
