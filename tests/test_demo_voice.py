"""The demo server's voice: log messages (notifications/message) and progress, in both protocol eras."""

from __future__ import annotations

import json
import warnings
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import Client, MCPError
from mcp.server.subscriptions import ResourcesListChanged

from explorer.demo import contents
from explorer.demo.server import INSTRUCTIONS, build_server
from tests.test_demo_prefix import raw_demo

pytestmark = pytest.mark.anyio

INDEX = "file:///workspace/tidewater/data/stations/index.json"  # about 31 kB: a "large" read
LATEST = "metrics://{region}/{service}/latest"
MARKER = "docs://no-such-doc"  # reading it logs a warning: a marker that earlier entries had their chance


class Logs:
    """A logging_callback that records entries and lets a test wait for one."""

    def __init__(self) -> None:
        self.entries: list[types.LoggingMessageNotificationParams] = []
        self._arrived = anyio.Event()

    async def callback(self, params: types.LoggingMessageNotificationParams) -> None:
        self.entries.append(params)
        self._arrived.set()
        self._arrived = anyio.Event()

    async def wait_for(
        self, predicate: Callable[[types.LoggingMessageNotificationParams], bool], within: float = 5.0
    ) -> types.LoggingMessageNotificationParams:
        with anyio.fail_after(within):
            while True:
                found = next((e for e in self.entries if predicate(e)), None)
                if found is not None:
                    return found
                await self._arrived.wait()

    def messages(self) -> list[tuple[str, str | None, str]]:
        return [(e.level, e.logger, e.data["message"]) for e in self.entries]


@asynccontextmanager
async def connect(mode: str, logs: Logs, **options: Any) -> AsyncIterator[Client]:
    server = build_server(
        change_seconds=options.pop("change_seconds", 0), rollup_step_seconds=options.pop("step", 0.01)
    )
    async with Client(server, mode=mode, cache=None, logging_callback=logs.callback, **options) as client:
        yield client


async def read_marker(client: Client, logs: Logs) -> None:
    with pytest.raises(MCPError):
        await client.read_resource(MARKER)
    await logs.wait_for(lambda e: e.data.get("uri") == MARKER)


async def complete_region(client: Client) -> types.CompleteResult:
    ref = types.ResourceTemplateReference(uri=LATEST)
    return await client.complete(ref, {"name": "region", "value": "eu"})


async def set_level(client: Client, level: types.LoggingLevel) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MCPDeprecationWarning: logging is deprecated in 2026-07-28
        await client.set_logging_level(level)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_logging_capability_is_declared(mode: str) -> None:
    async with connect(mode, Logs()) as client:
        assert client.server_capabilities.logging is not None


# --- handshake era ----------------------------------------------------------------------------------------


async def test_handshake_era_logs_at_info_until_set_level() -> None:
    logs = Logs()
    async with connect("legacy", logs) as client:
        result = await complete_region(client)
        completed = await logs.wait_for(lambda e: e.logger == "demo.completions")
        await client.read_resource(INDEX)  # a debug entry: below the default level
        await read_marker(client, logs)
        assert [level for level, _, _ in logs.messages()] == ["info", "warning"]

        await set_level(client, "debug")
        await client.read_resource(INDEX)
        large = await logs.wait_for(lambda e: e.level == "debug")
    assert completed.level == "info"
    assert completed.data == {
        "message": f"Completed region of {LATEST}: 2 of 2 values",
        "ref": LATEST,
        "argument": "region",
        "typed": "eu",
        "values": 2,
        "total": 2,
    }
    assert result.completion.values == ["eu-north", "eu-west"]
    assert (large.logger, large.data["uri"]) == ("demo.resources", INDEX) and large.data["bytes"] > 16 * 1024
    assert large.data["message"] == f"Read {INDEX}: {large.data['bytes']:,} bytes"


async def test_handshake_era_honours_a_higher_level() -> None:
    logs = Logs()
    async with connect("legacy", logs) as client:
        await set_level(client, "warning")
        await complete_region(client)  # info: not sent any more
        await read_marker(client, logs)
        with pytest.raises(MCPError):
            await client.list_resources(cursor="not a cursor")
        rejected = await logs.wait_for(lambda e: e.logger == "demo.listing")
    assert logs.messages() == [
        ("warning", "demo.resources", f"resources/read: no resource at {MARKER}"),
        ("warning", "demo.listing", "resources/list: invalid cursor"),
    ]
    assert rejected.data["cursor"] == "not a cursor"


async def test_handshake_era_announces_new_inbox_notes_at_notice() -> None:
    logs = Logs()
    async with connect("legacy", logs, change_seconds=0.1) as client:
        await client.list_resources()  # the server pushes on a connection once the client has spoken
        note = await logs.wait_for(lambda e: e.logger == "demo.inbox")
        read = await client.read_resource(note.data["uri"])
    assert note.level == "notice" and note.data["uri"].startswith("docs://inbox/0001-")
    (item,) = read.contents
    assert isinstance(item, types.TextResourceContents)
    assert note.data["message"] == "New note: " + item.text.splitlines()[0].removeprefix("# ")


# --- modern era -------------------------------------------------------------------------------------------


