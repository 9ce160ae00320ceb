"""Answers naming another request, with several requests waiting, or with the id between two big members.

Before: with two reads waiting on one connection, an answer to one naming a request never sent (on the GET
event stream, on the legacy SSE stream, or in a JSON answer whose id sits between two big members) was
dropped, and its read waited for its whole timeout; a JSON answer whose id between two big members named
the other read gave that read this answer's contents (its own answer, coming next, was dropped) while the
first waited for its timeout; and with one request, such an id naming a request answered before, or an
error whose id there is null, made the request wait for its timeout too. Now the request the answer came
for fails at once, saying which request the answer named (the error its own message), and the other read
gets its own answer.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable
from typing import Any, ClassVar

import anyio
import mcp_types as types
import pytest
from mcp.shared.message import SessionMessage

from explorer.config import ServerSpec
from explorer.connection.errors import ServerFault
from explorer.connection.session import ServerConnection
from explorer.connection.stray_answers import StrayAnswers
from tests.helpers.loopback_http import NEVER, RUN_AT_MOST, JsonRpcHandler, QuietHandler, served, tree_against
from tests.test_server_messages_http import event

BIG = "y" * 600_000  # longer than the head and the tail `answer_checks` reads, many times over


def _contents(uri: str, text: str) -> dict[str, object]:
    return {"contents": [{"uri": uri, "text": text}]}


def _between_big_members(ident: object, **answer: object) -> bytes:
    """A JSON answer whose id sits between two big members."""
    ((kind, value),) = answer.items()
    return json.dumps({kind: value, "pad": BIG, "id": ident, "jsonrpc": "2.0", "x": BIG}).encode()


# ------------------------------------------------------------------------------------------ two reads


class _TwoReads(JsonRpcHandler):
    """Streamable HTTP with a session and a GET event stream. The reads of x://a and x://b are answered
    once both have come: x://a by `odd(handler, its id, x://b's id)` (True: its POST's stream is then held
    open); x://b with its contents, on the GET stream right after what `odd` put there (`b_on_get`: the
    two in that order), else once the test's read of x://a has ended (`a_done`: nothing the client does
    with x://b's answer can then have told it whose x://a's was)."""

    server_name = "two reads"
    result_headers = (("Mcp-Session-Id", "s1"),)
    odd: ClassVar[Callable[[_TwoReads, object, object], bool]]
    events: ClassVar[queue.Queue[bytes]]
    stop: ClassVar[threading.Event]
    both: ClassVar[threading.Barrier]
    odd_sent: ClassVar[threading.Event]
    a_done: ClassVar[threading.Event]
    b_on_get: ClassVar[bool] = False
    ids: ClassVar[dict[str, object]]

    def answer(self, method: str, message: dict[str, Any]) -> None:
        if method != "resources/read":
            super().answer(method, message)
            return
        uri = message["params"]["uri"]
        self.ids[uri] = message["id"]
        self.both.wait(RUN_AT_MOST)
        if uri == "x://a":
            hold = type(self).odd(self, message["id"], self.ids["x://b"])
            self.odd_sent.set()
        elif self.b_on_get:
            self.odd_sent.wait(RUN_AT_MOST)
            self.events.put(event({"jsonrpc": "2.0", "id": message["id"], "result": _contents(uri, "b")}))
            hold = _empty_event_stream(self)
        else:
            self.a_done.wait(RUN_AT_MOST)
            self.reply(message["id"], result=_contents(uri, "b"), headers=self.result_headers)
            hold = False
        if hold:
            self.stop.wait(RUN_AT_MOST)

    def do_GET(self) -> None:
        self.stream_events(self.events, self.stop)


def _empty_event_stream(handler: _TwoReads) -> bool:
    """Answer a POST with an event stream held open with nothing on it (its answer comes on the GET
    stream)."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Mcp-Session-Id", "s1")
    handler.end_headers()
    handler.wfile.flush()
    return True


async def _read_both(url: str, *, sse: bool = False, a_done: threading.Event | None = None) -> dict[str, str]:
    """Read x://a and x://b at once on one connection: each one's text, or its fault's sentence;
    `a_done` is set when the read of x://a has ended."""
    spec = ServerSpec(name="s", transport="sse" if sse else "http", url=url)
    said: dict[str, str] = {}
    with anyio.fail_after(RUN_AT_MOST):  # a read waiting for its timeout (`NEVER`) fails the test here
        async with ServerConnection(spec, timeout=float(NEVER)) as conn:

            async def read(uri: str) -> None:
                try:
                    said[uri] = (await conn.read_resource(uri))["contents"][0]["text"]
                except ServerFault as fault:
                    said[uri] = fault.message
                finally:
                    if uri == "x://a" and a_done is not None:
                        a_done.set()

            async with anyio.create_task_group() as group:
                group.start_soon(read, "x://a")
                group.start_soon(read, "x://b")
    return said


