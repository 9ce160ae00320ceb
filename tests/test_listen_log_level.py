"""Modern era: what a server logs outside a request reaches the explorer, at the level the user chose.

A modern-era server sends log entries only where a request's `_meta` asks for them; what it says on its
own (the demo's "a note arrived" notices) goes on listen streams that asked. The explorer's listen stream
asked for no level, so the server overview's Log tab stayed empty in the modern era while it filled in the
handshake era.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest

from explorer.config import ServerSpec
from explorer.connection.live import LogEntry
from explorer.connection.supervisor import Settings, Supervisor

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


class _Voices:
    """A supervisor listener that keeps the log entries it hears."""

    def __init__(self) -> None:
        self.entries: list[LogEntry] = []

    def server_voice(self, name: str, news: object) -> None:
        if isinstance(news, LogEntry):
            self.entries.append(news)

    def __getattr__(self, name: str) -> Any:
        async def nothing_async(*args: object) -> None:
            return None

        return nothing_async if name == "resource_changed" else (lambda *args: None)


async def test_the_listen_stream_asks_for_the_log_level_so_notices_arrive() -> None:
    spec = ServerSpec(
        name="demo",
        transport="stdio",
        command=sys.executable,
        args=("-m", "explorer", "demo-server"),
        env={"EXPLORER_DEMO_CHANGE_SECONDS": "1"},
    )
    voices = _Voices()
    settings = Settings(protocol="2026-07-28", timeout=20, log_level="info")
    supervisor = Supervisor([spec], settings, voices)  # type: ignore[arg-type]
    async with anyio.create_task_group() as group:
        group.start_soon(supervisor.run, "demo")
        with anyio.fail_after(30):  # a hang guard: the demo says a note arrived every second
            while not any(entry.logger == "demo.inbox" for entry in voices.entries):  # noqa: ASYNC110
                await anyio.sleep(0.1)
        group.cancel_scope.cancel()
