"""What a stdio server sends on its own: a cancel of the explorer's request, a request the explorer cannot
read, log entries it cannot read.

Before, a server's `notifications/cancelled` naming the explorer's read was swallowed by the SDK and the
read waited for its timeout ("the server did not answer after 8 s"); a request whose params are not an
object was never answered (the server waited for ever) and was said to be a line "that is not a JSON-RPC
message"; a log entry with a level that is none vanished, with a traceback in the SDK's log.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from explorer.connection.errors import ProtocolProblems
from explorer.connection.server_messages import ServerMessages, log_fault, progress_fault
from tests.helpers.cli import CliResult, run_cli
from tests.helpers.tiny_server import tiny_server

NEVER = "60"  # longer than a run may take: a request that waits for its timeout fails the run
RUN_AT_MOST = 45.0

LISTS = """
import time
def listed(method):
    if method == "resources/list":
        return {"resources": [{"uri": "x://s/one", "name": "one"}]}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    return {}
"""


def explore(folder: Path, body: str, *args: str) -> CliResult:
    result = run_cli(*args, "--timeout", NEVER, "-s", tiny_server(folder, LISTS + body), timeout=RUN_AT_MOST)
    assert "Traceback" not in result.stderr, result
    return result


# ---------------------------------------------------------------------------- the server cancels our read

CANCELS = """
def answer(method, params):
    if method == "resources/read":
        send({"jsonrpc": "2.0", "method": "notifications/cancelled",
              "params": {"requestId": _id, "reason": "upstream went away \\x1b[31mred\\u202e" + "z" * 300}})
        time.sleep(60)  # never answers
    return listed(method)
"""


def test_a_cancel_of_our_read_fails_it_at_once_with_the_servers_reason(tmp_path: Path) -> None:
    result = explore(tmp_path, CANCELS, "read", "x://s/one")
    assert result.code == 1, result
    said = result.stderr
    assert (
        "reading x://s/one: the server cancelled the request (reason: upstream went away \\x1b[31mred\\u202ez"
        in said
    )
    assert "\x1b" not in said and "timeout" not in said and "z" * 200 not in said  # sanitized and cut


CANCELS_NOTHING = """
def answer(method, params):
    if method == "resources/read":
        send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 999}})
        return {"contents": [{"uri": params["uri"], "text": "hello"}]}
    return listed(method)
"""


def test_a_cancel_naming_no_request_in_flight_is_ignored(tmp_path: Path) -> None:
    result = explore(tmp_path, CANCELS_NOTHING, "read", "x://s/one")
    assert result.code == 0, result
    assert "hello" in result.stdout and "cancelled" not in result.stderr


# ------------------------------------------------------------------- requests the explorer cannot read

ANSWERED = """  # the server reads until the explorer's answer to its request `ident`
import json
def answered(ident):
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("id") == ident and "method" not in message:
            return message
    return {}
"""

ASKS_BADLY = (
    ANSWERED
    + """
def answer(method, params):
    if method != "resources/list":
        return listed(method)
    codes = []
    for ident, asked, bad in [("b1", "ping", [1, 2]), ("b2", "roots/list", 5),
                              ("b3", "sampling/createMessage", "x")]:
        send({"jsonrpc": "2.0", "id": ident, "method": asked, "params": bad})
        codes.append(str(answered(ident).get("error", {}).get("code")))
    return {"resources": [{"uri": "x://answered/" + "/".join(codes), "name": "answered"}]}
"""
)


def test_requests_with_params_that_are_not_objects_are_answered_with_an_error(tmp_path: Path) -> None:
    result = explore(tmp_path, ASKS_BADLY, "tree")
    assert result.code == 0, result
    assert "x://answered/-32602/-32602/-32602" in result.stdout, result  # the server got its answers
    assert (
        "sent 3 requests the explorer could not read (first: ping with params that are not an object), "
        "answered with errors" in result.stderr
    ), result
    assert "not JSON-RPC messages" not in result.stderr and "not a JSON-RPC message" not in result.stderr


# ------------------------------------------------------------ requests for what the explorer does not offer

ASKS_UNDECLARED = (
    ANSWERED
    + """
