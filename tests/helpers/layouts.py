"""Which refreshes of a widget asked for a layout (a layout re-arranges and repaints the whole screen)."""

from __future__ import annotations

from typing import Any

from textual.widget import Widget


def record_layouts(widget: Widget) -> list[bool]:
    """From now on, each `widget.refresh(...)` appends whether it asked for a layout to the list returned."""
    layouts: list[bool] = []
    original = widget.refresh

    def refresh(*regions: Any, **options: Any) -> Widget:
        layouts.append(bool(options.get("layout")))
        return original(*regions, **options)

    widget.refresh = refresh  # type: ignore[method-assign]
    return layouts
