"""The explorer asks for progress on its reads, prompts and list pages, and knows which request a server's
progress is about.

Before, no request carried a `progressToken`, so the Log tab's "progress of the explorer's requests" never
had any: the demo's slow roll-up, which reports each step when asked, reported none.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

from explorer.config import ServerSpec
from explorer.connection.live import News, Progress
from explorer.connection.progress_tokens import IssuedTokens, progress_description
from explorer.connection.session import ServerConnection
from explorer.connection.wire import WireLog

DEMO = ServerSpec(
    name="demo", transport="stdio", command=sys.executable, args=("-m", "explorer", "demo-server")
)
ROLLUP = "metrics://rollup"  # the demo's slow read: five steps, progress after each when asked


@pytest.mark.anyio
@pytest.mark.slow
@pytest.mark.parametrize("protocol", ["legacy", "auto"])
async def test_a_slow_read_of_the_demo_yields_progress_labelled_with_its_request(protocol: str) -> None:
    seen: list[tuple[Progress, str | None]] = []
    conn = ServerConnection(DEMO, protocol=protocol, timeout=60)

    def on_news(news: News) -> None:
        if isinstance(news, Progress):  # looked up as it arrives, as the Log tab does
            seen.append((news, conn.issued_tokens.get(news.token)))

    conn.news_handler = on_news
    async with conn:
        result = await conn.read_resource(ROLLUP)
        assert result["contents"]
        assert dict(conn.issued_tokens) == {}  # dropped when the request ended
    assert [news.progress for news, _ in seen] == [1, 2, 3, 4, 5], seen
    assert {label for _, label in seen} == {f"resources/read {ROLLUP}"}
    assert seen[-1][0].total == 5 and seen[-1][0].message is not None
    assert seen[-1][0].message.startswith("Rolled up")


@pytest.mark.anyio
async def test_list_pages_and_reads_carry_a_progress_token_on_the_wire() -> None:
    log = WireLog()
    async with ServerConnection(DEMO, protocol="legacy", timeout=60, wire=log) as conn:
        await conn.request("resources/list", None, action="listing")
        await conn.request("completion/complete", _completion(), action="completing")
    sent = {f.method: f.json() for f in log.frames if f.direction == "send" and f.kind == "request"}
    token = sent["resources/list"]["params"]["_meta"]["progressToken"]
    assert token == sent["resources/list"]["id"]  # the request's id, as the SDK makes it
    assert "progressToken" not in sent["completion/complete"]["params"].get("_meta", {})


def _completion() -> dict[str, Any]:
    return {
        "ref": {"type": "ref/resource", "uri": "metrics://{region}/{service}/latest"},
        "argument": {"name": "region", "value": "eu"},
    }


def test_what_a_token_stands_for() -> None:
    assert progress_description("resources/read", {"uri": "demo://x"}) == "resources/read demo://x"
    assert progress_description("prompts/get", {"name": "p"}) == "prompts/get p"
    assert progress_description("resources/list", {"prefix": "demo://"}) == "resources/list under demo://"
    assert progress_description("tools/list", None) == "tools/list"
    assert progress_description("completion/complete", {}) is None
    assert progress_description("resources/read", {"uri": "x", "_meta": {"progressToken": "mine"}}) is None
    tokens = IssuedTokens()
    tokens.issue(7, "resources/read demo://x")
    assert tokens.get("7") == tokens.get(7) == "resources/read demo://x"  # echoed as a string: the same
    assert tokens.get(True) is None and tokens.get(8) is None
    tokens.drop(7)
    assert len(tokens) == 0
