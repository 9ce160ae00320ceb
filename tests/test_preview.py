"""The preview pane in a tiny app: what each kind of content looks like on screen, and that nothing in a
server's text can act on the terminal or the app."""

from __future__ import annotations

import base64
import html
import re
from collections import defaultdict
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Markdown, TabbedContent

from explorer.demo.png import logo_png
from explorer.model.contents import classify
from explorer.widgets import preview as preview_module
from explorer.widgets.preview import ContentPreview, ImageView, TextView, error_title, highlight_lines
from explorer.widgets.prompt_result import describe_error

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


HOSTILE = "Hello [@click=app.quit]x[/] and [/b] and \x1b[2J and \u202eevil"


class PreviewApp(App[None]):
    """Hosts one ContentPreview and records what it asks of the outside world."""

    def __init__(self) -> None:
        super().__init__()
        self.animation_level = "none"  # scrolling lands at once: no waiting on animations under load
        self.load_all: list[str] = []
        self.links: list[str] = []
        self.opened: list[str] = []

    def compose(self) -> ComposeResult:
        yield ContentPreview()

    def on_content_preview_load_all_requested(self, message: ContentPreview.LoadAllRequested) -> None:
        self.load_all.append(message.uri)

    def on_content_preview_link_clicked(self, message: ContentPreview.LinkClicked) -> None:
        self.links.append(message.href)

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        self.opened.append(url)

    @property
    def preview(self) -> ContentPreview:
        return self.query_one(ContentPreview)


_SVG_TEXT = re.compile(
    r'<text class="[^"]*" x="([\d.]+)" y="[\d.]+" textLength="([\d.]+)" '
    r'clip-path="url\(#terminal-[^)]*-line-(\d+)\)">([^<]*)</text>'
)
CELL = 12.2  # width of one cell in Textual's SVG export


def screen_lines(app: App[Any]) -> list[str]:
    """The text on screen, one string per terminal line, rebuilt from the SVG screenshot by cell position."""
    svg = app.export_screenshot()
    lines: dict[int, str] = defaultdict(str)
    cells: dict[int, int] = defaultdict(int)
    for x, length, number, raw in _SVG_TEXT.findall(svg):
        text = html.unescape(raw).replace("\xa0", " ").rstrip("\n")
        row = int(number)
        column = round(float(x) / CELL)
        if column > cells[row]:
            lines[row] += " " * (column - cells[row])
            cells[row] = column
        lines[row] += text
        cells[row] += round(float(length) / CELL)
    return [lines[i].rstrip() for i in range(max(lines, default=-1) + 1)]


def screen_text(app: App[Any]) -> str:
    return "\n".join(screen_lines(app))


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def show(pilot: Pilot[Any], result: dict[str, Any], uri: str = "test://r", **kwargs: Any) -> None:
    app = pilot.app
    assert isinstance(app, PreviewApp)
    await app.preview.show_contents(uri, classify(result, **kwargs), server="fixture")
    await settle(pilot)


def item(
    text: str | None = None, *, uri: str = "test://r", mime: str | None = None, blob: bytes | None = None
) -> dict[str, Any]:
    entry: dict[str, Any] = {"uri": uri}
    if mime:
        entry["mimeType"] = mime
    if blob is not None:
        entry["blob"] = base64.b64encode(blob).decode()
    else:
        entry["text"] = text
    return {"contents": [entry]}


async def test_text_is_shown_literally_and_nothing_acts() -> None:
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await show(pilot, item(HOSTILE + "\nsecond\tline", mime="text/plain"), uri="[@click=app.quit]u[/]")
        view = app.query_one(TextView)
        assert (
            view.visible_lines()[0].rstrip()
            == "Hello [@click=app.quit]x[/] and [/b] and \\x1b[2J and \\u202eevil"
        )
        assert view.visible_lines()[1].rstrip() == "second  line"
        text = screen_text(app)
        assert "[@click=app.quit]x[/]" in text and "[/b]" in text and "\\x1b[2J" in text
        assert "[@click=app.quit]u[/]" in text  # the title: a URI is not markup either
        assert "\x1b" not in text and "\u202e" not in text
        await pilot.click(TextView, offset=(8, 0))  # right on the would-be action
        await pilot.click("#preview-title", offset=(3, 0))
        await pilot.pause()
        assert app.is_running and app.return_code is None


