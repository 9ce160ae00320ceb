"""The tree's vertical scroll bar: Textual's, painted from a handful of cached strips.

Why: the screen repaints the rows of the bar that lie in any changed region of the tree (a changed
line spans the bar's columns too), and a key that scrolls changes all of them: every such key painted the
whole bar again through the styles pipeline every widget's lines take, about 2 ms of a 45-row view's
frame, measured, a sixth of the frame. The bar is the same few one-cell segments (track above, thumb,
its two ends, track below): each gets one strip, reused on every row that shows it. The strips are the
ones Textual's own path paints (a test compares them over many states), and any style that path would
change (a border, padding, tint, opacity) makes the bar take that path.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip


class TreeScrollBar(ScrollBar):
    """A `ScrollBar` that paints its rows from cached strips (see the module docstring)."""

    def __init__(self, vertical: bool = True, name: str | None = None, *, thickness: int = 1) -> None:
        super().__init__(vertical, name, thickness=thickness)
        self._strip_cache: dict[Segment, Strip] = {}  # a row's strip by its one segment (see the module)
        self._strips_for: tuple[object, ...] = ()  # the line filters and background they were painted with

    def render_lines(self, crop: Region) -> list[Strip]:
        renderable = self.render()
        width, height = self.size
        styles = self.styles
        if (
            not self.vertical
            or not isinstance(renderable, ScrollBarRender)
            or styles.gutter
            or any(edge for edge, _ in styles.outline)
            or styles.tint.a
            or self.opacity != 1.0
            or styles.text_opacity != 1.0
            or styles.has_rule("hatch")
        ):
            return super().render_lines(crop)
        style = renderable.style if not isinstance(renderable.style, str) else None
        if style is None or style.bgcolor is None or style.color is None:  # Textual's defaults apply
            return super().render_lines(crop)
        segments = renderable.render_bar(
            size=height,
            window_size=renderable.window_size,
            virtual_size=renderable.virtual_size,
            position=renderable.position,
            vertical=True,
            thickness=width,
            back_color=style.bgcolor,
            bar_color=style.color,
        ).segments
        filters = tuple(self.get_line_filters())
        background = self.background_colors[1]
        base = self.visual_style.rich_style  # under each segment's own style, as Textual renders content
        if (filters, background, base) != self._strips_for:  # the strips are painted for these
            self._strip_cache.clear()
            self._strips_for = (filters, background, base)
        x1, x2 = crop.column_span
        strips: list[Strip] = []
        cache = self._strip_cache
        for y in crop.line_range:
            segment = segments[y]
            strip = cache.get(segment)
            if strip is None:
                strip = Strip([Segment(segment.text, base + segment.style)], width)
                for line_filter in filters:
                    strip = strip.apply_filter(line_filter, background)
                if len(cache) > 64:  # a change of theme or hover makes new ones
                    cache.clear()
                cache[segment] = strip
            strips.append(strip if (x1, x2) == (0, width) else strip.crop(x1, x2))
        return strips
