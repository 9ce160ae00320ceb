"""Bounded, streamed discovery (docs/architecture.md, "Discovery") against a scripted fake connection.

The fake answers `resources/list` and `resources/templates/list` from a table keyed by the cursor it
receives, so a test fails loudly (AssertionError out of `list_server`) when the explorer asks for a
page with a cursor the server never gave. No subprocess: every test here runs in milliseconds.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from itertools import pairwise
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from explorer.config import ListingBounds, ServerSpec
from explorer.connection import discovery
from explorer.connection.discovery import PARSE_SLICE, Listing, ListingStop, Page, list_server
from explorer.connection.errors import ServerFault
from explorer.model.identity import ServerIdentity
from explorer.model.sharded import SHARDS, ShardedSet

pytestmark = pytest.mark.anyio
SLICE_ENDS = list(range(PARSE_SLICE, 1000, PARSE_SLICE))  # where a page of 1,000 pauses


def pauses_in(items: int) -> int:
    """Pauses between the slices of a page of `items`."""
    return -(-items // PARSE_SLICE) - 1


RESOURCES = "resources/list"
TEMPLATES = "resources/templates/list"
BIG = ListingBounds()

Answer = dict[str, Any] | ServerFault
Table = dict[str | None, Answer]


def res(i: int | str, **extra: Any) -> dict[str, Any]:
    return {"uri": f"test://r/{i}", "name": f"resource {i}", **extra}


def tpl(i: int | str, **extra: Any) -> dict[str, Any]:
    return {"uriTemplate": f"test://t/{i}/{{id}}", "name": f"template {i}", **extra}


def chain(key: str, pages: list[list[Any]], cursors: list[str] | None = None) -> Table:
    """Pages linked by cursors: page 1 answers no cursor, page k answers cursors[k-2]."""
    cursors = cursors if cursors is not None else [f"c{i}" for i in range(1, len(pages))]
    assert len(cursors) == len(pages) - 1
    table: Table = {}
    for index, items in enumerate(pages):
        page: dict[str, Any] = {key: items}
        if index < len(cursors):
            page["nextCursor"] = cursors[index]
        table[None if index == 0 else cursors[index - 1]] = page
    return table


def resource_pages(count: int, size: int) -> list[list[dict[str, Any]]]:
    return [[res(p * size + i) for i in range(size)] for p in range(count)]


class FakeConn:
    """Just what `list_server` uses of a ServerConnection: `.name`, `.spec` and `request`."""

    def __init__(
        self,
        resources: Table | None = None,
        templates: Table | None = None,
        *,
        name: str = "fake",
        delays: Mapping[tuple[str, str | None], float] | None = None,
        env: Mapping[str, str] | None = None,
        identity: ServerIdentity | None = None,
    ) -> None:
        self.name = name
        self.identity = identity
        self.spec = ServerSpec(name=name, transport="stdio", command="fake-server", env=dict(env or {}))
        self.tables: dict[str, Table] = {
            RESOURCES: resources if resources is not None else {None: {"resources": []}},
            TEMPLATES: templates if templates is not None else {None: {"resourceTemplates": []}},
        }
        self.delays = dict(delays or {})
        self.requests: list[tuple[str, dict[str, Any] | None]] = []
        self.actions: list[str] = []

    async def request(self, method: str, params: Mapping[str, Any] | None, *, action: str) -> dict[str, Any]:
        self.requests.append((method, None if params is None else dict(params)))
        self.actions.append(action)
        assert params is None or set(params) == {"cursor"}, params
        cursor = None if params is None else params["cursor"]
        table = self.tables[method]
        assert cursor in table, f"{method} asked with cursor {cursor!r}, which the server never sent"
        delay = self.delays.get((method, cursor), 0.0)
        if delay:
            await anyio.sleep(delay)
        answer = table[cursor]
        if isinstance(answer, ServerFault):
            raise answer
        return copy.deepcopy(answer)

    def cursors(self, method: str = RESOURCES) -> list[str | None]:
        return [None if p is None else p["cursor"] for m, p in self.requests if m == method]


def uris(listing: Listing) -> list[str]:
    return [entry.uri for entry in listing.resources]


async def run(conn: FakeConn, bounds: ListingBounds = BIG, **kwargs: Any) -> Listing:
    return await list_server(conn, bounds, **kwargs)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------ cursors


async def test_follows_every_cursor_and_sends_it_back_exactly() -> None:
    odd = [
        "page two ✓ ünïcødé",
        "  leading and trailing spaces  ",
        '{"offset": 200, "sig": "a+b/c=="}',
        "tab\there\nnewline",
        "\u202ertl\u200b zero width",
    ]
    pages = resource_pages(6, 3)
    conn = FakeConn(chain("resources", pages, odd), chain("resourceTemplates", [[tpl(0)]]))

    listing = await run(conn)

    assert conn.requests == [
        (TEMPLATES, None),  # the small lists first: a bound on a huge resource list never costs them
        (RESOURCES, None),
        *[(RESOURCES, {"cursor": cursor}) for cursor in odd],
    ]
    assert uris(listing) == [item["uri"] for page in pages for item in page]
    assert [t.uri_template for t in listing.templates] == ["test://t/0/{id}"]
    assert listing.complete
    assert listing.pages == 7
    assert listing.error is None and listing.stopped_by is None
    assert listing.summary() == "18 resources · 1 template in 7 pages"


async def test_an_empty_string_cursor_is_a_real_cursor() -> None:
    conn = FakeConn(chain("resources", [[res(0)], [res(1)]], [""]))

    listing = await run(conn)

    assert conn.cursors() == [None, ""]
    assert uris(listing) == ["test://r/0", "test://r/1"]
    assert listing.complete


async def test_a_null_next_cursor_ends_the_list() -> None:
    conn = FakeConn({None: {"resources": [res(0)], "nextCursor": None}})

    listing = await run(conn)

    assert conn.cursors() == [None]
    assert listing.complete


async def test_the_same_cursor_text_in_both_lists_is_not_a_loop() -> None:
    conn = FakeConn(
        chain("resources", [[res(0)], [res(1)]], ["next"]),
        chain("resourceTemplates", [[tpl(0)], [tpl(1)]], ["next"]),
    )

    listing = await run(conn)

    assert listing.complete, listing.error
    assert len(listing.resources) == 2 and len(listing.templates) == 2


@pytest.mark.parametrize(
    ("cursors", "repeated"),
    [(["c1", "c1"], "c1"), (["c1", "c2", "c1"], "c1"), (["", ""], "")],
    ids=["immediately", "later", "empty-string"],
)
async def test_a_repeated_cursor_is_a_loop_error_keeping_what_came_before(
    cursors: list[str], repeated: str
) -> None:
    pages = resource_pages(len(cursors), 2)
    table: Table = {}
    keys: list[str | None] = [None, *cursors[:-1]]
    for key, items, nxt in zip(keys, pages, cursors, strict=True):
        table[key] = {"resources": items, "nextCursor": nxt}
    conn = FakeConn(table)

    listing = await run(conn)

    assert listing.error is not None
    assert repr(repeated) in listing.error
    assert "loop" in listing.error
    assert uris(listing) == [item["uri"] for page in pages for item in page]
    assert not listing.complete
    assert listing.stopped_by is None
    assert len(conn.cursors()) == len(pages)  # the looping page is not asked for again
    assert conn.cursors(TEMPLATES) == [None]  # asked first, before the loop
    assert "failed:" in listing.summary()


async def test_a_long_repeated_cursor_is_shown_cut_and_the_sentence_ends_as_written() -> None:
    cursor = "x" * 1_000_000
    pages = resource_pages(2, 2)
    conn = FakeConn(
        {
            None: {"resources": pages[0], "nextCursor": cursor},
            cursor: {"resources": pages[1], "nextCursor": cursor},
        }
    )

    listing = await run(conn)

    assert listing.error is not None and len(listing.error) < 300
    assert f"repeated cursor {'x' * 80!r} [+999,920 chars] after page 2" in listing.error
    assert listing.error.endswith("(a pagination loop); stopped")


async def test_a_secret_echoed_in_a_cursor_is_masked_in_the_error() -> None:
    token = "tok-9f8e7d6c5b4a"
    conn = FakeConn(
        {
            None: {"resources": [res(0)], "nextCursor": f"k={token}"},
            f"k={token}": {"resources": [], "nextCursor": f"k={token}"},
        },
        env={"API_TOKEN": token},
    )

    listing = await run(conn)

    assert conn.cursors() == [None, f"k={token}"]  # sent back exactly, secret or not
    assert listing.error is not None and "loop" in listing.error
    assert token not in listing.error
    assert "***" in listing.error


async def test_a_non_string_next_cursor_is_an_error() -> None:
    for bad in (2, 1.5, True, ["a"], {"page": 2}):
        conn = FakeConn({None: {"resources": [res(0)], "nextCursor": bad}})

        listing = await run(conn)

        assert listing.error is not None, bad
        assert "nextCursor" in listing.error and "not a string" in listing.error
        assert type(bad).__name__ in listing.error
        assert not listing.complete
        assert conn.requests == [(TEMPLATES, None), (RESOURCES, None)]
        assert uris(listing) == ["test://r/0"]  # the page itself arrived and stays


# ------------------------------------------------------------------------------------------ bounds


def three_pages_of_100() -> FakeConn:
    return FakeConn(chain("resources", resource_pages(3, 100)), chain("resourceTemplates", [[tpl(0)]]))


def page_size(page: dict[str, Any]) -> int:
    """A page's bytes as compact UTF-8 JSON: what a connection that cannot measure the wire is charged."""
    return len(json.dumps(page, ensure_ascii=False, separators=(",", ":")).encode())


