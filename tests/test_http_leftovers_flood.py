"""A flood of notifications over HTTP is taken out of the event stream's bytes before the SDK parses them.

Before: the SDK parsed every event (pydantic, 100 to 200 us each) before the flood gate saw the message,
so 30,000 log entries sent ahead of a page over Streamable HTTP made `tree --timeout 2` fail ("the server
did not answer after 2 s") although the gate dropped most of them. Now an event stream's notifications
past the rate are told from their bytes and left out there (`flood.EventGate`): the SDK parses the few
admitted, and the page comes, with the flood said as over stdio.

The machine's speed must not decide the tests: the explorer's process runs with the gate's rate lowered
(`SLOW_GATE`, as `test_notification_flood` does) and the SDK's parse made 2 ms slower a message
(`SLOW_PARSE`): 30,000 events parsed take a minute on any machine, the few the gate admits a fraction of
a second.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from explorer.connection import flood
from explorer.connection.errors import ProtocolProblems
from explorer.connection.flood import FloodGate
from tests.helpers.cli import CliResult, run_cli_patched
from tests.test_server_messages_http import RUN_AT_MOST, Legacy, Streamable, event, log_entry, serve

SLOW_GATE = "from explorer.connection import flood; flood.RATE = 5.0; flood.BURST = 50"
SLOW_PARSE = """
import time
import mcp_types
import mcp.client.streamable_http

class _SlowParse:
    def __init__(self, inner):
        self._inner = inner

    def validate_json(self, *args, **kwargs):
        time.sleep(0.002)
        return self._inner.validate_json(*args, **kwargs)

