"""Errors that guide: the wrong protocol era, credentials an HTTP server refused, a URL that needs the
legacy SSE transport, and `--protocol auto` waiting no longer than `--timeout` for `server/discover`."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from explorer.config import ServerSpec
from explorer.connection.challenge import parse_challenge
from explorer.connection.session import ServerConnection
from tests.helpers.cli import raw_server, run_cli
from tests.helpers.paths import FIXTURES

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


def test_a_handshake_only_server_under_the_modern_era_is_named_with_what_to_do() -> None:
    result = run_cli("tree", "--protocol", "2026-07-28", "-s", raw_server())
    assert result.code == 1
    assert (
        "this server speaks only 2025-11-25 (the handshake era); use --protocol auto or --protocol legacy"
        in result.stderr
    )
    assert "Method not found" not in result.stderr


def test_a_modern_only_server_under_legacy_is_named_with_what_to_do() -> None:
    result = run_cli("tree", "--protocol", "legacy", "-s", raw_server("modern-only"))
    assert result.code == 1
    assert (
        "this server speaks only 2026-07-28 (the modern era); use --protocol auto or --protocol 2026-07-28"
        in result.stderr
    )


REFUSES_EVERY_VERSION = """
import json, sys
SUPPORTED = sys.argv[1].split(",")
for line in sys.stdin:
    message = json.loads(line)
    if "id" in message:
        data = {"supported": SUPPORTED, "requested": "?"}
        error = {"code": -32022, "message": "Unsupported protocol version", "data": data}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error}) + "\\n")
        sys.stdout.flush()
"""


@pytest.mark.parametrize("protocol", ["auto", "legacy", "2026-07-28"])
def test_the_versions_a_refusal_names_are_said_in_every_mode(protocol: str, tmp_path: Path) -> None:
    """auto (and legacy) said only "Unsupported protocol version"; a version the explorer does not know
    was taken for the handshake era."""
    script = tmp_path / "refuses.py"
    script.write_text(REFUSES_EVERY_VERSION)
    command = f"{sys.executable} {script} 2027-01-01"
    result = run_cli("tree", "--protocol", protocol, "-s", command)
    assert result.code == 1, result
    assert (
        "it supports only 2027-01-01, which this explorer does not speak (it speaks 2024-11-05,"
        in result.stderr
    )
    assert "handshake era" not in result.stderr


def test_pinned_to_the_other_era_the_hint_stays_beside_an_unknown_version(tmp_path: Path) -> None:
    script = tmp_path / "refuses.py"
    script.write_text(REFUSES_EVERY_VERSION)
    command = f"{sys.executable} {script} 2025-11-25,2027-01-01"
    result = run_cli("tree", "--protocol", "2026-07-28", "-s", command)
    assert result.code == 1, result
    assert "this server speaks only 2025-11-25 (the handshake era); use --protocol auto" in result.stderr


def test_auto_says_the_known_versions_a_refusal_names(tmp_path: Path) -> None:
    script = tmp_path / "refuses.py"
    script.write_text(REFUSES_EVERY_VERSION)
    result = run_cli("tree", "-s", f"{sys.executable} {script} 2024-11-05,2027-01-01")
    assert result.code == 1, result
    assert "it names the versions it supports: 2024-11-05, 2027-01-01" in result.stderr, result


def test_auto_reaches_both_kinds_of_server() -> None:
    result = run_cli("tree", "--json", "-s", raw_server("modern-only"), "-s", raw_server())
    assert result.code == 0, result
    modern, handshake = json.loads(result.stdout)["servers"]
    assert (modern["era"], modern["protocolVersion"]) == ("modern", "2026-07-28")
    assert (handshake["era"], handshake["protocolVersion"]) == ("handshake", "2025-11-25")


async def test_auto_waits_for_discover_no_longer_than_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK's probe has its own 10 s timeout; the explorer lowers it to `--timeout` for the probe."""
    import mcp.client.session as sdk_session

    seen: list[float] = []
    original = sdk_session.ClientSession.send_discover

    async def spy(self: Any, version: str) -> dict[str, Any]:
        seen.append(sdk_session.DISCOVER_TIMEOUT_SECONDS)
        return await original(self, version)

    monkeypatch.setattr(sdk_session.ClientSession, "send_discover", spy)
    monkeypatch.setattr(sdk_session, "DISCOVER_TIMEOUT_SECONDS", sdk_session.DISCOVER_TIMEOUT_SECONDS)
    spec = ServerSpec(
        name="quiet",
        transport="stdio",
        command=sys.executable,
        args=(str(FIXTURES / "raw_server.py"), "--mode", "ignore-discover"),
    )
    async with ServerConnection(spec, timeout=0.5) as conn:
        assert conn.identity is not None and conn.identity.era == "handshake"
    assert seen == [0.5]


def test_parse_challenge_reads_scheme_and_parameters() -> None:
    challenge = parse_challenge(
        'Bearer realm="mcp", error="insufficient_scope", scope="a b", resource_metadata="https://h/x"'
    )
    assert challenge.scheme == "Bearer"
    assert challenge.params == {
        "realm": "mcp",
        "error": "insufficient_scope",
        "scope": "a b",
        "resource_metadata": "https://h/x",
    }
    assert parse_challenge('Bearer error="a \\"quoted\\" word"').params == {"error": 'a "quoted" word'}
    assert parse_challenge("").scheme == "" and parse_challenge("Basic").params == {}


@pytest.fixture
def protected_server() -> Iterator[str]:
    """The raw fixture over Streamable HTTP, wanting `Authorization: Bearer s3cret-token`."""
    proc = subprocess.Popen(
        [sys.executable, str(FIXTURES / "raw_server.py"), "--http", "--require-token", "s3cret-token"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    yield url
    proc.kill()
    proc.wait()


def test_401_names_the_status_the_challenge_and_what_to_do(protected_server: str) -> None:
    result = run_cli("tree", "-s", protected_server)
    assert result.code == 1
    assert "HTTP 401 Unauthorized: the server wants credentials" in result.stderr
    assert "scope=files:read" in result.stderr and "resource_metadata=http://127.0.0.1:" in result.stderr
    assert "-H 'Authorization: Bearer <token>'" in result.stderr
    assert "-32603" not in result.stderr and "Server returned an error response" not in result.stderr


def test_403_says_the_token_lacks_scope_and_never_shows_it(protected_server: str) -> None:
    result = run_cli("tree", "-s", protected_server, "-H", "Authorization: Bearer not-the-right-one")
    assert result.code == 1
    assert "HTTP 403 Forbidden" in result.stderr and "insufficient_scope" in result.stderr
    assert "not-the-right-one" not in result.stdout + result.stderr


def test_the_right_token_connects(protected_server: str) -> None:
    result = run_cli("tree", "--json", "-s", protected_server, "-H", "Authorization: Bearer s3cret-token")
    assert result.code == 0, result
    assert json.loads(result.stdout)["servers"][0]["transport"] == "http"