@pytest.mark.parametrize(
    ("bounds", "bound"),
    [
        (ListingBounds(max_items=200), "max_items"),
        (ListingBounds(max_pages=2), "max_pages"),
        # The templates page, then a page of resources a bit over 4 kB: after one resources page the
        # budget is not spent, after two it is.
        (
            ListingBounds(
                max_bytes=page_size({"resourceTemplates": [tpl(0)]})
                + page_size({"resources": resource_pages(1, 100)[0], "nextCursor": "c1"})
                + 1
            ),
            "max_bytes",
        ),
    ],
    ids=["items", "pages", "bytes"],
)
async def test_each_bound_stops_the_listing_visibly(bounds: ListingBounds, bound: str) -> None:
    conn = three_pages_of_100()

    listing = await run(conn, bounds)

    assert listing.stopped_by == bound
    assert not listing.complete
    assert listing.error is None
    assert conn.cursors() == [None, "c1"]  # two pages, then the bound: no third request
    assert len(listing.templates) == 1 and listing.state["templates"].complete  # never lost to the bound
    assert len(listing.resources) == 200
    assert listing.state["resources"].cursor == "c2"  # where "continue" picks up
    assert listing.state["resources"].stopped_by == bound
    assert listing.summary().endswith(
        f"incomplete (resources): stopped at the {bound.replace('_', '-')} bound"
    )


