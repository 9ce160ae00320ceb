"""Ctrl+C prints what is done, JSON too, and exits 130: `read`, `read --watch`, `prompt`, `prompts`, `match`.

Only `tree` listened for Ctrl+C; every other command ended with 130 and an empty stdout, so a script
reading `--json` got nothing, not even the error README promises (code null, origin "explorer"). Now the
first Ctrl+C stops what runs, the JSON of what is done is printed, each server not done is said to have
been stopped by Ctrl+C, and the exit code is 130. Each server here says in a file when the request the
test interrupts has arrived (it never answers it); the CLI runs with a --timeout far beyond the hang guard.
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
from typing import Any

import pytest

from tests.helpers.paths import ROOT
from tests.helpers.tiny_server import tiny_server

pytestmark = pytest.mark.slow

HANG_GUARD = 120.0  # seconds; far under the run's --timeout of 600

SERVER = """
import pathlib, time
CAPABILITIES = {"resources": {"subscribe": True}, "prompts": {}}
HANG_ON = sys.argv[1]  # the method that is never answered
def hang(method):
    pathlib.Path(sys.argv[2]).write_text(method)
    time.sleep(3600)
def answer(method, params):
    if method == HANG_ON and (method != "resources/list" or params.get("cursor")):
        hang(method)
    if method == "resources/list":  # the second page is the one held back
        return {"resources": [{"uri": "slow://r/1", "name": "one"}], "nextCursor": "2"}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    if method == "resources/read":
        return {"contents": [{"uri": params["uri"], "text": "version"}]}
    if method == "prompts/list":
        return {"prompts": [{"name": "p"}]}
    if method == "prompts/get":
        return {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}
    if method in ("resources/subscribe", "resources/unsubscribe"):
        if method == "resources/subscribe" and HANG_ON == "after-subscribe":
            pathlib.Path(sys.argv[2]).write_text(method)
        return {}
    return None
"""

SILENT = """
import pathlib, sys
for line in sys.stdin:  # asked to connect: says so in a file, never answers
    pathlib.Path(sys.argv[1]).write_text("asked")
