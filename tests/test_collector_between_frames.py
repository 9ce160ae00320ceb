"""While the app runs, the collector's older generations run after a frame is painted, never inside one.

The interpreter starts an older collection in whatever allocates when its counts say so: a key's action
or its repaint, which then waits 2 to 15 ms for it. The app keeps the interpreter to young collections
and runs the older ones itself once the frame is on screen (`explorer.model.heap.BetweenFrames`).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

from tests.app_helpers import main_screen, raw_spec, settled_app

pytestmark = pytest.mark.anyio


class Cycle:
    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def older_collections(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[int, str]]]:
    """Every older collection while the test runs: (generation, who started it), where "explicit" is a
    call of `gc.collect` (the app's own after a frame, or a listing's after a page) and "interpreter" one
    the interpreter started by itself."""
    seen: list[tuple[int, str]] = []
    explicit: list[bool] = [False]
    collect = gc.collect

    def collecting(generation: int = 2) -> int:
        explicit[0] = True
        try:
            return collect(generation)
        finally:
            explicit[0] = False

    def watch(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and info["generation"] > 0:
            seen.append((info["generation"], "explicit" if explicit[0] else "interpreter"))

    monkeypatch.setattr(gc, "collect", collecting)
    gc.callbacks.append(watch)
    yield seen
    gc.callbacks.remove(watch)


async def test_older_collections_run_after_frames_and_the_thresholds_come_back(
    older_collections: list[tuple[int, str]],
) -> None:
    before = gc.get_threshold()
    async with settled_app(raw_spec("plain")) as (app, pilot):
        assert app.collector.installed
        after_frame: list[int] = []
        run_due = app.collector.run_due

        def counted() -> None:
            after_frame.append(1)
            run_due()

        app.collector.run_due = counted  # type: ignore[method-assign]
        tree = main_screen(app).tree_widget
        tree.focus()
        garbage: list[Cycle] = []
        for index in range(60):
            garbage = [Cycle() for _ in range(3_000)]  # what browsing leaves for the collector
            await pilot.press("down" if index % 20 < 10 else "up")
        del garbage
        await pilot.pause()
        assert after_frame, "no older collection was run after a frame"
        assert [who for _, who in older_collections if who == "interpreter"] == []
        assert any(generation >= 1 for generation, _ in older_collections)
    assert gc.get_threshold() == before
    assert not app.collector.installed