def answer(method, params):
    if method != "resources/list":
        return listed(method)
    codes = []
    asks = [("s1", "sampling/createMessage", {"messages": [], "maxTokens": 5}),
            ("s2", "sampling/createMessage", {"messages": [], "maxTokens": 5}),
            ("r1", "roots/list", {})]
    for ident, asked, params_ in asks:
        send({"jsonrpc": "2.0", "id": ident, "method": asked, "params": params_})
        codes.append(str(answered(ident).get("error", {}).get("code")))
    return {"resources": [{"uri": "x://answered/" + "/".join(codes), "name": "answered"}]}
"""
)


def test_requests_for_sampling_or_roots_are_refused_and_said(tmp_path: Path) -> None:
    """The explorer declares neither: the SDK refuses each with an error, and the user was never told that
    the server asked (a server that needed it then failed with words of its own)."""
    result = explore(tmp_path, ASKS_UNDECLARED, "tree")
    assert result.code == 0, result
    assert "x://answered/-32600/-32600/-32600" in result.stdout, result
    said = result.stderr
    assert (
        "asked 2 times for sampling/createMessage, which the explorer does not offer (it declares no such "
        "capability): refused with an error" in said
    ), result
    assert "asked once for roots/list, which the explorer does not offer" in said, result


# -------------------------------------------------------------------------- log entries it cannot read

LOGS_BADLY = """
CAPABILITIES = {"resources": {}, "logging": {}}
def answer(method, params):
    if method == "resources/list":
        for entry in [{"level": "loud", "data": "a"}, {"level": 5, "data": "b"}, {"data": "c"}, "d", None,
                      {"level": "info", "data": "fine"}]:
            note = {"jsonrpc": "2.0", "method": "notifications/message"}
            if entry is not None:
                note["params"] = entry
            send(note)
    return listed(method)
"""


def test_log_entries_the_explorer_cannot_read_are_counted_and_said(tmp_path: Path) -> None:
    result = explore(tmp_path, LOGS_BADLY, "tree")
    assert result.code == 0, result
    assert "x://s/one" in result.stdout
    assert (
        'sent 1 line that is not a JSON-RPC message (first: \'{"jsonrpc": "2.0", "method": '
        '"notifications/message", "params": "d"}\'), which it ignored, and 4 log messages the explorer '
        'could not read (first: level "loud" is not a log level), which it ignored' in result.stderr
    ), result


@pytest.mark.parametrize(
    ("params", "why"),
    [
        ({"level": "loud", "data": 1}, 'level "loud" is not a log level'),
        ({"level": 5, "data": 1}, "level 5 is not a log level"),
        ({"level": "\x1b[2J" * 30, "data": 1}, 'level "\\x1b[2J\\x1b[2J\\x1b[2J'),
        ({"data": 1}, "it has no level"),
        ({"level": "info"}, "it has no data"),
        ({"level": "info", "data": 1, "logger": 7}, "its logger is not a string"),
        ("x", "its params are not an object"),
        (None, "it has no params"),
        ({"level": "warning", "data": None, "logger": None}, None),
    ],
)
def test_why_a_log_entry_cannot_be_read(params: Any, why: str | None) -> None:
    fault = log_fault(params)
    if why is None:
        assert fault is None
    else:
        assert fault is not None and fault.startswith(why) and "\x1b" not in fault and len(fault) < 120


PROGRESS_BADLY = """
def answer(method, params):
    if method == "resources/list":
        for entry in [{"progressToken": "t", "progress": "half"}, {"progress": 1},
                      {"progressToken": [1], "progress": 1},
                      {"progressToken": "t", "progress": 1, "total": 3}]:
            send({"jsonrpc": "2.0", "method": "notifications/progress", "params": entry})
    return listed(method)
