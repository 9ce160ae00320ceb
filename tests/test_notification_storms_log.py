"""A server's big log entries are kept cut: the Log tab shows the start of one and says its size.

Before, every `notifications/message` entry was kept whole: 300 entries of 10 MB took the explorer to
3.2 GB, while the Log tab shows 2,000 characters of an entry. Now an entry keeps the start of its text and
its size, and the kept log is bounded in bytes as well as entries.
"""

from __future__ import annotations

import sys
from dataclasses import fields
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from textual.widgets import Log, TabbedContent

from explorer.config import ServerSpec
from explorer.connection.live import news_from_notification
from explorer.connection.supervisor import Settings, Supervisor
from explorer.screens.server_overview import ServerOverview
from tests.app_helpers import main_screen, settled_app, stdio_spec, wait_for
from tests.helpers.tiny_server import tiny_server

pytestmark = pytest.mark.anyio

BIG = "z" * 10_000_000  # one string, shared: the test makes no 3 GB of its own

# Three entries of 2 MB, then a small one, before the answer to resources/list.
SERVER = """
CAPABILITIES = {"resources": {}, "logging": {}}
NAME = "loud"
def answer(method, params):
    if method == "resources/list":
        for k in range(3):
            send({"jsonrpc": "2.0", "method": "notifications/message",
                  "params": {"level": "info", "logger": "big", "data": "z" * 1999999 + str(k)}})
        send({"jsonrpc": "2.0", "method": "notifications/message",
              "params": {"level": "info", "logger": "big", "data": "the last one"}})
        return {"resources": [{"uri": "x://quiet/one", "name": "one"}]}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    return {}
"""


class Quiet:
    """A listener that hears nothing."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args: None


def kept_size(entries: list[Any]) -> int:
    """Bytes of the kept records and of every value they hold, each object counted once."""
    seen: dict[int, int] = {}
    for entry in entries:
        seen[id(entry)] = sys.getsizeof(entry)
        for field in fields(entry):
            value = getattr(entry, field.name)
            seen[id(value)] = sys.getsizeof(value)
    return sum(seen.values())


def entry(data: object) -> object:
    params = SimpleNamespace(level="info", logger="hunt", data=data)
    return news_from_notification(SimpleNamespace(method="notifications/message", params=params))


def supervisor_after(count: int, data: object) -> Supervisor:
    supervisor = Supervisor([ServerSpec(name="s", transport="stdio", command="true")], Settings(), Quiet())
    for _ in range(count):
        news = entry(data)
        assert news is not None
        supervisor._news("s", news)
    return supervisor


def test_300_entries_of_10_mb_are_kept_in_a_bounded_size() -> None:
    supervisor = supervisor_after(300, BIG)
    kept = supervisor.voice("s")
    assert len(kept) == 300  # every entry is there, cut
    assert kept_size(kept) <= 3_000_000


def test_the_kept_log_is_bounded_in_bytes_as_well_as_entries() -> None:
    supervisor = supervisor_after(1_000, {"blob": BIG[:100_000]})
    kept = supervisor.voice("s")
    assert 0 < len(kept) < 1_000  # the oldest went to stay within the bytes
    assert kept_size(kept) <= 2_100_000


@pytest.mark.slow
async def test_the_log_tab_shows_the_start_of_a_big_entry_and_its_size(tmp_path: Path) -> None:
    async with settled_app(stdio_spec("loud", tiny_server(tmp_path, SERVER))) as (app, pilot):
        screen = main_screen(app)
        screen.show_overview("loud")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerOverview))
        await wait_for(pilot, lambda: bool(app.screen.query(TabbedContent)))
        app.screen.query_one(TabbedContent).active = "tab-log"

        def lines() -> list[str]:
            logs = list(app.screen.query("#voice").results(Log))
            return [str(line) for line in logs[0].lines] if logs else []

        await wait_for(pilot, lambda: any("the last one" in line for line in lines()))
        big = [line for line in lines() if " info big  (cut, 2.0 MB) zzzz" in line]
        assert len(big) == 3, [line[:60] for line in lines()]
        assert all(line.endswith("zzz…") for line in big), [line[-40:] for line in big]
        assert all(len(line) < 2_100 for line in big)
