"""The real TUI in a pseudo-terminal, for tests of what a user's terminal does to it (keys, signals).

One home for starting it (120x36, the spec's server over the handshake era, its own explorer home) and
for reading what it writes, so the orphan and exit-signal tests drive it the same way.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.helpers.paths import ROOT

__all__ = ["PtyTui", "pty_tui"]


class PtyTui:
    """A running TUI: `drain` reads what it wrote (kept in `written`), `exit_status` waits for its end."""

    def __init__(self, proc: subprocess.Popen[bytes], master: int) -> None:
        self.proc = proc
        self.master = master
        self.written = bytearray()

    def drain(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                try:
                    self.written.extend(os.read(self.master, 65536))
                except OSError:
                    return

    def wait_for(self, path: Path, timeout: float = 60) -> None:
        """Read on until `path` exists (a server's pid file), at most `timeout` (a hang guard)."""
        deadline = time.monotonic() + timeout
        while not path.exists() and time.monotonic() < deadline:
            self.drain(0.1)

    def exit_status(self, timeout: float = 60) -> int:
        """Its exit status, once it ended (killed after `timeout`, a hang guard)."""
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            self.drain(0.1)
        self.drain(0.2)
        if self.proc.poll() is None:
            self.proc.kill()
        return self.proc.wait(timeout=10)


@contextmanager
def pty_tui(spec: str, home: Path) -> Iterator[PtyTui]:
    """`mcp-url-explorer --protocol legacy -s SPEC` in a pseudo-terminal; killed if still running after."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "MCP_URL_EXPLORER_HOME": str(home)}
    env.pop("FORCE_COLOR", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "explorer", "--protocol", "legacy", "-s", spec],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=ROOT,
        start_new_session=True,
    )
    os.close(slave)
    try:
        yield PtyTui(proc, master)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