async def test_modern_era_sends_nothing_without_the_per_request_opt_in() -> None:
    logs = Logs()
    async with connect("auto", logs) as client:
        assert client.protocol_version == "2026-07-28"
        await complete_region(client)
        await client.read_resource(INDEX)
        with pytest.raises(MCPError):
            await client.read_resource(MARKER)
        # The opt-in rides each request's _meta: this one asks, and gets its entry.
        with pytest.raises(MCPError):
            await client.session.read_resource(MARKER, meta={types.LOG_LEVEL_META_KEY: "warning"})
        await logs.wait_for(lambda e: e.data.get("uri") == MARKER)
    assert len(logs.entries) == 1


async def test_modern_era_logs_at_the_level_each_request_asks_for() -> None:
    logs = Logs()
    async with connect("auto", logs, log_level="debug") as client:
        await client.read_resource(INDEX)
        await complete_region(client)
        await read_marker(client, logs)
    assert logs.messages()[0] == ("debug", "demo.resources", f"Read {INDEX}: 31,255 bytes")
    assert [(level, name) for level, name, _ in logs.messages()] == [
        ("debug", "demo.resources"),
        ("info", "demo.completions"),
        ("warning", "demo.resources"),
    ]


async def test_modern_era_has_no_set_level() -> None:
    async with connect("auto", Logs()) as client:
        with pytest.raises(MCPError) as caught:
            await set_level(client, "debug")
    assert caught.value.code == types.METHOD_NOT_FOUND


@pytest.mark.parametrize("log_level", ["notice", None])
async def test_modern_era_announces_new_notes_on_listen_streams_that_asked(log_level: str | None) -> None:
    logs = Logs()
    async with connect("auto", logs, change_seconds=0.1, log_level=log_level) as client:
        changes = 0
        with anyio.fail_after(5):
            async with client.listen(resources_list_changed=True) as subscription:
                async for event in subscription:
                    changes += isinstance(event, ResourcesListChanged)
                    if changes == 2:  # the first note's notice, if any, was sent before the second note
                        break
    notices = [e for e in logs.entries if e.logger == "demo.inbox"]
    if log_level is None:
        assert notices == []
    else:
        assert notices and notices[0].level == "notice"
        assert notices[0].data["uri"].startswith("docs://inbox/0001-")


# --- both eras --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_failing_read_is_logged_at_error(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(uri: str, live: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(contents, "read", broken)
    logs = Logs()
    async with connect(mode, logs, log_level="debug") as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource("docs://faq")
        failed = await logs.wait_for(lambda e: e.level == "error")
    assert caught.value.code == types.INTERNAL_ERROR
    assert caught.value.message == "Internal error while reading docs://faq"
    assert (failed.logger, failed.data) == (
        "demo.resources",
        {"message": "Reading docs://faq failed: disk on fire", "uri": "docs://faq"},
    )


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_slow_rollup_reports_progress(mode: str) -> None:
    steps: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        steps.append((progress, total, message))

    logs = Logs()
    async with connect(mode, logs, log_level="info") as client:
        request = types.ReadResourceRequest(params=types.ReadResourceRequestParams(uri="metrics://rollup"))
        result = await client.session.send_request(
            request, types.ReadResourceResult, progress_callback=on_progress
        )
        done = await logs.wait_for(lambda e: e.logger == "demo.rollup")
        plain = await client.read_resource("metrics://rollup")  # no progressToken: the same answer
    assert steps == [
        (1, 5, "Rolled up ap-south"),
        (2, 5, "Rolled up eu-north"),
        (3, 5, "Rolled up eu-west"),
        (4, 5, "Rolled up us-east"),
        (5, 5, "Rolled up us-west"),
    ]
    (item,) = result.contents
    assert isinstance(item, types.TextResourceContents) and json.loads(item.text)["level"] == "global"
    assert plain.contents == result.contents
    assert done.data["message"] == "Rolled up 32 deployments in 5 regions"


def test_the_instructions_describe_the_voice() -> None:
    for words in (
        "notifications/message",
        "logging/setLevel",
        "io.modelcontextprotocol/logLevel",
        "progressToken",
    ):
        assert words in INSTRUCTIONS
    assert "metrics://rollup" in INSTRUCTIONS and "prefix" in INSTRUCTIONS


# --- over stdio, as raw JSON-RPC --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("era", ["handshake", "modern"])
async def test_log_and_progress_over_stdio(era: str) -> None:
    async with raw_demo(era) as raw:
        meta: dict[str, Any] = {"progressToken": "rollup-1"}
        if era == "handshake":
            assert "result" in await raw.request("logging/setLevel", {"level": "debug"})
        else:
            assert (await raw.request("logging/setLevel", {"level": "debug"}))["error"]["code"] == -32601
            meta[types.LOG_LEVEL_META_KEY] = "debug"
        rollup = await raw.request("resources/read", {"uri": "metrics://rollup", "_meta": meta})
        index = await raw.request("resources/read", {"uri": INDEX, "_meta": meta})
    assert "result" in rollup and "result" in index
    progress = [n["params"] for n in raw.notifications if n["method"] == "notifications/progress"]
    assert [(p["progressToken"], p["progress"], p["total"]) for p in progress] == [
        ("rollup-1", step, 5) for step in range(1, 6)
    ]
    entries = [n["params"] for n in raw.notifications if n["method"] == "notifications/message"]
    assert [(e["level"], e["logger"]) for e in entries] == [
        ("info", "demo.rollup"),
        ("debug", "demo.resources"),
    ]
    assert entries[1]["data"] == {"message": f"Read {INDEX}: 31,255 bytes", "uri": INDEX, "bytes": 31255}
