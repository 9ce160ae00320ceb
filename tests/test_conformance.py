"""The MCP conformance suite's client scenarios, with the explorer's CLI as the client under test.

`@modelcontextprotocol/conformance` 0.1.16 (pinned, with Node 22 from the npm package `node@22`, both
installed by `scripts/install-conformance.sh`) starts each scenario's servers and runs
`tests/fixtures/conformance_client.py SERVER_URL`, which writes the scenario's data into an explorer
config and runs `mcp-url-explorer servers --auth-flow fetch`. A scenario passes when the suite says so
(every check SUCCESS, no warning, the client exited as the scenario expects). The README's conformance
table lists the same results; the scenarios that do not pass are asserted to fail for exactly the
reason the README gives.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.paths import FIXTURES, ROOT

pytestmark = [pytest.mark.interop, pytest.mark.slow]

CONFORMANCE_DIR = Path(os.environ.get("MCP_CONFORMANCE_DIR", ROOT / ".cache" / "conformance"))
NODE = CONFORMANCE_DIR / "node_modules" / "node" / "bin" / "node"
SUITE = CONFORMANCE_DIR / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"

PASSING = [
    "initialize",
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/client-credentials-jwt",
    "auth/client-credentials-basic",
    "auth/cross-app-access-complete-flow",
]


def install_conformance() -> None:
    """Install the pinned suite and Node 22 once (xdist workers take turns on a lock); never skipped."""
    if NODE.exists() and SUITE.exists():
        return
    CONFORMANCE_DIR.mkdir(parents=True, exist_ok=True)
    with (CONFORMANCE_DIR.parent / "conformance.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        subprocess.run([str(ROOT / "scripts" / "install-conformance.sh")], check=True, timeout=600)


def run_scenario(scenario: str, out: Path) -> tuple[int, str, list[dict[str, object]]]:
    """Run one scenario; returns the suite's exit code, its output, and the checks it recorded."""
    install_conformance()
    client = f"{sys.executable} {FIXTURES / 'conformance_client.py'}"
    assert " " not in str(FIXTURES) and " " not in sys.executable, "the suite splits --command on spaces"
    env = {**os.environ, "PATH": f"{NODE.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("FORCE_COLOR", None)
    proc = subprocess.run(
        [
            *(str(NODE), "--require", str(FIXTURES / "loopback_now.cjs"), str(SUITE), "client"),
            *("--command", client, "--scenario", scenario, "--timeout", "60000", "-o", str(out)),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=ROOT,
        check=False,
    )
    found = sorted(out.rglob("checks.json"))
    checks = json.loads(found[0].read_text()) if found else []
    return proc.returncode, proc.stdout + proc.stderr, checks


def statuses(checks: list[dict[str, object]]) -> dict[str, set[object]]:
    by_id: dict[str, set[object]] = {}
    for check in checks:
        by_id.setdefault(str(check["id"]), set()).add(check["status"])
    return by_id


@pytest.mark.parametrize("scenario", PASSING)
def test_scenario_passes(scenario: str, tmp_path: Path) -> None:
    code, output, checks = run_scenario(scenario, tmp_path)
    assert code == 0, output[-6000:]
    assert checks and not any(check["status"] in ("FAILURE", "WARNING") for check in checks), output[-6000:]


def test_no_token_or_secret_of_a_scenario_reaches_the_explorer_output(tmp_path: Path) -> None:
    """client-credentials-basic hands the explorer a client secret: it never appears in what it prints."""
    code, output, _checks = run_scenario("auth/client-credentials-basic", tmp_path)
    assert code == 0, output[-4000:]
    printed = [next(tmp_path.rglob(name)).read_text() for name in ("stdout.txt", "stderr.txt")]
    stdout = "".join(printed)
    assert "conformance-test-secret" not in stdout
    assert "cc-token-" not in stdout
    assert "auth-prm-pathbased-server" in stdout and "Tools:        1 in 1 page" in stdout  # it listed them


def test_step_up_is_asked_only_for_a_tool_call_which_the_explorer_never_makes(tmp_path: Path) -> None:
    """scope-step-up escalates on tools/call alone: the first authorization passes, no escalation comes."""
    _code, output, checks = run_scenario("auth/scope-step-up", tmp_path)
    found = statuses(checks)
    assert found["scope-step-up-initial"] == {"SUCCESS"}
    assert found["scope-step-up-escalation"] == {"FAILURE"}
    failing = {key for key, values in found.items() if "FAILURE" in values or "WARNING" in values}
    assert failing == {"scope-step-up-escalation"}, output[-4000:]


def test_a_root_metadata_document_naming_another_issuer_is_refused(tmp_path: Path) -> None:
    """2025-03-26-oauth-metadata-backcompat (0.1.16) serves root metadata whose issuer is `<origin>/oauth`:
    RFC 8414 section 3.3 forbids that, so the explorer (the SDK) stops before registering."""
    code, output, checks = run_scenario("auth/2025-03-26-oauth-metadata-backcompat", tmp_path)
    assert code != 0
    assert "Authorization server metadata issuer mismatch" in output
    found = statuses(checks)
    assert found["authorization-server-metadata"] == {"SUCCESS"}
    assert found["client-registration"] == {"FAILURE"}  # "Expected Check Missing": nothing was sent


def test_enterprise_managed_authorization_prints_no_id_token_nor_secret(tmp_path: Path) -> None:
    """cross-app-access-complete-flow (SEP-990): the ID token is exchanged at the IdP, the ID-JAG at the
    authorization server; neither the ID token, the client secret nor a token is printed."""
    code, output, checks = run_scenario("auth/cross-app-access-complete-flow", tmp_path)
    assert code == 0, output[-4000:]
    found = statuses(checks)
    assert found["complete-flow-token-exchange"] == {"SUCCESS"}
    assert found["complete-flow-jwt-bearer"] == {"SUCCESS"}
    printed = "".join(next(tmp_path.rglob(name)).read_text() for name in ("stdout.txt", "stderr.txt"))
    assert "conformance-test-xaa-secret" not in printed
    assert "eyJ" not in printed  # no JWT (the ID token, the ID-JAG) in what the explorer printed
    assert "test-token-" not in printed
    assert "(oauth: identity_assertion)" in printed and "Tools:        1 in 1 page" in printed  # it listed
