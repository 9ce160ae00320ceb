"""A prompts or tools change announced while the first listing runs is not lost, nor listed twice.

The server below answers its first `prompts/list` with one prompt, then, while the listing is still
busy with resources, announces that its prompts changed: a second prompt exists. Before, the re-list
was swapped into the listing the first traversal was still filling (or dropped): what the user saw
depended on which finished last.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import anyio
import pytest

from explorer.config import ServerSpec
from explorer.connection.supervisor import Settings, Supervisor
from tests.helpers.tiny_server import tiny_server

pytestmark = pytest.mark.anyio

SERVER = """
import time
CAPABILITIES = {"resources": {}, "prompts": {"listChanged": True}, "tools": {"listChanged": True}}
NAME = "changing"
STATE = {"prompts": 0, "tools": 0, "changed": False, "traversals": 0}
import sys
AT = int(sys.argv[1])  # the traversal (1: the first listing, 2: the refresh) during which prompts change
def answer(method, params):
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    if method == "prompts/list":
        STATE["prompts"] += 1
        names = ["p1", "p2"] if STATE["changed"] else ["p1"]
        return {"prompts": [{"name": n, "arguments": []} for n in names]}
    if method == "tools/list":
        STATE["tools"] += 1
        names = ["t1", "t2"] if STATE["changed"] else ["t1"]
        return {"tools": [{"name": n, "inputSchema": {"type": "object"}} for n in names]}
    if method == "resources/list":
        cursor = params.get("cursor")
        page = int(cursor) if cursor else 0
        if page == 0:
            STATE["traversals"] += 1
        if page == 0 and STATE["traversals"] == 1 and AT == 2:
            send({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"})  # a refresh next
        if page == 0 and STATE["traversals"] == AT:
            STATE["changed"] = True
            send({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"})
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        time.sleep(0.2)  # the listing is still busy when the re-lists are asked for
        result = {"resources": [{"uri": f"r://{page}/{i}", "name": str(i)} for i in range(3)]}
        if page < 4:
            result["nextCursor"] = str(page + 1)
        return result
    return None
"""


class _Counting:
    """A supervisor listener that counts the listings that ended and hears nothing else."""

    def __init__(self) -> None:
        self.finished = 0

    def listing_finished(self, *args: object) -> None:
        self.finished += 1

    def __getattr__(self, name: str) -> Any:
        async def nothing_async(*args: object) -> None:
            return None

        return nothing_async if name == "resource_changed" else (lambda *args: None)


@pytest.mark.slow
@pytest.mark.parametrize("traversal", [1, 2], ids=["first-listing", "refresh"])
async def test_a_change_announced_during_a_listing_is_kept_after_it(tmp_path: Path, traversal: int) -> None:
    words = shlex.split(tiny_server(tmp_path, SERVER, str(traversal)))
    spec = ServerSpec(name="changing", transport="stdio", command=words[0], args=tuple(words[1:]))
    listener = _Counting()
    supervisor = Supervisor([spec], Settings(protocol="legacy", timeout=10, log_level=None), listener)  # type: ignore[arg-type]
    status = supervisor.catalogue.servers["changing"]

    def names() -> tuple[list[str], list[str]]:
        listing = status.listing
        if listing is None:
            return [], []
        return [p.name for p in listing.prompts], [t.name for t in listing.tools]

    async with anyio.create_task_group() as group:
        group.start_soon(supervisor.run, "changing")
        with anyio.fail_after(30):  # a hang guard, not a speed claim
            while listener.finished < traversal or status.busy:  # noqa: ASYNC110
                await anyio.sleep(0.05)
        # The re-lists the announcements asked for come after the listing: wait for them (a hang guard;
        # before the fix they never came, and what the refresh listed before the change stayed).
        with anyio.move_on_after(30):
            while names() != (["p1", "p2"], ["t1", "t2"]):  # noqa: ASYNC110
                await anyio.sleep(0.05)
        assert names() == (["p1", "p2"], ["t1", "t2"])
        assert status.listing is not None and status.listing.state["prompts"].complete
        group.cancel_scope.cancel()
