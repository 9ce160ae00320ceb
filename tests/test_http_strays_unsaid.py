"""Over HTTP, answers naming a request never sent are said even when whose they were cannot be told.

Before: a stray that came while two reads waited was dropped without a word when one of those reads was
then cancelled (the user stopping it, a timeout's courtesy cancel), and so were the oldest strays past the
64 kept untold, and all but the first of several strays found to be meant for the same read. Now each is
counted in the connection's `ProtocolProblems`, the warning a listing ends with. An answer to a request the
explorer cancelled itself (a late answer, which the server may send) is no fault: it is not counted.
"""

from __future__ import annotations

import queue
import threading
from typing import Any, ClassVar

import anyio
import mcp_types as types
import pytest
from mcp.shared.message import SessionMessage

from explorer.config import ServerSpec
from explorer.connection.errors import ProtocolProblems, ServerFault
from explorer.connection.session import ServerConnection
from explorer.connection.stray_answers import StrayAnswers
from tests.helpers.loopback_http import NEVER, RUN_AT_MOST, JsonRpcHandler, served
from tests.test_server_messages_http import event


def _contents(uri: str, text: str) -> dict[str, object]:
    return {"contents": [{"uri": uri, "text": text}]}


class _Held(JsonRpcHandler):
    """Streamable HTTP with a session and a GET event stream. Each read's POST is answered with an event
    stream held open, its answer coming on the GET stream: x://c's at once; once x://a and x://b have both
    come, the `strays` (answers naming these ids), then x://b's when `b_after_strays`, else once the
    explorer cancels a request (after x://a's late answer when `late`)."""

    server_name = "held"
    result_headers = (("Mcp-Session-Id", "s1"),)
    strays: ClassVar[list[object]]
    b_after_strays: ClassVar[bool] = False
    late: ClassVar[bool] = False
    events: ClassVar[queue.Queue[bytes]]
    stop: ClassVar[threading.Event]
    both: ClassVar[threading.Barrier]
    both_came: ClassVar[threading.Event]
    ids: ClassVar[dict[str, object]]

    def answer(self, method: str, message: dict[str, Any]) -> None:
        if method == "notifications/cancelled":
            if self.late:
                self._on_get(self.ids["x://a"], "x://a", "late")
            self._on_get(self.ids["x://b"], "x://b", "b")
        if method != "resources/read":
            super().answer(method, message)
            return
        uri = message["params"]["uri"]
        self.ids[uri] = message["id"]
        if uri == "x://c":
            self._on_get(message["id"], uri, "c")
        elif self.both.wait(RUN_AT_MOST) == 0:  # one of the two threads, once both came
            for ident in self.strays:
                self._on_get(ident, "x://?", "stray")
            if self.b_after_strays:
                self._on_get(self.ids["x://b"], "x://b", "b")
            self.both_came.set()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Mcp-Session-Id", "s1")
        self.end_headers()
        self.wfile.flush()
        self.stop.wait(RUN_AT_MOST)

    def _on_get(self, ident: object, uri: str, text: str) -> None:
        self.events.put(event({"jsonrpc": "2.0", "id": ident, "result": _contents(uri, text)}))

    def do_GET(self) -> None:
        self.stream_events(self.events, self.stop, headers={"Mcp-Session-Id": "s1"})


def _handler(strays: list[object], *, b_after_strays: bool = False, late: bool = False) -> type[_Held]:
    class Handler(_Held):
        pass

    Handler.strays = strays
    Handler.b_after_strays = b_after_strays
    Handler.late = late
    Handler.events = queue.Queue()
    Handler.stop = threading.Event()
    Handler.both = threading.Barrier(2)
    Handler.both_came = threading.Event()
    Handler.ids = {}
    return Handler


async def _reads(handler: type[_Held], *, cancel_a: bool) -> tuple[dict[str, str], str | None]:
    """Read x://a and x://b at once on one connection; with `cancel_a`, once both came (and x://c was
    read, so the strays before its answer were seen), the read of x://a is stopped. What each read said
    (its text or its fault's sentence), and the connection's problems as the warning says them."""
    for url in served(handler, stopping=handler.stop.set):
        return await _reads_on(url, handler, cancel_a=cancel_a)
    raise AssertionError("not served")


