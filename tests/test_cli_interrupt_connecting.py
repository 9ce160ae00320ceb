"""`tree`'s first Ctrl+C abandons the connections still being made, as it stops the listings.

A server that never answers `initialize` used to hold the run until its --timeout, then be reported as a
timeout that never happened. Now the run ends at once with what arrived, the server is said to have
been stopped by Ctrl+C while connecting (text, JSON, stderr), and its process is stopped. The CLI runs
as a user runs it, with a --timeout far beyond the hang guard: a run that waited for it fails the test.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT
from tests.helpers.tiny_server import tiny_server

pytestmark = pytest.mark.slow

HANG_GUARD = 120.0  # seconds; far under the run's --timeout of 600
STOPPED = "connecting: stopped by Ctrl+C before the server answered"

SILENT = """
import os, pathlib, sys
for line in sys.stdin:  # asked to connect: says so in a file, never answers
    pathlib.Path(sys.argv[1]).write_text(str(os.getpid()))
"""

LISTED = """
import atexit, pathlib
atexit.register(lambda: pathlib.Path(sys.argv[1]).write_text("done"))  # the explorer let it go: all came
def answer(method, params):
    if method == "resources/list":
        return {"resources": [{"uri": f"quick://a/{name}", "name": name} for name in ("one", "two")]}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    return None
"""


def wait_for(path: Path, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + HANG_GUARD
    while not path.exists() or not path.read_text():
        assert proc.poll() is None, "the CLI ended before the test could press Ctrl+C"
        assert time.monotonic() < deadline, f"{path.name} never came"
        time.sleep(0.05)


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_ctrl_c_abandons_a_connect_in_progress_and_prints_what_arrived(tmp_path: Path, as_json: bool) -> None:
    asked, done = tmp_path / "asked", tmp_path / "done"
    silent_script = tmp_path / "silent.py"
    silent_script.write_text(SILENT)
    silent = shlex.join([sys.executable, str(silent_script), str(asked)])
    quick = tiny_server(tmp_path, LISTED, str(done), name="quick.py")
    args = ["--timeout", "600", "tree", *(["--json"] if as_json else []), "-s", quick, "-s", silent]
    env = {key: value for key, value in os.environ.items() if key != "FORCE_COLOR"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "explorer", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )
    try:
        wait_for(asked, proc)  # the silent server is being connected to
        wait_for(done, proc)  # and the quick one has been listed whole
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=HANG_GUARD)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()

    assert proc.returncode == 130, stderr
    assert f"warning: server silent.py: {STOPPED}" in stderr
    assert "timeout" not in stderr and "did not answer" not in stderr and "Traceback" not in stderr
    if as_json:
        data = json.loads(stdout)
        quick_server, silent_server = data["servers"]
        assert quick_server["complete"] and quick_server["resources"] == 2
        assert [r["uri"] for r in data["resources"]] == ["quick://a/one", "quick://a/two"]
        assert silent_server["ok"] is False and silent_server["error"] == STOPPED
        assert silent_server["stoppedBy"] == "interrupted" and silent_server["complete"] is False
    else:
        assert f"# silent.py: {STOPPED}" in stdout
        assert "one" in stdout and "two" in stdout  # the quick server's resources, as a tree
    pid = int(asked.read_text())
    deadline = time.monotonic() + HANG_GUARD
    while not gone(pid):  # its server is stopped as after any connect that failed
        assert time.monotonic() < deadline, "the silent server was left running"
        time.sleep(0.05)
