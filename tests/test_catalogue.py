"""Catalogue: the first listing streams into the tree; a refresh replaces it only when complete.

Listings and pages are built by hand, the way `list_server` would fill them; no I/O.
"""

from __future__ import annotations

import pytest

from explorer.config import ServerSpec
from explorer.connection.discovery import Listing, Page
from explorer.connection.session import ServerIdentity
from explorer.model.catalogue import Catalogue, ServerStatus
from explorer.model.listing import INTERRUPTED
from tests.factories import res, tpl


def spec(name: str) -> ServerSpec:
    return ServerSpec(name=name, transport="stdio", command="server-" + name)


def identity() -> ServerIdentity:
    return ServerIdentity("srv", "1.0", "2025-11-25", "handshake", {"resources": {}}, None)


def now(status: ServerStatus) -> ServerStatus:
    """The same status, read again after the catalogue changed it (mypy would keep an earlier narrowing)."""
    return status


def page(server: str, number: int, *uris: str, templates: tuple[str, ...] = ()) -> Page:
    if templates:
        return Page(server, "templates", number, templates=tuple(tpl(server, t) for t in templates))
    return Page(server, "resources", number, resources=tuple(res(server, u) for u in uris))


def fill(listing: Listing, pages: list[Page], *, done: bool = True) -> Listing:
    """What list_server does with the pages it delivers."""
    for p in pages:
        listing.resources.extend(p.resources)
        listing.templates.extend(p.templates)
        listing.pages += 1
    for state in listing.state.values():
        state.done = done
    return listing


def listed(tree_catalogue: Catalogue, server: str) -> set[str]:
    return {e.uri for e in tree_catalogue.tree.resources_under("") if e.server == server}


def ready_catalogue(*servers: tuple[str, list[str]]) -> Catalogue:
    """Servers whose first listing completed with these URIs."""
    catalogue = Catalogue()
    for name, uris in servers:
        catalogue.add_server(spec(name))
        catalogue.connected(name, identity())
        listing = catalogue.begin_listing(name)
        pages = [page(name, 1, *uris)]
        for p in pages:
            catalogue.add_page(p)
        catalogue.finish_listing(name, fill(listing, pages))
    return catalogue


# ------------------------------------------------------------------------------------------ first listing


def test_a_new_server_starts_connecting() -> None:
    catalogue = Catalogue()

    status = catalogue.add_server(spec("a"))

    assert catalogue.servers["a"] is status
    assert status.state == "connecting" and status.busy
    assert status.progress_text() == "connecting…"


def test_the_first_listing_merges_each_page_into_the_tree_as_it_arrives() -> None:
    catalogue = Catalogue()
    catalogue.add_server(spec("a"))
    catalogue.connected("a", identity())
    status = catalogue.servers["a"]
    assert status.state == "listing" and status.identity is not None

    listing = catalogue.begin_listing("a")
    assert status.listing is listing  # the listing on screen is the one being filled
    first = page("a", 1, "x://docs/1", "x://docs/2")

    assert catalogue.add_page(first) is True
    fill(listing, [first], done=False)
    assert listed(catalogue, "a") == {"x://docs/1", "x://docs/2"}  # browsable before the end
    assert status.progress_text() == "listing… (2 items)"
    assert status.busy

    second = page("a", 2, "x://docs/3")
    templates = page("a", 1, templates=("x://docs/{id}",))
    assert catalogue.add_page(second) is True
    assert catalogue.add_page(templates) is True
    catalogue.finish_listing("a", fill(listing, [second, templates]))

    assert listed(catalogue, "a") == {"x://docs/1", "x://docs/2", "x://docs/3"}
    assert [t.uri_template for t in catalogue.tree.templates_under("")] == ["x://docs/{id}"]
    assert now(status).state == "ready" and not now(status).busy
    assert status.progress_text() == "3 resources · 1 template · complete"
    assert (status.pages_seen, status.items_seen) == (3, 4)


def test_an_empty_page_does_not_change_the_tree_and_a_repeated_uri_stays_one_entry() -> None:
    catalogue = ready_catalogue(("a", ["x://1"]))
    catalogue.begin_listing("a")

    assert catalogue.add_page(page("a", 3)) is False
    catalogue.add_page(page("a", 2, "x://1"))
    assert catalogue.tree.count_under("").resources == 1
    assert catalogue.servers["a"].pages_seen == 3


