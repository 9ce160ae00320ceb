"""The error report says when its code is the explorer's own (a closed connection), not the server's.

A server that exited at start showed "Error code: -32000" in the error dialog, whose help says the code
is what the server sent; the SDK makes -32000 itself when the connection closes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from explorer.screens.error_dialog import error_report
from tests.app_helpers import main_screen, settled_app, stdio_spec
from tests.helpers.tiny_server import tiny_server

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

NO_LISTING = """
def answer(method, params):
    return None  # every request answered -32601 by the server itself
"""


async def test_the_report_tells_the_explorers_code_from_the_servers(tmp_path: Path) -> None:
    dead = stdio_spec("dead", f"{sys.executable} -c 'raise SystemExit(3)'")
    refusing = stdio_spec("refusing", tiny_server(tmp_path, NO_LISTING))
    async with settled_app(dead, refusing, size=(120, 36)) as (app, _pilot):
        servers = main_screen(app).catalogue.servers
        assert servers["dead"].state == servers["refusing"].state == "failed"
        dead_report = error_report(servers["dead"]).splitlines()
        refusing_report = error_report(servers["refusing"]).splitlines()
    assert "Error code: -32000 (the explorer's own code, not one the server sent)" in dead_report
    assert "Error code: -32601" in refusing_report