async def test_hostile_server_name_tab_titles_and_mime_are_literal() -> None:
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        result = {
            "contents": [
                {"uri": "x://a/[b]bold", "mimeType": "text/[/b]", "text": "one"},
                {"uri": "x://a/[@click=app.quit]q[/]", "text": "two"},
            ]
        }
        await app.preview.show_contents("x://a", classify(result), server="[/i]srv")
        await settle(pilot)
        text = screen_text(app)
        assert "[/i]srv" in text and "[b]bold" in text and "text/[/b]" in text
        assert "1. [b]bold" in screen_lines(app)[1]  # the tab row
        assert app.is_running


async def test_markdown_renders_a_heading_and_never_opens_links() -> None:
    source = "# Tide tables\n\nSee [the docs](https://example.com/x), [@click=app.quit]x[/] \x1b]0;t\x07.\n"
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await show(pilot, item(source, mime="text/markdown"))
        for _ in range(50):
            if app.query("MarkdownH1") and app.query("MarkdownParagraph"):
                break
            await pilot.pause(0.02)
        heading = app.query_one("MarkdownH1")
        assert "Tide tables" in str(heading.render())
        text = screen_text(app)
        assert "Tide tables" in text and "# Tide tables" not in text
        assert "[@click=app.quit]x[/]" in text and "\\x1b]0;t\\x07" in text
        paragraph = app.query_one("MarkdownParagraph")
        await paragraph.run_action("link('https://example.com/x')")  # what a click on the link runs
        await pilot.pause()
        assert app.links == ["https://example.com/x"]
        assert app.opened == []
        assert app.is_running


async def test_large_markdown_is_shown_as_source() -> None:
    source = "# Big\n\n" + "- an item\n" * 5000
    assert len(source) > preview_module.MARKDOWN_RENDER_LIMIT
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await show(pilot, item(source, uri="docs://big.md"))
        assert not app.query(Markdown)
        view = app.query_one(TextView)
        for _ in range(100):  # under load the view may need a few frames to lay out 5,000 lines
            if view.visible_lines() and view.visible_lines()[0].startswith("# Big"):
                break
            await pilot.pause(0.05)
        assert view.visible_lines()[0].startswith("# Big") and view.language == "markdown"
        assert "Shown as source" in screen_text(app)


async def test_markdown_of_many_blocks_shown_as_source_is_never_blank() -> None:
    """Mounted under its "Shown as source" notice, the view got no Resize about three times in four and
    stayed blank (no rows laid out) until the pane's size changed: found by benchmarks/bench_markdown.py.
    Fresh apps, as each shows a resource once."""
    source = "".join(f"## Endpoint {i}\n\nReturns item {i}.\n\n" for i in range(400))  # 800 blocks
    assert len(source) < preview_module.MARKDOWN_RENDER_LIMIT
    for _ in range(6):
        app = PreviewApp()
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            await show(pilot, item(source, uri="docs://api.md", mime="text/markdown"))
            assert "Shown as source" in screen_text(app)
            assert "## Endpoint 0" in screen_text(app)


async def test_json_is_pretty_printed_and_highlighted() -> None:
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await show(pilot, item('{"station":"Brest","levels":[1.5,2]}', mime="application/json"))
        view = app.query_one(TextView)
        assert view.text == '{\n  "station": "Brest",\n  "levels": [\n    1.5,\n    2\n  ]\n}'
        assert view.highlighted
        lines = screen_lines(app)
        assert any(line.strip() == '2   "station": "Brest",' for line in lines)
        styles = {segment.style for segment in view.render_line(1)}
        assert len(styles) >= 3  # gutter, key, punctuation/value: not one plain colour


