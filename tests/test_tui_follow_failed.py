"""In the TUI, a follow the server refuses is said in a notification, with the server's reason, and nothing
claims it is followed.

The server is `test_follow_failures`' raw stdio one: in the modern era (2026-07-28) it refuses
`subscriptions/listen`, in the handshake era `resources/subscribe` (both -32601). The user highlights its
one resource and presses `s` (Follow).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from explorer.config import ServerSpec
from tests.app_helpers import main_screen, settled_app, tree_lines, wait_for
from tests.test_follow_failures import SERVER

pytestmark = pytest.mark.anyio

URI = "x://a/1"
REFUSED = "the server answered error -32601: Method not found"


@pytest.mark.parametrize(
    ("modes", "reason"),
    [
        (("listen-error",), f"listening for changes (subscriptions/listen): {REFUSED}"),
        (("legacy", "sub-refuse"), f"subscribing to {URI}: {REFUSED}"),
    ],
    ids=["modern-listen-refused", "handshake-subscribe-refused"],
)
async def test_a_refused_follow_is_said_with_the_reason_and_not_marked(
    tmp_path: Path, modes: tuple[str, ...], reason: str
) -> None:
    script = tmp_path / "follow_server.py"
    script.write_text(SERVER)
    spec = ServerSpec(name="fs", transport="stdio", command=sys.executable, args=(str(script), *modes))
    async with settled_app(spec) as (app, pilot):
        screen = main_screen(app)
        assert screen.catalogue.servers["fs"].state == "ready"
        screen.tree_widget.select_prefix(URI)
        assert screen.highlighted_resource() == ("fs", URI)
        await pilot.press("s")

        def told() -> list[str]:
            return [n.message for n in app._notifications if "follow" in n.message.lower()]

        await wait_for(pilot, lambda: bool(told()))
        await wait_for(pilot, lambda: all(w.is_finished for w in screen.workers if w.group == "follow"))
        assert told() == [f"fs: cannot follow {URI}: {reason}"]
        assert ("fs", URI) not in screen.supervisor.pinned
        assert not any("following" in line for line in tree_lines(app))