def test_a_first_listing_that_fails_keeps_what_was_listed() -> None:
    catalogue = Catalogue()
    catalogue.add_server(spec("a"))
    catalogue.connected("a", identity())
    listing = catalogue.begin_listing("a")
    first = page("a", 1, "x://1", "x://2")
    catalogue.add_page(first)
    fill(listing, [first], done=False)
    listing.error = "listing resources: the server closed the connection (did it exit?)"
    listing.error_code = -32000

    catalogue.finish_listing("a", listing)

    status = catalogue.servers["a"]
    assert status.state == "failed"
    assert status.error == listing.error and status.error_code == -32000
    assert listed(catalogue, "a") == {"x://1", "x://2"}
    assert status.progress_text() == "2 resources · 0 templates · failed (kept what was listed)"


def test_skipped_items_and_large_counts_show_in_the_progress_text() -> None:
    catalogue = Catalogue()
    catalogue.add_server(spec("a"))
    catalogue.connected("a", identity())
    listing = catalogue.begin_listing("a")
    listing.resources.extend(res("a", f"x://{i}") for i in range(2500))
    listing.pages = 1200
    listing.skipped = 1234
    for state in listing.state.values():
        state.done = True

    catalogue.finish_listing("a", listing)

    assert catalogue.servers["a"].progress_text() == (
        "2,500 resources · 0 templates · 1,234 skipped · complete"
    )


# ------------------------------------------------------------------------------------------ continue


def stopped_catalogue() -> tuple[Catalogue, Listing]:
    catalogue = Catalogue()
    catalogue.add_server(spec("a"))
    catalogue.connected("a", identity())
    listing = catalogue.begin_listing("a")
    first = page("a", 1, "x://1")
    catalogue.add_page(first)
    fill(listing, [first], done=False)
    listing.stopped_by = "max_pages"
    listing.state["resources"].cursor = "c1"
    catalogue.finish_listing("a", listing)
    return catalogue, listing


def test_a_listing_stopped_at_a_bound_is_incomplete() -> None:
    catalogue, _ = stopped_catalogue()
    status = catalogue.servers["a"]

    assert status.state == "incomplete"
    assert status.error is None
    assert not status.busy
    assert status.progress_text() == "1 resource · 0 templates · incomplete (max-pages bound)"


def test_continuing_an_incomplete_listing_resumes_the_same_listing_into_the_tree() -> None:
    catalogue, stopped = stopped_catalogue()
    status = catalogue.servers["a"]

    resumed = catalogue.begin_listing("a", refresh=False)

    assert resumed is stopped  # so list_server resumes from its saved cursor
    assert resumed.state["resources"].cursor == "c1"
    assert status.state == "listing" and not status.refreshing and status.pending is None
    more = page("a", 2, "x://2")
    assert catalogue.add_page(more) is True  # merged at once, like a first listing
    resumed.stopped_by = None
    catalogue.finish_listing("a", fill(resumed, [more]))

    assert now(status).state == "ready"
    assert status.listing is stopped
    assert listed(catalogue, "a") == {"x://1", "x://2"}


def test_a_failed_listing_is_not_continued_but_listed_again_aside() -> None:
    catalogue = ready_catalogue(("a", ["x://1"]))
    status = catalogue.servers["a"]
    assert status.listing is not None
    status.listing.error = "listing resources/templates: boom"

    again = catalogue.begin_listing("a", refresh=False)

    assert again is not status.listing
    assert again.resources == [] and again.pages == 0
    assert status.refreshing and status.pending is again


# ------------------------------------------------------------------------------------------ refresh


def test_a_refresh_is_built_aside_and_replaces_only_when_complete() -> None:
    catalogue = ready_catalogue(("a", ["x://old", "x://kept"]))
    status = catalogue.servers["a"]
    old = status.listing

    pending = catalogue.begin_listing("a", refresh=True)

    assert pending is not old and status.listing is old
    assert status.pending is pending and status.refreshing and status.busy
    new_page = page("a", 1, "x://kept", "x://new")
    assert catalogue.add_page(new_page) is False
    assert listed(catalogue, "a") == {"x://old", "x://kept"}  # nothing moves while refreshing
    assert status.progress_text() == "2 resources · 0 templates · refreshing…"

    catalogue.finish_listing("a", fill(pending, [new_page]))

    assert listed(catalogue, "a") == {"x://kept", "x://new"}
    assert status.listing is pending
    assert now(status).state == "ready" and status.error is None
    assert not now(status).refreshing and now(status).pending is None
    assert status.progress_text() == "2 resources · 0 templates · complete"