async def test_code_is_highlighted_by_extension_with_line_numbers() -> None:
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await show(pilot, item("def f(x):\n    return x  # note\n", uri="file:///a.py"))
        view = app.query_one(TextView)
        assert view.language == "python" and view.highlighted and not view.wrap
        assert view.visible_lines()[:2] == [
            "1 def f(x):".ljust(98),
            "2     return x  # note".ljust(98),
        ]
        assert "code: python" in screen_text(app)


async def test_binary_shows_mime_size_and_hex_dump() -> None:
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await show(pilot, item(blob=bytes(range(64)) * 2, mime="application/octet-stream"))
        text = screen_text(app)
        assert "application/octet-stream" in text and "128 B" in text
        assert "00000000  00 01 02 03 04 05 06 07  08 09 0a 0b 0c 0d 0e 0f  |................|" in text
        assert "00000020  20 21 22 23" in text


async def test_a_narrow_pane_shows_fewer_bytes_per_line_and_the_whole_ascii_column() -> None:
    app = PreviewApp()
    async with app.run_test(size=(66, 30)) as pilot:  # the preview's width beside the tree at 120 columns
        await show(pilot, item(blob=bytes(range(0x41, 0x41 + 26)) * 4, mime="application/octet-stream"))
        text = screen_text(app)
        assert "00000000  41 42 43 44 45 46 47 48  |ABCDEFGH|" in text
        assert "00000008  49 4a 4b 4c 4d 4e 4f 50  |IJKLMNOP|" in text
        await pilot.resize_terminal(40, 30)
        await settle(pilot)
        assert "00000000  41 42 43 44  |ABCD|" in screen_text(app)
        await pilot.resize_terminal(100, 30)
        await settle(pilot)
        text = screen_text(app)
        assert "00000000  41 42 43 44 45 46 47 48  49 4a 4b 4c 4d 4e 4f 50  |ABCDEFGHIJKLMNOP|" in text


async def test_sizes_are_bytes_and_the_cap_notice_counts_bytes() -> None:
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await show(pilot, item("ñ 日本語 emoji 🎉\n", uri="file:///日本語.txt", mime="text/plain"))
        assert "text/plain  ·  24 B  ·  text" in screen_text(app)  # 14 characters
        await show(pilot, item("日本語" * 1000, mime="text/plain"), cap=1000)
        text = screen_text(app)
        assert "text/plain  ·  9.0 kB  ·  text" in text
        assert "Showing the first 999 B of 9.0 kB. Press a to load all." in text


async def test_a_big_binary_says_how_much_its_dump_shows_of_the_whole() -> None:
    """The dump used to end "… N more bytes", counting only the rest of the bytes decoded (a capped read)."""
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await show(pilot, item(blob=bytes(range(256)) * 80, mime="application/octet-stream"), cap=10_000)
        text = screen_text(app)
        assert "Showing the first 4.1 kB of 20.5 kB as a hex dump." in text, text
        assert "more bytes" not in text
        await show(pilot, item(blob=bytes(range(256)) * 4, mime="application/octet-stream"))
        assert "Showing the first" not in screen_text(app)  # all of it is dumped


async def test_image_shows_format_dimensions_pixels_and_hex_dump() -> None:
    app = PreviewApp()
    async with app.run_test(size=(100, 40)) as pilot:
        await show(pilot, item(blob=logo_png(), uri="assets/logo.png", mime="image/png"))
        text = screen_text(app)
        assert "PNG 64×64 8-bit RGB" in text and "image/png" in text
        assert "|.PNG........IHDR|" in text
        image = app.query_one(ImageView)
        assert image.raster is not None and image.size.height == ImageView.MAX_ROWS
        assert "▀" in text


async def test_invalid_shows_the_problem() -> None:
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await show(pilot, {"contents": [{"uri": "x://bad", "blob": "not base64!"}]})
        assert "blob is not valid base64: unexpected character '!' at offset 10" in screen_text(app)


async def test_empty_and_no_contents() -> None:
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await show(pilot, item("", mime="text/plain"))
        assert "(empty)" in screen_text(app)
        await show(pilot, {"contents": []})
        assert "(the server returned no contents)" in screen_text(app)


