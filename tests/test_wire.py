"""The protocol log: real wire frames, durations, filters, JSON Lines export, and masked secrets."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from explorer.config import ServerSpec
from explorer.connection.session import ServerConnection
from explorer.connection.wire import WireLog
from tests.helpers.paths import FIXTURES

pytestmark = pytest.mark.anyio

SECRET = "tok-3e1d9c0b8a7f"


def raw(*modes: str) -> ServerSpec:
    args = [str(FIXTURES / "raw_server.py")]
    for mode in modes:
        args += ["--mode", mode]
    return ServerSpec(
        name="raw", transport="stdio", command=sys.executable, args=tuple(args), env={"TOKEN": SECRET}
    )


@pytest.mark.parametrize("protocol", ["legacy", "auto"])
async def test_frames_are_recorded_as_sent_and_received(protocol: str, tmp_path: Path) -> None:
    log = WireLog()
    async with ServerConnection(raw(), protocol=protocol, wire=log) as conn:
        await conn.request("resources/list", None, action="listing")
        await conn.read_resource("fixture://items/0/item-0")
    methods = [(f.direction, f.method) for f in log.frames if f.kind in ("request", "notification")]
    if protocol == "auto":
        assert ("send", "server/discover") in methods  # the probe, answered -32601 by this server
    assert ("send", "initialize") in methods and ("send", "resources/list") in methods
    read = next(f for f in log.frames if f.method == "resources/read")
    answer = next(f for f in log.frames if f.direction == "recv" and f.id == read.id)
    assert answer.duration is not None and answer.duration >= 0
    # The wire's own fields: the fixture sends no resultType, and nothing is added or dropped.
    assert answer.json()["result"]["contents"][0] == {
        "uri": "fixture://items/0/item-0",
        "mimeType": "text/plain",
        "text": "contents of fixture://items/0/item-0\nplain text",
    }
    listing = next(
        f
        for f in log.frames
        if f.direction == "recv" and f.kind == "response" and "resources" in f.json().get("result", {})
    )
    assert listing.size > 1000
    assert [f.method for f in log.select(method="resources/read")] == ["resources/read", None]
    assert all(f.server == "raw" for f in log.select(server="raw"))
    assert log.select(text="item-0") and not log.select(text="no such text anywhere")

    out = tmp_path / "wire.jsonl"
    assert log.export(out) == len(log.frames)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert {"t", "server", "dir", "frame"} <= set(lines[0])
    assert lines[0]["dir"] == "send" and lines[0]["t"].endswith("Z")


async def test_a_secret_echoed_by_the_server_is_masked_in_frames_and_files(tmp_path: Path) -> None:
    sink = tmp_path / "live.jsonl"
    log = WireLog(sink=sink)
    async with ServerConnection(raw("echo-secrets", "read-errors"), protocol="legacy", wire=log) as conn:
        with pytest.raises(Exception):  # noqa: B017 - the error frame is what is checked
            await conn.read_resource("err://-32603")
    log.close()
    error = next(f for f in log.frames if f.kind == "error")
    assert "***" in error.json()["error"]["message"] and SECRET not in json.dumps(error.json())
    assert SECRET not in sink.read_text() and "***" in sink.read_text()


async def test_the_ring_is_bounded() -> None:
    log = WireLog(max_frames=5)
    async with ServerConnection(raw(), protocol="legacy", wire=log) as conn:
        for _ in range(5):
            await conn.request("ping", None, action="pinging")
    assert len(log.frames) == 5 and log.dropped > 0
    assert log.frames[-1].kind == "response"


def test_a_big_string_is_not_kept_in_the_ring_but_its_size_is() -> None:
    import mcp_types as types

    log = WireLog()
    big = "x" * 500_000
    message = types.JSONRPCResponse(
        jsonrpc="2.0",
        id=7,
        result={"contents": [{"uri": "big://text", "mimeType": "text/plain", "text": big}]},
    )
    frame = log.record("raw", "recv", message)
    shown = frame.json()
    assert shown["id"] == 7 and shown["result"]["contents"][0]["uri"] == "big://text"
    assert shown["result"]["contents"][0]["text"] == "[500,000 characters, not kept in the protocol log]"
    assert frame.size >= 500_000
    assert frame.message is not message  # the ring holds the light copy, not the 500 kB string


def test_a_listing_page_is_kept_as_it_came() -> None:
    import mcp_types as types

    items = [{"uri": f"test://r/{i}", "name": f"r{i}"} for i in range(5000)]
    message = types.JSONRPCResponse(jsonrpc="2.0", id=1, result={"resources": items})
    frame = WireLog().record("raw", "recv", message)
    assert frame.message is message and frame.dropped == 0


def test_a_page_the_transport_read_is_kept_as_its_bytes_and_counts_against_the_bytes_bound() -> None:
    import mcp_types as types
    import orjson

    log = WireLog(max_bytes=250_000)
    frames = []
    for ident in range(1, 6):
        result = {"resources": [{"uri": f"test://r/{ident}/{i}", "name": f"r{i}"} for i in range(2000)]}
        line = orjson.dumps({"jsonrpc": "2.0", "id": ident, "result": result})
        message = types.JSONRPCResponse(jsonrpc="2.0", id=ident, result=result)
        frames.append(log.record("raw", "recv", message, size=len(line), text=line))

    first = frames[0]
    assert first.message is not None and not isinstance(first.message, types.JSONRPCResponse)
    assert first.json() == {"jsonrpc": "2.0", "id": 1, "result": {"resources": [
        {"uri": f"test://r/1/{i}", "name": f"r{i}"} for i in range(2000)
    ]}}  # fmt: skip
    assert first.size == first.wire_size and first.size > 60_000
    # Five pages of about 70 KB: only what fits in 250 KB of wire bytes stays.
    assert [f.id for f in log.frames] == [3, 4, 5] and log.dropped == 2


def test_a_line_with_a_big_string_keeps_the_light_copy_even_when_its_bytes_are_offered() -> None:
    import mcp_types as types
    import orjson

    result = {"contents": [{"uri": "big://text", "text": "x" * 200_000}]}
    line = orjson.dumps({"jsonrpc": "2.0", "id": 9, "result": result})
    message = types.JSONRPCResponse(jsonrpc="2.0", id=9, result=result)

    frame = WireLog().record("raw", "recv", message, size=len(line), text=line)

    assert frame.json()["result"]["contents"][0]["text"].startswith("[200,000 characters")
    assert frame.size == len(line)


async def test_pages_read_over_stdio_come_with_their_size_and_bytes() -> None:
    log = WireLog()
    async with ServerConnection(raw(), protocol="legacy", wire=log) as conn:
        raw_page, size = await conn.request_sized("resources/list", None, action="listing")
    page = next(f for f in log.frames if f.direction == "recv" and f.id is not None and f.kind == "response"
                and "resources" in f.json().get("result", {}))  # fmt: skip
    assert size is not None and page.wire_size == size
    assert page.json()["result"] == raw_page


def test_a_big_string_deep_in_a_page_kept_as_bytes_is_left_out_when_shown() -> None:
    import mcp_types as types
    import orjson

    items: list[dict[str, str]] = [{"uri": f"test://r/{i}", "name": f"r{i}"} for i in range(3000)]
    items.append({"uri": "test://r/last", "name": "last", "description": "y" * 100_000})
    line = orjson.dumps({"jsonrpc": "2.0", "id": 4, "result": {"resources": items}})
    message = types.JSONRPCResponse(jsonrpc="2.0", id=4, result={"resources": items})

    frame = WireLog().record("raw", "recv", message, size=len(line), text=line)

    shown = frame.json()["result"]["resources"]
    assert shown[-1]["description"] == "[100,000 characters, not kept in the protocol log]"
    assert shown[0] == {"uri": "test://r/0", "name": "r0"} and len(shown) == 3001
    assert frame.size == len(line)


def test_a_line_too_short_for_a_big_string_is_kept_as_the_message() -> None:
    import mcp_types as types

    resources = [{"uri": "a://b", "name": "b"}]
    message = types.JSONRPCResponse(jsonrpc="2.0", id=3, result={"resources": resources})
    frame = WireLog().record("raw", "recv", message, size=60)
    assert frame.message is message and frame.json()["result"]["resources"] == resources


def test_a_page_kept_as_bytes_that_orjson_refuses_still_shows() -> None:
    """NaN (Python's json writes it) and bytes that are not UTF-8: the transport reads such a line on its
    validated path, and the log must show it, never fail on it."""
    import mcp_types as types

    line = b'{"jsonrpc":"2.0","id":5,"result":{"resources":[{"uri":"a://b","name":"\xff","size":NaN}]}}'
    message = types.JSONRPCResponse(jsonrpc="2.0", id=5, result={"resources": []})
    frame = WireLog().record("raw", "recv", message, size=len(line), text=line)
    shown = frame.json()["result"]["resources"][0]
    assert shown["uri"] == "a://b" and shown["size"] != shown["size"]  # NaN


def test_only_a_line_orjson_reads_is_handed_over_as_bytes() -> None:
    from explorer.connection.errors import ProtocolProblems
    from explorer.connection.stdio_lines import parse_line

    plain = parse_line(b'{"jsonrpc":"2.0","id":1,"result":{"resources":[]}}', ProtocolProblems())
    with_nan = parse_line(b'{"jsonrpc":"2.0","id":1,"result":{"resources":[],"x":NaN}}', ProtocolProblems())
    assert getattr(plain, "plain", False) is True
    assert with_nan is not None and not getattr(with_nan, "plain", False)
