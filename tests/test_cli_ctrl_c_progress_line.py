"""On a terminal, the first Ctrl+C's note starts a line of its own, not the end of the progress line.

Before, `interrupted: stopping; ...` was written after the progress line drawn in place (`\\r` and no
newline), on the same line of the terminal.
"""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT
from tests.helpers.tiny_server import tiny_server

pytestmark = pytest.mark.slow

HANG_GUARD = 120.0

# Pages of one resource each, one every 0.2 s, for ever: the progress line is drawn while it lists.
SLOW_PAGES = """
import time
def answer(method, params):
    if method == "resources/list":
        time.sleep(0.2)
        n = int(params.get("cursor") or 0)
        return {"resources": [{"uri": f"s://r/{n}", "name": str(n)}], "nextCursor": str(n + 1)}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    return None
"""


def read_until(fd: int, wanted: bytes, seen: bytearray) -> None:
    deadline = time.monotonic() + HANG_GUARD
    while wanted not in seen:
        assert time.monotonic() < deadline, f"never saw {wanted!r} in {bytes(seen[-500:])!r}"
        if select.select([fd], [], [], 0.1)[0]:
            try:
                seen += os.read(fd, 65536)
            except OSError:
                return


def test_the_ctrl_c_note_clears_the_progress_line_first(tmp_path: Path) -> None:
    server = tiny_server(tmp_path, SLOW_PAGES)
    master, slave = pty.openpty()
    env = {key: value for key, value in os.environ.items() if key != "FORCE_COLOR"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "explorer", "--timeout", "600", "-s", server, "tree"],
        stdout=subprocess.DEVNULL,
        stderr=slave,
        env=env,
        cwd=ROOT,
    )
    seen = bytearray()
    try:
        read_until(master, b"pages", seen)  # the progress line is drawn
        proc.send_signal(signal.SIGINT)
        read_until(master, b"interrupted: stopping", seen)
        proc.wait(timeout=HANG_GUARD)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(slave)
    before = bytes(seen).split(b"interrupted: stopping", 1)[0]
    assert before.endswith(b"\r\x1b[K"), before[-200:]  # the line is cleared, the note starts it
    os.close(master)
