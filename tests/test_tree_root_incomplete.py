"""The root row's `⚠ incomplete` names the servers whose listing on screen misses resources (cut by a
failure mid-listing, stopped at a bound or by the user), never a server that failed after its listing
completed: everything it lists is in the tree, and the server bar shows it failed."""

from __future__ import annotations

import os
import signal
from dataclasses import replace

import pytest

from explorer.config import ServerSpec
from explorer.connection.stdio import live_server_groups
from explorer.model.catalogue import Catalogue
from explorer.model.listing import INTERRUPTED, Listing
from explorer.widgets.server_bar import ServerBar
from tests.app_helpers import demo_spec, main_screen, raw_spec, settled_app, tree_lines, wait_for

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


async def test_a_server_that_fails_after_a_complete_listing_is_not_named_incomplete() -> None:
    done = replace(demo_spec(), name="done")
    async with settled_app(done, raw_spec("cut", "exit-mid-list")) as (app, pilot):
        screen = main_screen(app)
        status = screen.catalogue.servers["done"]

        def bar_text() -> str:
            return str(screen.query_one(ServerBar).render())

        assert status.state == "ready"
        assert tree_lines(app)[0].endswith("⚠ incomplete: cut")  # died mid-listing: resources missing
        group = next(pgid for pgid, name in live_server_groups().items() if name == "done")
        os.killpg(group, signal.SIGKILL)  # the server goes away after its listing completed
        await wait_for(pilot, lambda: "failed (kept what was listed)" in bar_text())  # the bar says so
        screen.events.flush_tree()  # the tree as the throttled redraw will show it
        await pilot.pause()
        root = tree_lines(app)[0]
        assert root.endswith("⚠ incomplete: cut"), root  # its listing is complete: not named


def _catalogue(*names: str) -> Catalogue:
    catalogue = Catalogue()
    for name in names:
        catalogue.add_server(ServerSpec(name=name, transport="stdio", command="x"))
    return catalogue


def _finished(listing: Listing) -> Listing:
    for state in listing.state.values():
        state.done = True
    return listing


def test_only_a_kept_listing_that_misses_resources_is_incomplete() -> None:
    catalogue = _catalogue("later", "cut", "bound", "never", "refresh")
    servers = catalogue.servers
    for name in servers:
        catalogue.begin_listing(name)
    # Listed in full, then the connection failed.
    catalogue.finish_listing("later", _finished(catalogue.servers["later"].listing or Listing("later")))
    catalogue.failed("later", "the server closed the connection", None, None, "")
    # The connection failed mid-listing: lists not done.
    catalogue.failed("cut", "the server closed the connection", None, None, "")
    # Stopped by the user.
    stopped = servers["bound"].listing
    assert stopped is not None
    stopped.stopped_by = INTERRUPTED
    catalogue.finish_listing("bound", stopped)
    # Never connected: nothing listed, so the tree may miss all of its resources.
    servers["never"].listing = None
    catalogue.failed("never", "could not start", None, None, "")
    # A complete listing whose refresh failed: the last good listing stays.
    catalogue.finish_listing("refresh", _finished(servers["refresh"].listing or Listing("refresh")))
    pending = catalogue.begin_listing("refresh", refresh=True)
    pending.error = "boom"
    catalogue.finish_listing("refresh", pending)
    assert {name for name, s in servers.items() if s.listing_incomplete} == {"cut", "bound", "never"}


def test_a_refresh_stopped_by_the_time_bound_names_its_flag_and_config_key() -> None:
    """The TUI said "refresh stopped at the max_seconds bound" here and "max-seconds" in the server bar:
    neither a flag nor, for the bar, the config key; the one name says both."""
    catalogue = _catalogue("slow")
    catalogue.begin_listing("slow")
    catalogue.finish_listing("slow", _finished(catalogue.servers["slow"].listing or Listing("slow")))
    pending = catalogue.begin_listing("slow", refresh=True)
    pending.stopped_by = "max_seconds"
    catalogue.finish_listing("slow", pending)
    assert catalogue.servers["slow"].error == "refresh stopped at the list-timeout (max_seconds) bound"