async def _two_reads(
    odd: Callable[[_TwoReads, object, object], bool], *, b_on_get: bool = False
) -> tuple[dict[str, str], object]:
    """What reading x://a and x://b at once said, x://a answered by `odd` (x://b: see `_TwoReads`); and
    x://a's request id."""

    class Handler(_TwoReads):
        pass

    Handler.odd = odd
    Handler.b_on_get = b_on_get
    Handler.a_done = threading.Event()
    Handler.events = queue.Queue()
    Handler.stop = threading.Event()
    Handler.both = threading.Barrier(2)
    Handler.odd_sent = threading.Event()
    Handler.ids = {}
    for url in served(Handler, stopping=Handler.stop.set):
        return await _read_both(url, a_done=Handler.a_done), Handler.ids["x://a"]
    raise AssertionError("not served")


def _on_the_get_stream(named: object) -> Callable[[_TwoReads, object, object], bool]:
    def odd(handler: _TwoReads, ident: object, other: object) -> bool:
        answer = {"jsonrpc": "2.0", "id": named, "result": _contents("x://a", "a")}
        handler.events.put(event(answer))
        return _empty_event_stream(handler)

    return odd


@pytest.mark.anyio
async def test_a_stray_on_the_get_stream_with_two_reads_waiting_fails_the_one_left_unanswered() -> None:
    """The stray comes first, while both wait; x://b's answer, after it, tells it was x://a's."""
    said, ident = await _two_reads(_on_the_get_stream(9999), b_on_get=True)
    assert said == {
        "x://a": f"reading x://a: the server's answer to request {ident} is an answer to request 9999",
        "x://b": "b",
    }


@pytest.mark.anyio
async def test_a_stray_id_between_big_members_with_two_reads_waiting_fails_its_read_at_once() -> None:
    def odd(handler: _TwoReads, ident: object, other: object) -> bool:
        body = _between_big_members(9999, result=_contents("x://a", "a"))
        handler.send(200, body, headers=handler.result_headers)
        return False

    said, ident = await _two_reads(odd)
    assert said == {
        "x://a": f"reading x://a: the server's answer to request {ident} is an answer to request 9999",
        "x://b": "b",
    }


@pytest.mark.anyio
async def test_an_id_between_big_members_naming_the_other_read_is_not_given_to_it() -> None:
    def odd(handler: _TwoReads, ident: object, other: object) -> bool:
        handler.send(
            200, _between_big_members(other, result=_contents("x://b", "a")), headers=handler.result_headers
        )
        return False

    said, ident = await _two_reads(odd)
    other = said["x://a"].rsplit(" ", 1)[-1]
    assert said == {
        "x://a": f"reading x://a: the server's answer to request {ident} is an answer to request {other}",
        "x://b": "b",  # its own answer, not x://a's
    }
    assert other != str(ident)


class _TwoReadsOverSse(QuietHandler):
    """A legacy HTTP+SSE server: GET /sse sends the endpoint, then what is queued; a POSTed message is
    accepted (202), a request answered on the event stream. The reads of x://a and x://b are answered once
    both have come, in order: x://a by an answer to request 9999, then x://b with its contents."""

    events: ClassVar[queue.Queue[bytes]]
    stop: ClassVar[threading.Event]
    both: ClassVar[threading.Barrier]
    odd_sent: ClassVar[threading.Event]

    def do_GET(self) -> None:
        self.stream_events(self.events, self.stop, first=b"event: endpoint\ndata: /messages?session=1\n\n")

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        self.send_response(202)
        self.send_header("Content-Length", "0")
        self.send_header("Connection", "close")  # this thread may wait: the next POST comes on another
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True
        if "id" not in message or "method" not in message:
            return
        method, ident = message["method"], message["id"]
        if method == "resources/read":
            self._read(message["params"]["uri"], ident)
            return
        results: dict[str, object] = {
            "initialize": {
                "protocolVersion": "2025-06-18",
                "capabilities": {"resources": {}},
                "serverInfo": {"name": "legacy", "version": "1"},
            },
        }
        self.events.put(event({"jsonrpc": "2.0", "id": ident, "result": results.get(method, {})}))

    def _read(self, uri: str, ident: object) -> None:
        self.both.wait(RUN_AT_MOST)
        if uri == "x://a":
            self.events.put(event({"jsonrpc": "2.0", "id": 9999, "result": _contents(uri, "a")}))
            self.odd_sent.set()
        else:
            self.odd_sent.wait(RUN_AT_MOST)
            self.events.put(event({"jsonrpc": "2.0", "id": ident, "result": _contents(uri, "b")}))


