"""`resources/updated` for resources nobody follows is counted, not acted on.

Before, each of 20,000 updates for distinct, never-subscribed URIs was marked "changed" in the tree and got
a coalesced job of its own that redrew every mark: the loop ran at 100% and the server's prompt answer to
`resources/list` was reported as "did not answer after 30 s (timeout)". Now such an update is counted (the
server's overview says how many) and nothing is kept per URI.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from textual.widgets import Static

from explorer.config import ServerSpec
from explorer.connection.live import ResourceChanged
from explorer.connection.pacing import Coalescer
from explorer.connection.supervisor import Settings, Supervisor
from explorer.screens.server_overview import ServerOverview
from tests.app_helpers import main_screen, make_app, stdio_spec, wait_for, wait_settled
from tests.helpers.tiny_server import tiny_server

pytestmark = pytest.mark.anyio

UPDATES = 20_000

# 20,000 updates for distinct URIs nobody subscribed to, then the answer to resources/list.
SERVER = """
CAPABILITIES = {"resources": {"subscribe": True}}
NAME = "updates"
def answer(method, params):
    if method == "resources/list":
        for k in range(20000):
            send({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                  "params": {"uri": "file:///flood/%d" % k}})
        return {"resources": [{"uri": "file:///quiet/one.txt", "name": "one"}]}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    return {}
"""


@pytest.mark.slow
async def test_updates_for_resources_nobody_follows_leave_the_listing_on_time(tmp_path: Path) -> None:
    # The request timeout is a hang guard: a busy machine took over 10 s to validate 20,000 notifications
    # in the SDK. What the fix changed (nothing kept or done per URI) is counted below and in the next test.
    app = make_app(stdio_spec("updates", tiny_server(tmp_path, SERVER)), timeout=120.0)
    async with app.run_test() as pilot:
        await wait_settled(pilot, app, timeout=300)  # a hang guard, not a speed claim
        screen = main_screen(app)
        status = screen.catalogue.servers["updates"]
        said = [n.message for n in app._notifications]
        assert status.state == "ready", (status.state, status.error, said)
        assert not any("did not answer" in message for message in said), said
        assert status.listing is not None and [r.uri for r in status.listing.resources] == [
            "file:///quiet/one.txt"
        ]
        supervisor = screen.supervisor
        await wait_for(pilot, lambda: supervisor.unfollowed_updates("updates") == UPDATES, timeout=60)
        assert not supervisor.changed  # nothing marked "changed" in the tree
        screen.show_overview("updates")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerOverview))
        await wait_for(pilot, lambda: bool(app.screen.query("#overview-text")))
        shown = str(app.screen.query_one("#overview-text", Static).render())
        assert "Updates for resources not followed: 20,000" in shown


class Quiet:
    """A listener that hears nothing."""

    def __getattr__(self, name: str) -> Any:
        async def async_noop(*args: object) -> None:
            return None

        return async_noop if name == "resource_changed" else (lambda *args: None)


def test_updates_for_resources_not_followed_keep_nothing_per_uri() -> None:
    spec = ServerSpec(name="s", transport="stdio", command="true")
    supervisor = Supervisor([spec], Settings(), Quiet())
    for k in range(UPDATES):
        supervisor._news("s", ResourceChanged(f"file:///flood/{k}"))
    assert supervisor.unfollowed_updates("s") == UPDATES
    assert supervisor.changed == set()
    assert supervisor._coalescer.remembered == 0


async def test_the_coalescers_start_times_stay_bounded_over_many_keys() -> None:
    now = [0.0]
    coalescer = Coalescer(min_interval=0.5, clock=lambda: now[0])

    async def job() -> None:
        now[0] += 1.0  # each job starts a second after the one before: no start constrains the next

    async with anyio.create_task_group() as group:

        def spawn(work: Callable[[], Awaitable[None]]) -> None:
            async def go() -> None:
                await work()

            group.start_soon(go)

        for k in range(UPDATES):
            coalescer.trigger(("s", f"file:///followed/{k}"), job, spawn)
            await anyio.lowlevel.checkpoint()
            assert coalescer.remembered <= 128
    assert not coalescer.busy(("s", "file:///followed/0"))
