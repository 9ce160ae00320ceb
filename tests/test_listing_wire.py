"""The listing over real stdio: the bytes bound counts what came over the wire; entries stay small.

A tiny server written here pads every listing answer with spaces (valid JSON: whitespace may follow a
value) and writes down the length of each line it sent, so the test knows the exact wire size; a page
measured by serializing it again would come out a kilobyte short per page.
"""

from __future__ import annotations

import gc
import json
import sys
import textwrap
import tracemalloc
from pathlib import Path

import orjson
import pytest

from explorer.config import ListingBounds, ServerSpec
from explorer.connection.discovery import list_server
from explorer.connection.session import ServerConnection
from explorer.model.entries import ResourceEntry, plain_entry, plain_shape

pytestmark = pytest.mark.anyio

PADDED_SERVER = textwrap.dedent(
    """
    import json, sys
    sizes = open(sys.argv[1], "a")
    for line in sys.stdin:
        message = json.loads(line)
        ident, method = message.get("id"), message.get("method")
        if ident is None:
            continue
        if method == "initialize":
            result = {"protocolVersion": message["params"]["protocolVersion"],
                      "capabilities": {"resources": {}}, "serverInfo": {"name": "padded", "version": "1"}}
        elif method == "resources/templates/list":
            result = {"resourceTemplates": [{"uriTemplate": "pad://{x}", "name": "x"}]}
        elif method == "resources/list":
            start = int(message.get("params", {}).get("cursor") or 0)
            page = [{"uri": f"pad://r/{i}", "name": f"r{i}"} for i in range(start, start + 10)]
            result = {"resources": page}
            if start < 20:
                result["nextCursor"] = str(start + 10)
        else:
            reply = {"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "no"}}
            sys.stdout.write(json.dumps(reply) + "\\n"); sys.stdout.flush()
            continue
        text = json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}) + " " * 1000
        if method.endswith("/list"):
            sizes.write(f"{len(text.encode())}\\n"); sizes.flush()
        sys.stdout.write(text + "\\n"); sys.stdout.flush()
    """
)


async def test_the_bytes_bound_counts_the_bytes_that_came_over_the_wire(tmp_path: Path) -> None:
    script = tmp_path / "padded.py"
    script.write_text(PADDED_SERVER)
    sizes = tmp_path / "sizes.txt"
    spec = ServerSpec(
        name="padded", transport="stdio", command=sys.executable, args=(str(script), str(sizes))
    )

    async with ServerConnection(spec, protocol="legacy") as conn:
        listing = await list_server(conn, ListingBounds())

    assert [e.uri for e in listing.resources] == [f"pad://r/{i}" for i in range(30)]
    written = [int(line) for line in sizes.read_text().split()]
    assert len(written) == 4  # the templates page and three resources pages
    assert listing.bytes == sum(written)


async def test_the_bytes_bound_stops_on_wire_bytes(tmp_path: Path) -> None:
    script = tmp_path / "padded.py"
    script.write_text(PADDED_SERVER)
    spec = ServerSpec(
        name="padded", transport="stdio", command=sys.executable, args=(str(script), str(tmp_path / "s"))
    )

    async with ServerConnection(spec, protocol="legacy") as conn:
        # Compact, the templates page and the first resources page are far below 2,500 bytes; on the wire
        # (a kilobyte of padding each) they are not: the second resources page is never asked for.
        listing = await list_server(conn, ListingBounds(max_bytes=2500))

    assert listing.stopped_by == "max_bytes"
    assert len(listing.resources) == 10


def test_an_entry_keeps_the_strings_it_needs_and_not_the_item_it_came_from() -> None:
    page = orjson.dumps(
        [{"uri": f"x://h/d/r{i:05}", "name": f"r{i:05}", "mimeType": "text/plain"} for i in range(20_000)]
    )
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    items = orjson.loads(page)
    entries = [ResourceEntry.listed("s", item) for item in items]
    del items
    gc.collect()
    per_entry = (tracemalloc.get_traced_memory()[0] - before) / len(entries)
    tracemalloc.stop()

    # Kept: the entry (a tuple of five), its uri and name strings and a list slot, about 200 bytes; the
    # item's dict and its own copy of the MIME type, which entries used to keep, were 250 more.
    assert per_entry < 300
    assert entries[0].raw == {"uri": "x://h/d/r00000", "name": "r00000", "mimeType": "text/plain"}


@pytest.mark.parametrize(
    "item",
    [
        {"uri": "u", "name": "n"},
        {"name": "n", "uri": "u", "mimeType": "text/x"},
        {"uri": "u", "name": "n", "mimeType": None},
        {"uri": "u", "name": "n", "title": "T", "size": 12, "annotations": {"priority": 0.5}, "x-v": [1]},
        {"uri": "u", "name": "n", "size": 2**70},
        {"uri": "u", "name": "n", "description": 'é \u202e \U0001f600 \\ " \n'},
        {"_meta": {"k": "v"}, "uri": "u", "name": "n"},
    ],
)
def test_raw_gives_back_the_item_exactly_key_order_included(item: dict[str, object]) -> None:
    entry = ResourceEntry.listed("s", item)

    assert entry.raw == item and list(entry.raw) == list(item)
    assert json.dumps(entry.raw) == json.dumps(item)
    assert entry.has_extra == (plain_shape(item) is None)
    assert entry.get("title") == item.get("title") and entry.title == item.get("title")
    assert entry == ResourceEntry("s", "u", "n") and hash(entry) == hash(ResourceEntry("s", "u", "n", item))
    assert ResourceEntry("s", "u", "n", item).raw == item


def test_plain_entries_share_their_key_order_and_mime_type() -> None:
    a = ResourceEntry.listed("s", {"uri": "a", "name": "a", "mimeType": "text/" + "plain"})
    b = ResourceEntry.listed("s", {"uri": "b", "name": "b", "mimeType": "".join(["text/", "plain"])})

    assert a.rest is b.rest and a.mime_type is b.mime_type
    assert plain_entry("s", "u", "n", None, ("uri", "name")).raw == {"uri": "u", "name": "n"}