@pytest.mark.slow
async def test_several_contents_become_tabs() -> None:
    result = {
        "contents": [
            {"uri": "x://set/readme.md", "mimeType": "text/markdown", "text": "# One"},
            {"uri": "x://set/data.json", "text": "[1, 2]"},
            {"uri": "x://set/blob", "blob": base64.b64encode(b"\x00\x01").decode()},
        ]
    }
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await show(pilot, result, uri="x://set")
        tabs = app.query_one(TabbedContent)
        assert tabs.tab_count == 3
        text = screen_text(app)
        assert "1. readme.md" in text and "2. data.json" in text and "3. blob" in text
        tabs.active = "tab-2"
        await settle(pilot)
        assert "x://set/data.json" in screen_text(app)
        assert any(line.strip() == "2   1," for line in screen_lines(app))


async def test_single_content_has_no_tabs() -> None:
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await show(pilot, item("hi"))
        assert not app.query(TabbedContent)


async def test_truncated_text_offers_load_all() -> None:
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await show(pilot, item("x" * 3_000_000, uri="big://log", mime="text/plain"), uri="big://log")
        assert "Showing the first 1.0 MB of 3.0 MB. Press a to load all." in screen_text(app)
        assert app.preview.check_action("load_all", ()) is True
        app.query_one(TextView).focus()
        await pilot.press("a")
        await pilot.pause()
        assert app.load_all == ["big://log"]


async def test_load_all_is_not_offered_for_complete_content() -> None:
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await show(pilot, item("short", mime="text/plain"))
        app.query_one(TextView).focus()
        await pilot.press("a")
        await pilot.pause()
        assert app.load_all == []
        assert "load all" not in screen_text(app)


@pytest.mark.parametrize(
    ("message", "code", "headline"),
    [
        ("Resource not found: x://a", -32002, "Not found (-32002)"),
        ("Unknown resource: x://a", -32602, "Not found (-32602)"),
        ("uri: field required", -32602, "Invalid parameters (-32602)"),
        ("reading x: the server did not answer after 5 s (timeout)", -32001, "Timed out (-32001)"),
        ("Request timed out after 30 s", None, "Timed out"),
        ("boom [/b] \x1b[2J", 7, "Read failed (7)"),
    ],
)
async def test_error_shows_a_clear_headline_and_the_message(
    message: str, code: int | None, headline: str
) -> None:
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await app.preview.show_error("x://a", message, code)
        await settle(pilot)
        text = screen_text(app)
        assert headline in text
        assert message.replace("\x1b", "\\x1b") in text
        assert app.preview.state == "error" and app.is_running


def test_error_title() -> None:
    assert error_title(-32002, "") == "Not found (-32002)"
    assert error_title(None, "resource not found") == "Not found"
    assert error_title(None, "anything") == "Read failed"
    assert error_title(-32000, "closed") == "The connection closed (-32000)"
    assert error_title(12345, "the server is sad") == "Read failed (12345)"


def test_the_faults_own_word_on_who_made_the_code_beats_its_message() -> None:
    """A URI or a quoted stderr line can hold "the server answered error -32000: " itself: with the fault's
    `local` flag the heading no longer guesses from the text."""
    misleading = "reading x://the server answered error -32000: /y: the server closed the connection"
    assert error_title(-32000, misleading) == "Server error (-32000)"  # the guess, fooled
    assert error_title(-32000, misleading, local=True) == "The connection closed (-32000)"
    assert error_title(-32001, "reading x: Upstream timed out", local=False) == "Server error (-32001)"
    assert describe_error(-32000, misleading, local=True) == "Prompt failed: connection closed (-32000)"
    assert describe_error(-32000, "anything", local=False) == "Prompt failed: server error (-32000)"


async def test_loading_and_clear() -> None:
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await app.preview.show_loading("x://slow/[b]")
        await pilot.pause()
        assert "Reading x://slow/[b] …" in screen_text(app)
        await app.preview.clear()
        await pilot.pause()
        assert (
            "Nothing to preview: ⏎ reads the highlighted resource (v: as the cursor moves)."
            in screen_text(app)
        )
        assert app.preview.uri is None


