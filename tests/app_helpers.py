"""Helpers for Pilot tests: build the app on isolated dirs, wait for servers, read the screen."""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from explorer.app import ExplorerApp
from explorer.config import ListingBounds, ServerSpec
from explorer.screens.main import MainScreen
from explorer.widgets.preview import ContentPreview, TextView
from explorer.widgets.resource_tree import ResourceTree
from tests.helpers.paths import FIXTURES

SIZE = (120, 36)


def stdio_spec(name: str, command_line: str) -> ServerSpec:
    words = shlex.split(command_line)
    return ServerSpec(name=name, transport="stdio", command=words[0], args=tuple(words[1:]))


def demo_spec(name: str = "demo") -> ServerSpec:
    return ServerSpec(
        name=name, transport="stdio", command=sys.executable, args=("-m", "explorer", "demo-server")
    )


def raw_spec(name: str, *modes: str, **options: object) -> ServerSpec:
    args = [str(FIXTURES / "raw_server.py")]
    for mode in modes:
        args += ["--mode", mode]
    for key, value in options.items():
        args += ["--" + key.replace("_", "-"), str(value)]
    return ServerSpec(name=name, transport="stdio", command=sys.executable, args=tuple(args))


def make_app(*specs: ServerSpec, timeout: float = 10.0, bounds: ListingBounds | None = None) -> ExplorerApp:
    return ExplorerApp(list(specs), timeout=timeout, bounds=bounds, remember_theme=False)


@asynccontextmanager
async def settled_app(
    *specs: ServerSpec,
    size: tuple[int, int] = SIZE,
    timeout: float = 10.0,
    bounds: ListingBounds | None = None,
) -> AsyncIterator[tuple[ExplorerApp, Pilot[int]]]:
    """The app on these servers, running headless at `size`, once every server is listed (or failed).

    `async with settled_app(demo_spec()) as (app, pilot):` is the start every Pilot test of the main
    screen needs.
    """
    app = make_app(*specs, timeout=timeout, bounds=bounds)
    async with app.run_test(size=size) as pilot:
        await wait_settled(pilot, app)
        yield app, pilot


def main_screen(app: ExplorerApp) -> MainScreen:
    for screen in app.screen_stack:
        if isinstance(screen, MainScreen):
            return screen
    raise AssertionError("no main screen")


async def wait_for(pilot: Pilot[Any], predicate: Callable[[], bool], timeout: float = 20.0) -> None:
    """Let the app run until `predicate()` holds; fail with a clear message after `timeout`."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        await pilot.pause(0.05)


async def wait_settled(pilot: Pilot[Any], app: ExplorerApp, timeout: float = 30.0) -> None:
    """Every server connected and listed (or failed)."""
    screen = main_screen(app)
    await wait_for(pilot, lambda: all(not s.busy for s in screen.catalogue.servers.values()), timeout)
    await pilot.pause(0.1)


def tree_lines(app: ExplorerApp) -> list[str]:
    tree = main_screen(app).query_one(ResourceTree)
    return [tree.render_line(y).text.rstrip() for y in range(tree.size.height)]


def preview_text(app: ExplorerApp) -> str:
    """Everything the preview pane shows as text (header, messages, text views)."""
    preview = main_screen(app).query_one(ContentPreview)
    parts = [str(w.render()) for w in preview.query(Static)]
    parts += [view.text for view in preview.query(TextView)]
    return "\n".join(parts)


def key_bar_text(app: ExplorerApp) -> str:
    """The main screen's key bar as shown."""
    from explorer.widgets.key_bar import KeyBar

    return str(main_screen(app).query_one(KeyBar).render())


def static_text(app: ExplorerApp, selector: str) -> str:
    return "\n".join(str(w.render()) for w in app.screen.query(selector).results(Static))