"""


def test_progress_the_explorer_cannot_read_is_counted_and_said(tmp_path: Path) -> None:
    """Before, the SDK dropped such a notification with a traceback in its log, and nothing was said."""
    result = explore(tmp_path, PROGRESS_BADLY, "tree")
    assert result.code == 0, result
    assert "x://s/one" in result.stdout
    assert (
        "sent 3 progress notifications the explorer could not read (first: its progress is "
        '"half", not a number), which it ignored' in result.stderr
    ), result


@pytest.mark.parametrize(
    ("params", "why"),
    [
        ({"progressToken": "t", "progress": "half"}, 'its progress is "half", not a number'),
        ({"progressToken": "t", "progress": None}, "its progress is null, not a number"),
        ({"progress": 1}, "it has no progressToken"),
        ({"progressToken": "t"}, "it has no progress"),
        ({"progressToken": 1.5, "progress": 1}, "its progressToken is 1.5, not a string or an integer"),
        ({"progressToken": "t", "progress": 1, "total": "\x1b[2J"}, 'its total is "\\x1b[2J", not a number'),
        ({"progressToken": "t", "progress": 1, "message": 5}, "its message is 5, not a string"),
        ({"progressToken": "t", "progress": 1, "_meta": 3}, "its _meta is 3, not an object"),
        ("x", "its params are not an object"),
        (None, "it has no params"),
        ({"progressToken": 7, "progress": "5", "total": None, "message": None}, None),  # the SDK reads it
    ],
)
def test_why_a_progress_notification_cannot_be_read(params: Any, why: str | None) -> None:
    assert progress_fault(params) == why


def test_the_same_fault_again_is_said_without_first() -> None:
    problems = ProtocolProblems()
    problems.unreadable_log('level "loud" is not a log level')
    problems.unreadable_log('level "loud" is not a log level')
    assert (
        problems.describe()
        == 'sent 2 log messages the explorer could not read (level "loud" is not a log level), '
        "which it ignored"
    )


# ------------------------------------------------------------------------------------ which cancel is whose


def _request(ident: Any, method: str = "resources/read") -> Any:
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    return SessionMessage(types.JSONRPCRequest(jsonrpc="2.0", id=ident, method=method, params={}))


def _cancel(ident: Any) -> Any:
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    params = {"requestId": ident, "reason": "r"}
    return SessionMessage(
        types.JSONRPCNotification(jsonrpc="2.0", method="notifications/cancelled", params=params)
    )


@pytest.mark.parametrize(
    ("ours", "theirs", "cancelled", "fails"),
    [
        ([3], [], 3, True),
        ([3], [], "3", True),  # the SDK matches a string of the number to the number
        ([3], [], 4, False),  # no request in flight: ignored
        ([3], [3], 3, False),  # the server's own request 3, which we are answering: its cancel
        ([], [], 3, False),
    ],
)
def test_a_cancel_fails_only_a_request_of_ours_in_flight(
    ours: list[int], theirs: list[int], cancelled: Any, fails: bool
) -> None:
    messages = ServerMessages(ProtocolProblems())
    for ident in ours:
        messages.sent(_request(ident))
    for ident in theirs:
        assert messages.received(_request(ident, "ping")) is not None
    cancel = _cancel(cancelled)
    handed = messages.received(cancel)
    if fails:
        assert handed is not cancel and handed.message.id == ours[0]  # the id as it was sent
        assert handed.message.error.data.why == "the server cancelled the request (reason: r)"
        assert messages.received(_cancel(cancelled)) is not None  # once only: it is no longer in flight
    else:
        assert handed is cancel


def test_a_cancel_of_a_listen_stream_is_left_to_the_sdk() -> None:
    messages = ServerMessages(ProtocolProblems())
    messages.sent(_request("listen-1", "subscriptions/listen"))
    cancel = _cancel("listen-1")
    assert messages.received(cancel) is cancel


def test_an_answered_request_is_no_longer_in_flight() -> None:
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    messages = ServerMessages(ProtocolProblems())
    messages.sent(_request(8))
    messages.received(SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=8, result={})))
    cancel = _cancel(8)
    assert messages.received(cancel) is cancel


@pytest.mark.anyio
async def test_an_unreadable_request_is_answered_on_the_write_stream() -> None:
    from explorer.connection.errors import UnreadableMessage

    from_server, server_side = anyio.create_memory_object_stream[Any](1)
    to_server, written = anyio.create_memory_object_stream[Any](1)
    problems = ProtocolProblems()
    async with (
        ServerMessages(problems).watching((server_side, to_server)) as (read, _write),
        anyio.create_task_group() as group,
    ):
        group.start_soon(read.receive)  # the session's read loop: it gets nothing for this message
        await from_server.send(
            UnreadableMessage({"jsonrpc": "2.0", "id": 7, "method": "ping", "params": [1]})
        )
        with anyio.fail_after(10):
            answer = await written.receive()  # the error answer, written back to the server
        group.cancel_scope.cancel()
    assert answer.message.id == 7 and answer.message.error.code == -32602
    assert answer.message.error.message == "Invalid params"
    assert problems.describe() == (
        "sent a request the explorer could not read (ping with params that are not an object), "
        "answered with an error"
    )
