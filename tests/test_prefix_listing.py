"""Listing by prefix (SEP-1269) and stopping a listing early, against scripted servers.

Three kinds of server: one that honours `prefix` (filters, cursor in the filtered list), one that ignores
it (lists everything), and a strict one that rejects it with -32602. The listing must send `prefix` on
every page of both URI lists, always filter on its side too, and ask a rejecting server again without
it, once, remembering that for the connection.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import anyio
import pytest

from explorer.config import ListingBounds, ServerSpec
from explorer.connection.discovery import ListingStop, list_server
from explorer.connection.errors import INVALID_PARAMS, ServerFault
from explorer.model.listing import INTERRUPTED, Listing

pytestmark = pytest.mark.anyio

URIS = [f"bench://h{h}/g{g}/item{i}" for h in range(3) for g in range(3) for i in range(4)]
TEMPLATES = ["bench://h1/{g}/{i}", "bench://h{h}/search{?q}", "bench://h2/{g}", "other://{x}"]

Mode = Literal["honours", "ignores", "rejects"]


class PrefixServer:
    """A scripted connection answering both URI lists in pages of `page`, by its `mode`."""

    def __init__(self, mode: Mode, *, page: int = 5, delay: float = 0.0) -> None:
        self.name = "scripted"
        self.spec = ServerSpec(name=self.name, transport="stdio", command="scripted")
        self.identity = None
        self.mode = mode
        self.page = page
        self.delay = delay
        self.requests: list[tuple[str, dict[str, Any]]] = []

    async def request(self, method: str, params: Mapping[str, Any] | None, *, action: str) -> dict[str, Any]:
        asked = dict(params or {})
        self.requests.append((method, asked))
        prefix = asked.get("prefix")
        if prefix is not None and self.mode == "rejects":
            raise ServerFault("Invalid params: unknown parameter prefix", INVALID_PARAMS)
        if self.delay:
            await anyio.sleep(self.delay)
        honour = prefix is not None and self.mode == "honours"
        if method == "resources/templates/list":
            chosen = [
                t
                for t in TEMPLATES
                if not honour or t.startswith(prefix) or prefix.startswith(t.split("{")[0])
            ]
            return {"resourceTemplates": [{"uriTemplate": t, "name": t} for t in chosen]}
        items = [u for u in URIS if not honour or u.startswith(prefix)]
        cursor = asked.get("cursor")
        start = int(cursor) if cursor is not None else 0
        end = start + self.page
        page: dict[str, Any] = {"resources": [{"uri": u, "name": u} for u in items[start:end]]}
        if end < len(items):
            page["nextCursor"] = str(end)
        return page

    def prefixes_sent(self) -> list[str | None]:
        return [params.get("prefix") for _, params in self.requests]


BIG = ListingBounds()


async def listed(conn: PrefixServer, prefix: str | None, bounds: ListingBounds = BIG, **kw: Any) -> Listing:
    return await list_server(conn, bounds, prefix=prefix, **kw)  # type: ignore[arg-type]


def under(prefix: str) -> list[str]:
    return [u for u in URIS if u.startswith(prefix)]


async def test_prefix_is_sent_on_every_page_of_both_lists_to_a_server_that_honours_it() -> None:
    conn = PrefixServer("honours", page=2)

    listing = await listed(conn, "bench://h1/")

    assert [e.uri for e in listing.resources] == under("bench://h1/")
    assert len(conn.requests) == 1 + 6  # templates, then 12 resources in pages of 2
    assert conn.prefixes_sent() == ["bench://h1/"] * 7
    assert listing.prefix_sent and listing.filtered_out == 0 and listing.complete
    # Templates that can expand to URIs under the prefix stay: starts with it, or its literal part leads.
    assert [t.uri_template for t in listing.templates] == ["bench://h1/{g}/{i}", "bench://h{h}/search{?q}"]


async def test_what_a_server_that_ignores_prefix_sends_is_filtered_here() -> None:
    conn = PrefixServer("ignores")

    listing = await listed(conn, "bench://h2/g0/")

    assert [e.uri for e in listing.resources] == under("bench://h2/g0/")
    assert listing.filtered_out == len(URIS) - 4 + 2  # 32 resources and 2 templates left out
    assert listing.count("resources") == 4 and listing.state["resources"].items == 4
    assert all(prefix == "bench://h2/g0/" for prefix in conn.prefixes_sent())


async def test_a_server_that_rejects_prefix_is_asked_again_without_it_once_and_remembered() -> None:
    conn = PrefixServer("rejects")

    first = await listed(conn, "bench://h0/")
    # Rejected once (templates, the first list asked), then never sent again on this connection.
    pages = -(-len(URIS) // conn.page)  # everything is listed: the filtering is on this side only
    assert conn.prefixes_sent() == ["bench://h0/", None] + [None] * pages
    assert conn.prefix_rejected is True  # type: ignore[attr-defined]
    assert [e.uri for e in first.resources] == under("bench://h0/")
    assert not first.prefix_sent and first.complete and first.error is None

    conn.requests.clear()
    second = await listed(conn, "bench://h1/g2/")
    assert None in conn.prefixes_sent() and "bench://h1/g2/" not in conn.prefixes_sent()
    assert [e.uri for e in second.resources] == under("bench://h1/g2/")


async def test_invalid_params_on_a_later_page_is_the_lists_error_not_a_reason_to_drop_prefix() -> None:
    class LaterFault(PrefixServer):
        async def request(
            self, method: str, params: Mapping[str, Any] | None, *, action: str
        ) -> dict[str, Any]:
            if (params or {}).get("cursor") == "4":
                self.requests.append((method, dict(params or {})))
                raise ServerFault("invalid cursor", INVALID_PARAMS)
            return await super().request(method, params, action=action)

    conn = LaterFault("honours", page=2)

    listing = await listed(conn, "bench://h0/")

    assert listing.state["resources"].error == "invalid cursor"
    assert [e.uri for e in listing.resources] == under("bench://h0/")[:4]  # what came before stays
    assert all(prefix == "bench://h0/" for prefix in conn.prefixes_sent())
    assert not getattr(conn, "prefix_rejected", False)


async def test_a_continued_listing_keeps_its_prefix() -> None:
    conn = PrefixServer("honours", page=2)
    listing = await listed(conn, "bench://h2/", ListingBounds(max_items=5))
    assert listing.state["resources"].stopped_by == "max_items"

    resumed = await list_server(conn, BIG, listing=listing)  # type: ignore[arg-type]

    assert resumed is listing and listing.complete
    assert [e.uri for e in listing.resources] == under("bench://h2/")
    assert set(conn.prefixes_sent()) == {"bench://h2/"}
    with pytest.raises(ValueError, match="keeps the prefix"):
        await list_server(conn, BIG, listing=listing, prefix="bench://h0/")  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------ stop


async def test_a_stopped_listing_keeps_what_arrived_is_marked_and_continues_to_the_end() -> None:
    conn = PrefixServer("honours", page=3, delay=0.05)
    stop = ListingStop()
    pages: list[int] = []

    async def on_page(page: Any) -> None:
        if page.kind == "resources":
            pages.append(page.number)
            if page.number == 2:
                stop.stop()

    listing = await listed(conn, None, on_page=on_page, stop=stop)

    assert pages == [1, 2]
    assert [e.uri for e in listing.resources] == URIS[:6]
    assert listing.stopped_by == INTERRUPTED and not listing.complete
    assert listing.state["resources"].stopped_by == INTERRUPTED
    assert listing.summary().endswith("incomplete (resources): stopped early by the user")

    resumed = await list_server(conn, BIG, listing=listing)  # type: ignore[arg-type]

    assert resumed.complete and [e.uri for e in resumed.resources] == URIS  # no page twice, none lost
    assert resumed.duplicates == 0


@pytest.mark.slow
async def test_a_stop_while_a_page_is_on_its_way_keeps_the_cursor_of_that_page() -> None:
    conn = PrefixServer("honours", page=4, delay=0.2)
    stop = ListingStop()

    async def stop_soon() -> None:
        await anyio.sleep(0.5)  # templates (0.2 s), resources page 1 (0.2 s), page 2 on its way
        stop.stop()

    async with anyio.create_task_group() as group:
        group.start_soon(stop_soon)
        listing = await listed(conn, None, stop=stop)

    assert listing.stopped_by == INTERRUPTED
    arrived = len(listing.resources)
    assert arrived % 4 == 0 and arrived < len(URIS)
    resumed = await list_server(conn, BIG, listing=listing)  # type: ignore[arg-type]
    assert [e.uri for e in resumed.resources] == URIS and resumed.duplicates == 0


async def test_a_listing_started_after_the_stop_is_interrupted_at_once() -> None:
    conn = PrefixServer("honours")
    stop = ListingStop()
    stop.stop()

    listing = await listed(conn, None, stop=stop)

    assert listing.stopped_by == INTERRUPTED and listing.resources == []
    assert conn.requests == [] or all(m == "resources/templates/list" for m, _ in conn.requests)