@pytest.mark.anyio
async def test_a_stray_on_the_legacy_stream_with_two_reads_waiting_fails_the_one_left_unanswered() -> None:
    """The stray comes first, while both wait; x://b's answer then tells it was x://a's."""
    _TwoReadsOverSse.events = queue.Queue()
    _TwoReadsOverSse.stop = threading.Event()
    _TwoReadsOverSse.both = threading.Barrier(2)
    _TwoReadsOverSse.odd_sent = threading.Event()
    said: dict[str, str] = {}
    for url in served(_TwoReadsOverSse, "/sse", stopping=_TwoReadsOverSse.stop.set):
        said = await _read_both(url, sse=True)
    assert said["x://b"] == "b"
    assert said["x://a"].startswith("reading x://a: the server's answer to request ")
    assert said["x://a"].endswith(" is an answer to request 9999")


# ------------------------------------------------------------------------------------------ one request


class _Listing(JsonRpcHandler):
    """`resources/list` answered by `listed(handler, its id, the templates listing's id)`."""

    listed: ClassVar[Callable[[_Listing, object, object], None]]
    templates_id: ClassVar[object] = None

    def answer(self, method: str, message: dict[str, Any]) -> None:
        if method == "resources/templates/list":
            type(self).templates_id = message["id"]
        if method == "resources/list":
            type(self).listed(self, message["id"], self.templates_id)
        else:
            super().answer(method, message)


def _tree(listed: Callable[[_Listing, object, object], None]) -> tuple[int, str]:
    class Handler(_Listing):
        pass

    Handler.listed = listed
    _, result = tree_against(Handler)
    return result.code, result.stderr


@pytest.mark.slow
def test_an_id_between_big_members_naming_a_request_answered_before_fails_at_once() -> None:
    def listed(handler: _Listing, ident: object, earlier: object) -> None:
        handler.send(200, _between_big_members(earlier, result={"resources": []}))

    code, said = _tree(listed)
    assert code == 1, said
    assert "listing resources: the server's answer to request " in said
    assert " is an answer to request " in said and "timeout" not in said


@pytest.mark.slow
def test_an_error_naming_no_request_between_big_members_is_said() -> None:
    def listed(handler: _Listing, ident: object, earlier: object) -> None:
        error = {"code": -32000, "message": "the index is being rebuilt"}
        handler.send(200, _between_big_members(None, error=error))

    code, said = _tree(listed)
    assert code == 1, said
    assert "listing resources: the server answered error -32000: the index is being rebuilt" in said


# ------------------------------------------------------------------------------------------ the rule


def _request(ident: int) -> SessionMessage:
    return SessionMessage(types.JSONRPCRequest(jsonrpc="2.0", id=ident, method="resources/read"))


def _answer(ident: int) -> SessionMessage:
    return SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=ident, result={}))


def _cancel(ident: int) -> SessionMessage:
    params = {"requestId": ident, "reason": "timed out"}
    return SessionMessage(
        types.JSONRPCNotification(jsonrpc="2.0", method="notifications/cancelled", params=params)
    )


def test_a_stray_is_the_answer_of_the_one_request_left_unanswered_of_those_it_came_among() -> None:
    strays = StrayAnswers()
    for ident in (1, 2, 3):
        strays.sent(_request(ident))
    strays.received(_answer(9999))
    strays.sent(_request(4))  # sent after the stray: not its request
    strays.received(_answer(2))
    assert strays.made() is None
    strays.received(_answer(3))
    made = strays.made()
    assert made is not None and made.message.id == 1
    assert made.message.error.message.endswith("to request 1 is an answer to request 9999")
    strays.received(_answer(4))
    assert strays.made() is None


def test_a_stray_whose_request_may_have_been_cancelled_fails_none() -> None:
    strays = StrayAnswers()
    for ident in (1, 2):
        strays.sent(_request(ident))
    strays.received(_answer(9999))
    strays.sent(_cancel(1))
    strays.received(_answer(2))
    assert strays.made() is None


def test_an_answer_read_from_a_posts_body_is_that_requests_whatever_id_it_names() -> None:
    strays = StrayAnswers()
    for ident in (1, 2):
        strays.sent(_request(ident))
    refused = strays.received(_answer(2), answering=1)
    assert refused.message.id == 1 and refused.message.error.message.endswith("is an answer to request 2")
    error = types.JSONRPCError(jsonrpc="2.0", id=None, error=types.ErrorData(code=-32000, message="busy"))
    assert strays.received(SessionMessage(error), answering=2).message.id == 2
    assert strays.received(_answer(7), answering=7) is not None  # its own: handed on as it came