"""


def server(tmp_path: Path, hang_on: str, name: str) -> tuple[str, Path]:
    marker = tmp_path / f"{name}.asked"
    return tiny_server(tmp_path, SERVER, hang_on, str(marker), name=f"{name}.py"), marker


def silent_server(tmp_path: Path) -> tuple[str, Path]:
    """A server that never answers `initialize`; the file it writes when asked."""
    marker, script = tmp_path / "silent.asked", tmp_path / "silent.py"
    script.write_text(SILENT)
    return shlex.join([sys.executable, str(script), str(marker)]), marker


def ctrl_c_after(markers: list[Path], *args: str) -> tuple[int, str, str]:
    """Run the CLI, press Ctrl+C once every marker file is written; its exit code, stdout and stderr."""
    env = {key: value for key, value in os.environ.items() if key != "FORCE_COLOR"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "explorer", "--timeout", "600", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )
    try:
        deadline = time.monotonic() + HANG_GUARD
        while not all(marker.exists() for marker in markers):
            assert proc.poll() is None, f"the CLI ended before the test could press Ctrl+C: {proc.stderr}"
            assert time.monotonic() < deadline, "the server was never asked"
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=HANG_GUARD)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, stdout, stderr


def stopped_error(message: str) -> dict[str, Any]:
    return {"code": None, "message": message, "data": None, "origin": "explorer"}


def test_read_json_says_the_read_was_stopped(tmp_path: Path) -> None:
    spec, marker = server(tmp_path, "resources/read", "slow")
    code, stdout, stderr = ctrl_c_after([marker], "-s", spec, "read", "--json", "slow://r/1")
    assert code == 130, stderr
    message = "reading slow://r/1: stopped by Ctrl+C before the server answered"
    assert json.loads(stdout) == {
        "server": "slow.py",
        "uri": "slow://r/1",
        "ok": False,
        "error": stopped_error(message),
        "servers": [{"name": "slow.py", "ok": True, "error": None}],  # it connected: the read was stopped
    }
    assert f"error: server slow.py: {message}" in stderr and "Traceback" not in stderr


def test_read_watch_json_before_the_first_version(tmp_path: Path) -> None:
    spec, marker = server(tmp_path, "resources/read", "slow")
    code, stdout, stderr = ctrl_c_after([marker], "-s", spec, "read", "--watch", "--json", "slow://r/1")
    assert code == 130, stderr
    data = json.loads(stdout)
    assert data["ok"] is False and data["error"]["origin"] == "explorer" and data["error"]["code"] is None
    assert "stopped by Ctrl+C" in data["error"]["message"]


def test_read_watch_json_after_a_version_keeps_it_and_unsubscribes(tmp_path: Path) -> None:
    spec, marker = server(tmp_path, "after-subscribe", "slow")
    code, stdout, stderr = ctrl_c_after([marker], "-s", spec, "read", "--watch", "--json", "slow://r/1")
    assert code == 130, stderr
    version = json.loads(stdout)
    assert version["ok"] is True and version["version"] == 1 and "error:" not in stderr


def test_prompt_json_says_the_get_was_stopped(tmp_path: Path) -> None:
    spec, marker = server(tmp_path, "prompts/get", "slow")
    code, stdout, stderr = ctrl_c_after([marker], "-s", spec, "prompt", "p", "--json")
    assert code == 130, stderr
    data = json.loads(stdout)
    message = "getting prompt p: stopped by Ctrl+C before the server answered"
    assert data["ok"] is False and data["server"] == "slow.py" and data["error"] == stopped_error(message)
    assert data["servers"][0]["error"] == stopped_error(message)


def test_prompts_json_keeps_what_was_listed(tmp_path: Path) -> None:
    quick, _ = server(tmp_path, "nothing", "quick")
    slow, marker = server(tmp_path, "prompts/list", "slow")
    silent, asked = silent_server(tmp_path)
    code, stdout, stderr = ctrl_c_after(
        [marker, asked], "-s", quick, "-s", slow, "-s", silent, "prompts", "--json"
    )
    assert code == 130, stderr
    data = json.loads(stdout)
    assert [p["server"] for p in data["prompts"]] == ["quick.py"]
    quick_server, slow_server, silent_server_ = data["servers"]
    assert quick_server["ok"] and quick_server["complete"]
    assert slow_server["complete"] is False and slow_server["stoppedBy"] == "interrupted"
    stopped = stopped_error("connecting: stopped by Ctrl+C before the server answered")
    assert silent_server_["error"] == stopped and silent_server_["stoppedBy"] == "interrupted"
    assert "error:" not in stderr  # stopped by the user: warnings, as `tree` says it


def test_match_json_answers_from_what_was_listed(tmp_path: Path) -> None:
    spec, marker = server(tmp_path, "resources/list", "slow")
    code, stdout, stderr = ctrl_c_after([marker], "-s", spec, "match", "--json", "slow://r/1")
    assert code == 130, stderr
    data = json.loads(stdout)
    assert data["listedBy"] == ["slow.py"]
    assert data["servers"][0]["stoppedBy"] == "interrupted" and data["servers"][0]["complete"] is False


# Connected (it is asked for a list: the marker), it answers every list at once.
CONNECTED = """
import pathlib
CAPABILITIES = {"resources": {}, "tools": {}}
def answer(method, params):
    if method.endswith("/list"):  # not server/discover: under --protocol auto it comes before initialize
        pathlib.Path(sys.argv[1]).write_text(method)
    return {"resources/list": {"resources": [{"uri": "q://one", "name": "one"}]},
            "resources/templates/list": {"resourceTemplates": []},
            "tools/list": {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}}.get(method)
"""


@pytest.mark.parametrize("command", ["servers", "tools"])
def test_servers_and_tools_json_keep_what_was_listed(tmp_path: Path, command: str) -> None:
    """Before, they printed nothing on Ctrl+C and threw the finished servers' listings away."""
    listed = tmp_path / "quick.asked"
    quick = tiny_server(tmp_path, CONNECTED, str(listed), name="quick.py")
    silent, asked = silent_server(tmp_path)
    code, stdout, stderr = ctrl_c_after([listed, asked], "-s", quick, "-s", silent, command, "--json")
    assert code == 130, stderr
    quick_server, silent_server_ = json.loads(stdout)["servers"]
    assert quick_server["name"] == "quick.py" and quick_server["capabilities"], quick_server  # kept
    stopped = stopped_error("connecting: stopped by Ctrl+C before the server answered")
    assert silent_server_["error"] == stopped["message"] or silent_server_["error"] == stopped, silent_server_
    assert "error: server silent.py" not in stderr  # stopped by the user: a warning
