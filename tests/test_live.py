"""Live servers in both eras: following a resource, its end on the wire, log entries and progress.

Against the built-in demo over stdio with a fast clock (`metrics://live/clock` ticks every 0.2 s). What the
explorer asked of the server is checked on the wire (the protocol log), not inferred from silence.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any

import anyio
import pytest

from explorer.config import ServerSpec
from explorer.connection.live import ListChanged, LogEntry, News, Progress, ResourceChanged
from explorer.connection.session import ServerConnection
from explorer.connection.wire import WireLog

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("protocol", ["legacy", "auto"]), pytest.mark.slow]

CLOCK = "metrics://live/clock"


def demo(**env: str) -> ServerSpec:
    spec = ServerSpec(
        name="demo", transport="stdio", command=sys.executable, args=("-m", "explorer", "demo-server")
    )
    return replace(spec, env=env)


async def wait_until(predicate: Any, timeout: float = 20.0) -> None:
    """Poll `predicate` (the news arrive from another task); a generous deadline, not a speed claim."""
    with anyio.fail_after(timeout):
        while not predicate():  # noqa: ASYNC110 - polling state another task fills
            await anyio.sleep(0.02)


def sent(log: WireLog, method: str) -> list[dict[str, Any]]:
    return [f.json() for f in log.frames if f.direction == "send" and f.method == method]


async def test_following_a_resource_delivers_its_changes_and_unfollow_ends_it_on_the_wire(
    protocol: str,
) -> None:
    news: list[News] = []
    log = WireLog()
    async with ServerConnection(
        demo(EXPLORER_DEMO_TICK_SECONDS="0.2"), protocol=protocol, on_news=news.append, wire=log
    ) as conn:
        assert await conn.follow(CLOCK)
        await wait_until(lambda: sum(isinstance(n, ResourceChanged) and n.uri == CLOCK for n in news) >= 2)
        await conn.unfollow(CLOCK)
        if protocol == "legacy":
            assert [f["params"]["uri"] for f in sent(log, "resources/subscribe")] == [CLOCK]
            assert [f["params"]["uri"] for f in sent(log, "resources/unsubscribe")] == [CLOCK]
        else:
            # The listen stream is opened again with the new set: with the clock, then without it.
            def sets() -> list[list[str]]:
                frames = sent(log, "subscriptions/listen")
                return [f["params"]["notifications"].get("resourceSubscriptions", []) for f in frames]

            await wait_until(lambda: CLOCK not in sets()[-1])
            assert any(CLOCK in s for s in sets())
            assert sent(log, "resources/subscribe") == []  # not a method of the modern era


async def test_log_entries_arrive_at_the_chosen_level(protocol: str) -> None:
    news: list[News] = []
    async with ServerConnection(demo(), protocol=protocol, on_news=news.append, log_level="debug") as conn:
        with pytest.raises(Exception):  # noqa: B017 - any fault; the log entry is what is checked
            await conn.read_resource("docs://no/such/thing")
        await wait_until(lambda: any(isinstance(n, LogEntry) and n.level == "warning" for n in news))
    entry = next(n for n in news if isinstance(n, LogEntry) and n.level == "warning")
    assert entry.logger == "demo.resources" and "docs://no/such/thing" in entry.text


async def test_progress_of_a_slow_read_arrives(protocol: str) -> None:
    news: list[News] = []
    async with ServerConnection(demo(), protocol=protocol, on_news=news.append) as conn:
        await conn.request(
            "resources/read",
            {"uri": "metrics://rollup", "_meta": {"progressToken": "roll"}},
            action="reading",
        )
    steps = [n for n in news if isinstance(n, Progress) and n.token == "roll"]
    assert [s.progress for s in steps] == [1, 2, 3, 4, 5] and steps[-1].total == 5


async def test_a_changed_list_is_news(protocol: str) -> None:
    news: list[News] = []
    async with ServerConnection(
        demo(EXPLORER_DEMO_CHANGE_SECONDS="0.3"), protocol=protocol, on_news=news.append
    ) as conn:
        await conn.request("resources/list", None, action="listing")  # the demo announces after a request
        await wait_until(lambda: ListChanged("resources") in news)
