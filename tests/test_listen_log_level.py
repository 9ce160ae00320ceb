"""Modern era: what a server logs outside a request reaches the explorer, at the level the user chose.

A modern-era server sends log entries only where a request's `_meta` asks for them; what it says on its
own (the demo's "a note arrived" notices) goes on listen streams that asked. The explorer's listen stream
asked for no level, so the server overview's Log tab stayed empty in the modern era while it filled in the
handshake era.

The supervisor runs in a process of its own that ends as soon as it has its answer (a cancelled modern
connection once spun the event loop for ever: `test_cancel_without_spin.py`; a process keeps a hang
from taking the test run with it).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers.paths import ROOT

pytestmark = pytest.mark.slow

SCRIPT = """
import os, sys
import anyio
from explorer.config import ServerSpec
from explorer.connection.live import LogEntry
from explorer.connection.supervisor import Settings, Supervisor

class Voices:
    def __init__(self):
        self.entries = []
    def server_voice(self, name, news):
        if isinstance(news, LogEntry):
            self.entries.append(news)
    def __getattr__(self, name):
        async def nothing_async(*args):
            return None
        return nothing_async if name == "resource_changed" else (lambda *args: None)

async def main():
    spec = ServerSpec(name="demo", transport="stdio", command=sys.executable,
                      args=("-m", "explorer", "demo-server"), env={"EXPLORER_DEMO_CHANGE_SECONDS": "1"})
    voices = Voices()
    first, later = sys.argv[1], sys.argv[2:]
    supervisor = Supervisor([spec], Settings(protocol="2026-07-28", timeout=20, log_level=first), voices)
    async with anyio.create_task_group() as group:
        group.start_soon(supervisor.run, "demo")
        with anyio.move_on_after(40):
            if later:  # the user changes the level once connected
                while supervisor.connection("demo") is None:
                    await anyio.sleep(0.05)
                await supervisor.set_log_level("demo", later[0])
            while not any(entry.logger == "demo.inbox" for entry in voices.entries):
                await anyio.sleep(0.1)
        found = any(entry.logger == "demo.inbox" for entry in voices.entries)
        print("notice arrived" if found else "no notice", flush=True)
        from explorer.connection.stdio import stop_leftover_servers
        stop_leftover_servers()
        os._exit(0)

anyio.run(main)
"""


def _notices(*levels: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", SCRIPT, *levels]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT, check=False)


def test_the_listen_stream_asks_for_the_log_level_so_notices_arrive() -> None:
    result = _notices("info")
    assert result.stdout.strip() == "notice arrived", (result.stdout, result.stderr[-2000:])


def test_a_level_changed_later_opens_the_stream_again_with_it() -> None:
    """Connected at "error" (no notices), then set to "info": the stream kept "error" until reopened."""
    result = _notices("error", "info")
    assert result.stdout.strip() == "notice arrived", (result.stdout, result.stderr[-2000:])
