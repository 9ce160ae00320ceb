"""ServerConnection against real stdio servers: the raw fixture (handshake era) and the demo server.

Each test starts its own subprocess, exactly as users run servers; failures must come out as one
`ServerFault` sentence, never a raw SDK exception.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import anyio
import pytest

from explorer.config import ServerSpec
from explorer.connection.errors import ServerFault
from explorer.connection.session import ServerConnection
from tests.fixtures.raw_server import HOSTILE
from tests.helpers.paths import FIXTURES

pytestmark = pytest.mark.anyio

RAW = str(FIXTURES / "raw_server.py")


def raw_spec(*modes: str, **options: object) -> ServerSpec:
    args = [RAW]
    for mode in modes:
        args += ["--mode", mode]
    for key, value in options.items():
        args += ["--" + key.replace("_", "-"), str(value)]
    return ServerSpec(name="raw", transport="stdio", command=sys.executable, args=tuple(args))


def demo_spec() -> ServerSpec:
    return ServerSpec(
        name="demo", transport="stdio", command=sys.executable, args=("-m", "explorer", "demo-server")
    )


# A raw fixture whose items and pages carry fields no MCP version defines (the fixture is reused as is).
VENDOR_SERVER = f"""
import sys
sys.path.insert(0, {str(FIXTURES)!r})
import raw_server
plain_resource = raw_server.Server.resource
plain_result = raw_server.Server.result
def resource(self, index):
    return {{**plain_resource(self, index), "x-vendor": {{"rank": index}}, "_meta": {{"k": "v"}}}}
def result(self, msg_id, result):
    if "resources" in result:
        result = {{**result, "x-page-note": "unknown page field"}}
    plain_result(self, msg_id, result)
