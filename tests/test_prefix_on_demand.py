"""Browsing a server too big to list whole: a listing stopped at a bound, then a subtree listed on demand.

When the user expands a node (or submits a prefix filter) and a server's listing stopped at a bound, the
explorer lists what is under that prefix on that server (SEP-1269's `prefix` on every page, filtered on
this side too) and merges it into the tree. The built-in demo honours `prefix`, so the wire shows it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from explorer.config import ListingBounds, ServerSpec
from explorer.model.uri_tree import UriNode
from tests.app_helpers import demo_spec, main_screen, settled_app, wait_for

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

FOLDER = "file:///workspace/tidewater"
BOUNDS = ListingBounds(max_items=40)  # the demo has about 2,600 resources: its listing stops early
FIXTURE = Path(__file__).resolve().parents[1] / "benchmarks" / "fixture_server.py"


def prefixes_sent(app: object) -> list[str]:
    wire = app.wire  # type: ignore[attr-defined]
    return [
        f.json()["params"]["prefix"]
        for f in wire.frames
        if f.method == "resources/list" and f.kind == "request" and "prefix" in f.json().get("params", {})
    ]


def told(app: object) -> str:
    return "\n".join(str(n.message) for n in app._notifications)  # type: ignore[attr-defined]


async def test_expanding_a_folder_of_a_stopped_listing_lists_that_folder() -> None:
    async with settled_app(demo_spec(), bounds=BOUNDS) as (app, pilot):
        screen = main_screen(app)
        assert screen.catalogue.servers["demo"].state == "incomplete"
        tree = screen.catalogue.tree
        folder = tree.node_for(FOLDER)
        assert isinstance(folder, UriNode)
        before = folder.resource_count
        outside = tree.root.resource_count - before
        assert before < 40
        screen.tree_widget.expand_node(folder)
        await wait_for(pilot, lambda: f"demo: {FOLDER}: listed" in told(app))
        assert FOLDER in prefixes_sent(app)  # asked by prefix, not by listing everything again
        # More of that folder, within the same item bound, and nothing outside it.
        assert before < folder.resource_count <= before + 40
        assert tree.root.resource_count - folder.resource_count == outside
        assert "listed 40 resources" in told(app) and "(stopped at the max-items bound)" in told(app)
        assert "ignored the prefix" not in told(app)  # the demo honours it
        # The server's row counts what the tree shows: the listing's 40, and what the prefix added.
        added = folder.resource_count - before
        status = screen.catalogue.servers["demo"]
        assert status.progress_text().startswith(f"40 resources (+{added} listed by prefix)")
        # Asked once: expanding it again does not list it again.
        asked = len(prefixes_sent(app))
        screen.tree_widget.collapse_node(folder)
        screen.tree_widget.expand_node(folder)
        await pilot.pause(0.3)
        assert len(prefixes_sent(app)) == asked


async def test_a_complete_listing_is_never_listed_again_by_prefix() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        screen = main_screen(app)
        assert screen.catalogue.servers["demo"].state == "ready"
        folder = screen.catalogue.tree.node_for(FOLDER)
        assert isinstance(folder, UriNode)
        screen.tree_widget.expand_node(folder)
        await pilot.pause(0.3)
        assert prefixes_sent(app) == []
        assert not screen.supervisor.list_prefix("demo", FOLDER)


async def test_submitting_a_prefix_filter_lists_that_prefix() -> None:
    async with settled_app(demo_spec(), bounds=BOUNDS) as (app, pilot):
        screen = main_screen(app)
        await pilot.press("slash")
        for key in "docs://handbook/":
            await pilot.press(key if key not in ":/" else {"/": "slash", ":": "colon"}[key])
        await pilot.press("enter")
        await wait_for(pilot, lambda: "docs://handbook/" in prefixes_sent(app))
        await wait_for(pilot, lambda: "demo: docs://handbook/: listed" in told(app))
        handbook = screen.catalogue.tree.node_for("docs://handbook")
        assert handbook is not None and handbook.items_below == 13  # every chapter, whatever the bound cut


async def test_a_server_that_ignores_prefix_is_named_in_the_notice() -> None:
    """Most servers today ignore `prefix` (the npm reference server does): the explorer keeps only what is
    under it, and says that the server sent everything, which is why a bound may cut it short."""
    args = (str(FIXTURE), "--count", "3000", "--page", "100", "--ignore-prefix")
    spec = ServerSpec(name="loose", transport="stdio", command=sys.executable, args=args)
    async with settled_app(spec, bounds=ListingBounds(max_items=1000)) as (app, pilot):
        screen = main_screen(app)
        assert screen.catalogue.servers["loose"].state == "incomplete"
        group = screen.catalogue.tree.node_for("bench://host0/area0/group5")
        assert isinstance(group, UriNode)
        screen.tree_widget.expand_node(group)
        await wait_for(pilot, lambda: "loose: bench://host0/area0/group5: listed" in told(app))
        assert "bench://host0/area0/group5" in prefixes_sent(app)
        # Everything came: 2,900 resources and a template outside the prefix, dropped here.
        assert (
            "listed 100 resources and 1 template under it; it ignored the prefix parameter (SEP-1269): "
            "2,901 items outside the prefix were dropped here" in told(app)
        )
        tree = screen.catalogue.tree
        # group5 and group50 to group59 start with the prefix; nothing else was added.
        assert tree.node_for("bench://host0/area0/group20") is None