async def test_the_item_bound_cuts_a_page_and_continue_takes_the_rest_of_it() -> None:
    pages = resource_pages(3, 100)
    conn = FakeConn(chain("resources", pages))

    listing = await run(conn, ListingBounds(max_items=150))

    assert len(listing.resources) == 150  # exactly the bound, not the 200 of two whole pages
    assert listing.stopped_by == "max_items" and not listing.complete
    assert listing.state["resources"].cursor == "c1"  # the cut page is asked for again

    resumed = await run(conn, ListingBounds(max_items=1000), listing=listing)

    assert resumed.complete, resumed.summary()
    assert conn.cursors() == [None, "c1", "c1", "c2"]
    assert uris(resumed) == [item["uri"] for page in pages for item in page]
    assert resumed.duplicates == 0


async def test_one_huge_page_keeps_only_the_bound() -> None:
    conn = FakeConn({None: {"resources": [res(i) for i in range(5000)]}})

    listing = await run(conn, ListingBounds(max_items=10))

    assert uris(listing) == [f"test://r/{i}" for i in range(10)]
    assert listing.state["resources"].stopped_by == "max_items"


async def test_the_bytes_bound_counts_the_metadata_received() -> None:
    conn = three_pages_of_100()

    listing = await run(conn)

    answers = [*conn.tables[RESOURCES].values(), *conn.tables[TEMPLATES].values()]
    assert listing.bytes == sum(page_size(answer) for answer in answers if isinstance(answer, dict))
    assert len(answers) == 4


async def test_the_pages_bound_is_per_list() -> None:
    conn = FakeConn(
        chain("resources", resource_pages(2, 5)),
        chain("resourceTemplates", [[tpl(0)], [tpl(1)], [tpl(2)]]),
    )

    listing = await run(conn, ListingBounds(max_pages=2))

    assert listing.stopped_by == "max_pages"
    assert len(listing.resources) == 10 and listing.state["resources"].complete
    assert [t.uri_template for t in listing.templates] == ["test://t/0/{id}", "test://t/1/{id}"]
    assert listing.state["templates"].stopped_by == "max_pages" and not listing.state["templates"].done
    assert listing.state["templates"].cursor == "c2"


async def test_the_seconds_bound_stops_a_server_that_never_answers() -> None:
    conn = FakeConn(delays={(RESOURCES, None): 30.0})
    listing = await run(conn, ListingBounds(max_seconds=0.05))

    assert listing.stopped_by == "max_seconds"
    assert not listing.complete and listing.error is None
    assert listing.resources == []
    assert listing.summary().endswith("stopped at the list-timeout (max_seconds) bound")


async def test_the_seconds_bound_covers_a_slow_later_page_and_resume_asks_for_it_again() -> None:
    pages = resource_pages(3, 4)
    conn = FakeConn(chain("resources", pages), delays={(RESOURCES, "c1"): 30.0})
    listing = await run(conn, ListingBounds(max_seconds=0.3))

    assert listing.stopped_by == "max_seconds"
    assert uris(listing) == [item["uri"] for item in pages[0]]
    assert listing.state["resources"].cursor == "c1"

    conn.delays.clear()  # the server has recovered
    resumed = await run(conn, listing=listing)

    assert resumed is listing
    assert resumed.complete, resumed.summary()
    assert conn.cursors() == [None, "c1", "c1", "c2"]
    assert uris(resumed) == [item["uri"] for page in pages for item in page]
    assert resumed.duplicates == 0


