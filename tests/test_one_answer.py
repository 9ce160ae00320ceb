"""One answer everywhere: the CLI and the TUI agree, and keys act on what the user is looking at."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from explorer.model.sizes import human_size
from explorer.model.uri_tree import PatternNode
from explorer.screens.goto import GoToTarget
from explorer.widgets.detail import DetailPane
from tests.app_helpers import (
    SIZE,
    demo_spec,
    main_screen,
    make_app,
    raw_spec,
    settled_app,
    tree_lines,
    wait_for,
    wait_settled,
)
from tests.helpers.cli import demo_server, run_cli

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

LATEST = "metrics://eu-west/checkout/latest"


def test_one_size_formatter_in_decimal_units() -> None:
    assert [human_size(n) for n in (999, 2150, 2_249, 1_500_000)] == ["999 B", "2.1 kB", "2.2 kB", "1.5 MB"]


async def test_after_a_go_to_c_y_and_the_details_act_on_the_uri_gone_to() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        screen = main_screen(app)
        target = GoToTarget(
            uri=LATEST,
            prefix="metrics://",
            template="metrics://{region}/{service}/latest",
            server="demo",
            values={"region": "eu-west", "service": "checkout"},
        )
        screen._go_to(target)
        await wait_for(pilot, lambda: screen.highlighted_uri() == LATEST)
        node = screen.tree_widget.cursor_node
        assert node.prefix == "metrics://eu-west/checkout"  # type: ignore[union-attr]  # the nearest node
        assert screen.highlighted_uri() == LATEST
        await pilot.press("c")
        assert app.clipboard == LATEST
        detail = str(screen.query_one(DetailPane).query_one("#detail-body").render())
        assert LATEST in detail and "metrics://{region}/{service}/latest" in detail and "checkout" in detail
        await pilot.press("down")  # the cursor moves on: the keys act on the highlighted node again
        await wait_for(pilot, lambda: screen.highlighted_uri() != LATEST)
        await pilot.press("c")
        assert app.clipboard == screen.highlighted_uri()


async def test_enter_gets_a_prompt_without_arguments_and_the_list_takes_j_and_k() -> None:
    from textual.widgets import OptionList

    from explorer.screens.prompts import PromptFormScreen, PromptsScreen
    from explorer.widgets.key_bar import KeyBar

    async with settled_app(replace(demo_spec(), env={"EXPLORER_DEMO_CHANGE_SECONDS": "1"})) as (app, pilot):
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptsScreen))
        prompts = app.screen
        assert isinstance(prompts, PromptsScreen)
        await wait_for(pilot, lambda: "triage-inbox" in [p.name for p in prompts.prompts], timeout=30)
        options = prompts.query_one("#prompt-list", OptionList)
        options.focus()
        first = options.highlighted
        await pilot.press("j")
        assert options.highlighted is not None and first is not None and options.highlighted > first
        await pilot.press("k")
        assert options.highlighted == first
        options.highlighted = next(
            i for i, e in enumerate(prompts._options) if e and e.name == "triage-inbox"
        )
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: isinstance(app.screen, PromptFormScreen) and bool(app.screen.query(KeyBar))
        )
        assert "ctrl+s" in str(app.screen.query_one("#pf-status").render())
        await pilot.press("enter")  # no argument to fill: enter gets it
        await wait_for(pilot, lambda: "Sort these inbox notes" in prompts.result_view.text)


async def test_the_root_row_says_listing_while_it_runs_and_incomplete_only_when_stopped() -> None:
    from explorer.config import ListingBounds
    from tests.app_helpers import tree_lines

    app = make_app(raw_spec("slow", "slow-list", resources=400, page_size=50, delay=0.2))
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        status = screen.catalogue.servers["slow"]
        await wait_for(
            pilot, lambda: status.state == "listing" and screen.catalogue.tree.root.resource_count >= 50
        )
        await wait_for(pilot, lambda: "listing… (" in tree_lines(app)[0])
        assert "incomplete" not in tree_lines(app)[0]
        await wait_settled(pilot, app, timeout=60)
        assert "listing…" not in tree_lines(app)[0] and "incomplete" not in tree_lines(app)[0]
    bounded = make_app(raw_spec("cut", resources=400, page_size=50), bounds=ListingBounds(max_items=100))
    async with bounded.run_test(size=SIZE) as pilot:
        await wait_settled(pilot, bounded)
        assert "⚠ incomplete: cut" in tree_lines(bounded)[0]


async def test_a_failed_servers_entries_are_dimmed_and_followed_resources_marked() -> None:
    import os
    import signal

    from explorer.connection.stdio import live_server_groups
    from tests.app_helpers import tree_lines

    async with settled_app(replace(demo_spec(), env={"EXPLORER_DEMO_TICK_SECONDS": "0.3"})) as (app, pilot):
        screen = main_screen(app)
        screen.tree_widget.select_prefix("metrics://live/clock")
        await pilot.press("s")
        await wait_for(pilot, lambda: any("◉ following" in line for line in tree_lines(app)))
        painter = screen.tree_widget._painter
        assert painter.marks.get("metrics://live/clock") == "following"
        group = next(pgid for pgid, name in live_server_groups().items() if name == "demo")
        os.killpg(group, signal.SIGKILL)
        await wait_for(pilot, lambda: screen.catalogue.servers["demo"].state == "failed")
        await wait_for(pilot, lambda: painter.stale == frozenset({"demo"}))


async def test_a_link_to_a_uri_in_rendered_markdown_opens_the_go_to_box() -> None:
    from explorer.screens.goto import GoToDialog
    from explorer.widgets.preview import ContentPreview

    async with settled_app(demo_spec()) as (app, pilot):
        preview = main_screen(app).query_one(ContentPreview)
        preview.post_message(ContentPreview.LinkClicked(preview, "https://example.test/not-opened"))
        await pilot.pause(0.2)
        assert not isinstance(app.screen, GoToDialog)  # a web link is never opened nor resolved
        preview.post_message(ContentPreview.LinkClicked(preview, "docs://handbook/welcome"))
        await wait_for(pilot, lambda: isinstance(app.screen, GoToDialog))


def _json_node(tree: dict[str, object], prefix: str) -> dict[str, object]:
    stack = [tree]
    while stack:
        node = stack.pop()
        if node["prefix"] == prefix and "template" not in node:
            return node
        stack.extend(node["children"])  # type: ignore[arg-type]
    raise AssertionError(f"{prefix} is not in the JSON tree")


async def test_the_handbook_counts_the_same_in_tree_text_json_and_the_tui() -> None:
    text = run_cli("tree", "--prefix", "docs://handbook", "-s", demo_server())
    data = json.loads(run_cli("tree", "--json", "-s", demo_server()).stdout)
    below = [r for r in data["resources"] if r["uri"].startswith("docs://handbook/")]
    below += [t for t in data["templates"] if t["uriTemplate"].startswith("docs://handbook/")]
    expected = len(below)  # the chapters and the chapter templates, not the table of contents itself
    assert expected == 13
    [line] = [line for line in text.stdout.splitlines() if line.startswith("docs://handbook ")]
    assert line.endswith(f"({expected})")
    assert _json_node(data["tree"], "docs://handbook")["count"] == expected

    async with settled_app(demo_spec()) as (app, pilot):
        tree = main_screen(app).tree_widget
        assert tree.select_prefix("docs://handbook")  # its row on screen, as the user would find it
        await wait_for(pilot, lambda: any(" handbook " in row for row in tree_lines(app)))
        [row] = [row for row in tree_lines(app) if " handbook " in row]
        assert row.rstrip("│ ").endswith(f"  {expected}")


async def test_the_filter_keeps_the_templates_tree_prefix_keeps() -> None:
    prefix = "metrics://eu-west/check"
    data = json.loads(run_cli("tree", "--json", "--prefix", prefix, "-s", demo_server()).stdout)
    cli_templates = {t["uriTemplate"] for t in data["templates"]}
    assert "metrics://{region}/{service}/latest" in cli_templates

    async with settled_app(demo_spec()) as (app, _pilot):
        tree = main_screen(app).tree_widget
        summary = tree.set_filter(prefix)
        assert summary is not None and summary.mode == "prefix"
        active = tree.filter_result
        assert active is not None
        tui_templates = {node.uri_template for node in active.matched if isinstance(node, PatternNode)}
        assert tui_templates == cli_templates  # one rule: what can expand to URIs under the prefix
        assert active.total == len(data["resources"]) + len(data["templates"])