raw_server.Server.resource = resource
raw_server.Server.result = result
sys.argv = ["raw_server", "--resources", "3"]
raw_server.main()
"""


# ------------------------------------------------------------------------------------------ identity


async def test_identity_of_a_handshake_era_server(tmp_path: Path) -> None:
    async with ServerConnection(raw_spec("plain"), stderr_log=tmp_path / "raw.log") as conn:
        identity = conn.identity
        assert identity is not None
        assert conn.name == "raw"
        assert identity.name == "raw-fixture"
        assert identity.version == "1.0"
        assert identity.protocol_version == "2025-11-25"
        assert identity.era == "handshake"
        assert identity.capabilities == {"resources": {}, "prompts": {}}
        assert identity.has("resources") and identity.has("prompts")
        assert not identity.has("completions")
        assert identity.instructions == "A fixture."


@pytest.mark.slow
async def test_demo_server_in_auto_mode_speaks_the_modern_era() -> None:
    async with ServerConnection(demo_spec(), protocol="auto") as conn:
        identity = conn.identity
        assert identity is not None
        assert identity.era == "modern"
        assert identity.protocol_version == "2026-07-28"
        assert identity.name == "mcp-url-explorer-demo"
        assert identity.has("resources") and identity.has("prompts") and identity.has("completions")
        page = await conn.request("resources/list", None, action="listing resources")
        assert isinstance(page["resources"], list) and page["resources"]
        assert isinstance(page.get("nextCursor"), str)


@pytest.mark.slow
async def test_demo_server_in_legacy_mode_uses_the_handshake() -> None:
    async with ServerConnection(demo_spec(), protocol="legacy") as conn:
        identity = conn.identity
        assert identity is not None
        assert identity.era == "handshake"
        assert identity.protocol_version == "2025-11-25"
        assert identity.name == "mcp-url-explorer-demo"
        assert identity.has("completions")


@pytest.mark.slow
async def test_a_pinned_modern_version_still_learns_who_the_server_is() -> None:
    async with ServerConnection(demo_spec(), protocol="2026-07-28") as conn:
        identity = conn.identity
        assert identity is not None
        assert identity.era == "modern"
        assert identity.name == "mcp-url-explorer-demo"
        assert identity.has("prompts")


# ------------------------------------------------------------------------------------------ requests


async def test_request_returns_the_raw_result_with_unknown_fields(tmp_path: Path) -> None:
    spec = ServerSpec(name="vendor", transport="stdio", command=sys.executable, args=("-c", VENDOR_SERVER))
    async with ServerConnection(spec, stderr_log=tmp_path / "vendor.log") as conn:
        raw = await conn.request("resources/list", None, action="listing resources")

    assert raw["x-page-note"] == "unknown page field"
    assert raw["resources"][0] == {
        "uri": "fixture://items/0/item-0",
        "name": "item 0",
        "mimeType": "text/plain",
        "x-vendor": {"rank": 0},
        "_meta": {"k": "v"},
    }
    assert "nextCursor" not in raw  # nothing the server did not send is added


async def test_request_sends_the_cursor_and_keeps_hostile_strings_byte_exact(tmp_path: Path) -> None:
    async with ServerConnection(raw_spec("hostile"), stderr_log=tmp_path / "raw.log") as conn:
        first = await conn.request("resources/list", None, action="listing resources")
        second = await conn.request(
            "resources/list", {"cursor": first["nextCursor"]}, action="listing resources"
        )

    assert first["nextCursor"] == "100"
    assert first["resources"][0]["name"] == HOSTILE  # sanitizing is the caller's job, at display time
    assert second["resources"][0]["uri"].startswith("fixture://hostile/100/")
    assert "nextCursor" in second


async def test_read_resource_returns_contents(tmp_path: Path) -> None:
    async with ServerConnection(raw_spec("plain"), stderr_log=tmp_path / "raw.log") as conn:
        raw = await conn.read_resource("fixture://items/0/item-0")

    assert raw["contents"] == [
        {
            "uri": "fixture://items/0/item-0",
            "mimeType": "text/plain",
            "text": "contents of fixture://items/0/item-0\nplain text",
        }
    ]


async def test_read_errors_are_server_faults_with_the_code(tmp_path: Path) -> None:
    async with ServerConnection(raw_spec("read-errors"), stderr_log=tmp_path / "raw.log") as conn:
        with pytest.raises(ServerFault) as not_found:
            await conn.read_resource("nope://missing")
        with pytest.raises(ServerFault) as internal:
            await conn.read_resource("err://-32603")
        # The connection survives a failed read.
        assert (await conn.read_resource("fixture://items/0/item-1"))["contents"]

    assert not_found.value.code == -32002
    assert not_found.value.data == {"uri": "nope://missing"}
    assert "nope://missing" in not_found.value.message and "-32002" in not_found.value.message
    assert internal.value.code == -32603
    assert "read failed with code -32603" in internal.value.message


async def test_prompts_are_listed_and_fetched(tmp_path: Path) -> None:
    async with ServerConnection(raw_spec("plain"), stderr_log=tmp_path / "raw.log") as conn:
        prompts = await conn.list_prompts()
        result = await conn.get_prompt("greet", {"who": "Ada"})
        with pytest.raises(ServerFault) as missing:
            await conn.get_prompt("greet", {})
        with pytest.raises(ServerFault) as unknown:
            await conn.get_prompt("nope", {"who": "Ada"})

    assert [p["name"] for p in prompts] == ["greet"]
    assert prompts[0]["arguments"] == [{"name": "who", "required": True}]
    assert result["messages"] == [{"role": "user", "content": {"type": "text", "text": "Hello Ada"}}]
    assert "missing argument: who" in missing.value.message
    assert unknown.value.code == -32602
    assert "nope" in unknown.value.message


async def test_a_connection_not_entered_refuses_requests() -> None:
    conn = ServerConnection(raw_spec("plain"))

    with pytest.raises(ServerFault, match="raw: not connected"):
        await conn.request("resources/list", None, action="listing resources")
    assert conn.identity is None


# ------------------------------------------------------------------------------------------ failures


async def test_a_missing_command_is_command_not_found(tmp_path: Path) -> None:
    spec = ServerSpec(name="ghost", transport="stdio", command="mcp-url-explorer-no-such-command-42")

    with pytest.raises(ServerFault) as info:
        async with ServerConnection(spec, stderr_log=tmp_path / "ghost.log"):
            pass

    assert "command not found" in info.value.message
    assert "mcp-url-explorer-no-such-command-42" in info.value.message
    assert "Traceback" not in info.value.message


async def test_a_server_exiting_at_start_names_its_last_stderr_line(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "dying.log"  # the folder does not exist yet
    conn = ServerConnection(raw_spec("exit-at-start"), stderr_log=log)

    with pytest.raises(ServerFault) as info:
        async with conn:
            pass

    assert info.value.message.startswith("connecting: ")
    assert "fatal: could not open the database (fixture)" in info.value.message
    assert "fatal: could not open the database (fixture)" in conn.stderr_tail()
    assert "\n" not in info.value.message


async def test_a_server_exiting_mid_listing_names_its_last_stderr_line(tmp_path: Path) -> None:
    async with ServerConnection(raw_spec("exit-mid-list"), stderr_log=tmp_path / "raw.log") as conn:
        await conn.request("resources/list", None, action="listing resources")
        with pytest.raises(ServerFault) as info:
            await conn.request("resources/list", {"cursor": "100"}, action="listing resources")

    assert info.value.message.startswith("listing resources: ")
    assert "panic: index out of range while listing page 2 (fixture)" in info.value.message


@pytest.mark.slow
async def test_a_server_that_never_answers_times_out(tmp_path: Path) -> None:
    async with ServerConnection(raw_spec("hang-list"), timeout=1, stderr_log=tmp_path / "raw.log") as conn:
        started = time.monotonic()
        with pytest.raises(ServerFault) as info:
            await conn.request("resources/list", None, action="listing resources")
        waited = time.monotonic() - started
        # Only that request failed: the connection still answers.
        assert (await conn.list_prompts())[0]["name"] == "greet"

    # It waited the whole second (a busy machine only makes this longer); the message says which timeout
    # fired, so no upper bound on the wall clock is needed to tell it from another one.
    assert waited >= 0.9
    assert info.value.message == (
        "listing resources: the server did not answer after 1 s (timeout; --timeout SECONDS waits longer)"
    )


# ------------------------------------------------------------------------------------------ stderr


async def test_stderr_goes_to_the_log_file_and_tail_returns_its_end(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "flood.log"
    async with ServerConnection(raw_spec("stderr-flood", flood_bytes=30_000), stderr_log=log) as conn:
        assert conn.identity is not None  # it answered after writing its stderr
        # The pump copies stderr on its own thread (a flood must not cost the loop), so the log can
        # trail the answer by a moment on a busy machine: wait for the copy, not for a time.
        for _ in range(3000):  # up to 30 s: only a stalled pump fails the length check below
            if log.exists() and log.stat().st_size >= 30_000:
                break
            await anyio.sleep(0.01)
        tail = conn.stderr_tail(100)

    text = log.read_text()
    assert len(text) >= 30_000
    assert text.startswith("flood flood")
    assert 0 < len(tail.encode()) <= 100
    assert text.endswith(tail)
    assert "flood" not in capfd.readouterr().err  # never the terminal


async def test_stderr_tail_is_empty_without_a_log() -> None:
    conn = ServerConnection(raw_spec("plain"))

    assert conn.stderr_tail() == ""
