"""The preview pane: shows what a `resources/read` returned, classified by `explorer.model.contents`.

Why a widget of its own: contents are untrusted and can be huge. Everything shown here goes through
`sanitize` and reaches the screen as `Content`/`Segment` objects, never as markup. Long texts are drawn by
`TextView`, a Line API view that renders only the visible rows (a 1 MB text or a 200,000-character line
costs a few rows per paint), with Pygments highlighting computed in a thread and styled with theme
variables. The widget never does I/O: "load all" is a message for the screen, which re-reads the resource.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from typing import ClassVar, Literal

from pygments.lexers import get_lexer_by_name  # type: ignore[import-untyped,unused-ignore]
from pygments.util import ClassNotFound  # type: ignore[import-untyped,unused-ignore]
from rich.cells import cell_len, get_character_cell_size
from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual import on
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.color import Color
from textual.containers import Vertical, VerticalScroll
from textual.content import Content, Span
from textual.events import Resize
from textual.geometry import Size
from textual.highlight import HighlightTheme
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Markdown, Static, TabbedContent, TabPane
from textual.worker import Worker, WorkerState, get_current_worker

from explorer.model.contents import TEXT_KINDS, Raster, decode_png, hex_dump, human_size
from explorer.model.contents import Content as ReadContent
from explorer.sanitize import sanitize, sanitize_line

__all__ = ["ContentPreview", "ImageView", "TextView", "error_title", "highlight_lines"]

HIGHLIGHT_LIMIT = 2_000_000
"""Texts longer than this (characters) are shown without syntax highlighting."""
MARKDOWN_RENDER_LIMIT = 20_000
"""Textual's Markdown widget builds a widget per block (about 3 s for 10 KB of lists): beyond this many
characters markdown is shown as highlighted source instead."""
HEX_DUMP_LIMIT = 4096
"""Bytes of a binary content shown in the hex dump."""
TAB_SIZE = 4
MIN_WRAP_WIDTH = 16
"""Narrower panes still wrap at this many cells (and clip), so a squeezed pane cannot explode the rows."""

# Characters that all occupy exactly one cell; a line made only of these can be sliced by index.
_NOT_SINGLE_CELL = re.compile("[^\x20-\x7e\u00a0-\u02ff\u0370-\u0482]")

LineSpans = list[tuple[int, int, str]]


def _is_simple(line: str) -> bool:
    return line.isascii() or _NOT_SINGLE_CELL.search(line) is None


def _line_width(line: str) -> int:
    return len(line) if _is_simple(line) else cell_len(line)


def _wrap_starts(line: str, width: int) -> list[int]:
    """Offsets where the rows of a soft-wrapped line start: at a space when one is near, else mid-word."""
    if _is_simple(line):
        starts = [0]
        start = 0
        length = len(line)
        while length - start > width:
            limit = start + width
            brk = line.rfind(" ", start + width // 2, limit) + 1
            if brk <= start:
                brk = limit
            starts.append(brk)
            start = brk
        return starts
    starts = [0]
    cells = 0
    for index, char in enumerate(line):
        size = get_character_cell_size(char)
        if cells + size > width and index > starts[-1]:
            starts.append(index)
            cells = 0
        cells += size
    return starts


_STYLE_CACHE: dict[object, str] = {}


def _token_style(token_type: object) -> str:
    """The theme-variable style of a Pygments token type (walking up to its parents), or ""."""
    style = _STYLE_CACHE.get(token_type)
    if style is None:
        style = ""
        current: object = token_type
        while current is not None:
            found = HighlightTheme.STYLES.get(current)  # type: ignore[call-overload]
            if found:
                style = found
                break
            current = getattr(current, "parent", None)
        _STYLE_CACHE[token_type] = style
    return style


def highlight_lines(text: str, language: str, cancelled: Callable[[], bool]) -> list[LineSpans] | None:
    """Per line of `text`, the styled spans `(start, end, style)` Pygments finds; None if it cannot.

    Runs in a worker thread: checks `cancelled` now and then, and gives up (None) when the tokens do not
    add up to the text (a lexer that rewrote it), so a highlight never lands on the wrong characters.
    """
    try:
        lexer = get_lexer_by_name(language, stripnl=False, ensurenl=False, tabsize=0)
    except ClassNotFound:
        return None
    lines: list[LineSpans] = [[]]
    current = lines[0]
    column = 0
    total = 0
    for count, (token_type, value) in enumerate(lexer.get_tokens(text)):
        if count % 4096 == 0 and cancelled():
            return None
        total += len(value)
        style = _token_style(token_type)
        parts = value.split("\n") if "\n" in value else (value,)
        for number, part in enumerate(parts):
            if number:
                current = []
                lines.append(current)
                column = 0
            if not part:
                continue
            end = column + len(part)
            if style:
                if current and current[-1][1] == column and current[-1][2] == style:
                    current[-1] = (current[-1][0], end, style)
                else:
                    current.append((column, end, style))
            column = end
    if total != len(text):
        return None
    return lines


class TextView(ScrollView, can_focus=True):
    """Read-only text that renders only the rows on screen; optional highlighting, soft wrap, line numbers.

    The text must already be sanitized (it is drawn as plain segments, never parsed as markup).
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"text-view--gutter"}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,j", "scroll_down", "Down", show=False, id="preview.scroll_down"),
        Binding("up,k", "scroll_up", "Up", show=False, id="preview.scroll_up"),
        Binding("left", "scroll_left", "Left", show=False, id="preview.scroll_left"),
        Binding("right", "scroll_right", "Right", show=False, id="preview.scroll_right"),
        Binding("pagedown,space", "page_down", "Page down", show=False, id="preview.page_down"),
        Binding("pageup", "page_up", "Page up", show=False, id="preview.page_up"),
        Binding("home", "scroll_home", "Top", show=False, id="preview.top"),
        Binding("end", "scroll_end", "Bottom", show=False, id="preview.bottom"),
    ]

    DEFAULT_CSS = """
    TextView {
        height: 1fr;
        background: $surface;
        color: $text;
        scrollbar-gutter: stable;
        &:focus { background-tint: $foreground 4%; }
        & > .text-view--gutter { color: $text-muted; }
    }
    """

    def __init__(
        self,
        text: str,
        *,
        language: str | None = None,
        wrap: bool = True,
        line_numbers: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._text = text.expandtabs(TAB_SIZE) if "\t" in text else text
        self._lines = self._text.split("\n")
        self.language = language
        self._wrap = wrap
        self._line_numbers = line_numbers
        self._spans: list[LineSpans] | None = None
        self._span_ends: dict[int, list[int]] = {}
        self._row_line = array("q")
        self._row_start = array("q")
        self._layout_width = -1
        self._cache: LRUCache[tuple[int, int, int], Strip] = LRUCache(1024)

    # --- public -------------------------------------------------------------------------------------------

    @property
    def text(self) -> str:
        """The text shown (tabs expanded)."""
        return self._text

    @property
    def wrap(self) -> bool:
        return self._wrap

    @property
    def highlighted(self) -> bool:
        """True once syntax highlighting has been applied."""
        return self._spans is not None

    @property
    def line_count(self) -> int:
        return len(self._lines)

    def set_wrap(self, wrap: bool) -> None:
        """Soft-wrap long lines (True) or scroll sideways (False); the top line stays in view."""
        if wrap == self._wrap:
            return
        anchor = self._top_line()
        self._wrap = wrap
        self._layout(anchor=anchor)

    def visible_lines(self) -> list[str]:
        """The plain text of the rows now on screen (for tests and copy)."""
        region = self.scrollable_content_region
        scroll_x, scroll_y = self.scroll_offset
        return [self._row_strip(scroll_y + y, scroll_x, region.width).text for y in range(region.height)]

    # --- layout -------------------------------------------------------------------------------------------

    @property
    def _gutter(self) -> int:
        return len(str(len(self._lines))) + 1 if self._line_numbers else 0

    def _text_width(self) -> int:
        """Cells available for text; 0 while the widget has no size (hidden tab, not laid out yet)."""
        width = self.scrollable_content_region.width
        return max(MIN_WRAP_WIDTH, width - self._gutter) if width > 0 else 0

    def _top_line(self) -> int:
        row = int(self.scroll_offset.y)
        if self._wrap and row < len(self._row_line):
            return self._row_line[row]
        return row

    def _layout(self, anchor: int | None = None) -> None:
        """Recompute the rows (soft wrap) and the virtual size for the current width."""
        width = self._text_width()
        if width == 0:
            return
        self._layout_width = width
        self._cache.clear()
        row_line = array("q")
        row_start = array("q")
        if self._wrap:
            for index, line in enumerate(self._lines):
                if len(line) <= width and (line.isascii() or cell_len(line) <= width):
                    row_line.append(index)
                    row_start.append(0)
                    continue
                for start in _wrap_starts(line, width):
                    row_line.append(index)
                    row_start.append(start)
            virtual = Size(width + self._gutter, len(row_line))
        else:
            longest = max((_line_width(line) for line in self._lines), default=0)
            virtual = Size(longest + self._gutter, len(self._lines))
        self._row_line = row_line
        self._row_start = row_start
        self.virtual_size = virtual
        if anchor is not None:
            target = anchor
            if self._wrap:
                target = bisect_left(row_line, anchor)
            self.scroll_to(y=target, animate=False, immediate=True)
        self.refresh()

    def on_mount(self) -> None:
        if self.language and len(self._text) <= HIGHLIGHT_LIMIT:
            text, language = self._text, self.language
            self.run_worker(
                lambda: self._highlight(text, language),
                thread=True,
                group="preview-highlight",
                exit_on_error=False,
            )

    def on_resize(self, event: Resize) -> None:
        if self._text_width() != self._layout_width:
            self._layout(anchor=self._top_line() if self._wrap else None)

    def notify_style_update(self) -> None:
        self._cache.clear()
        super().notify_style_update()

    # --- highlighting -------------------------------------------------------------------------------------

    @staticmethod
    def _highlight(text: str, language: str) -> list[LineSpans] | None:
        worker = get_current_worker()
        return highlight_lines(text, language, lambda: worker.is_cancelled)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.SUCCESS and event.worker.group == "preview-highlight":
            spans = event.worker.result
            if isinstance(spans, list) and len(spans) == len(self._lines):
                self._spans = spans
                self._span_ends.clear()
                self._cache.clear()
                self.refresh()

    # --- rendering ----------------------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        row = scroll_y + y
        key = (row, scroll_x if not self._wrap else 0, width)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._row_strip(row, scroll_x, width)
            self._cache[key] = strip
        return strip

    def _row_strip(self, row: int, scroll_x: int, width: int) -> Strip:
        base = self.rich_style
        gutter = self._gutter
        text_width = max(0, width - gutter)
        if self._wrap:
            if row >= len(self._row_line):
                return Strip.blank(width, base)
            index = self._row_line[row]
            start = self._row_start[row]
            line = self._lines[index]
            following = row + 1
            end = (
                self._row_start[following]
                if following < len(self._row_line) and self._row_line[following] == index
                else len(line)
            )
            first_row = start == 0
            strip = Strip(self._styled(index, line[start:end], start))
        else:
            if row >= len(self._lines):
                return Strip.blank(width, base)
            index = row
            line = self._lines[index]
            first_row = True
            if _is_simple(line):
                strip = Strip(self._styled(index, line[scroll_x : scroll_x + text_width], scroll_x))
            else:
                strip = Strip(self._styled(index, line, 0)).crop(scroll_x, scroll_x + text_width)
        strip = strip.crop_extend(0, text_width, base)
        if gutter:
            number = f"{index + 1:>{gutter - 1}} " if first_row else " " * gutter
            style = self.get_component_rich_style("text-view--gutter")
            strip = Strip.join([Strip([Segment(number, style)], gutter), strip])
        return strip

    def _styled(self, index: int, text: str, offset: int) -> list[Segment]:
        """Segments for `text`, the slice of line `index` that starts at `offset`."""
        spans = self._spans[index] if self._spans is not None else None
        if not spans or not text:
            return [Segment(text, self.rich_style)]
        first = 0
        if len(spans) > 32:
            ends = self._span_ends.get(index)
            if ends is None:
                ends = self._span_ends[index] = [end for _, end, _ in spans]
            first = bisect_right(ends, offset)
        stop = offset + len(text)
        pieces: list[Span] = []
        for position in range(first, len(spans)):
            start, end, style = spans[position]
            if start >= stop:
                break
            if end <= offset:
                continue
            pieces.append(Span(max(start, offset) - offset, min(end, stop) - offset, style))
        return Content(text, pieces).render_segments(self.visual_style)


class ImageView(Widget):
    """A PNG drawn with half blocks: each cell shows two pixels (the upper one as the foreground of `▀`).

    Decoding runs in a thread (`decode_png`, bounded in pixels); until it is done, or when the PNG cannot
    be decoded (interlaced, corrupt, too big), the view takes no room at all.
    """

    DEFAULT_CSS = """
    ImageView { height: auto; max-height: 60%; width: 1fr; padding: 0 1; }
    """
    MAX_ROWS: ClassVar[int] = 20

    def __init__(self, data: bytes, *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self._data = data
        self.raster: Raster | None = None

    def on_mount(self) -> None:
        data = self._data
        self.run_worker(lambda: decode_png(data), thread=True, group="preview-image", exit_on_error=False)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.SUCCESS and isinstance(event.worker.result, Raster):
            self.raster = event.worker.result
            self.refresh(layout=True)

    def fit(self, width: int, height: int | None = None) -> tuple[int, int]:
        """(columns, rows) of the drawing in `width` x `height` cells: never enlarged, aspect kept.

        At most MAX_ROWS rows: the hex dump below keeps some room.
        """
        raster = self.raster
        if raster is None or width <= 0:
            return 0, 0
        most = self.MAX_ROWS if height is None else max(1, min(height, self.MAX_ROWS))
        columns = min(raster.width, width)
        rows = -(-raster.height * columns // (2 * raster.width))
        if rows > most:
            rows = most
            columns = max(1, min(width, round(raster.width * 2 * rows / raster.height)))
        return columns, max(1, rows)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.fit(width)[1]

    def render_line(self, y: int) -> Strip:
        columns, rows = self.fit(self.size.width, self.size.height)
        raster = self.raster
        base = self.rich_style
        if raster is None or y >= rows:
            return Strip.blank(self.size.width, base)
        _, background = self.background_colors
        pixel_rows = 2 * rows

        def colour(x: int, py: int) -> RichColor:
            r, g, b, a = raster.pixel(x * raster.width // columns, py * raster.height // pixel_rows)
            return background.blend(Color(r, g, b), a / 255).rich_color

        segments = [
            Segment("▀", RichStyle(color=colour(x, 2 * y), bgcolor=colour(x, 2 * y + 1)))
            for x in range(columns)
        ]
        return Strip(segments, columns).extend_cell_length(self.size.width, base)


class _MarkdownBody(VerticalScroll):
    """Rendered markdown in its own scroll area; links are never opened (see ContentPreview)."""

    DEFAULT_CSS = """
    _MarkdownBody {
        height: 1fr;
        background: $surface;
        scrollbar-gutter: stable;
        &:focus { background-tint: $foreground 4%; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "scroll_down", "Down", show=False, id="preview.markdown_down"),
        Binding("k", "scroll_up", "Up", show=False, id="preview.markdown_up"),
    ]

    def __init__(self, source: str) -> None:
        super().__init__()
        self._source = source

    def compose(self) -> ComposeResult:
        yield Markdown(self._source, open_links=False)


def _label(text: str) -> Static:
    """A Static showing `text` as plain text (never parsed as markup)."""
    return Static(Content(text))


class _ContentView(Vertical):
    """One content item: an info line, notices, and the body drawn for its kind."""

    DEFAULT_CSS = """
    _ContentView {
        height: 1fr;
        & > .preview-info { height: auto; padding: 0 1; color: $text-muted; background: $panel; }
        & > .preview-notice { height: auto; padding: 0 1; color: $text-warning; background: $warning-muted; }
        & > .preview-problem { height: auto; padding: 0 1; color: $text-error; }
        & > .preview-note { height: auto; padding: 0 1; color: $text-muted; }
        & > .preview-empty { height: auto; padding: 1 2; color: $text-muted; }
        & > .preview-invalid { height: auto; padding: 1 2; color: $text-error; }
    }
    """

    def __init__(self, content: ReadContent, *, show_uri: bool, load_key: str) -> None:
        super().__init__()
        self.content = content
        self._show_uri = show_uri
        self._load_key = load_key

    @property
    def renders_markdown(self) -> bool:
        """True when this content is markdown small enough for Textual's Markdown widget."""
        c = self.content
        return c.kind == "markdown" and not c.truncated and len(c.text or "") <= MARKDOWN_RENDER_LIMIT

    def toggle_source(self) -> None:
        """Rendered markdown <-> its source (raw HTML and link targets are only visible in the source)."""
        if not self.renders_markdown:
            return
        rendered = self.query_one(_MarkdownBody)
        sources = self.query(TextView)
        if not sources:
            source = TextView(sanitize(self.content.text or "", limit=None), language="markdown")
            had_focus = rendered.has_focus_within
            rendered.display = False
            self.mount(source, after=rendered)
            if had_focus:
                source.focus()
            return
        source = sources.first()
        showing_source = bool(source.display)
        now_shown, now_hidden = (rendered, source) if showing_source else (source, rendered)
        had_focus = now_hidden.has_focus_within
        now_shown.display = True
        now_hidden.display = False
        if had_focus:
            now_shown.focus()

    def info(self) -> Content:
        c = self.content
        parts: list[str] = []
        if self._show_uri and c.uri:
            parts.append(sanitize_line(c.uri, 300))
        parts.append(sanitize_line(c.mime_type, 100) if c.mime_type else "no mime type")
        if c.kind not in ("empty", "invalid"):
            parts.append(human_size(c.size))
        kind = c.kind if c.kind != "code" else f"code: {c.language}"
        parts.append(kind)
        if c.image is not None:
            dims = f"{c.image.width}×{c.image.height}" if c.image.width is not None else "size unknown"
            parts.append(" ".join(p for p in (c.image.format, dims, c.image.detail) if p))
        return Content("  ·  ".join(parts))

    def compose(self) -> ComposeResult:
        c = self.content
        yield Static(self.info(), classes="preview-info")
        if c.truncated and c.kind in TEXT_KINDS:
            notice = (
                f"Showing the first {human_size(c.shown_size)} of {human_size(c.size)}. "
                f"Press {self._load_key} to load all."
            )
            yield Static(Content(notice), classes="preview-notice")
        if c.problem and c.kind != "invalid":
            yield Static(Content(sanitize(c.problem, limit=1000)), classes="preview-problem")
        if c.kind == "markdown" and not self.renders_markdown:
            note = "Shown as source: rendering markdown this long would be slow."
            yield Static(Content(note), classes="preview-note")
        yield from self._body()

    def _body(self) -> ComposeResult:
        c = self.content
        if c.kind == "empty":
            yield _label("(empty)").add_class("preview-empty")
        elif c.kind == "invalid":
            yield _label(sanitize(c.problem or "invalid content", limit=2000)).add_class("preview-invalid")
        elif c.kind in ("binary", "image"):
            if c.image is not None and c.image.format == "PNG" and c.data and not c.truncated:
                yield ImageView(c.data)
            yield TextView(hex_dump(c.data or b"", limit=HEX_DUMP_LIMIT), wrap=False, classes="hex")
        elif c.kind == "markdown" and self.renders_markdown:
            yield _MarkdownBody(sanitize(c.text or "", limit=None))
        else:
            text = sanitize(c.display_text or "", limit=None)
            language = "json" if c.kind == "json" else c.language
            if c.kind == "markdown":
                language = "markdown"
            code = c.kind in ("code", "json")
            yield TextView(text, language=language, wrap=not code, line_numbers=code)


State = Literal["empty", "loading", "contents", "error"]

_ERROR_TITLES = {
    -32002: "Not found",
    -32601: "The server does not support reading resources",
    -32603: "The server failed (internal error)",
    -32600: "Invalid request",
    -32700: "The server could not parse the request",
    -32001: "Timed out",
    -32000: "The connection closed",
}
_NOT_FOUND_WORDS = ("not found", "unknown resource", "no such", "does not exist", "doesn't exist")


def error_title(code: int | None, message: str) -> str:
    """A short, clear headline for a read error: `Not found (-32002)`, `Timed out`, `Read failed (42)`.

    -32602 (invalid params) is what current servers answer for an unknown URI: it reads "Not found" when
    the message says so, else "Invalid parameters".
    """
    lowered = message.lower()
    not_found = any(words in lowered for words in _NOT_FOUND_WORDS)
    title = _ERROR_TITLES.get(code) if code is not None else None
    if code == -32602:
        title = "Not found" if not_found else "Invalid parameters"
    if title is None:
        if "timed out" in lowered or "timeout" in lowered:
            title = "Timed out"
        elif not_found:
            title = "Not found"
        else:
            title = "Read failed"
    return f"{title} ({code})" if code is not None else title


class ContentPreview(Vertical):
    """Shows the contents of a read resource: text, markdown, JSON, code, binary, image, or an error."""

    HELP = """
## Preview

What the server returned for the resource you opened.

- **Text** is shown as sent (control characters, bidi overrides and invisible characters appear as
  visible escapes such as `\\x1b`).
- **Markdown** is rendered; links are never opened, a click only shows where it points.
  Long documents are shown as highlighted source.
- **JSON** is pretty-printed and highlighted; **code** is highlighted by its type or file extension.
- **Binary** and **images** show their type, size (and image format and dimensions) and a hex dump.
- Several contents appear as tabs.
- Content over the size cap is cut: press **a** to read it again in full.

Keys: arrows, `j`/`k`, page up/down, home/end scroll; **w** toggles soft wrap; **s** shows the
source of rendered markdown (raw HTML, which is not rendered, and link targets show there).
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "load_all", "Load all", id="preview.load_all"),
        Binding("w", "toggle_wrap", "Wrap", show=False, id="preview.wrap"),
        Binding("s", "toggle_source", "Source", show=False, id="preview.source"),
    ]

    DEFAULT_CSS = """
    ContentPreview {
        height: 1fr;
        & > #preview-title { height: auto; max-height: 3; padding: 0 1; background: $panel; color: $text; }
        & > #preview-body { height: 1fr; }
        & .preview-message { height: auto; padding: 1 2; color: $text-muted; }
        & .preview-error { height: auto; padding: 1 2; color: $text-error; }
        & .preview-error-detail { height: auto; padding: 0 2; color: $text; }
        & TabbedContent { height: 1fr; }
        & TabbedContent > ContentSwitcher { height: 1fr; }
        & TabPane { height: 1fr; padding: 0; }
    }
    """

    class LoadAllRequested(Message):
        """The user asked to read `uri` again without a size cap; the screen does the reading."""

        def __init__(self, preview: ContentPreview, uri: str) -> None:
            super().__init__()
            self.preview = preview
            self.uri = uri

        @property
        def control(self) -> ContentPreview:
            return self.preview

    class LinkClicked(Message):
        """A link in rendered markdown was clicked; it was not opened. `href` is raw (sanitize to show)."""

        def __init__(self, preview: ContentPreview, href: str) -> None:
            super().__init__()
            self.preview = preview
            self.href = href

        @property
        def control(self) -> ContentPreview:
            return self.preview

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.uri: str | None = None
        self.server: str | None = None
        self.contents: list[ReadContent] = []
        self.state: State = "empty"
        self.error: tuple[str, int | None] | None = None

    def compose(self) -> ComposeResult:
        yield Static(Content(""), id="preview-title")
        with Vertical(id="preview-body"):
            yield Static(Content("Nothing to preview."), classes="preview-message")

    # --- public API ---------------------------------------------------------------------------------------

    def show_contents(
        self, uri: str, contents: Sequence[ReadContent], *, server: str | None = None
    ) -> AwaitComplete:
        """Show the classified contents of a read of `uri` (several contents become tabs)."""
        self._set(uri, server, "contents")
        self.contents = list(contents)
        load_key = self._load_key()
        widgets: list[Widget]
        if not contents:
            widgets = [_label("(the server returned no contents)").add_class("preview-message")]
        elif len(contents) == 1:
            single = contents[0]
            widgets = [
                _ContentView(single, show_uri=bool(single.uri) and single.uri != uri, load_key=load_key)
            ]
        else:
            tabs = TabbedContent()
            for number, content in enumerate(contents, 1):
                tabs.compose_add_child(
                    TabPane(
                        self._tab_title(number, content),
                        _ContentView(content, show_uri=True, load_key=load_key),
                    )
                )
            widgets = [tabs]
        self.refresh_bindings()
        return self._replace_body(widgets)

    def show_loading(self, uri: str, *, server: str | None = None) -> AwaitComplete:
        """Show that `uri` is being read."""
        self._set(uri, server, "loading")
        return self._replace_body(
            [_label(f"Reading {sanitize_line(uri, 300)} …").add_class("preview-message")]
        )

    def show_error(
        self, uri: str, message: str, code: int | None = None, *, server: str | None = None
    ) -> AwaitComplete:
        """Show a read error in the pane: a headline from the code (`Not found (-32002)`) and the message."""
        self._set(uri, server, "error")
        self.error = (message, code)
        return self._replace_body(
            [
                _label(error_title(code, message)).add_class("preview-error"),
                _label(sanitize(message, limit=4000)).add_class("preview-error-detail"),
            ]
        )

    def clear(self) -> AwaitComplete:
        """Show nothing."""
        self._set(None, None, "empty")
        return self._replace_body([_label("Nothing to preview.").add_class("preview-message")])

    # --- actions ------------------------------------------------------------------------------------------

    @property
    def can_load_all(self) -> bool:
        return self.state == "contents" and any(c.truncated and c.kind in TEXT_KINDS for c in self.contents)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "load_all":
            return self.can_load_all
        if action == "toggle_wrap":
            return self.state == "contents" and bool(self.query(TextView).exclude(".hex"))
        if action == "toggle_source":
            return self.state == "contents" and any(v.renders_markdown for v in self.query(_ContentView))
        return True

    def action_toggle_source(self) -> None:
        """Switch rendered markdown to its (highlighted, sanitized) source and back."""
        for view in self.query(_ContentView):
            view.toggle_source()

    def action_load_all(self) -> None:
        """Ask the screen to read the resource again without a cap."""
        if self.can_load_all and self.uri is not None:
            self.post_message(self.LoadAllRequested(self, self.uri))

    def action_toggle_wrap(self) -> None:
        views = list(self.query(TextView).exclude(".hex"))
        if views:
            wrap = not views[0].wrap
            for view in views:
                view.set_wrap(wrap)

    @on(Markdown.LinkClicked)
    def _link_clicked(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        self.post_message(self.LinkClicked(self, event.href))
        self.notify(f"Link not opened: {sanitize_line(event.href, 300)}", markup=False, timeout=6)

    # --- internals ----------------------------------------------------------------------------------------

    def _set(self, uri: str | None, server: str | None, state: State) -> None:
        self.uri = uri
        self.server = server
        self.state = state
        self.error = None
        if state != "contents":
            self.contents = []
        title = Content("")
        if uri is not None:
            title = Content.styled(sanitize_line(uri, 500), "bold")
            if server:
                title = title + Content.styled(f"  ·  {sanitize_line(server, 80)}", "$text-muted")
        self.query_one("#preview-title", Static).update(title)
        self.refresh_bindings()

    def _replace_body(self, widgets: list[Widget]) -> AwaitComplete:
        body = self.query_one("#preview-body", Vertical)
        removed = body.remove_children()
        mounted = body.mount_all(widgets)
        return AwaitComplete(removed, mounted)

    def _load_key(self) -> str:
        """The key shown in the "load all" notice: the default, or what the app's keymap made of it."""
        keymap = getattr(self.app, "_keymap", None) or {}  # Textual keeps the keymap privately
        key = str(keymap.get("preview.load_all", "a")).split(",")[0].strip() or "a"
        return self.app.get_key_display(Binding(key, "load_all"))

    @staticmethod
    def _tab_title(number: int, content: ReadContent) -> Content:
        name = content.uri.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1] if content.uri else ""
        label = sanitize_line(name, 40) or f"#{number}"
        return Content(f"{number}. {label}")
