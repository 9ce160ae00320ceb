"""A server that floods notifications: past `flood.RATE` a second (after a burst of `BURST`) they are
dropped before the SDK sees them, counted, and said; lists changing are never dropped. Over stdio and
over HTTP (Streamable HTTP and legacy SSE) alike.

Before, 100,000 log entries sent ahead of a page took the SDK 11 s to get through, and the page, answered
all along, was reported as timed out; over HTTP nothing was dropped at all (30,000 entries ahead of a
page: "the server did not answer after 2 s")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from explorer.connection.errors import ProtocolProblems
from explorer.connection.flood import BURST, RATE, NotificationBudget
from tests.helpers.cli import CliResult, run_cli_patched
from tests.helpers.tiny_server import tiny_server
from tests.test_server_messages_http import NEVER, RUN_AT_MOST, Legacy, Streamable, event, log_entry, serve

# The gate's rate, lowered in the explorer's process: how fast a machine parses a flood decides whether it
# passes 2,000 a second (a busy one did not, and nothing was dropped); no machine is too slow for 5.
SLOW_GATE = "from explorer.connection import flood; flood.RATE = 5.0; flood.BURST = 50"
FLOOD = 2_000
FLOODED = "notifications faster than 5 a second (most of them 'notifications/message')"

ANSWERS = """
CAPABILITIES = {"resources": {}, "logging": {}}
NAME = "loud"
def answer(method, params):
    if method == "resources/list":
        for k in range(2000):
            send({"jsonrpc": "2.0", "method": "notifications/message",
                  "params": {"level": "info", "data": "flood %d" % k}})
        return {"resources": [{"uri": "x://quiet/one", "name": "one"}]}
    return {"resourceTemplates": []}
"""


def test_a_burst_passes_then_the_rate_holds() -> None:
    now = [0.0]
    budget = NotificationBudget(clock=lambda: now[0])
    assert all(budget.admit("notifications/message") for _ in range(BURST))
    assert not budget.admit("notifications/message")
    now[0] += 1.0
    admitted = sum(budget.admit("notifications/progress") for _ in range(int(RATE) * 2))
    assert admitted == int(RATE)


def test_lists_changing_and_resources_updated_are_never_dropped() -> None:
    budget = NotificationBudget(clock=lambda: 0.0)
    for _ in range(BURST + 5):
        budget.admit("notifications/message")
    assert budget.admit("notifications/resources/list_changed")
    assert budget.admit("notifications/resources/updated")
    assert not budget.admit("notifications/message")


def test_what_was_dropped_is_said_by_its_commonest_method() -> None:
    problems = ProtocolProblems()
    for _ in range(3):
        problems.dropped_notification("notifications/message")
    problems.dropped_notification("notifications/progress")
    assert problems.describe() == (
        "sent 4 notifications faster than 2,000 a second (most of them 'notifications/message'), "
        "which the explorer dropped"
    )


@pytest.mark.slow
def test_a_flood_before_a_page_is_dropped_and_said_and_the_page_listed(tmp_path: Path) -> None:
    result = run_cli_patched(SLOW_GATE, "tree", "--timeout", "60", "-s", tiny_server(tmp_path, ANSWERS))
    assert result.code == 0, result
    assert "x://quiet" in result.stdout
    assert FLOODED in result.stderr, result


def explore(handler: type[Streamable] | type[Legacy], *args: str) -> CliResult:
    """The CLI, its gate slowed (`SLOW_GATE`), against the handler's server (`--sse` for a legacy one)."""
    for url in serve(handler):
        sse = ["--sse"] if issubclass(handler, Legacy) else []
        result = run_cli_patched(SLOW_GATE, *args, *sse, "--timeout", NEVER, "-s", url, timeout=RUN_AT_MOST)
        assert "Traceback" not in result.stderr, result
        return result
    raise AssertionError("not served")


def _flood() -> bytes:
    return b"".join(event(log_entry({"level": "info", "data": f"flood {k}"})) for k in range(FLOOD))


class _FloodsBeforeThePage(Streamable):
    def before(self, message: dict[str, Any]) -> bytes:
        return _flood() if message["method"] == "resources/list" else b""


class _FloodsBeforeThePageOverSse(Legacy):
    def before(self, message: dict[str, Any]) -> bytes:
        return _flood() if message["method"] == "resources/list" else b""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("handler", "listed"),
    [(_FloodsBeforeThePage, "x://h/one"), (_FloodsBeforeThePageOverSse, "x://sse/one")],
    ids=["streamable-http", "legacy-sse"],
)
def test_an_http_flood_before_a_page_is_dropped_and_said_and_the_page_listed(
    handler: type[Streamable] | type[Legacy], listed: str
) -> None:
    result = explore(handler, "tree")
    assert result.code == 0, result
    assert listed in result.stdout
    assert FLOODED in result.stderr, result
