"""Fixtures and hooks only: an isolated home for every test, the CLI, the pinned npm servers.

Helpers that tests import live in plain modules (`tests/helpers/`, `tests/app_helpers.py`, ...):
importing from conftest is checked against in tests/test_import_hygiene.py.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator
from pathlib import Path

import hypothesis.internal.observability  # noqa: F401  (see below)
import pytest

from tests.helpers.cli import run_cli
from tests.helpers.npm import REFERENCE_ENTRY, install_npm_servers, npm_server_entry

# Imported here, at collection, on purpose: hypothesis' pytest plugin imports this module lazily in
# its terminal summary, and on CPython 3.11.7 parsing a module there, after a Textual app has run a
# stdio server in the same process, fails with "AST constructor recursion depth mismatch" (a CPython
# bug in the AST validator's depth check). Importing it early means no parse happens at the end.


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    """Async tests (marked `anyio`) run on asyncio, like Textual."""
    return "asyncio"


@pytest.fixture(autouse=True)
def forget_runtime_secrets() -> Iterator[None]:
    """Tokens a test stores in its own process are masked from then on (`add_runtime_secrets`); left
    there, they turned masking on for every later test of that worker (the CLI's bulk rows skip it only
    when nothing is to be masked), so a test's outcome hung on which tests ran before it."""
    from explorer.config import spec

    before = set(spec._RUNTIME_SECRETS)
    yield
    if before != spec._RUNTIME_SECRETS:
        spec._RUNTIME_SECRETS.intersection_update(before)
        spec._runtime_version += 1


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No test reads or writes the user's real config, themes, history or logs."""
    home = tmp_path_factory.mktemp("explorer-home")
    monkeypatch.setenv("MCP_URL_EXPLORER_HOME", str(home))
    return home


@pytest.fixture
def cli() -> type[object]:
    return run_cli  # type: ignore[return-value]


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
