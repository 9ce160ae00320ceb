"""While the app runs, the collector's older generations run after a frame is painted, never inside one.

The interpreter starts an older collection in whatever allocates when its counts say so: a key's action
or its repaint, which then waits 2 to 15 ms for it. The app keeps the interpreter to young collections
and runs the older ones itself once the frame is on screen (`explorer.model.heap.BetweenFrames`).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from textual.screen import Screen

from tests.app_helpers import main_screen, raw_spec, settled_app

pytestmark = pytest.mark.anyio


class Cycle:
    def __init__(self) -> None:
        self.me = self


class Older:
    """Every older collection while a test runs: `seen` holds (generation, who started it): "frame" for
    the app's own after a frame (the test sets `who` while `run_due` runs), "explicit" for another call of
    `gc.collect` (a listing's after a page), "interpreter" for one it started by itself."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, str]] = []
        self.who = ["interpreter"]


@pytest.fixture
def older_collections(monkeypatch: pytest.MonkeyPatch) -> Iterator[Older]:
    older = Older()
    seen, who = older.seen, older.who
    collect = gc.collect

    def collecting(generation: int = 2) -> int:
        outer = who[0]
        if outer == "interpreter":
            who[0] = "explicit"
        try:
            return collect(generation)
        finally:
            who[0] = outer

    def watch(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and info["generation"] > 0:
            seen.append((info["generation"], who[0]))

    monkeypatch.setattr(gc, "collect", collecting)
    gc.collect()  # what earlier tests left: the interpreter's counts start from nothing
    gc.callbacks.append(watch)
    yield older
    gc.callbacks.remove(watch)


async def test_older_collections_run_after_frames_and_the_thresholds_come_back(
    older_collections: Older, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = gc.get_threshold()
    after_refresh: list[bool] = [False]  # inside a callback run after the screen's refresh
    schedule = Screen.call_after_refresh

    def call_after_refresh(self: Screen[Any], callback: Callable[..., Any], *args: Any) -> bool:
        def after_the_frame(*inner: Any) -> Any:
            after_refresh[0] = True
            try:
                return callback(*inner)
            finally:
                after_refresh[0] = False

        return schedule(self, after_the_frame, *args)

    monkeypatch.setattr(Screen, "call_after_refresh", call_after_refresh)
    async with settled_app(raw_spec("plain")) as (app, pilot):
        assert app.collector.installed
        runs: list[bool] = []  # for each run of the app's older collections: was it after a frame?
        run_due = app.collector.run_due

        def counted() -> None:
            runs.append(after_refresh[0])
            older_collections.who[0] = "frame"
            try:
                run_due()
            finally:
                older_collections.who[0] = "interpreter"

        app.collector.run_due = counted  # type: ignore[method-assign]
        tree = main_screen(app).tree_widget
        tree.focus()
        older_collections.seen.clear()
        garbage: list[Cycle] = []
        for index in range(60):
            garbage = [Cycle() for _ in range(3_000)]  # what browsing leaves for the collector
            await pilot.press("down" if index % 20 < 10 else "up")
        del garbage
        await pilot.pause()
        assert runs and all(runs), "the older collections run after a frame, and only then"
        assert [who for _, who in older_collections.seen if who == "interpreter"] == []
        assert any(who == "frame" for _, who in older_collections.seen)  # they did collect
    assert gc.get_threshold() == before
    assert not app.collector.installed
