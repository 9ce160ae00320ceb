"""A listen stream that stayed open `STEADY_SECONDS` resets the count of ends that gives up following.

The modern-era stream is opened again after each end (`REOPEN_DELAYS`), and after more ends in a row than
there are delays, live updates stop (`FollowTrouble`). A stream that stayed open for `STEADY_SECONDS` is
no end "in a row": without the reset a server that closes its stream once an hour would stop a follow for
good after a few hours. The server (`test_follow_failures`' raw stdio one, `listen-ackend`) acknowledges
each stream, then closes it, delivering an update on each stream opened again. The follower's clock is
a fake one that says each stream stayed open `span` seconds, so no test waits a minute.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

import anyio
import pytest

import explorer.connection.live as live
from explorer.config import ServerSpec
from explorer.connection.live import FollowTrouble, News, ResourceChanged
from explorer.connection.session import ServerConnection
from tests.test_follow_failures import SERVER

pytestmark = pytest.mark.anyio

URI = "x://a/1"
DELAYS = (0.05, 0.05, 0.05)
# Updates delivered (one on each stream opened again): without the reset, following stops once the stream
# ended len(DELAYS) + 1 times, after len(DELAYS) updates.
STREAMS_PAST_GIVING_UP = 2 * len(DELAYS)


def _clock(span: float) -> types.SimpleNamespace:
    """`time` for the follower: each reading `span` seconds after the one before (one reading when a
    stream opens, one when it ends)."""
    readings = iter(range(1_000_000))
    return types.SimpleNamespace(monotonic=lambda: next(readings) * span)


async def _follow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, span: float) -> list[News]:
    """Follow `URI` while each stream stays open `span` seconds: the news until live updates stopped, or
    until more streams were opened again than the follower would open without a reset."""
    monkeypatch.setattr(live, "REOPEN_DELAYS", DELAYS)
    monkeypatch.setattr(live, "time", _clock(span))
    script = tmp_path / "follow_server.py"
    script.write_text(SERVER)
    args = (str(script), "listen-ackend")
    spec = ServerSpec(name="fs", transport="stdio", command=sys.executable, args=args)
    news: list[News] = []
    done = anyio.Event()

    def on_news(item: News) -> None:
        news.append(item)
        updates = sum(1 for n in news if isinstance(n, ResourceChanged))
        if isinstance(item, FollowTrouble) or updates >= STREAMS_PAST_GIVING_UP:
            done.set()

    async with ServerConnection(spec, timeout=10, on_news=on_news) as conn:
        assert await conn.follow(URI)
        with anyio.fail_after(60):
            await done.wait()
    return news


async def test_streams_that_stayed_open_steady_seconds_never_stop_following(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    news = await _follow(tmp_path, monkeypatch, span=live.STEADY_SECONDS)
    assert not [n for n in news if isinstance(n, FollowTrouble)]
    assert news.count(ResourceChanged(URI)) >= STREAMS_PAST_GIVING_UP


async def test_streams_that_ended_sooner_stop_following_after_the_reopen_delays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    news = await _follow(tmp_path, monkeypatch, span=live.STEADY_SECONDS / 2)
    [trouble] = [n for n in news if isinstance(n, FollowTrouble)]
    assert "the server's change stream ended 4 times in a row" in trouble.message
