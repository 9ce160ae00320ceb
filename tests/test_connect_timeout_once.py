"""A server that answers nothing while connecting costs the waits the message names, with one server.

Before, `--protocol legacy` and a pinned `2026-07-28` took a timeout for a sign of the wrong era and
started a second server process in the other era, which waited a full `--timeout` again; `auto` waited
for `server/discover` and then for `initialize` but named one wait; over HTTP a server that refused
`server/discover` and then never answered `initialize` was sent `initialize` a second time.
"""

from __future__ import annotations

import shlex
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from explorer import sdk_door
from explorer.config import ServerSpec
from explorer.connection.errors import ServerFault
from explorer.connection.session import ServerConnection
from tests.helpers.cli import run_cli
from tests.helpers.loopback_http import JsonRpcHandler, served
from tests.helpers.paths import FIXTURES

pytestmark = pytest.mark.slow

HANG_GUARD = 120.0  # only stops a run that would hang for good

# Appends its process id to the file named first, then becomes the raw fixture server with the rest.
LAUNCHER = """\
import os, sys
with open(sys.argv[1], "a") as starts:
    starts.write(f"{os.getpid()}\\n")
os.execv(sys.executable, [sys.executable, *sys.argv[2:]])
"""


def counted_server(tmp_path: Path, *words: str) -> tuple[list[str], Path]:
    """The command line of the raw fixture server with `words`, started through a launcher that counts
    its starts in the file returned."""
    launcher = tmp_path / "launcher.py"
    launcher.write_text(LAUNCHER)
    starts = tmp_path / "starts.txt"
    starts.write_text("")
    return [sys.executable, str(launcher), str(starts), str(FIXTURES / "raw_server.py"), *words], starts


def started(starts: Path) -> int:
    return len(starts.read_text().split())


@pytest.mark.parametrize(
    ("protocol", "said"),
    [
        (
            "legacy",
            "connecting: the server did not answer after 1 s (timeout; --timeout SECONDS waits longer)",
        ),
        (
            "2026-07-28",
            "connecting: the server did not answer server/discover after 1 s (timeout; --timeout SECONDS "
            "waits longer); if it speaks only "
            "the handshake era, use --protocol auto or --protocol legacy",
        ),
        (
            "auto",
            "connecting: the server answered neither server/discover nor initialize "
            "(waited 1 s for each, 2 s in all; --timeout SECONDS waits longer)",
        ),
    ],
)
def test_a_server_silent_at_connect_fails_once_with_one_process(
    tmp_path: Path, protocol: str, said: str
) -> None:
    words, starts = counted_server(tmp_path, "--mode", "hang-init")
    result = run_cli(
        "servers", "--protocol", protocol, "--timeout", "1", "-s", shlex.join(words), timeout=HANG_GUARD
    )
    assert result.code == 1, result
    assert f"error: server launcher.py: {said}\n" in result.stderr, result
    assert "speaks only 2025-11-25" not in result.stderr and "speaks only 2026-07-28" not in result.stderr
    assert started(starts) == 1, starts.read_text()


@pytest.mark.anyio
async def test_auto_names_both_waits_when_they_differ(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SDK's probe waits at most its own time (10 s; 0.5 s here), less than a longer `--timeout`."""
    import mcp.client.session as sdk_session

    monkeypatch.setattr(sdk_session, "DISCOVER_TIMEOUT_SECONDS", sdk_session.DISCOVER_TIMEOUT_SECONDS)
    monkeypatch.setattr(sdk_door, "_sdk_discover_timeout", 0.5)
    words, starts = counted_server(tmp_path, "--mode", "hang-init")
    spec = ServerSpec(name="silent", transport="stdio", command=words[0], args=tuple(words[1:]))
    with pytest.raises(ServerFault) as caught:
        async with ServerConnection(spec, timeout=1.0):
            pass
    assert caught.value.message == (
        "connecting: the server answered neither server/discover nor initialize "
        "(waited 0.5 s for server/discover and 1 s for initialize, 1.5 s in all; "
        "--timeout SECONDS waits longer)"
    )
    with pytest.raises(ServerFault) as pinned:
        async with ServerConnection(spec, protocol="2026-07-28", timeout=1.0):
            pass
    assert pinned.value.message.startswith(
        "connecting: the server did not answer server/discover after 0.5 s (timeout); "
    )
    assert started(starts) == 2  # one per connection: no second one in the other era


class _SilentOnInitialize(JsonRpcHandler):
    """Refuses `server/discover` at once (-32601, as a handshake server does) and leaves `initialize`
    unanswered until the test ends; counts the `initialize` requests it got."""

    stop = threading.Event()
    initializes: ClassVar[list[int]] = []

    def answer(self, method: str, message: dict[str, Any]) -> None:
        if method == "initialize":
            self.initializes.append(1)
            self.stop.wait(HANG_GUARD)
        else:
            super().answer(method, message)


@pytest.fixture
def silent_on_initialize() -> Iterator[str]:
    _SilentOnInitialize.initializes.clear()
    _SilentOnInitialize.stop.clear()
    yield from served(_SilentOnInitialize, stopping=_SilentOnInitialize.stop.set)


def test_http_initialize_that_went_unanswered_is_not_sent_again(silent_on_initialize: str) -> None:
    result = run_cli("servers", "--timeout", "1", "-s", silent_on_initialize, timeout=HANG_GUARD)
    assert result.code == 1, result
    assert "connecting: the server did not answer" in result.stderr, result
    assert "1 s" in result.stderr and "server/discover" not in result.stderr, result
    assert _SilentOnInitialize.initializes == [1]
