"""Reads too big for one widget per part: many contents, markdown of many blocks, a text cut by a little.

Each test counts what the preview mounted or shows (never time): the number of content views for a read
of 10,000 contents, whether markdown of thousands of blocks was rendered or shown as source.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Markdown, OptionList, TabbedContent

from explorer.model.contents import classify
from explorer.model.contents.markdown_cost import markdown_blocks
from explorer.widgets import preview as preview_module
from explorer.widgets.content_list import MoreContents
from explorer.widgets.preview import ContentPreview, TextView


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


pytestmark = pytest.mark.anyio


class PreviewApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.animation_level = "none"

    def compose(self) -> ComposeResult:
        yield ContentPreview()

    @property
    def preview(self) -> ContentPreview:
        return self.query_one(ContentPreview)


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def show(pilot: Pilot[Any], result: dict[str, Any], uri: str = "test://r", **kwargs: Any) -> None:
    app = pilot.app
    assert isinstance(app, PreviewApp)
    await app.preview.show_contents(uri, classify(result, **kwargs), server="fixture")
    await settle(pilot)


def shown_text(app: App[Any]) -> str:
    """Every line of every visible text view and static, as plain text."""
    parts: list[str] = []
    for widget in app.screen.query("Static, TextView, Tab"):
        if not widget.display:
            continue
        if isinstance(widget, TextView):
            parts.extend(widget.visible_lines())
        else:
            parts.append(str(widget.render()))
    return "\n".join(parts)


def markdown(text: str) -> dict[str, Any]:
    return {"contents": [{"uri": "docs://d.md", "mimeType": "text/markdown", "text": text}]}


async def test_a_read_of_10000_contents_mounts_a_bounded_number_of_content_views() -> None:
    result = {
        "contents": [
            {"uri": f"x://many/{i}", "mimeType": "text/plain", "text": f"item {i}"} for i in range(10_000)
        ]
    }
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await show(pilot, result, uri="x://many")
        views = app.query(preview_module._ContentView)
        assert len(views) == 20  # one per tab, none for the listed rest
        tabs = app.query_one(TabbedContent)
        assert tabs.tab_count == 21
        assert "+9,980 more" in shown_text(app)
        assert "item 0" in shown_text(app)

        tabs.active = "more-contents"
        await settle(pilot)
        listed = app.query_one(MoreContents).query_one(OptionList)
        assert listed.option_count == 9_980
        assert "21. x://many/20  ·  text/plain  ·  7 B  ·  text" in str(listed.get_option_at_index(0).prompt)
        listed.focus()
        listed.highlighted = 9_979
        await pilot.press("enter")
        await settle(pilot)
        assert "item 9999" in shown_text(app)
        listed.highlighted = 0
        await pilot.press("enter")
        await settle(pilot)
        assert "item 20" in shown_text(app) and "item 9999" not in shown_text(app)
        assert len(app.query(preview_module._ContentView)) == 21


async def test_a_read_of_as_many_contents_as_tabs_lists_none() -> None:
    count = 20  # preview_module.TAB_LIMIT
    result = {"contents": [{"uri": f"x://few/{i}", "text": f"item {i}"} for i in range(count)]}
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await show(pilot, result, uri="x://few")
        assert app.query_one(TabbedContent).tab_count == count and not app.query(MoreContents)


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("- a\n" * 4900, id="4900-list-items"),
        pytest.param(
            "|" + "|".join("c" * 1 for _ in range(3000)) + "|\n|" + "-|" * 3000 + "\n", id="3000-columns"
        ),
        pytest.param(
            "|" + "c|" * 100 + "\n|" + "-|" * 100 + "\n" + ("|" + "v|" * 100 + "\n") * 90, id="100x90"
        ),
        pytest.param("# h\n" * 4900, id="4900-headings"),
        pytest.param(">" * 19000 + " deep", id="quotes-19000-deep"),
    ],
)
async def test_markdown_of_many_blocks_under_the_character_limit_is_shown_as_source(source: str) -> None:
    assert len(source) <= preview_module.MARKDOWN_RENDER_LIMIT
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await show(pilot, markdown(source))
        assert not app.query(Markdown)
        view = app.query_one(TextView)
        assert view.language == "markdown"
        assert "Shown as source: rendering markdown with this many blocks would be slow." in shown_text(app)


async def test_short_markdown_is_still_rendered() -> None:
    source = "# Title\n\nA paragraph\nof two lines.\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    assert markdown_blocks(source) <= preview_module.MARKDOWN_BLOCK_LIMIT
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await show(pilot, markdown(source))
        assert app.query(Markdown) and "Shown as source" not in shown_text(app)


def test_block_count_follows_what_markdown_makes() -> None:
    assert markdown_blocks("para one\nsame para\n\npara two") == 2
    assert markdown_blocks("- a\n- b") == 2 * 3
    assert markdown_blocks("```\n|a|b|\n- x\n```\n") == 1  # a code block is one block, whatever is in it
    assert markdown_blocks(">>> deep") == 3
    assert markdown_blocks("|a|b|c|") == 4
    assert markdown_blocks("a\n\n" * 6000, stop_at=50) == 51  # stops once past the bound


async def test_a_text_cut_by_two_bytes_says_exactly_how_much_is_shown() -> None:
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        text = "x" * 1_048_576
        await show(
            pilot, {"contents": [{"uri": "big://t", "mimeType": "text/plain", "text": text}]}, cap=1_048_574
        )
        assert "Showing the first 1,048,574 of 1,048,576 bytes. Press a to load all." in shown_text(app)
        await show(
            pilot,
            {"contents": [{"uri": "big://t", "mimeType": "text/plain", "text": text * 3}]},
            cap=1_048_576,
        )
        assert "Showing the first 1.0 MB of 3.1 MB. Press a to load all." in shown_text(app)


def test_the_demo_documentation_is_rendered_not_shown_as_source() -> None:
    """The block bound stops pathological markdown, not the documents a server usually has."""
    pages = sorted((Path(preview_module.__file__).parent.parent / "demo" / "data").rglob("*.md"))
    assert len(pages) > 10
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert markdown_blocks(text) <= preview_module.MARKDOWN_BLOCK_LIMIT, page.name
