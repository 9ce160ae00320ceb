"""The server bar shows where a running listing stands (pages, items, rate, the bound it stops at), and `x`
on a listing server's row asks to stop it."""

from __future__ import annotations

import re
import sys

import pytest
from textual.app import App, ComposeResult

from explorer.config import ListingBounds, ServerSpec
from explorer.model.catalogue import ServerStatus
from explorer.model.listing import INTERRUPTED, KINDS, Listing, ListingProgress, bound_text
from explorer.theming import theme_variable_defaults
from explorer.widgets.server_bar import ServerBar, progress_line
from tests.app_helpers import SIZE, main_screen, make_app, wait_for
from tests.helpers.paths import ROOT

pytestmark = pytest.mark.anyio

BOUNDS = ListingBounds(max_items=5000, max_pages=60)


def status(name: str, state: str) -> ServerStatus:
    spec = ServerSpec(name=name, transport="stdio", command="server")
    found = ServerStatus(spec, state=state)  # type: ignore[arg-type]
    found.listing = Listing(server=name)
    return found


def running(name: str, *, pages: int = 3, items: int = 3000, seconds: float = 2.0) -> ListingProgress:
    return ListingProgress(
        server=name,
        kind="resources",
        pages=pages,
        items=items,
        kind_pages=pages,
        kind_items=items,
        bytes=0,
        seconds=seconds,
        bound=bound_text(BOUNDS),
        running=True,
    )


def test_the_progress_line_says_pages_items_rate_and_the_bound() -> None:
    line = progress_line(running("big"))
    assert line == (
        "listing resources, 3 pages · 3,000 items · 1,500/s · stops at 5,000 items or 60 pages per list, "
        "64 MB or 60 s per server · x stops"
    )
    assert progress_line(running("big"), refreshing=True).startswith("refreshing resources, 3 pages")


class BarApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.stops: list[str] = []

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults()

    def compose(self) -> ComposeResult:
        yield ServerBar()

    def on_server_bar_stop_requested(self, message: ServerBar.StopRequested) -> None:
        self.stops.append(message.name)


async def test_a_listing_server_shows_its_progress_and_x_asks_to_stop_it() -> None:
    app = BarApp()
    async with app.run_test(size=(200, 10)) as pilot:
        bar = app.query_one(ServerBar)
        done = status("done", "ready")
        big = status("big\x1b[31m", "listing")
        bar.update_statuses([done, big], {big.name: running(big.name)})
        await pilot.pause()
        lines = str(bar.render()).splitlines()
        assert "complete" in lines[0] and "x stops" not in lines[0]
        assert "big\\x1b[31m" in lines[1] and "\x1b" not in lines[1]  # the name is shown escaped
        assert "listing resources, 3 pages · 3,000 items · 1,500/s · stops at 5,000 items" in lines[1]
        bar.focus()
        await pilot.press("x")  # on the first row: a complete server has nothing to stop
        await pilot.press("down", "x")
        await pilot.pause()
        assert app.stops == [big.name]
        # Without progress (or once it is over) the line says what the catalogue says.
        bar.update_statuses([done, big])
        await pilot.pause()
        assert "listing… (0 items)" in str(bar.render()).splitlines()[1]


# ------------------------------------------------------------------------------- in the app, end to end


def slow_fixture(count: int, delay: float) -> ServerSpec:
    """The benchmark's fixture server, pages of 1,000 paced by `delay` seconds."""
    fixture = ROOT / "benchmarks" / "fixture_server.py"
    args = (str(fixture), "--count", str(count), "--delay", str(delay))
    return ServerSpec(name="slow", transport="stdio", command=sys.executable, args=args)


async def test_x_stops_a_running_listing_keeping_what_arrived_marked_incomplete() -> None:
    app = make_app(slow_fixture(20_000, 0.3), bounds=BOUNDS)
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        status = screen.catalogue.servers["slow"]
        await wait_for(pilot, lambda: status.state == "listing" and status.items_seen >= 2000)
        await pilot.pause(0.1)
        bar = str(screen.query_one(ServerBar).render())
        assert re.search(
            r"listing resources, \d+ pages · [\d,]+ items · [\d,]+/s · stops at 5,000 items", bar
        )
        await pilot.press("x")
        await wait_for(pilot, lambda: status.state == "incomplete")
        listing = status.listing
        assert listing is not None and listing.stopped_by == INTERRUPTED
        kept = listing.count("resources")
        assert 2000 <= kept < 5000  # stopped before the item bound: what arrived stays
        assert screen.catalogue.tree.root.resource_count == kept
        await wait_for(pilot, lambda: "incomplete (stopped)" in str(screen.query_one(ServerBar).render()))
        assert any("listing stopped; kept" in str(n.message) for n in app._notifications)
        await pilot.press("x")  # nothing runs any more: said so
        await wait_for(
            pilot, lambda: any("No listing is running." in str(n.message) for n in app._notifications)
        )


async def test_x_on_a_refresh_drops_it_and_says_the_last_listing_stays() -> None:
    """A refresh stopped halfway never replaces what is on screen: the notice says so (it said "kept N
    items" of the dropped refresh, though the tree kept the other listing), and `m` then goes on with the
    listing on screen, counted from what it holds. No bound is within reach (200 paced pages), so what
    stops each listing is the key, whatever the machine's speed."""
    app = make_app(slow_fixture(200_000, 0.3), bounds=ListingBounds(max_items=1_000_000, max_pages=1_000))
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        status = screen.catalogue.servers["slow"]
        await wait_for(pilot, lambda: status.state == "listing" and status.items_seen >= 2000)
        await pilot.press("x")
        await wait_for(pilot, lambda: status.state == "incomplete")
        assert status.listing is not None
        kept = status.listing.count("resources")
        await pilot.press("r")
        await wait_for(
            pilot, lambda: status.pending is not None and status.pending.count("resources") >= 1000
        )
        await pilot.press("x")
        items = sum(status.listing.count(kind) for kind in KINDS)  # the other lists' items too
        said = f"refresh stopped early by the user; the last listing stays ({items:,} items); press m"
        await wait_for(pilot, lambda: any(said in str(n.message) for n in app._notifications))
        assert screen.catalogue.tree.root.resource_count == kept
        await pilot.press("m")
        await wait_for(pilot, lambda: status.state == "listing")
        assert status.items_seen >= kept and status.error is None
        await wait_for(pilot, lambda: screen.catalogue.tree.root.resource_count > kept + 1000)
        await pilot.press("x")
        await wait_for(pilot, lambda: status.state == "incomplete")
        root = screen.catalogue.tree.root
        assert root.resource_count > kept
        assert status.items_seen == root.resource_count + len(status.listing.templates)  # no refresh's
