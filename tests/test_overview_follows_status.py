"""An open server overview follows its server: it fails, reconnects, lists and is done, as the bar says.

The overview was drawn once when opened: a server that exited while it was open still read `· complete`
there while the server bar said it had failed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from explorer.screens.server_overview import ServerOverview
from tests.app_helpers import main_screen, settled_app, stdio_spec, wait_for
from tests.helpers.tiny_server import tiny_server

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

# Exits when the file `exit` appears in its folder (saying why on stderr); while the file `hold` is
# there, its resources/list waits for the file `release`.
SERVER = """
import os, threading, time
HERE = os.path.dirname(os.path.abspath(__file__))

def _exit_when_told():
    while not os.path.exists(os.path.join(HERE, "exit")):
        time.sleep(0.05)
    sys.stderr.write("fatal: the fixture was told to exit\\n")
    sys.stderr.flush()
    os._exit(4)

threading.Thread(target=_exit_when_told, daemon=True).start()

def answer(method, params):
    if method == "resources/list":
        if os.path.exists(os.path.join(HERE, "hold")):
            while not os.path.exists(os.path.join(HERE, "release")):
                time.sleep(0.05)
        return {"resources": [{"uri": "tiny://a/1", "name": "one"}, {"uri": "tiny://a/2", "name": "two"}]}
    if method in ("resources/templates/list",):
        return {"resourceTemplates": []}
    return None
"""


def shown(overview: ServerOverview, selector: str) -> str:
    return str(overview.query_one(selector, Static).render())


async def test_the_open_overview_follows_its_server_failing_reconnecting_and_listing(tmp_path: Path) -> None:
    command = tiny_server(tmp_path, SERVER)
    async with settled_app(stdio_spec("tiny", command)) as (app, pilot):
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerOverview))
        overview = app.screen
        assert isinstance(overview, ServerOverview)
        assert shown(overview, "#overview-title").endswith("· complete")

        (tmp_path / "exit").touch()  # the server exits while its overview is open
        await wait_for(pilot, lambda: "failed" in shown(overview, "#overview-title"))
        assert "complete" not in shown(overview, "#overview-title")
        facts = shown(overview, "#overview-text")
        assert "Error: the server closed the connection (did it exit?)" in facts
        assert "fatal: the fixture was told to exit" in shown(overview, "#stderr-text")

        # Reconnected (as `R` or the error dialog's reconnect would): listing, then complete again.
        (tmp_path / "exit").unlink()
        (tmp_path / "hold").touch()
        main_screen(app).connect("tiny")
        await wait_for(pilot, lambda: "listing…" in shown(overview, "#overview-title"))
        assert "failed" not in shown(overview, "#overview-title")
        (tmp_path / "release").touch()
        await wait_for(pilot, lambda: shown(overview, "#overview-title").endswith("· complete"))
        assert "Error:" not in shown(overview, "#overview-text")
        assert app.screen is overview
