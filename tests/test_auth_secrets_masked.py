"""The authorization code, the PKCE verifier and the state of a login are credentials: an authorization
server that echoes them in an error gets them masked in everything the explorer shows or logs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.oauth_loopback import auth_server

pytestmark = pytest.mark.slow


def test_an_echoed_code_and_verifier_are_masked_in_output_and_logs(isolated_home: Path) -> None:
    with auth_server("token_echo_code") as (url, state):
        result = run_cli("tree", "-s", url, "--auth-flow", "fetch", "--timeout", "10", timeout=60)
    assert result.code == 1
    assert "the token request failed: Token exchange failed (400)" in result.stderr, result
    assert "bad code *** verifier ***" in result.stderr
    request = next(e for e in state.events if e["event"] == "token_request")
    shown = [result.stdout, result.stderr]
    shown += [p.read_text(errors="replace") for p in (isolated_home / "logs").rglob("*") if p.is_file()]
    assert any("Token exchange failed" in text for text in shown[2:]), "the SDK's log is checked too"
    for secret in (request["code"], request["code_verifier"], *state.secrets()):
        assert all(secret not in text for text in shown), secret