# ------------------------------------------------------------------------------------------ resuming


async def test_resuming_a_stopped_listing_continues_from_the_saved_cursor() -> None:
    pages = resource_pages(5, 3)
    conn = FakeConn(chain("resources", pages), chain("resourceTemplates", [[tpl(0)]]))
    seen: list[tuple[str, int]] = []

    first = await run(conn, ListingBounds(max_pages=2), on_page=lambda p: seen.append((p.kind, p.number)))
    assert first.stopped_by == "max_pages"
    resumed = await run(conn, listing=first, on_page=lambda p: seen.append((p.kind, p.number)))

    assert resumed is first
    assert resumed.complete
    assert resumed.stopped_by is None
    assert conn.cursors() == [None, "c1", "c2", "c3", "c4"]  # never page 1 again
    assert uris(resumed) == [item["uri"] for page in pages for item in page]
    assert resumed.duplicates == 0
    assert len(resumed.templates) == 1
    assert resumed.pages == 6
    assert seen == [("templates", 1)] + [("resources", n) for n in range(1, 6)]


async def test_continuing_with_the_same_bounds_gives_one_more_batch_each_time() -> None:
    conn = FakeConn(chain("resources", resource_pages(5, 2)))
    bounds = ListingBounds(max_pages=2)

    listing = await run(conn, bounds)
    counts = [len(listing.resources)]
    while not listing.complete:
        assert len(counts) < 10, "continuing never finished"
        listing = await run(conn, bounds, listing=listing)
        counts.append(len(listing.resources))

    assert counts == [4, 8, 10]
    assert len(set(uris(listing))) == 10


async def test_templates_are_listed_even_when_resources_stop_at_a_bound() -> None:
    conn = FakeConn(chain("resources", resource_pages(3, 50)), chain("resourceTemplates", [[tpl(0)]]))

    listing = await run(conn, ListingBounds(max_items=100))

    assert listing.stopped_by == "max_items"
    assert len(listing.templates) == 1 and listing.state["templates"].complete
    assert not listing.state["resources"].done

    listing = await run(conn, listing=listing)

    assert listing.complete
    assert conn.cursors() == [None, "c1", "c2"]  # resources picked up where they stopped
    assert conn.cursors(TEMPLATES) == [None]  # templates were not listed twice
    assert len(listing.resources) == 150 and len(listing.templates) == 1


# ------------------------------------------------------------------------------------------ errors


async def test_templates_method_not_found_means_no_templates() -> None:
    conn = FakeConn(
        chain("resources", [[res(0)]]),
        {None: ServerFault("listing templates: the server answered error -32601: Method not found", -32601)},
    )

    listing = await run(conn)

    assert listing.complete
    assert listing.error is None and listing.error_code is None
    assert listing.templates == []
    assert listing.templates_supported is False
    assert uris(listing) == ["test://r/0"]


async def test_another_templates_error_is_the_servers_error_and_resources_stay() -> None:
    message = "listing resources/templates: the server answered error -32603: templates exploded"
    conn = FakeConn(chain("resources", resource_pages(2, 3)), {None: ServerFault(message, -32603)})

    listing = await run(conn)

    assert listing.error == message
    assert listing.error_code == -32603
    assert len(listing.resources) == 6
    assert not listing.complete
    assert listing.summary() == f"6 resources · 0 templates in 2 pages; failed: {message}"


@pytest.mark.parametrize("code", [-32000, -32001])
async def test_a_servers_own_minus_32000_or_32001_on_templates_does_not_stop_the_resources(code: int) -> None:
    """Many servers answer their own errors with these codes; only the SDK's own (the connection closed,
    the request timed out: `local`) mean that asking for the next list would only wait."""
    message = f"listing resources/templates: the server answered error {code}: Too many requests"
    conn = FakeConn(chain("resources", resource_pages(2, 3)), {None: ServerFault(message, code)})

    listing = await run(conn)

    assert listing.error == message and len(listing.resources) == 6


async def test_the_sdks_own_timeout_on_templates_stops_the_listing() -> None:
    message = "listing resources/templates: the server did not answer after 30 s (timeout)"
    fault = ServerFault(message, -32001, local=True)
    conn = FakeConn(chain("resources", resource_pages(2, 3)), {None: fault})

    listing = await run(conn)

    assert listing.error == message and listing.resources == []


async def test_method_not_found_on_resources_is_an_error_not_an_empty_list() -> None:
    conn = FakeConn({None: ServerFault("listing resources: the server answered error -32601: nope", -32601)})

    listing = await run(conn)

    assert listing.error_code == -32601
    assert not listing.complete
    assert listing.state["resources"].error is not None and listing.state["templates"].complete


