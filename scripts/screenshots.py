"""Save SVG screenshots of the main states of the TUI into screenshots/, for the README.

Drives the real app headless against the built-in demo server (and, for the several-servers shot,
the npm reference server when it is installed in .cache/ by scripts/install-npm-servers.sh), on
isolated config dirs so a user's themes or history never leak in, and with the demo's inbox kept from
growing so two runs give the same pictures:

    .venv/bin/python scripts/screenshots.py
"""

from __future__ import annotations

import asyncio
import os
import shlex
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from textual.pilot import Pilot

from explorer.app import ExplorerApp
from explorer.config import ServerSpec
from explorer.screens.main import MainScreen

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "screenshots"
REFERENCE = ROOT / ".cache/npm-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
SIZE = (130, 38)


def _spec(name: str, command_line: str, env: dict[str, str] | None = None) -> ServerSpec:
    words = shlex.split(command_line)
    return ServerSpec(name=name, transport="stdio", command=words[0], args=tuple(words[1:]), env=env or {})


def _main(app: ExplorerApp) -> MainScreen:
    return next(s for s in app.screen_stack if isinstance(s, MainScreen))


async def _settle(app: ExplorerApp, pilot: Pilot[int]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        screens = [s for s in app.screen_stack if isinstance(s, MainScreen)]
        if screens and all(not s.busy for s in screens[0].catalogue.servers.values()):
            break
        await pilot.pause(0.1)
    await pilot.pause(0.3)


async def shoot(
    name: str,
    specs: list[ServerSpec],
    steps: Callable[[ExplorerApp, Pilot[int]], Awaitable[None]],
    theme: str | None = None,
) -> None:
    app = ExplorerApp(list(specs), remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        if theme is not None:
            app.theme = theme
        await _settle(app, pilot)
        await steps(app, pilot)
        await pilot.pause(0.5)
        app.save_screenshot(str(OUT / f"{name}.svg"))
    print(f"screenshots/{name}.svg")


async def tree_with_templates(app: ExplorerApp, pilot: Pilot[int]) -> None:
    screen = _main(app)
    screen.tree_widget.select_prefix("docs://handbook/welcome")
    await pilot.press("up")


async def resource_preview(app: ExplorerApp, pilot: Pilot[int]) -> None:
    screen = _main(app)
    screen.tree_widget.select_prefix(
        "file:///workspace/tidewater/src/tidewater/harmonics/constituents/lunar.py"
    )
    await pilot.press("enter")
    await pilot.pause(1.0)


async def markdown_preview(app: ExplorerApp, pilot: Pilot[int]) -> None:
    screen = _main(app)
    screen.tree_widget.select_prefix("docs://handbook/resource-templates")
    await pilot.press("enter")
    await pilot.pause(1.0)


async def several_servers(app: ExplorerApp, pilot: Pilot[int]) -> None:
    await pilot.press("down", "right")


async def error_dialog(app: ExplorerApp, pilot: Pilot[int]) -> None:
    await pilot.press("e")


async def main() -> None:
    OUT.mkdir(exist_ok=True)
    home = tempfile.mkdtemp(prefix="explorer-shots-")
    os.environ["MCP_URL_EXPLORER_HOME"] = home
    demo_command = f"{shlex.quote(sys.executable)} -m explorer demo-server"
    demo = _spec("demo", demo_command, env={"EXPLORER_DEMO_CHANGE_SECONDS": "0"})
    await shoot("tree-with-templates", [demo], tree_with_templates)
    await shoot("resource-preview", [demo], resource_preview)
    await shoot("markdown-preview", [demo], markdown_preview)
    others = [demo]
    if REFERENCE.exists():
        others.append(_spec("everything", f"node {shlex.quote(str(REFERENCE))} stdio"))
    else:
        others.append(_spec("demo-2", demo_command, env={"EXPLORER_DEMO_CHANGE_SECONDS": "0"}))
    await shoot("several-servers", others, several_servers)
    # A server that dies at start; its command line holds no path of this machine.
    broken = _spec("broken", "sh -c 'echo \"fatal: database is locked\" >&2; exit 3'")
    await shoot("error-dialog", [demo, broken], error_dialog)
    await shoot("light-theme", [demo], markdown_preview, theme="explorer-light")


if __name__ == "__main__":
    asyncio.run(main())
