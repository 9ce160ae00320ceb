"""TextView: read-only text that renders only the rows on screen, with optional Pygments highlighting.

Why a module of its own: the preview shows texts of megabytes, some with lines of 200,000 characters. A
Line API view costs a few rows per paint whatever the size; highlighting (`highlight_lines`) is computed
in a worker thread and styled with theme variables. The text must already be sanitized: it is drawn as
plain segments, never parsed as markup.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from typing import ClassVar

from rich.cells import cell_len, get_character_cell_size
from rich.segment import Segment
from textual.binding import Binding, BindingType
from textual.content import Content, Span
from textual.events import Resize
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import Worker, WorkerState, get_current_worker

from explorer.widgets.line_cache import LineCache

__all__ = ["HIGHLIGHT_LIMIT", "MIN_WRAP_WIDTH", "TAB_SIZE", "LineSpans", "TextView", "highlight_lines"]

HIGHLIGHT_LIMIT = 2_000_000
"""Texts longer than this (characters) are shown without syntax highlighting."""
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
        from textual.highlight import HighlightTheme  # imported by `highlight_lines` already

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
    # Pygments (and Textual's highlighting, about 10 ms of imports) only once something is highlighted:
    # the app's first frame has no text to show.
    from pygments.lexers import get_lexer_by_name  # type: ignore[import-untyped,unused-ignore]
    from pygments.util import ClassNotFound  # type: ignore[import-untyped,unused-ignore]

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
        self._cache: LineCache[tuple[int, int, int], Strip] = LineCache(1024)

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

    def replace_text(self, text: str, *, top_line: int | None = None) -> None:
        """Show `text` instead (sanitized, as always), with line `top_line` at the top when given.

        Not highlighted again: for texts that are not highlighted (the hex dump of `HexView`)."""
        self._text = text.expandtabs(TAB_SIZE) if "\t" in text else text
        self._lines = self._text.split("\n")
        self._spans = None
        self._span_ends.clear()
        self._cache.clear()
        self._layout(anchor=top_line)
        self.refresh()

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
        if self._layout_width != self._text_width():
            # A size Textual did not announce with a Resize: a view mounted under a notice got none about
            # three times in four, and stayed blank. The rows are laid out for the width drawn.
            self._layout(anchor=self._top_line() if self._wrap and self._layout_width > 0 else None)
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
