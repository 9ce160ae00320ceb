"""Exploring an OAuth-protected server with no manual token handling (tests/fixtures/oauth_server.py).

The fixture is a real protected Streamable HTTP server with its own authorization server that approves
at once and logs every registration, authorization and token grant: so a test can tell a reused token
from a refresh from a new login, and knows every token issued (to check none is ever shown).
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx2
import pytest

from tests.helpers.cli import run_cli
from tests.helpers.paths import ROOT

pytestmark = pytest.mark.slow


@dataclass
class Protected:
    url: str
    events: Path

    def log(self) -> list[dict[str, object]]:
        if not self.events.exists():
            return []
        return [json.loads(line) for line in self.events.read_text().splitlines() if line.strip()]

    def count(self, event: str, **match: object) -> int:
        return sum(
            1 for e in self.log() if e["event"] == event and all(e.get(k) == v for k, v in match.items())
        )

    def tokens(self) -> list[str]:
        return [
            str(e[k]) for e in self.log() if e["event"] == "token" for k in ("access_token", "refresh_token")
        ]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_protected(tmp_path: Path, *extra: str) -> Iterator[Protected]:
    port = _free_port()
    events = tmp_path / "events.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fixtures.oauth_server", str(port), str(events), *extra],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    for _ in range(200):
        try:
            httpx2.get(f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp", timeout=1)
            break
        except httpx2.HTTPError:
            time.sleep(0.05)
    try:
        yield Protected(url, events)
    finally:
        proc.kill()
        proc.wait()


@pytest.fixture
def protected(tmp_path: Path) -> Iterator[Protected]:
    yield from start_protected(tmp_path)


@pytest.fixture
def short_lived(tmp_path: Path) -> Iterator[Protected]:
    yield from start_protected(tmp_path, "--expires-in", "2")


def test_logs_in_lists_and_keeps_the_token_private(protected: Protected, isolated_home: Path) -> None:
    result = run_cli("tree", "--json", "-s", protected.url, "--auth-flow", "fetch")
    assert result.code == 0, result
    assert sorted(r["uri"] for r in json.loads(result.stdout)["resources"]) == [
        "notes://secret",
        "notes://welcome",
    ]
    assert protected.count("register") == 1 and protected.count("authorize") == 1
    assert protected.count("token", grant="authorization_code") == 1
    # The token store: one file for the URL, readable by the user only.
    folder = isolated_home / "data" / "oauth"
    files = list(folder.glob("*.json"))
    assert len(files) == 1
    assert stat.S_IMODE(files[0].stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    # No token anywhere but the store: not in the output, not in any log.
    logs = "".join(p.read_text(errors="replace") for p in (isolated_home / "logs").rglob("*") if p.is_file())
    for token in protected.tokens():
        assert token in files[0].read_text()
        assert token not in result.stdout + result.stderr + logs


def test_a_second_run_reuses_the_token(protected: Protected) -> None:
    assert run_cli("tree", "-s", protected.url, "--auth-flow", "fetch").code == 0
    again = run_cli("read", "notes://welcome", "-s", protected.url, "--auth-flow", "fetch")
    assert again.code == 0, again
    assert "only for logged-in readers" in again.stdout
    assert protected.count("authorize") == 1 and protected.count("token") == 1  # nothing new asked for


def test_an_expired_token_is_refreshed_not_logged_in_again(short_lived: Protected) -> None:
    assert run_cli("tree", "-s", short_lived.url, "--auth-flow", "fetch").code == 0
    time.sleep(2.5)  # the tokens live 2 s: now the server no longer accepts the first one
    later = run_cli("tree", "-s", short_lived.url, "--auth-flow", "fetch")
    assert later.code == 0, later
    assert short_lived.count("authorize") == 1  # no second login
    assert short_lived.count("token", grant="refresh_token") >= 1
    for token in short_lived.tokens():
        assert token not in later.stdout + later.stderr


@pytest.fixture
def scoped(tmp_path: Path) -> Iterator[Protected]:
    yield from start_protected(tmp_path, "--secret-scope", "notes:secret")


def test_insufficient_scope_steps_up_to_the_scope_the_server_names(scoped: Protected) -> None:
    """A 403 insufficient_scope on a read: the explorer authorizes again, asking for that scope too."""
    result = run_cli("read", "notes://secret", "-s", scoped.url, "--auth-flow", "fetch")
    assert result.code == 0, result
    assert "the secret note" in result.stdout
    assert scoped.count("refused") == 1
    grants = [e["scopes"] for e in scoped.log() if e["event"] == "authorize"]
    assert grants == [[], ["notes:secret"]]
    # The wider token is stored: the next run reads at once.
    assert run_cli("read", "notes://secret", "-s", scoped.url, "--auth-flow", "fetch").code == 0
    assert scoped.count("authorize") == 2 and scoped.count("refused") == 1


def test_auth_list_and_logout(protected: Protected) -> None:
    assert run_cli("tree", "-s", protected.url, "--auth-flow", "fetch").code == 0
    listed = run_cli("auth", "list")
    assert listed.code == 0
    assert protected.url in listed.stdout and "valid for" in listed.stdout
    for token in protected.tokens():
        assert token not in listed.stdout + listed.stderr
    out = run_cli("auth", "logout", protected.url)
    assert out.code == 0 and "forgot the OAuth login" in out.stdout
    assert "no stored OAuth logins" in run_cli("auth", "list").stderr
    again = run_cli("auth", "logout", protected.url)  # nothing left to forget: done already, exit 0
    assert again.code == 0 and "nothing to forget" in again.stdout, again
    assert run_cli("tree", "-s", protected.url, "--auth-flow", "fetch").code == 0
    assert protected.count("authorize") == 2  # logged in again after the logout


def test_logout_by_configured_name(protected: Protected, tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[servers.notes]\nurl = "{protected.url}"\n')
    assert run_cli("-c", str(config), "tree", "--auth-flow", "fetch").code == 0
    assert run_cli("auth", "logout", "notes", "-c", str(config)).code == 0
    unknown = run_cli("auth", "logout", "nope", "-c", str(config))
    assert unknown.code == 2 and "not a configured HTTP server" in unknown.stderr


def test_print_flow_shows_the_url_and_waits_for_the_redirect(protected: Protected) -> None:
    """--auth-flow print: the URL is on stderr on a line of its own; opening it completes the login."""
    env = {**os.environ}
    env.pop("FORCE_COLOR", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "explorer", "tree", "-s", protected.url, "--auth-flow", "print"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    try:
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if line.startswith("http://"):
                break
        url = lines[-1].strip()
        assert "open this URL to log in" in "".join(lines)
        assert "code_challenge_method=S256" in url and "resource=" in url
        # What a browser does: follow the authorization server's redirect to the loopback listener.
        page = httpx2.get(url, follow_redirects=True, timeout=30)
        assert page.status_code == 200 and "Logged in" in page.text
        stdout, _ = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0
    assert "notes://  (2)" in stdout and "welcome  [text/plain]" in stdout


def test_a_static_authorization_header_means_no_login(protected: Protected) -> None:
    result = run_cli(
        "tree", "-s", protected.url, "-H", "Authorization: Bearer made-up-token", "--auth-flow", "fetch"
    )
    assert result.code == 1
    assert "HTTP 401" in result.stderr and "made-up-token" not in result.stderr
    assert protected.count("register") == 0