async def test_a_fault_on_a_later_page_keeps_the_earlier_pages_and_the_cursor() -> None:
    table = chain("resources", resource_pages(3, 2))
    table["c1"] = ServerFault("listing resources: the server closed the connection (did it exit?)", -32000)
    conn = FakeConn(table)

    listing = await run(conn)

    assert listing.error is not None and "closed the connection" in listing.error
    assert listing.error_code == -32000
    assert uris(listing) == ["test://r/0", "test://r/1"]
    assert listing.state["resources"].cursor == "c1"


@pytest.mark.parametrize(
    "bad_page",
    [{}, {"resources": None}, {"resources": {"uri": "test://x", "name": "x"}}, {"items": [res(9)]}],
    ids=["empty", "null", "object", "other-key"],
)
async def test_a_page_without_the_resources_list_is_an_error(bad_page: dict[str, Any]) -> None:
    table = chain("resources", resource_pages(2, 2))
    table["c1"] = bad_page
    conn = FakeConn(table)

    listing = await run(conn)

    assert listing.error is not None
    assert "page 2" in listing.error and "'resources'" in listing.error
    assert uris(listing) == ["test://r/0", "test://r/1"]
    assert not listing.complete


async def test_a_templates_page_without_its_list_is_an_error() -> None:
    conn = FakeConn(chain("resources", [[res(0)]]), {None: {"templates": [tpl(0)]}})

    listing = await run(conn)

    assert listing.error is not None and "'resourceTemplates'" in listing.error
    assert listing.templates == []
    assert uris(listing) == ["test://r/0"]


# ------------------------------------------------------------------------------------------ items


async def test_malformed_items_are_skipped_and_counted_with_reasons() -> None:
    good_first = res("good-0")
    good_last = res("good-1", size=0, annotations={}, title="t", description="d", mimeType="text/plain")
    items: list[Any] = [
        good_first,
        {"name": "no uri"},  # 1
        {"uri": 42, "name": "uri not a string"},  # 2
        "not an object",  # 3
        None,  # 4
        {"uri": "test://r/no-name"},  # 5
        {"uri": "test://r/bad-title", "name": "x", "title": 5},  # 6
        {"uri": "test://r/bad-description", "name": "x", "description": ["d"]},  # 7
        {"uri": "test://r/bad-mime", "name": "x", "mimeType": 1},  # 8
        {"uri": "test://r/bad-size", "name": "x", "size": "big"},  # 9
        {"uri": "test://r/bool-size", "name": "x", "size": True},  # 10
        {"uri": "test://r/float-size", "name": "x", "size": 1.5},  # 11
        {"uri": "test://r/bad-annotations", "name": "x", "annotations": "x"},  # 12
        {"uri": "", "name": "a URI of nothing"},  # 13
        {"uri": "", "name": "a URI of nothing", "mimeType": "text/plain"},  # 14: the plain shape's way
        good_last,
    ]
    expected = {
        1: "'uri' missing or not a string",
        2: "'uri' missing or not a string",
        3: "not an object (str)",
        4: "not an object (NoneType)",
        5: "'name' missing or not a string",
        6: "'title' is not a string",
        7: "'description' is not a string",
        8: "'mimeType' is not a string",
        9: "'size' is not an integer",
        10: "'size' is not an integer",
        11: "'size' is not an integer",
        12: "'annotations' is not an object",
        13: "'uri' is empty",
        14: "'uri' is empty",
    }
    pages: list[Page] = []
    conn = FakeConn({None: {"resources": items}})

    listing = await run(conn, on_page=pages.append)

    assert uris(listing) == [good_first["uri"], good_last["uri"]]
    assert listing.complete  # a bad item costs that item only
    assert [p.kind for p in pages] == ["templates", "resources"]
    assert listing.skipped == len(expected) == pages[1].skipped
    assert listing.skip_reasons == [
        # counted from 1, as pages are (the index of `items` is from 0)
        f"resources page 1 item {index + 1}: {reason}"
        for index, reason in expected.items()
    ]
    assert f"{len(expected)} malformed items skipped" in listing.summary()


async def test_malformed_templates_are_skipped_with_reasons() -> None:
    conn = FakeConn(
        templates={
            None: {
                "resourceTemplates": [
                    {"uri": "test://looks/like/a/resource", "name": "wrong kind"},
                    {"uriTemplate": "test://t/{id}", "name": 7},
                    tpl(0),
                ]
            }
        }
    )

    listing = await run(conn)

    assert [t.uri_template for t in listing.templates] == ["test://t/0/{id}"]
    assert listing.skipped == 2
    assert listing.skip_reasons == [
        "templates page 1 item 1: 'uriTemplate' missing or not a string",
        "templates page 1 item 2: 'name' missing or not a string",
    ]


