"""Cancelling a modern-era connection ends: it once spun the event loop at 100% CPU for ever.

Closing the connection's exit stack while the cancellation was being handled left a CancelledError that
was its own `__context__` (contextlib's fix-up after an SDK task group re-raised it), and anyio's task
bookkeeping follows that chain without end. It happened when the cancellation caught the connection
while its listen loop was being waited for: every time when cancelled right after the first listing.
Each run is a process of its own with a hang guard, since a spinning loop never lets a timeout fire.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers.paths import ROOT

pytestmark = pytest.mark.slow

SCRIPT = """
import sys
import anyio
from explorer.config import ServerSpec
from explorer.connection.supervisor import Settings, Supervisor

class Listener:
    def __init__(self):
        self.listed = anyio.Event()
    def listing_finished(self, *args):
        self.listed.set()
    def __getattr__(self, name):
        async def nothing_async(*args):
            return None
        return nothing_async if name == "resource_changed" else (lambda *args: None)

async def main():
    spec = ServerSpec(name="demo", transport="stdio", command=sys.executable,
                      args=("-m", "explorer", "demo-server"))
    for _ in range(3):
        listener = Listener()
        supervisor = Supervisor([spec], Settings(protocol="2026-07-28", timeout=20), listener)
        async with anyio.create_task_group() as group:
            group.start_soon(supervisor.run, "demo")
            with anyio.fail_after(30):
                await listener.listed.wait()
            group.cancel_scope.cancel()
    print("ended", flush=True)

anyio.run(main)
"""


def test_cancelling_a_modern_connection_after_its_listing_ends() -> None:
    try:
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120, cwd=ROOT
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the cancelled connection never ended (the event loop spun)")
    assert done.stdout.strip() == "ended", done.stderr[-2000:]
