"""What a walkthrough of the TUI on the demo server found, each seen as the user sees it:

- `s` on the previewed resource, pressed again, said "No longer following" while the preview went on
  counting versions up (a previewed resource is always followed).
- A jump to a place outside the filter's results showed the whole tree while the filter box still held
  the filter's text.
- A template picked in the command palette put the cursor on its literal prefix, not on its own row.
"""

from __future__ import annotations

import pytest
from textual.command import CommandPalette
from textual.widgets import OptionList

from explorer.app import ExplorerApp
from explorer.model.uri_tree import PatternNode, UriNode
from explorer.widgets.filter_box import FilterBox
from explorer.widgets.preview import ContentPreview
from explorer.widgets.resource_tree import ResourceTree
from tests.app_helpers import demo_spec, main_screen, settled_app, tree_lines, wait_for
from tests.test_app import resolved
from tests.test_prompts_view import fill_prompt, open_prompts, prompts_screen

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

CLOCK = "metrics://live/clock"
FILTER = "metrics://eu-west/checkout/latency-p99/"
REPORT = "metrics://{region}/{service}/report{.format}"
ALWAYS = "the previewed resource is always followed."


def notices(app: ExplorerApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def go_to(app: ExplorerApp, pilot: object, uri: str) -> None:
    """`g`, the URI typed, `enter` on the box's first choice, as the user does."""
    from explorer.screens.goto import GoToDialog

    await pilot.press("g")  # type: ignore[attr-defined]
    await wait_for(pilot, lambda: isinstance(app.screen, GoToDialog))  # type: ignore[arg-type]
    dialog = app.screen
    await pilot.press(*uri)  # type: ignore[attr-defined]
    await wait_for(pilot, lambda: resolved(dialog, uri))  # type: ignore[arg-type]
    await pilot.press("enter")  # type: ignore[attr-defined]
    await wait_for(pilot, lambda: not isinstance(app.screen, GoToDialog))  # type: ignore[arg-type]


async def filter_tree(app: ExplorerApp, pilot: object, text: str) -> None:
    """`/`, the text typed, `enter`: the tree shows the filter's results."""
    tree = main_screen(app).tree_widget
    await pilot.press("slash", *text, "enter")  # type: ignore[attr-defined]
    await wait_for(pilot, lambda: tree.filter_result is not None and tree.has_focus)  # type: ignore[arg-type]


def box_and_tree(app: ExplorerApp) -> tuple[str, str | None]:
    """What the filter box says (its text when shown) and the filter the tree applies (None: none)."""
    screen = main_screen(app)
    box = screen.query_one("#filter", FilterBox)
    applied = screen.tree_widget.filter_result
    return (box.value if box.display else "", None if applied is None else applied.text)


# -------------------------------------------------------------------------------- follow and preview


async def test_unfollowing_the_previewed_resource_says_it_is_still_followed_while_previewed() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        screen = main_screen(app)
        preview = screen.query_one(ContentPreview)
        await go_to(app, pilot, CLOCK)
        await wait_for(pilot, lambda: preview.uri == CLOCK and preview.state == "contents" and preview.shown)
        await pilot.press("s")
        await wait_for(pilot, lambda: f"Following {CLOCK}." in notices(app))
        assert any("◉ following" in line for line in tree_lines(app))
        await pilot.press("s")
        told = f"No longer following {CLOCK} once it leaves the preview: {ALWAYS}"
        await wait_for(pilot, lambda: told in notices(app))
        assert f"No longer following {CLOCK}." not in notices(app)
        assert not any("◉ following" in line for line in tree_lines(app))
        # and it is true: the preview goes on showing new versions of the clock
        await wait_for(pilot, lambda: preview.update_info is not None)
        seen = preview.update_info
        assert seen is not None
        await wait_for(
            pilot, lambda: preview.update_info is not None and preview.update_info.version > seen.version
        )


async def test_unfollowing_a_resource_not_previewed_says_no_longer_following() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        screen = main_screen(app)
        uri = "docs://about"
        assert screen.tree_widget.select_prefix(uri)
        assert screen.highlighted_resource() == ("demo", uri)
        await pilot.press("s")
        await wait_for(pilot, lambda: f"Following {uri}." in notices(app))
        await pilot.press("s")
        await wait_for(pilot, lambda: f"No longer following {uri}." in notices(app))
        assert not any("once it leaves the preview" in text for text in notices(app))


# --------------------------------------------------------------------------------- filter and jumps


async def test_a_go_to_outside_the_filters_results_clears_the_filter_box() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        tree = main_screen(app).tree_widget
        await filter_tree(app, pilot, FILTER)
        assert box_and_tree(app) == (FILTER, FILTER)
        await go_to(app, pilot, "docs://faq")
        await wait_for(pilot, lambda: getattr(tree.cursor_node, "prefix", "") == "docs://faq")
        await wait_for(pilot, lambda: box_and_tree(app) == ("", None))
        assert "Filter cleared: docs://faq is not among its results." in notices(app)
        assert any("faq" in line for line in tree_lines(app))  # the whole tree: docs:// is shown


async def test_a_go_to_among_the_filters_results_keeps_the_filter() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        tree = main_screen(app).tree_widget
        await filter_tree(app, pilot, FILTER)
        inside = FILTER + "2026-07-03"
        await go_to(app, pilot, inside)
        await wait_for(pilot, lambda: getattr(tree.cursor_node, "prefix", "") == inside)
        await pilot.pause()
        assert box_and_tree(app) == (FILTER, FILTER)
        assert not any("Filter cleared" in text for text in notices(app))
        assert not any("docs://" in line for line in tree_lines(app))  # still filtered


async def test_opening_an_embedded_resource_outside_the_filter_clears_the_filter_box() -> None:
    """`t` on the prompts screen selects the resource in the tree: the same jump, by another way."""
    async with settled_app(demo_spec()) as (app, pilot):
        tree = main_screen(app).tree_widget
        await filter_tree(app, pilot, FILTER)
        await open_prompts(pilot, app)
        await fill_prompt(pilot, app, "summarize-chapter")
        await pilot.press(*"pagination", "ctrl+s")
        await wait_for(
            pilot,
            lambda: (
                prompts_screen(app).result_view.state == "result" and prompts_screen(app).result_view.shown
            ),
        )
        await pilot.press("t")
        target = "docs://handbook/pagination"
        await wait_for(pilot, lambda: getattr(tree.cursor_node, "prefix", "") == target)
        await wait_for(pilot, lambda: box_and_tree(app) == ("", None))
        assert f"Filter cleared: {target} is not among its results." in notices(app)


# ------------------------------------------------------------------------------------------ palette


def palette_options(app: ExplorerApp) -> list[str]:
    if not isinstance(app.screen, CommandPalette):
        return []
    options = app.screen.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_a_template_picked_in_the_palette_puts_the_cursor_on_its_row() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        tree: ResourceTree = main_screen(app).tree_widget
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"report{")
        await wait_for(pilot, lambda: any(REPORT in text for text in palette_options(app)))
        index = next(i for i, text in enumerate(palette_options(app)) if REPORT in text)
        app.screen.query_one(OptionList).highlighted = index  # the hit the user moves to
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, CommandPalette))
        await wait_for(pilot, lambda: isinstance(tree.cursor_node, PatternNode))
        node = tree.cursor_node
        assert isinstance(node, PatternNode) and node.uri_template == REPORT
        # revealed: its row is on screen, under an expanded metrics://
        metrics = tree.uri_tree.node_for("metrics://")
        assert isinstance(metrics, UriNode) and tree.is_expanded(metrics)
        assert any("{region}/{service}/report{.format}" in line for line in tree_lines(app))