async def test_skip_reasons_stay_bounded_while_every_skip_is_counted() -> None:
    conn = FakeConn({None: {"resources": [{"bad": i} for i in range(500)] + [res(0)]}})

    listing = await run(conn)

    assert listing.skipped == 500
    assert 0 < len(listing.skip_reasons) <= 50
    assert uris(listing) == ["test://r/0"]


async def test_duplicates_are_counted_and_the_first_one_kept() -> None:
    conn = FakeConn(
        chain(
            "resources",
            [
                [res(0, name="first"), res(1), res(0, name="again in the same page")],
                [res(1, name="again on the next page"), res(2)],
            ],
        ),
        chain("resourceTemplates", [[tpl(0), tpl(0, name="again")]]),
    )
    pages: list[Page] = []

    listing = await run(conn, on_page=pages.append)

    assert uris(listing) == ["test://r/0", "test://r/1", "test://r/2"]
    assert [e.name for e in listing.resources] == ["first", "resource 1", "resource 2"]
    assert [t.name for t in listing.templates] == ["template 0"]
    assert [p.duplicates for p in pages] == [1, 1, 1]
    assert listing.duplicates == 3
    assert listing.complete
    assert "3 duplicates" in listing.summary()


async def test_entries_keep_the_raw_item_with_unknown_fields_and_the_server_name() -> None:
    item = res(0, mimeType="text/markdown", **{"x-vendor": {"rank": 1}, "_meta": {"k": "v"}})
    conn = FakeConn(
        {None: {"resources": [item]}}, {None: {"resourceTemplates": [tpl(0, **{"x-t": 1})]}}, name="srv"
    )

    listing = await run(conn)

    [entry] = listing.resources
    assert entry.server == "srv"
    assert entry.raw == item
    assert entry.mime_type == "text/markdown"
    assert listing.templates[0].raw["x-t"] == 1
    assert listing.templates[0].server == "srv"


# ------------------------------------------------------------------------------------------ on_page


def sync_recorder(log: list[Any], conn: FakeConn) -> Callable[[Page], None]:
    def on_page(page: Page) -> None:
        log.append((page.kind, page.number, [e.uri for e in page.resources], len(conn.requests)))

    return on_page


def async_recorder(log: list[Any], conn: FakeConn) -> Callable[[Page], Any]:
    async def on_page(page: Page) -> None:
        await anyio.sleep(0.001)  # a real await: the listing must wait for it
        log.append((page.kind, page.number, [e.uri for e in page.resources], len(conn.requests)))

    return on_page


@pytest.mark.parametrize(
    ("make", "requests_seen"),
    [(sync_recorder, [1, 2, 3, 4]), (async_recorder, [1, 3, 4, 4])],
    ids=["sync", "async"],
)
async def test_on_page_is_called_once_per_page_in_order_as_pages_arrive(
    make: Any, requests_seen: list[int]
) -> None:
    pages = resource_pages(3, 2)
    conn = FakeConn(chain("resources", pages), chain("resourceTemplates", [[tpl(0)]]))
    log: list[Any] = []

    listing = await run(conn, on_page=make(log, conn))

    assert [entry[:3] for entry in log] == [
        ("templates", 1, []),
        ("resources", 1, [i["uri"] for i in pages[0]]),
        ("resources", 2, [i["uri"] for i in pages[1]]),
        ("resources", 3, [i["uri"] for i in pages[2]]),
    ]
    # The next page is asked for as soon as a page arrives (the server prepares it meanwhile), never more
    # than one ahead: while an async on_page awaits, that one request has gone out, and no other.
    assert [entry[3] for entry in log] == requests_seen
    assert listing.complete


async def test_an_async_on_page_is_awaited_before_the_next_page_is_delivered() -> None:
    conn = FakeConn(chain("resources", resource_pages(4, 2)))
    events: list[str] = []

    async def on_page(page: Page) -> None:
        events.append(f"enter {page.kind} {page.number}")
        await anyio.sleep(0.01)
        events.append(f"leave {page.kind} {page.number}")

    await run(conn, on_page=on_page)

    assert events == [
        f"{step} {kind} {number}"
        for kind, number in [("templates", 1), *(("resources", n) for n in range(1, 5))]
        for step in ("enter", "leave")
    ]


async def test_pages_carry_the_server_name_kind_and_entries() -> None:
    conn = FakeConn({None: {"resources": [res(0)]}}, {None: {"resourceTemplates": [tpl(0)]}}, name="alpha")
    pages: list[Page] = []

    await run(conn, on_page=pages.append)

    assert [(p.server, p.kind, len(p.resources), len(p.templates)) for p in pages] == [
        ("alpha", "templates", 0, 1),
        ("alpha", "resources", 1, 0),
    ]
    assert pages[0].templates[0].literal_prefix == "test://t/0/"


