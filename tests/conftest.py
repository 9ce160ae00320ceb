"""Shared fixtures: an isolated home for every test, the CLI as a subprocess, fixture servers."""

from __future__ import annotations

import fcntl
import os
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import hypothesis.internal.observability  # noqa: F401  (see below)
import pytest

# Imported here, at collection, on purpose: hypothesis' pytest plugin imports this module lazily in
# its terminal summary, and on CPython 3.11.7 parsing a module there, after a Textual app has run a
# stdio server in the same process, fails with "AST constructor recursion depth mismatch" (a CPython
# bug in the AST validator's depth check). Importing it early means no parse happens at the end.

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
NPM_SERVERS_VERSION = "2026.8.31"
NPM_SERVERS_DIR = Path(os.environ.get("MCP_NPM_SERVERS_DIR", ROOT / ".cache" / "npm-servers"))
LOOPBACK_PRELOAD = FIXTURES / "loopback.cjs"  # `node --require` it: test servers bind to 127.0.0.1 only


def npm_server_entry(package: str) -> Path:
    """The `dist/index.js` of a pinned `@modelcontextprotocol/<package>` in the cache folder."""
    return NPM_SERVERS_DIR / "node_modules" / "@modelcontextprotocol" / package / "dist" / "index.js"


REFERENCE_ENTRY = npm_server_entry("server-everything")


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    """Async tests (marked `anyio`) run on asyncio, like Textual."""
    return "asyncio"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No test reads or writes the user's real config, themes, history or logs."""
    home = tmp_path_factory.mktemp("explorer-home")
    monkeypatch.setenv("MCP_URL_EXPLORER_HOME", str(home))
    return home


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return f"exit {self.code}\n--- stdout\n{self.stdout[-3000:]}\n--- stderr\n{self.stderr[-3000:]}"


def run_cli(*args: str, timeout: float = 90.0, env: dict[str, str] | None = None) -> CliResult:
    """Run `python -m explorer ARGS` as a user would, and capture what it printed."""
    full_env = {**os.environ, **(env or {})}
    full_env.pop("FORCE_COLOR", None)
    proc = subprocess.run(
        [sys.executable, "-m", "explorer", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=full_env,
        cwd=ROOT,
        check=False,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def cli() -> type[object]:
    return run_cli  # type: ignore[return-value]


def raw_server(*modes: str, **options: object) -> str:
    """A -s SPEC that starts the raw fixture server with these fault modes."""
    words = [sys.executable, str(FIXTURES / "raw_server.py")]
    for mode in modes:
        words += ["--mode", mode]
    for key, value in options.items():
        words += ["--" + key.replace("_", "-"), str(value)]
    return shlex.join(words)


def demo_server() -> str:
    """A -s SPEC for the built-in demo server (what runs when nothing is configured)."""
    return shlex.join([sys.executable, "-m", "explorer", "demo-server"])


def install_npm_servers() -> None:
    """Install the pinned npm servers once (xdist workers take turns on a lock); never skipped.

    When Node or npm is missing the interop tests fail, as CI must notice.
    """
    if (NPM_SERVERS_DIR / f".installed-{NPM_SERVERS_VERSION}-3").exists():
        return
    NPM_SERVERS_DIR.mkdir(parents=True, exist_ok=True)
    with (NPM_SERVERS_DIR.parent / "npm-servers.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        subprocess.run([str(ROOT / "scripts" / "install-npm-servers.sh")], check=True, timeout=600)


@pytest.fixture(scope="session")
def reference_server() -> Iterator[str]:
    """-s SPEC for the pinned npm reference server (@modelcontextprotocol/server-everything) on stdio."""
    install_npm_servers()
    yield shlex.join(["node", str(REFERENCE_ENTRY), "stdio"])


@pytest.fixture(scope="session")
def npm_server() -> Iterator[Callable[..., str]]:
    """`npm_server("server-filesystem", "/some/dir")` -> -s SPEC for that pinned npm server on stdio."""
    install_npm_servers()

    def spec(package: str, *args: str) -> str:
        return shlex.join(["node", str(npm_server_entry(package)), *args])

    yield spec