async def test_the_empty_preview_names_the_keys_the_keymap_binds() -> None:
    app = PreviewApp()
    async with app.run_test(size=(120, 30)) as pilot:
        app.set_keymap({"tree.select": "o", "main.auto_preview": "ctrl+t"})
        await app.preview.clear()
        await pilot.pause()
        assert (
            "Nothing to preview: o reads the highlighted resource (^t: as the cursor moves)."
            in screen_text(app)
        )


class ViewWork:
    """What every TextView did: layouts (the wrap of the whole text), rows built, characters styled."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.layouts = 0
        self.rows = 0
        self.widest = 0  # the longest slice of a line styled for one row
        layout, row_strip, styled = TextView._layout, TextView._row_strip, TextView._styled

        def counted_layout(view: TextView, *args: Any, **kwargs: Any) -> None:
            self.layouts += 1
            layout(view, *args, **kwargs)

        def counted_row(view: TextView, *args: Any) -> Any:
            self.rows += 1
            return row_strip(view, *args)

        def counted_styled(view: TextView, index: int, text: str, offset: int) -> Any:
            self.widest = max(self.widest, len(text))
            return styled(view, index, text, offset)

        monkeypatch.setattr(TextView, "_layout", counted_layout)
        monkeypatch.setattr(TextView, "_row_strip", counted_row)
        monkeypatch.setattr(TextView, "_styled", counted_styled)

    def reset(self) -> None:
        self.layouts = self.rows = self.widest = 0


@pytest.mark.slow
async def test_one_megabyte_text_stays_responsive(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys and paints cost the rows on screen, not the text's 11,000 lines (timed: bench_preview.py)."""
    text = "".join(f"line {i:06d} " + "lorem ipsum dolor sit amet " * 3 + "\n" for i in range(11_000))
    assert len(text) > 1_000_000
    work = ViewWork(monkeypatch)
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await show(pilot, item(text, mime="text/plain"), cap=None)
        view = app.query_one(TextView)
        layouts = work.layouts
        assert 1 <= layouts <= 3  # the text is wrapped when it is shown (and when the pane is sized)
        view.focus()
        for _ in range(5):
            await pilot.press("pagedown")
        await pilot.press("end")
        await pilot.pause()
        assert any("line 010999" in line for line in view.visible_lines())
        height, width = view.size.height, view.size.width
        assert work.layouts == layouts  # scrolling never wraps the text again
        assert work.rows <= 10 * height, work.rows  # about the rows of the pages shown, of 11,000 lines
        assert work.widest <= width
        work.reset()
        for _ in range(30):
            view.refresh()
            view._cache.clear()
            for y in range(height):
                view.render_line(y)
        assert work.rows == 30 * height  # a full repaint builds the visible rows, and only those
        assert work.widest <= width and work.layouts == 0


