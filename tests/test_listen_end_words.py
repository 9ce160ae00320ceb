"""Why a change stream ended is said in words, never as a library's class name.

An exception with no text of its own (the streams' `ClosedResourceError`, `EndOfStream`) used to be said by
its class: "the server's change stream ended (ClosedResourceError); opening it again".
"""

from __future__ import annotations

import sys
from types import SimpleNamespace
from typing import Any

import anyio
import pytest

from explorer.config import ServerSpec
from explorer.connection.live import Follower


def _follower(**spec: Any) -> Follower:
    server = ServerSpec(name="fs", transport="stdio", command=sys.executable, args=("server.py",), **spec)
    conn: Any = SimpleNamespace(timeout=5.0, spec=server)
    return Follower(conn, lambda news: None)


@pytest.mark.parametrize(
    "exc", [anyio.ClosedResourceError(), anyio.BrokenResourceError(), anyio.EndOfStream()]
)
def test_a_stream_that_broke_without_words_is_said_in_words(exc: Exception) -> None:
    said = _follower()._ended_reason(exc)
    assert said == "the connection to the server broke (did it exit?)"
    assert type(exc).__name__ not in said


def test_a_server_error_keeps_its_words_without_the_action() -> None:
    from mcp import MCPError

    said = _follower()._ended_reason(MCPError(-32603, "listen store unavailable"))
    assert said == "the server answered error -32603: listen store unavailable"
