"""The supervisor's side of a big listing: progress per server, stopping early, the collector told.

Against `benchmarks/fixture_server.py` over real stdio, slowed per page so there is time to look.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from explorer.config import ListingBounds, ServerSpec
from explorer.connection.supervisor import Settings, Supervisor
from explorer.model.listing import INTERRUPTED
from tests.helpers.paths import ROOT

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

FIXTURE = ROOT / "benchmarks" / "fixture_server.py"


class Listener:
    """Records what the supervisor says; everything else is a no-op."""

    def __init__(self) -> None:
        self.finished: list[tuple[str, bool]] = []

    def listing_finished(self, name: str, listing: Any, was_refresh: bool) -> None:
        self.finished.append((name, listing.complete))

    def __getattr__(self, name: str) -> Any:
        async def async_noop(*args: object) -> None:
            return None

        if name == "resource_changed":
            return async_noop
        return lambda *args: None


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """The supervisor freezes the heap after each page; leave the process as it was found."""
    yield
    gc.unfreeze()


def spec(count: int, delay: float) -> ServerSpec:
    return ServerSpec(
        name="fixture",
        transport="stdio",
        command=sys.executable,
        args=(str(FIXTURE), "--count", str(count), "--page", "100", "--delay", str(delay)),
    )


async def wait_for(check: Any, seconds: float = 30.0) -> None:
    with anyio.fail_after(seconds):
        while not check():  # noqa: ASYNC110  # state another task changes, no event to wait on
            await anyio.sleep(0.02)


async def test_a_listing_shows_progress_can_be_stopped_and_continued(unfrozen: None) -> None:
    listener = Listener()
    bounds = ListingBounds(max_items=50_000, max_pages=900)
    supervisor = Supervisor([spec(3000, 0.05)], Settings(bounds=bounds, log_level=None), listener)  # type: ignore[arg-type]
    frozen_before = gc.get_freeze_count()

    async with anyio.create_task_group() as group:
        group.start_soon(supervisor.run, "fixture")
        await wait_for(lambda: (p := supervisor.progress("fixture")) is not None and p.items >= 500)

        running = supervisor.progress("fixture")
        assert running is not None and running.running and running.kind == "resources"
        assert running.server == "fixture" and running.kind_pages >= 5 and running.rate > 0
        assert "stops at 50,000 items or 900 pages per list" in running.text()
        assert gc.get_freeze_count() > frozen_before  # each merged page was frozen out of the collector

        assert supervisor.stop_listing("fixture")
        await wait_for(lambda: listener.finished)
        status = supervisor.catalogue.servers["fixture"]
        assert status.state == "incomplete" and status.listing is not None
        assert status.listing.stopped_by == INTERRUPTED
        kept = status.listing.count("resources")
        assert 500 <= kept < 3000 and supervisor.catalogue.tree.root.resource_count == kept
        assert status.progress_text().endswith("incomplete (stopped)")
        stopped = supervisor.progress("fixture")
        assert stopped is not None and not stopped.running and stopped.items == kept + 2  # + 2 templates
        assert not supervisor.stop_listing("fixture")  # nothing runs now

        assert supervisor.continue_listing("fixture")
        await wait_for(lambda: len(listener.finished) == 2)
        assert status.state == "ready" and status.listing.count("resources") == 3000
        assert supervisor.catalogue.tree.root.resource_count == 3000
        group.cancel_scope.cancel()