@pytest.mark.slow
async def test_a_200k_character_line_wraps_and_scrolls_sideways(monkeypatch: pytest.MonkeyPatch) -> None:
    line = "".join(chr(ord("a") + i % 26) for i in range(200_000))
    work = ViewWork(monkeypatch)
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await show(pilot, item(line, mime="text/plain"))
        view = app.query_one(TextView)
        width = view.scrollable_content_region.width
        assert view.virtual_size.height == -(-200_000 // width)
        view.focus()
        await pilot.press("end")
        await pilot.pause()
        assert view.visible_lines()[-1].rstrip() == line[-(200_000 % width or width) :]
        await pilot.press("w")  # no wrap: one row, scrolled sideways
        await pilot.pause()
        assert not view.wrap and view.virtual_size.height == 1
        view.scroll_to(x=150_000, animate=False, immediate=True)
        await pilot.pause()
        assert view.visible_lines()[0].startswith(line[150_000:150_010])
        # Each row styles the slice it shows (never the whole 200,000 characters), and the few paints of
        # this test build a few screens of rows, not one per wrapped row (2,000 of them).
        assert work.widest <= view.size.width, work.widest
        assert work.rows <= 10 * view.size.height, work.rows
        assert work.layouts <= 4  # shown, sized, unwrapped


async def test_wide_characters_wrap_by_cells() -> None:
    app = PreviewApp()
    async with app.run_test(size=(40, 20)) as pilot:
        await show(pilot, item("潮汐" * 100, mime="text/plain"))
        view = app.query_one(TextView)
        rows = [row.rstrip() for row in view.visible_lines() if row.strip()]
        assert rows and all(len(row) * 2 <= view.scrollable_content_region.width for row in rows)
        assert "".join(rows).startswith("潮汐潮汐")


def test_highlight_lines_keeps_columns_and_lines() -> None:
    text = 'x = "a"\n\ny = 2  # c'
    spans = highlight_lines(text, "python", lambda: False)
    assert spans is not None and len(spans) == 3 and spans[1] == []
    lines = text.split("\n")
    for line, line_spans in zip(lines, spans, strict=True):
        for start, end, style in line_spans:
            assert 0 <= start < end <= len(line) and style
    assert highlight_lines(text, "no-such-language", lambda: False) is None
    assert highlight_lines(text * 5000, "python", lambda: True) is None  # cancelled


def test_bindings_have_ids_and_css_uses_theme_variables() -> None:
    classes: list[type[Widget]] = [
        ContentPreview,
        TextView,
        ImageView,
        preview_module._MarkdownBody,
        preview_module._ContentView,
    ]
    for cls in classes:
        for binding in getattr(cls, "BINDINGS", []):
            assert isinstance(binding, Binding) and binding.id and binding.id.startswith("preview."), binding
        assert not re.search(r"#[0-9a-fA-F]{3,8}\b", cls.DEFAULT_CSS), cls
    assert "Preview" in ContentPreview.HELP


async def test_quick_successive_calls_end_in_the_last_state() -> None:
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        preview = app.preview
        preview.show_loading("x://a")
        preview.show_contents("x://a", classify(item("first")))
        preview.show_error("x://b", "gone", -32002)
        preview.show_loading("x://c")
        preview.show_contents("x://c", classify(item("the last one")))
        await settle(pilot)
        text = screen_text(app)
        assert "the last one" in text and "first" not in text and "gone" not in text
        assert len(app.query(TextView)) == 1 and preview.uri == "x://c"


async def test_the_notice_names_the_remapped_key() -> None:
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        app.set_keymap({"preview.load_all": "ctrl+l"})
        await show(pilot, item("y" * 2000, mime="text/plain"), cap=1000)
        assert "Showing the first 1.0 kB of 2.0 kB. Press ^l to load all." in screen_text(app)
        app.query_one(TextView).focus()
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert app.load_all == ["test://r"]


async def test_highlighting_follows_the_theme() -> None:
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        app.theme = "textual-dark"
        await show(pilot, item("import os\n", uri="file:///a.py"))
        view = app.query_one(TextView)
        dark = [segment.style for segment in view.render_line(0)]
        app.theme = "textual-light"
        await pilot.pause()
        light = [segment.style for segment in view.render_line(0)]
        assert dark != light


@pytest.mark.slow
async def test_markdown_source_toggle_shows_what_rendering_hides() -> None:
    source = "# Title\n\n<script>alert(1)</script>\n\nText [x](https://evil.example/)\n"
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await show(pilot, item(source, mime="text/markdown"))
        for _ in range(50):
            if app.query("MarkdownH1"):
                break
            await pilot.pause(0.02)
        assert "alert(1)" not in screen_text(app)
        app.query_one(preview_module._MarkdownBody).focus()
        await pilot.press("s")
        await settle(pilot)
        text = screen_text(app)
        assert "<script>alert(1)</script>" in text and "https://evil.example/" in text
        assert isinstance(app.focused, TextView)
        await pilot.press("s")
        await settle(pilot)
        assert "alert(1)" not in screen_text(app) and "Title" in screen_text(app)
        assert isinstance(app.focused, preview_module._MarkdownBody)
