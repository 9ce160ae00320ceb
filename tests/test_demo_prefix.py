"""The demo server's prefix listing (SEP-1269), the server side: in process and over stdio, both eras."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

import anyio
import mcp.types as types
import pytest
from anyio.abc import Process
from anyio.streams.text import TextReceiveStream
from mcp import Client, MCPError

from explorer.demo.paging import PAGE_SIZE, decode_cursor, encode_cursor, parse_cursor
from explorer.demo.server import build_server

REPO = Path(__file__).resolve().parents[1]
MODES = ["legacy", "auto"]  # in process: the handshake era over JSON-RPC, and the modern era
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "0"},
}

pytestmark = pytest.mark.anyio


# The client side of SEP-1269, written here from the proposal (not from the server's own model).
class PrefixParams(types.PaginatedRequestParams):
    prefix: Any = None


class ListResources(types.Request[PrefixParams | None, Literal["resources/list"]]):
    method: Literal["resources/list"] = "resources/list"
    params: PrefixParams | None = None


class ListTemplates(types.Request[PrefixParams | None, Literal["resources/templates/list"]]):
    method: Literal["resources/templates/list"] = "resources/templates/list"
    params: PrefixParams | None = None


@asynccontextmanager
async def connect(mode: str, **server: Any) -> AsyncIterator[Client]:
    server.setdefault("change_seconds", 0)
    async with Client(build_server(**server), mode=mode, cache=None) as client:
        yield client


async def list_page(client: Client, prefix: Any, cursor: str | None = None) -> types.ListResourcesResult:
    request = ListResources(params=PrefixParams(prefix=prefix, cursor=cursor))
    return await client.session.send_request(request, types.ListResourcesResult)


async def list_templates(
    client: Client, prefix: Any, cursor: str | None = None
) -> types.ListResourceTemplatesResult:
    request = ListTemplates(params=PrefixParams(prefix=prefix, cursor=cursor))
    return await client.session.send_request(request, types.ListResourceTemplatesResult)


async def all_uris(client: Client) -> list[str]:
    uris: list[str] = []
    cursor: str | None = None
    while True:
        page = await client.list_resources(cursor=cursor)
        uris += [r.uri for r in page.resources]
        if (cursor := page.next_cursor) is None:
            return uris


async def walk(client: Client, prefix: str) -> tuple[list[str], list[str]]:
    """Every page of a prefix listing: the URIs in order, and the cursors handed out."""
    uris: list[str] = []
    cursors: list[str] = []
    cursor: str | None = None
    while True:
        page = await list_page(client, prefix, cursor)
        uris += [r.uri for r in page.resources]
        if page.next_cursor is None:
            assert len(page.resources) <= PAGE_SIZE
            return uris, cursors
        assert len(page.resources) == PAGE_SIZE
        cursors.append(cursor := page.next_cursor)


PREFIXES = [
    "metrics://eu-west/",  # 490 resources: five pages
    "file:///workspace/tidewater/data/stations/",  # the stations and their index: four pages
    "docs://",  # one short page
    "docs://handbook",  # the resource docs://handbook itself and everything under docs://handbook/
    "nothing-here://",
    "",  # the empty prefix filters nothing
]


@pytest.mark.parametrize("mode", MODES)
async def test_the_capability_is_advertised(mode: str) -> None:
    async with connect(mode) as client:
        experimental = client.server_capabilities.experimental or {}
    assert experimental["prefixFilter"] == {
        "methods": ["resources/list", "resources/templates/list"],
        "param": "prefix",
    }


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
async def test_paging_by_prefix_gives_exactly_the_filtered_list_in_order(mode: str) -> None:
    walked: dict[str, list[str]] = {}
    async with connect(mode) as client:
        everything = await all_uris(client)
        for prefix in PREFIXES:
            walked[prefix], cursors = await walk(client, prefix)
            assert walked[prefix] == [u for u in everything if u.startswith(prefix)], prefix
            assert len(cursors) == (max(len(walked[prefix]), 1) - 1) // PAGE_SIZE
            assert len(set(cursors)) == len(cursors)
    assert len(walked["metrics://eu-west/"]) == 7 * 5 * 14
    assert walked[""] == everything and walked["nothing-here://"] == []
    assert walked["docs://handbook"][0] == "docs://handbook"


@pytest.mark.parametrize("mode", MODES)
async def test_cursors_are_positions_in_the_filtered_list(mode: str) -> None:
    prefix = "metrics://us-east/"
    async with connect(mode) as client:
        first = await list_page(client, prefix)
        assert first.next_cursor is not None
        assert parse_cursor(first.next_cursor) == (PAGE_SIZE, prefix)
        again = await list_page(client, prefix, first.next_cursor)
        twice = await list_page(client, prefix, first.next_cursor)  # a cursor can be used again
    assert [r.uri for r in again.resources] == [r.uri for r in twice.resources]
    assert all(r.uri.startswith(prefix) for r in again.resources)
    assert {r.uri for r in first.resources}.isdisjoint(r.uri for r in again.resources)


def test_cursor_round_trip_keeps_the_prefix() -> None:
    for prefix in ("", "docs://", "metrics://eu-west/checkout:odd", "file:///ü/"):
        for offset in (100, 2500):
            cursor = encode_cursor(offset, prefix)
            assert parse_cursor(cursor) == (offset, prefix)
            assert decode_cursor(cursor, prefix) == offset
            assert decode_cursor(cursor, prefix + "x") is None
    assert encode_cursor(100) == encode_cursor(100, "")  # the unfiltered list keeps its old cursors
    assert parse_cursor("") is None


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("issued_for", "used_with", "says"),
    [
        (
            "metrics://eu-west/",
            "metrics://us-east/",
            "prefix 'metrics://eu-west/', not prefix 'metrics://us-east/'",
        ),
        ("", "metrics://", "the unfiltered list, not prefix 'metrics://'"),
        ("metrics://", None, "prefix 'metrics://', not the unfiltered list"),
    ],
)
async def test_a_cursor_of_another_prefix_is_rejected(
    mode: str, issued_for: str, used_with: str | None, says: str
) -> None:
    async with connect(mode) as client:
        cursor = (await list_page(client, issued_for or None)).next_cursor
        assert cursor is not None
        with pytest.raises(MCPError) as caught:
            await list_page(client, used_with, cursor)
    assert caught.value.code == types.INVALID_PARAMS
    assert caught.value.message == f"invalid cursor: it was issued for {says}"


@pytest.mark.parametrize("mode", MODES)
async def test_forged_and_stale_prefixed_cursors_are_rejected(mode: str) -> None:
    prefix = "docs://"
    forged_prefix = base64.urlsafe_b64encode(b"v2:100:00000000:docs://").decode()
    checksum_of_other = encode_cursor(100, "file:///")
    swapped = base64.urlsafe_b64encode(
        base64.urlsafe_b64decode(checksum_of_other).replace(b"file:///", prefix.encode())
    ).decode()
    async with connect(mode) as client:
        for cursor in (forged_prefix, swapped, encode_cursor(100, prefix)):  # the last: past the end
            with pytest.raises(MCPError) as caught:
                await list_page(client, prefix, cursor)
            assert caught.value.code == types.INVALID_PARAMS
            assert caught.value.message == "invalid cursor"


@pytest.mark.parametrize("mode", MODES)
async def test_a_prefix_that_is_not_a_string_is_invalid_params(mode: str) -> None:
    async with connect(mode) as client:
        with pytest.raises(MCPError) as caught:
            await list_page(client, 42)
    assert caught.value.code == types.INVALID_PARAMS


TEMPLATE_CASES = [
    ("docs://handbook/", {"docs://handbook/{chapter}", "docs://handbook/{chapter}{#section}"}),
    # The literal part of a template is a prefix of the requested prefix: it can expand to URIs there.
    ("docs://handbook/pagination", {"docs://handbook/{chapter}", "docs://handbook/{chapter}{#section}"}),
    (
        "metrics://eu-west/",
        {"metrics://{region}/{service}/latest", "metrics://{region}/{service}/report{.format}"},
    ),
    (
        "metrics://r",
        {
            "metrics://rollup{/segments*}",
            "metrics://{region}/{service}/latest",
            "metrics://{region}/{service}/report{.format}",
        },
    ),
    (
        "file:///workspace/tidewater/data/",
        {"file:///{+path}", "file:///workspace/tidewater/data/stations/{station}.json"},
    ),
    ("nothing-here://", set()),
]


@pytest.mark.parametrize("mode", MODES)
async def test_templates_by_prefix(mode: str) -> None:
    async with connect(mode) as client:
        everything = (await client.list_resource_templates()).resource_templates
        for prefix, expected in TEMPLATE_CASES:
            page = await list_templates(client, prefix)
            assert {t.uri_template for t in page.resource_templates} == expected, prefix
            assert page.next_cursor is None
        unfiltered = await list_templates(client, "")
        with pytest.raises(MCPError) as caught:
            await list_templates(client, "docs://", encode_cursor(100, "metrics://"))
    assert unfiltered.resource_templates == everything and len(everything) == 8
    assert caught.value.code == types.INVALID_PARAMS
    assert "issued for prefix 'metrics://'" in caught.value.message


async def test_inbox_notes_are_listed_under_their_prefix() -> None:
    async with connect("auto", change_seconds=0.05) as client:
        await anyio.sleep(0.2)  # the inbox is a function of the time elapsed: four notes by now
        uris, _ = await walk(client, "docs://inbox/")
    assert uris[0] == "docs://inbox/README" and len(uris) >= 5
    assert all(u.startswith("docs://inbox/0") for u in uris[1:])


# --- over stdio, as raw JSON-RPC ------------------------------------------------------------------------


class RawStdio:
    """`mcp-url-explorer demo-server` as a child process, spoken to in raw JSON-RPC lines."""

    def __init__(self, process: Process, modern: bool) -> None:
        self.process = process
        self.modern = modern
        self.notifications: list[dict[str, Any]] = []
        self._next_id = 0
        assert process.stdout is not None
        self._lines = TextReceiveStream(process.stdout)
        self._buffer = ""

    async def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send((json.dumps(message) + "\n").encode())

    async def _receive(self) -> dict[str, Any]:
        while "\n" not in self._buffer:
            self._buffer += await self._lines.receive()
        line, self._buffer = self._buffer.split("\n", 1)
        message: dict[str, Any] = json.loads(line)
        return message

    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """The response (`result` or `error`) to one request; notifications on the way are kept."""
        self._next_id += 1
        params = dict(params or {})
        if self.modern:
            params["_meta"] = {**MODERN_META, **params.get("_meta", {})}
        await self._send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        with anyio.fail_after(20):
            while True:
                message = await self._receive()
                if message.get("id") == self._next_id and "method" not in message:
                    return message
                self.notifications.append(message)

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        await self._send({"jsonrpc": "2.0", "method": method, "params": params or {}})


@asynccontextmanager
async def raw_demo(era: str) -> AsyncIterator[RawStdio]:
    env = {**os.environ, "EXPLORER_DEMO_CHANGE_SECONDS": "0", "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "explorer", "demo-server"]
    async with await anyio.open_process(command, env=env, cwd=REPO, stderr=subprocess.DEVNULL) as process:
        raw = RawStdio(process, modern=era == "modern")
        if era == "handshake":
            init = await raw.request(
                "initialize",
                {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "raw-test", "version": "0"},
                },
            )
            assert init["result"]["capabilities"]["experimental"]["prefixFilter"]["param"] == "prefix"
            await raw.notify("notifications/initialized")
        else:
            found = await raw.request("server/discover")
            assert found["result"]["capabilities"]["experimental"]["prefixFilter"]["param"] == "prefix"
        try:
            yield raw
        finally:
            assert process.stdin is not None
            await process.stdin.aclose()


@pytest.mark.slow
@pytest.mark.parametrize("era", ["handshake", "modern"])
async def test_prefix_listing_over_stdio(era: str) -> None:
    prefix = "file:///workspace/tidewater/data/stations/"
    async with raw_demo(era) as raw:
        uris: list[str] = []
        cursor: str | None = None
        while True:
            params: dict[str, Any] = {"prefix": prefix} | ({"cursor": cursor} if cursor else {})
            result = (await raw.request("resources/list", params))["result"]
            uris += [r["uri"] for r in result["resources"]]
            if (cursor := result.get("nextCursor")) is None:
                break
        unfiltered = (await raw.request("resources/list"))["result"]
        wrong = await raw.request("resources/list", {"prefix": "docs://", "cursor": unfiltered["nextCursor"]})
        templates = (await raw.request("resources/templates/list", {"prefix": prefix}))["result"]
    assert len(uris) == 314 and all(u.startswith(prefix) for u in uris) and uris == sorted(uris)
    assert wrong["error"]["code"] == -32602
    assert (
        wrong["error"]["message"]
        == "invalid cursor: it was issued for the unfiltered list, not prefix 'docs://'"
    )
    assert {t["uriTemplate"] for t in templates["resourceTemplates"]} == {
        "file:///{+path}",
        "file:///workspace/tidewater/data/stations/{station}.json",
    }