_slow = _SlowParse(mcp_types.jsonrpc_message_adapter)
mcp.client.streamable_http.jsonrpc_message_adapter = _slow  # its answers and event streams
mcp_types.jsonrpc_message_adapter = _slow  # the legacy SSE client's
"""
TIMEOUT = "20"  # the flood parsed whole takes 60 s (`SLOW_PARSE`): a request waiting for it times out
FLOOD = 30_000
FLOODED = "notifications faster than 5 a second (most of them 'notifications/message')"


def _flood() -> bytes:
    return b"".join(event(log_entry({"level": "info", "data": f"flood {k}"})) for k in range(FLOOD))


class _FloodsBeforeThePage(Streamable):
    def before(self, message: dict[str, Any]) -> bytes:
        return _flood() if message["method"] == "resources/list" else b""


class _FloodsBeforeThePageOverSse(Legacy):
    def before(self, message: dict[str, Any]) -> bytes:
        return _flood() if message["method"] == "resources/list" else b""


def _explore(handler: type[Streamable] | type[Legacy]) -> CliResult:
    for url in serve(handler):
        sse = ["--sse"] if issubclass(handler, Legacy) else []
        prelude = f"{SLOW_GATE}\n{SLOW_PARSE}"
        result = run_cli_patched(prelude, "tree", *sse, "--timeout", TIMEOUT, "-s", url, timeout=RUN_AT_MOST)
        assert "Traceback" not in result.stderr, result
        return result
    raise AssertionError("not served")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("handler", "listed"),
    [(_FloodsBeforeThePage, "x://h/one"), (_FloodsBeforeThePageOverSse, "x://sse/one")],
    ids=["streamable-http", "legacy-sse"],
)
def test_a_flood_ahead_of_a_page_never_reaches_the_sdks_parse(
    handler: type[Streamable] | type[Legacy], listed: str
) -> None:
    result = _explore(handler)
    assert result.code == 0, result
    assert listed in result.stdout
    assert FLOODED in result.stderr, result
    assert "did not answer" not in result.stdout + result.stderr


# ------------------------------------------------------------------------------------------ the bytes


def _gated(body: bytes, cut: int, problems: ProtocolProblems) -> bytes:
    """What `EventGate` hands on of `body` fed in pieces of `cut` bytes (the clock stopped)."""
    gate = FloodGate(problems, clock=lambda: 0.0).events()
    return b"".join(gate.feed(body[at : at + cut]) for at in range(0, len(body), cut)) + gate.rest()


def _message(ident: int | None = None, method: str = "notifications/message") -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": {"level": "info", "data": "x"}}
    if ident is not None:
        message = {"jsonrpc": "2.0", "id": ident, "result": {}}
    return json.dumps(message).encode()


def _read(stream: bytes) -> tuple[list[tuple[str, str, str]], str]:
    """The events a reader following the SSE rules dispatches from `stream` that carry data (name, data,
    the last event id then), and the last event id at the end."""
    events: list[tuple[str, str, str]] = []
    name, data, last_id = "", list[str](), ""
    for raw in re.split(rb"\r\n|\r|\n", stream)[:-1]:  # the text after the last line's end is no line
        line = raw.decode()
        if not line:
            if data:
                events.append((name or "message", "\n".join(data), last_id))
            name, data = "", []
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            name = value
        elif field == "data":
            data.append(value)
        elif field == "id":
            last_id = value
    return events, last_id


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"], ids=["lf", "crlf", "cr"])
def test_the_notifications_past_the_rate_are_left_out_of_the_bytes_in_pieces_of_any_size(
    newline: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(flood, "BURST", 2)

    def sse(*lines: bytes) -> bytes:
        return b"".join(line + newline for line in lines) + newline

    entry, answer = _message().decode(), _message(1).decode()
    updated = _message(method="notifications/resources/updated").decode()
    body = b"".join(
        [
            sse(b"event: message", b"data: " + _message()),  # within the burst: admitted
            sse(b"data: " + _message()),
            sse(b"id: 7", b"data: " + _message()),  # past it: left out, its id said
            sse(b": a comment", b"data: " + _message(), b"retry: 500"),
            sse(b"id: 9", b"data:" + _message()),
            sse(b"data: " + _message(1)),  # an answer
            sse(b"data: " + _message(method="notifications/resources/updated")),  # never dropped
            sse(b"event: endpoint", b"data: /messages"),  # no message event
            sse(b"id: 10"),  # no data
        ]
    )
    expected = [
        ("message", entry, ""),
        ("message", entry, ""),
        ("message", answer, "9"),
        ("message", updated, "9"),
        ("endpoint", "/messages", "9"),
    ]
    for cut in (1, 2, 3, 5, 64, len(body)):
        problems = ProtocolProblems()
        out = _gated(body, cut, problems)
        assert _read(out) == (expected, "10"), cut
        assert b"retry: 500" in out  # the interval to wait before resuming, from an event left out
        assert problems.dropped == {"notifications/message": 3}


def test_an_event_too_long_to_look_at_goes_on_as_it_came(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(flood, "BURST", 0)
    long_data = json.dumps(
        {"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "y" * 100_000}}
    )
    long_event = b"data: " + long_data.encode() + b"\r\n\r\n"
    after = b"data: " + _message() + b"\n\n"
    body = b"\xef\xbb\xbf" + after + long_event + after + b"data: " + _message(1) + b"\n\n"
    for cut in (1000, 4096, 65536, len(body)):
        problems = ProtocolProblems()
        out = _gated(body, cut, problems)
        assert out == long_event + b"data: " + _message(1) + b"\n\n", cut
        assert problems.dropped == {"notifications/message": 2}


def test_what_a_gate_admitted_from_the_bytes_is_not_charged_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The read stream's gate (for what the bytes did not tell) lets the admitted ones pass."""
    from mcp.shared.message import SessionMessage
    from mcp_types import JSONRPCNotification

    monkeypatch.setattr(flood, "BURST", 3)
    problems = ProtocolProblems()
    gate = FloodGate(problems, clock=lambda: 0.0)
    assert all(gate.admits_method("notifications/message") for _ in range(3))
    entry = SessionMessage(JSONRPCNotification(jsonrpc="2.0", method="notifications/message", params={}))
    assert all(gate.admits(entry) for _ in range(3))
    assert not gate.admits(entry)
    assert problems.dropped == {"notifications/message": 1}
