"""ImageView: a PNG drawn with half blocks, two pixels per cell.

Why a module of its own: drawing pixels is a widget job apart from the text preview (and the prompt view
shows images too); decoding (`decode_png`, bounded in pixels) runs in a thread, and until it is done, or
when it fails, the view takes no room.
"""

from __future__ import annotations

from typing import ClassVar

from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.color import Color
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget
from textual.worker import Worker, WorkerState

from explorer.model.contents import Raster, decode_png

__all__ = ["ImageView"]


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