def test_a_failed_refresh_keeps_the_old_entries_and_records_the_error() -> None:
    catalogue = ready_catalogue(("a", ["x://1", "x://2"]))
    status = catalogue.servers["a"]
    old = status.listing
    pending = catalogue.begin_listing("a", refresh=True)
    catalogue.add_page(page("a", 1, "x://3"))
    fill(pending, [page("a", 1, "x://3")], done=False)
    pending.error = "listing resources: the server answered error -32603: exploded"
    pending.error_code = -32603

    catalogue.finish_listing("a", pending)

    assert listed(catalogue, "a") == {"x://1", "x://2"}
    assert status.listing is old
    assert status.error == pending.error and status.error_code == -32603
    assert not status.refreshing and status.pending is None and not status.busy
    assert status.progress_text() == (
        "2 resources · 0 templates · refresh failed (showing the last good listing)"
    )


def test_a_refresh_stopped_at_a_bound_keeps_the_old_entries_and_says_why() -> None:
    catalogue = ready_catalogue(("a", ["x://1"]))
    status = catalogue.servers["a"]
    pending = catalogue.begin_listing("a", refresh=True)
    fill(pending, [page("a", 1, "x://2")], done=False)
    pending.stopped_by = "max_items"

    catalogue.finish_listing("a", pending)

    assert listed(catalogue, "a") == {"x://1"}
    assert status.error is not None and "max-items" in status.error
    assert "refresh failed" in status.progress_text()


def test_continuing_after_a_stopped_refresh_counts_only_the_listing_on_screen() -> None:
    """A first listing stopped by the user (3 items), a refresh stopped after 2 more pages (dropped), then
    `m`: the continued listing starts from the 3 items on screen, not from 3 plus the dropped refresh's,
    and the refresh's "stopped" note goes, since this listing is the one going on."""
    catalogue = Catalogue()
    catalogue.add_server(spec("a"))
    catalogue.connected("a", identity())
    status = catalogue.servers["a"]
    first = catalogue.begin_listing("a")
    pages = [page("a", 1, "x://1", "x://2", "x://3")]
    for p in pages:
        catalogue.add_page(p)
    fill(first, pages, done=False).stopped_by = INTERRUPTED
    catalogue.finish_listing("a", first)

    refresh = catalogue.begin_listing("a", refresh=True)
    pages = [page("a", 1, "x://1", "x://2"), page("a", 2, "x://3", "x://4")]
    for p in pages:
        catalogue.add_page(p)
    fill(refresh, pages, done=False).stopped_by = INTERRUPTED
    catalogue.finish_listing("a", refresh)
    assert listed(catalogue, "a") == {"x://1", "x://2", "x://3"}
    assert status.error == "refresh stopped early by the user"

    continued = catalogue.begin_listing("a")
    assert continued is first and status.state == "listing"
    assert (status.pages_seen, status.items_seen) == (1, 3)
    catalogue.add_page(page("a", 2, "x://4"))
    assert status.items_seen == 4 == len(listed(catalogue, "a"))
    assert status.error is None and status.progress_text() == "listing… (3 items)"


def test_a_good_refresh_after_a_failed_one_clears_the_error() -> None:
    catalogue = ready_catalogue(("a", ["x://1"]))
    status = catalogue.servers["a"]
    failed = catalogue.begin_listing("a", refresh=True)
    failed.error = "boom"
    catalogue.finish_listing("a", failed)

    good = catalogue.begin_listing("a", refresh=True)
    catalogue.finish_listing("a", fill(good, [page("a", 1, "x://2")]))

    assert status.error is None
    assert listed(catalogue, "a") == {"x://2"}
    assert status.progress_text().endswith("· complete")


def test_a_refresh_that_empties_a_server_removes_its_entries() -> None:
    catalogue = ready_catalogue(("a", ["x://1", "x://2"]))
    pending = catalogue.begin_listing("a", refresh=True)

    catalogue.finish_listing("a", fill(pending, []))

    assert listed(catalogue, "a") == set()
    assert catalogue.tree.node_for("x://1") is None


# ------------------------------------------------------------------------------------------ servers apart


def test_one_servers_failed_refresh_never_touches_another() -> None:
    catalogue = ready_catalogue(("a", ["x://a/1"]), ("b", ["x://b/1", "x://shared"]))
    pending = catalogue.begin_listing("a", refresh=True)
    pending.error = "boom"
    catalogue.finish_listing("a", pending)

    good = catalogue.begin_listing("b", refresh=True)
    catalogue.finish_listing("b", fill(good, [page("b", 1, "x://b/2")]))

    assert listed(catalogue, "a") == {"x://a/1"}
    assert listed(catalogue, "b") == {"x://b/2"}
    assert catalogue.servers["a"].error == "boom"
    assert catalogue.servers["b"].error is None


