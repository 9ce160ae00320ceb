"""The pinned npm servers the interop tests talk to: where they are installed, and installing them once."""

from __future__ import annotations

import fcntl
import os
import subprocess
from pathlib import Path

from tests.helpers.paths import ROOT

NPM_SERVERS_VERSION = "2026.8.31"
NPM_SERVERS_DIR = Path(os.environ.get("MCP_NPM_SERVERS_DIR", ROOT / ".cache" / "npm-servers"))


def npm_server_entry(package: str) -> Path:
    """The `dist/index.js` of a pinned `@modelcontextprotocol/<package>` in the cache folder."""
    return NPM_SERVERS_DIR / "node_modules" / "@modelcontextprotocol" / package / "dist" / "index.js"


REFERENCE_ENTRY = npm_server_entry("server-everything")


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