async def _reads_on(url: str, handler: type[_Held], *, cancel_a: bool) -> tuple[dict[str, str], str | None]:
    said: dict[str, str] = {}
    spec = ServerSpec(name="s", transport="http", url=url)
    stopping = anyio.CancelScope()
    with anyio.fail_after(RUN_AT_MOST):  # a read waiting for its timeout (`NEVER`) fails the test here
        async with ServerConnection(spec, timeout=float(NEVER)) as conn:

            async def read(uri: str) -> None:
                with stopping if uri == "x://a" else anyio.CancelScope():
                    try:
                        said[uri] = (await conn.read_resource(uri))["contents"][0]["text"]
                    except ServerFault as fault:
                        said[uri] = fault.message

            async with anyio.create_task_group() as group:
                group.start_soon(read, "x://a")
                group.start_soon(read, "x://b")
                if cancel_a:
                    await anyio.to_thread.run_sync(handler.both_came.wait, RUN_AT_MOST)
                    await read("x://c")
                    stopping.cancel()
            return said, conn.problems.describe()


@pytest.mark.anyio
async def test_a_late_answer_to_a_read_the_explorer_stopped_is_no_stray() -> None:
    said, problems = await _reads(_handler([], late=True), cancel_a=True)
    assert said == {"x://b": "b", "x://c": "c"}  # x://a's late answer fails nothing, is said nowhere
    assert problems is None


@pytest.mark.anyio
async def test_a_stray_among_reads_one_of_which_is_then_stopped_is_said() -> None:
    said, problems = await _reads(_handler([9999], late=True), cancel_a=True)
    assert said == {"x://b": "b", "x://c": "c"}
    assert problems == "sent an answer to a request never sent (id 9999), which it ignored"


@pytest.mark.anyio
async def test_strays_past_the_64_kept_untold_are_all_said() -> None:
    handler = _handler(list(range(10000, 10065)), b_after_strays=True)
    said, problems = await _reads(handler, cancel_a=False)
    ident = handler.ids["x://a"]
    # 10000, the oldest, given up untold; 10002 to 10064, told to be x://a's once it had failed
    assert problems == "sent 64 answers to requests never sent (first: id 10000), which it ignored"
    assert said == {
        "x://a": f"reading x://a: the server's answer to request {ident} is an answer to request 10001; "
        f"the server also {problems}",
        "x://b": "b",
    }


# ------------------------------------------------------------------------------------------ the rule


def _request(ident: int) -> SessionMessage:
    return SessionMessage(types.JSONRPCRequest(jsonrpc="2.0", id=ident, method="resources/read"))


def _answer(ident: int) -> SessionMessage:
    return SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=ident, result={}))


def _cancel(ident: int) -> SessionMessage:
    params = {"requestId": ident, "reason": "stopped"}
    return SessionMessage(
        types.JSONRPCNotification(jsonrpc="2.0", method="notifications/cancelled", params=params)
    )


def test_a_stray_whose_request_cannot_be_told_after_a_cancel_is_counted_and_a_late_answer_is_not() -> None:
    problems = ProtocolProblems()
    strays = StrayAnswers(problems)
    for ident in (1, 2):
        strays.sent(_request(ident))
    strays.received(_answer(9999))
    strays.sent(_cancel(1))
    strays.received(_answer(1))  # the cancelled request's late answer
    strays.received(_answer(2))
    assert strays.made() is None
    assert problems.describe() == "sent an answer to a request never sent (id 9999), which it ignored"


def test_of_two_strays_told_to_be_the_same_requests_the_second_is_counted() -> None:
    problems = ProtocolProblems()
    strays = StrayAnswers(problems)
    for ident in (1, 2):
        strays.sent(_request(ident))
    strays.received(_answer(9998))
    strays.received(_answer(9999))
    strays.received(_answer(2))
    made = strays.made()
    assert made is not None and made.message.id == 1
    assert made.message.error.message.endswith("to request 1 is an answer to request 9998")
    assert strays.made() is None
    assert problems.describe() == "sent an answer to a request never sent (id 9999), which it ignored"