def test_a_failed_connection_keeps_the_entries_and_the_details() -> None:
    catalogue = ready_catalogue(("a", ["x://1"]), ("b", ["x://2"]))

    catalogue.failed("a", "a: the server closed the connection", -32000, {"why": "exit"}, "panic: boom\n")

    status = catalogue.servers["a"]
    assert status.state == "failed" and not status.busy
    assert (status.error, status.error_code, status.error_data, status.stderr_tail) == (
        "a: the server closed the connection",
        -32000,
        {"why": "exit"},
        "panic: boom\n",
    )
    assert listed(catalogue, "a") == {"x://1"}
    assert status.progress_text() == "1 resource · 0 templates · failed (kept what was listed)"
    assert catalogue.servers["b"].state == "ready" and catalogue.servers["b"].error is None


def test_a_connection_failing_before_any_listing_just_says_failed() -> None:
    catalogue = Catalogue()
    catalogue.add_server(spec("a"))

    catalogue.failed("a", "connecting: command not found: server-a", None, None, "")

    assert catalogue.servers["a"].progress_text() == "failed"


@pytest.mark.parametrize("how", ["error", "bound"])
def test_a_reconnect_whose_listing_fails_again_ends_its_listing_state(how: str) -> None:
    """`R` on a server whose listing failed: the new listing is built aside (it must not replace what is
    on screen half-done); when it fails too, the server is failed again, not "listing…" for ever."""
    catalogue = Catalogue()
    catalogue.add_server(spec("a"))
    catalogue.connected("a", identity())
    first = catalogue.begin_listing("a")
    catalogue.add_page(page("a", 1, "x://1", "x://2"))
    fill(first, [page("a", 1, "x://1", "x://2")], done=False).error = "HTTP 502 Bad Gateway"
    catalogue.finish_listing("a", first)
    status = catalogue.servers["a"]
    assert status.state == "failed"

    catalogue.reset("a")
    catalogue.connected("a", identity())
    again = catalogue.begin_listing("a")
    assert again is not first and status.state == "listing" and status.busy
    fill(again, [page("a", 1, "x://1")], done=False)
    if how == "error":
        again.error = "HTTP 502 Bad Gateway, again"
    else:
        again.stopped_by = "max_items"
    catalogue.finish_listing("a", again)

    assert status.state == "failed" and not status.busy  # as the listing on screen left it
    assert status.error is not None and ("again" in status.error or "max-items" in status.error)
    assert listed(catalogue, "a") == {"x://1", "x://2"}
    assert "listing…" not in status.progress_text()


def test_a_connection_failing_during_a_refresh_drops_the_refresh() -> None:
    catalogue = ready_catalogue(("a", ["x://1"]))
    catalogue.begin_listing("a", refresh=True)

    catalogue.failed("a", "gone", -32000, None, "")

    status = catalogue.servers["a"]
    assert not status.refreshing and status.pending is None
    assert listed(catalogue, "a") == {"x://1"}


def test_a_refresh_ending_after_the_connection_failed_does_not_replace_the_kept_listing() -> None:
    catalogue = ready_catalogue(("a", ["x://1", "x://2"]))
    status = catalogue.servers["a"]
    old = status.listing
    pending = catalogue.begin_listing("a", refresh=True)
    catalogue.failed("a", "a: the server closed the connection", -32000, None, "")
    pending.error = "listing resources: the server closed the connection (did it exit?)"

    catalogue.finish_listing("a", pending)

    assert listed(catalogue, "a") == {"x://1", "x://2"}
    assert status.listing is old
    assert status.progress_text().startswith("2 resources")


def test_reconnecting_keeps_the_entries_and_clears_the_error() -> None:
    catalogue = ready_catalogue(("a", ["x://1"]))
    catalogue.failed("a", "gone", -32000, {"d": 1}, "tail")

    catalogue.reset("a")
    status = catalogue.servers["a"]
    assert status.state == "connecting" and status.error is None
    assert status.progress_text() == "connecting…"
    assert listed(catalogue, "a") == {"x://1"}

    catalogue.connected("a", identity())
    assert now(status).state == "listing"
    assert (status.error, status.error_code, status.error_data) == (None, None, None)


def test_status_name_is_the_spec_name() -> None:
    status = ServerStatus(spec("zeta"))

    assert status.name == "zeta"
    assert status.listing is None and status.pending is None
