"""A reconnect (`R`) while the old connection still closes keeps the new connection usable.

`R` cancels the server's run and starts a new one at once; the old run's close is shielded and waits
for its server to exit (a second or more for one that does not stop at stdin EOF). Before, the old run's
clean-up then cleared the server's connection, which the new run had set meanwhile: the server stayed
shown connected and complete, every read said "not connected", and `R` answered "No server has failed".
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

# Lingers 1.5 s after its stdin closes, as a busy server does before it sees the EOF.
SERVER = """
import atexit, time
atexit.register(time.sleep, 1.5)
def answer(method, params):
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    if method == "resources/list":
        return {"resources": [{"uri": "a://x/1", "name": "one"}]}
    if method == "resources/read":
        return {"contents": [{"uri": params["uri"], "text": "read"}]}
    return None
"""


class _Quiet:
    """A supervisor listener that hears nothing."""

    def __getattr__(self, name: str) -> Any:
        async def nothing_async(*args: object) -> None:
            return None

        return nothing_async if name == "resource_changed" else (lambda *args: None)


@pytest.mark.slow
async def test_a_reconnect_while_the_old_connection_closes_keeps_the_new_one(tmp_path: Path) -> None:
    words = shlex.split(tiny_server(tmp_path, SERVER))
    spec = ServerSpec(name="lingering", transport="stdio", command=words[0], args=tuple(words[1:]))
    supervisor = Supervisor([spec], Settings(protocol="legacy", timeout=10, log_level=None), _Quiet())  # type: ignore[arg-type]
    status = supervisor.catalogue.servers["lingering"]
    old_ended = anyio.Event()

    async def old_run(scope: anyio.CancelScope) -> None:
        with scope:
            await supervisor.run("lingering")
        old_ended.set()

    async with anyio.create_task_group() as group:
        old = anyio.CancelScope()
        group.start_soon(old_run, old)
        with anyio.fail_after(30):  # hang guards, not speed claims
            while status.state != "ready":  # noqa: ASYNC110
                await anyio.sleep(0.05)
            old.cancel()  # `R`: the old run is cancelled and the new one starts at once
            group.start_soon(supervisor.run, "lingering")
            await old_ended.wait()
            while status.busy:  # noqa: ASYNC110
                await anyio.sleep(0.05)
        conn = supervisor.connection("lingering")
        assert conn is not None, "the old run's clean-up cleared the new connection"
        with anyio.fail_after(30):
            answer = await conn.read_resource("a://x/1")
        assert answer["contents"][0]["text"] == "read"
        assert status.error is None and status.state == "ready"
        group.cancel_scope.cancel()
