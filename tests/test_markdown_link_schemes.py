"""Links of every scheme in rendered markdown: `file://` (the scheme MCP servers use most), `data:` and
`javascript:` targets show as links, never as their markdown source, and a click still opens nothing.

markdown-it refuses `file:`, `data:`, `javascript:` and `vbscript:` targets by default, which left such a
link as raw `[text](file:///...)` on screen while a `docs:` link beside it rendered.
"""

from __future__ import annotations

import pytest
from textual.content import Content
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownParagraph

from tests.app_helpers import wait_for
from tests.test_preview import PreviewApp, item, screen_text, show

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _link_targets(paragraph: MarkdownParagraph) -> dict[str, str]:
    """The text of each clickable span of a rendered paragraph, and what a click on it runs."""
    content = paragraph.content
    assert isinstance(content, Content)
    targets: dict[str, str] = {}
    for span in content.spans:
        style = span.style
        meta = getattr(style, "meta", None) or {}
        if "@click" in meta:
            targets[content.plain[span.start : span.end]] = meta["@click"]
    return targets


async def test_file_links_render_as_links_like_docs_links() -> None:
    source = (
        "Results for abc:\n\n"
        "1. [src/tidewater/io/csvout.py](file:///workspace/src/tidewater/io/csvout.py)\n"
        "2. [guide](docs://guide/csv)\n"
    )
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await show(pilot, item(source, uri="docs://search?q=abc", mime="text/markdown"))
        await wait_for(pilot, lambda: len(app.query(MarkdownParagraph)) >= 3, timeout=20)
        await pilot.pause()
        text = screen_text(app)
        assert "src/tidewater/io/csvout.py" in text
        assert "](file://" not in text and "[src/tidewater" not in text
        assert "guide" in text and "](docs://" not in text
        file_item, docs_item = list(app.query(MarkdownParagraph))[1:3]
        assert _link_targets(file_item) == {
            "src/tidewater/io/csvout.py": "link('file:///workspace/src/tidewater/io/csvout.py')"
        }
        assert _link_targets(docs_item) == {"guide": "link('docs://guide/csv')"}
        # A click on the link's text tells where it points and opens nothing.
        await pilot.click(file_item, offset=(2, 0))
        await pilot.pause()
        assert app.links == ["file:///workspace/src/tidewater/io/csvout.py"]
        assert app.opened == []
        assert app.is_running


async def test_data_and_javascript_targets_are_shown_as_links_and_do_nothing() -> None:
    source = (
        "![logo](data:image/png;base64,iVBORw0KGgo=) "
        "[run](javascript:alert(1)) [vb](vbscript:msgbox) [raw](data:text/html,<b>x</b>)\n"
    )
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await show(pilot, item(source, mime="text/markdown"))
        await wait_for(pilot, lambda: bool(app.query(MarkdownParagraph)), timeout=20)
        await pilot.pause()
        text = screen_text(app)
        assert "](data:" not in text and "](javascript:" not in text and "](vbscript:" not in text
        assert "run" in text and "vb" in text and "raw" in text and "logo" in text
        paragraph = app.query_one(MarkdownParagraph)
        targets = _link_targets(paragraph)
        assert targets["run"] == "link('javascript:alert(1)')"
        assert targets["vb"] == "link('vbscript:msgbox')"
        image = next(shown for shown in targets if "logo" in shown)
        assert targets[image] == "link('data:image/png;base64,iVBORw0KGgo=')"
        # Each click is only reported (the screen shows where it points); nothing is opened or run.
        for shown in targets:
            start = str(paragraph.content).index(shown)
            await pilot.click(paragraph, offset=(start + 1, 0))
            await pilot.pause()
        assert app.links == [
            "data:image/png;base64,iVBORw0KGgo=",
            "javascript:alert(1)",
            "vbscript:msgbox",
            "data:text/html,<b>x</b>",
        ]
        assert app.opened == []
        assert app.is_running
        assert len(app.query(Markdown)) == 1  # nothing was mounted from a target