# ---------------------------------------------------------------------------------- slices of a page


def count_calls(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    """How many times `discovery.<name>` was called so far (one call per item parsed)."""
    calls = [0]
    original = getattr(discovery, name)

    def counting(*args: Any) -> Any:
        calls[0] += 1
        return original(*args)

    monkeypatch.setattr(discovery, name, counting)
    return calls


async def seen_while_listing(conn: FakeConn, calls: list[int]) -> tuple[Listing, list[int]]:
    """List `conn` while another task notes `calls` at each of its turns of the event loop."""
    seen: list[int] = []
    done = anyio.Event()

    async def watch() -> None:
        while not done.is_set():
            seen.append(calls[0])
            await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as group:
        group.start_soon(watch)
        listing = await run(conn)
        done.set()
    return listing, seen


async def test_a_page_is_parsed_a_slice_at_a_time_with_the_loop_free_between_slices(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A page of 1,000 resources: another task runs after each slice of `PARSE_SLICE` (in the TUI, a key's
    turns of the loop), not only once the whole page is parsed."""
    parsed = count_calls(monkeypatch, "plain_entry")
    conn = FakeConn(chain("resources", [[res(i) for i in range(1000)]]))
    listing, seen = await seen_while_listing(conn, parsed)
    assert len(listing.resources) == 1000 and listing.complete
    assert sorted({count for count in seen if 0 < count < 1000}) == SLICE_ENDS


async def test_a_page_of_templates_is_parsed_a_slice_at_a_time_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """Templates, prompts and tools share a loop of their own: it yields after each slice as well."""
    checked = count_calls(monkeypatch, "item_problem")
    conn = FakeConn(templates=chain("resourceTemplates", [[tpl(i) for i in range(1000)]]))
    listing, seen = await seen_while_listing(conn, checked)
    assert len(listing.templates) == 1000
    assert sorted({count for count in seen if 0 < count < 1000}) == SLICE_ENDS


async def test_pace_is_asked_between_slices_and_its_pause_holds_the_parse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In the TUI `pace` is the input gate: a key pressed while a page is parsed gets a frame's pause at
    the next slice, not after the whole page. Here the pause lasts until the test ends it (no clock)."""
    parsed = count_calls(monkeypatch, "plain_entry")
    key_frame_painted = anyio.Event()
    asked: list[int] = []

    def pace() -> Awaitable[None] | None:
        asked.append(parsed[0])
        return key_frame_painted.wait() if len(asked) == 1 else None  # a key came during the first slice

    conn = FakeConn(chain("resources", [[res(i) for i in range(1000)]]))
    async with anyio.create_task_group() as group:
        group.start_soon(partial(run, conn, pace=pace))
        try:
            for _ in range(50):
                await anyio.lowlevel.checkpoint()
            assert parsed[0] == PARSE_SLICE  # held after the first slice while the key's frame is owed
        finally:
            key_frame_painted.set()  # the parse is shielded: a failed check must not leave it held
    assert asked == SLICE_ENDS
    assert parsed[0] == 1000


async def test_a_pace_that_always_pauses_slows_the_parse_but_never_stops_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Input at any rate (a wheel, a key repeating faster than a frame) keeps a frame owed all the time: a
    slice still runs between two pauses, so the listing goes on."""
    parsed = count_calls(monkeypatch, "plain_entry")
    asked = [0]
    last = [-1]

    def always() -> Awaitable[None]:
        # The guard is here, not in a timeout: the parse is shielded, a hang could not be cancelled.
        assert parsed[0] > last[0], "two pauses with no parsing between them"
        last[0] = parsed[0]
        asked[0] += 1
        return anyio.lowlevel.checkpoint()

    conn = FakeConn(chain("resources", [[res(i) for i in range(1000)], [res(1000 + i) for i in range(600)]]))
    listing = await run(conn, pace=always)
    assert len(listing.resources) == 1600 and listing.complete
    assert asked[0] == pauses_in(1000) + pauses_in(600)  # between the slices of each page


def keep_freed_sets(monkeypatch: pytest.MonkeyPatch) -> list[ShardedSet[str]]:
    """The seen sets finished lists hand over to be freed (the resources' only: the others saw none), with
    the threshold for freeing a part at a time lowered to 2,000 URIs."""
    monkeypatch.setattr(discovery, "_FORGET_IN_PARTS_FROM", 2000)
    kept: list[ShardedSet[str]] = []
    follow = discovery._follow_cursor

    def keeping(*args: Any) -> ShardedSet[str] | None:
        seen = follow(*args)
        if seen is not None and len(seen):
            kept.append(seen)
        return seen

    monkeypatch.setattr(discovery, "_follow_cursor", keeping)
    return kept


def three_pages() -> list[list[dict[str, Any]]]:
    return [[res(page * 1000 + i) for i in range(1000)] for page in range(3)]


async def test_a_big_finished_list_frees_the_uris_it_saw_a_part_at_a_time_with_the_pace_between(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The seen URIs are freed in their 64 parts, a pause asked before each next one (dropping 10^6 at
    once held the TUI's loop for 20 ms, a key pressed then waited for it)."""
    kept = keep_freed_sets(monkeypatch)
    left_at_pause: list[int] = []

    def pace() -> None:
        if kept and (not left_at_pause or left_at_pause[-1] > 0):  # until all is freed
            left_at_pause.append(len(kept[0]))

    listing = await run(FakeConn(chain("resources", three_pages())), pace=pace)
    assert len(listing.resources) == 3000 and listing.complete
    assert len(listing.state["resources"].seen_keys) == 0
    assert len(left_at_pause) == SHARDS
    assert left_at_pause[0] < 3000 and left_at_pause[-1] == 0
    assert all(a > b for a, b in pairwise(left_at_pause))  # a part each time


async def test_without_a_pace_or_below_the_threshold_the_seen_uris_go_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kept = keep_freed_sets(monkeypatch)
    listing = await run(FakeConn(chain("resources", three_pages())))  # the CLI: no pace
    assert listing.complete and len(kept[0]) == 3000  # handed over whole, dropped with the reference
    kept.clear()
    asked = [0]

    def pace() -> None:
        asked[0] += 1

    small = [[res(i) for i in range(1000)]]
    listing = await run(FakeConn(chain("resources", small)), pace=pace)
    assert listing.complete and len(kept[0]) == 1000
    assert asked[0] == pauses_in(1000)  # between the page's slices only


async def test_a_stop_while_the_seen_uris_are_freed_leaves_the_finished_list_complete(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The list had its last page: a stop that lands while its seen URIs are freed keeps it whole (not
    "stopped", with nothing to continue). The resources are the last list asked for."""
    kept = keep_freed_sets(monkeypatch)
    stop = ListingStop()

    def pace() -> None:
        if kept and not stop.requested:
            stop.stop()

    listing = await run(FakeConn(chain("resources", three_pages())), stop=stop, pace=pace)
    assert stop.requested
    resources = listing.state["resources"]
    assert resources.done and resources.stopped_by is None and len(listing.resources) == 3000
    assert listing.stopped_by is None and listing.complete


async def test_an_item_bound_on_a_slice_end_stops_without_a_pause_for_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the bound at two slices, two slices fill it: the parse stops there, with one pause between
    them and none after (a pause then would hold the listing for a frame with no work behind it)."""
    parsed = count_calls(monkeypatch, "plain_entry")
    asked: list[int] = []

    def pace() -> Awaitable[None]:
        asked.append(parsed[0])
        return anyio.lowlevel.checkpoint()

    conn = FakeConn(chain("resources", [[res(i) for i in range(1000)]]))
    listing = await run(conn, ListingBounds(max_items=2 * PARSE_SLICE), pace=pace)
    assert len(listing.resources) == 2 * PARSE_SLICE and listing.stopped_by == "max_items"
    assert asked == [PARSE_SLICE]


async def test_a_listing_cancelled_while_a_page_is_parsed_keeps_that_page_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The parse is shielded: cancelled after its first slice, the page is still parsed to the end, so the
    URIs marked as seen are the ones the listing kept (a resumed listing skips no resource)."""
    parsed = count_calls(monkeypatch, "plain_entry")
    conn = FakeConn(chain("resources", [[res(i) for i in range(1000)], [res(1000)]]))
    listing = Listing(server=conn.name)
    with anyio.CancelScope() as scope:

        async def cancel_mid_page() -> None:
            while parsed[0] < PARSE_SLICE:
                await anyio.lowlevel.checkpoint()
            scope.cancel()

        async with anyio.create_task_group() as group:
            group.start_soon(cancel_mid_page)
            await run(conn, listing=listing)
    assert scope.cancelled_caught
    assert parsed[0] == 1000
    assert len(listing.resources) == 1000
    assert set(listing.state["resources"].seen_keys) == {entry.uri for entry in listing.resources}


async def test_a_secret_in_a_long_repeated_cursor_is_masked_before_the_cut() -> None:
    token = "tok-9f8e7d6c5b4a-3f2e1d0c"
    cursor = "k" * 70 + token + "z" * 100  # the cut at 80 characters falls inside the token
    pages = resource_pages(2, 2)
    table: Table = {None: {"resources": pages[0], "nextCursor": cursor}}
    table[cursor] = {"resources": pages[1], "nextCursor": cursor}
    conn = FakeConn(table, env={"API_TOKEN": token})

    listing = await run(conn)

    assert listing.error is not None and "tok-9f8e" not in listing.error
    assert "'" + "k" * 70 + "***" in listing.error
