"""Exit codes that say what happened: a reader that closes stdout early (`| head -1`) is 141, quietly, in
every command; a bound stop is exit 3 with a `warning:`, never an `error:`; and JSON counts a list the
command never asked for as null, not 0. Against the built-in demo server and a tiny stdio server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.cli import demo_server, raw_server, run_cli
from tests.helpers.paths import ROOT
from tests.helpers.tiny_server import tiny_server

pytestmark = pytest.mark.slow

EXIT_OUTPUT_CLOSED = 141
CLOCK = ("read", "metrics://live/clock", "--watch", "-s", demo_server())  # its first version fails


def start(*args: str) -> subprocess.Popen[bytes]:
    """The CLI as a user runs it, with stdout a pipe this side reads as much of as it likes."""
    env = {key: value for key, value in os.environ.items() if key != "FORCE_COLOR"}
    return subprocess.Popen(
        [sys.executable, "-m", "explorer", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )


def close_early(proc: subprocess.Popen[bytes], lines: int) -> tuple[int, str]:
    """Read `lines` lines of stdout (none: close it before anything is written), close it, and wait."""
    assert proc.stdout is not None and proc.stderr is not None
    for _ in range(lines):
        assert proc.stdout.readline()
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    return proc.wait(timeout=60), stderr


@pytest.mark.parametrize("args", [("tree",), ("tree", "--json")], ids=["text", "json"])
def test_a_reader_that_stops_after_one_line_ends_the_tree_quietly_with_141(args: tuple[str, ...]) -> None:
    code, stderr = close_early(start(*args), lines=1)  # the demo's tree is far more than a pipe holds
    assert code == EXIT_OUTPUT_CLOSED and stderr == ""


@pytest.mark.parametrize(
    "args",
    [
        ("servers",),
        ("servers", "--json"),
        ("tools",),
        ("prompts",),
        ("prompts", "--json"),
        ("match", "docs://handbook/welcome"),
        ("read", "docs://handbook/welcome"),
        ("read", "docs://handbook/welcome", "--json"),
        ("prompt", "summarize-chapter", "chapter=welcome"),
        CLOCK,  # written inside the server's job: the reader's going away is no fault of the server's
        ("expand", "docs://{x}", "x=1"),
        ("locate", "logs"),
        ("--help",),
        ("tree", "--help"),
    ],
    ids=lambda args: "read --watch" if args == CLOCK else " ".join(args),
)
def test_every_command_exits_141_quietly_on_a_stdout_closed_before_it_writes(args: tuple[str, ...]) -> None:
    code, stderr = close_early(start(*args), lines=0)
    assert code == EXIT_OUTPUT_CLOSED and stderr == ""


ANSWERS = """
import os
open(sys.argv[1], "w").write(str(os.getpid()))
NAME = "pid"
def answer(method, params):
    if method == "resources/list":
        return {"resources": [{"uri": f"pid://r/{i}", "name": f"r{i}"} for i in range(5000)]}
    return {"resourceTemplates": []}
"""


def test_the_server_is_stopped_when_the_reader_goes_away(tmp_path: Path) -> None:
    pid_file = tmp_path / "server.pid"
    spec = tiny_server(tmp_path, ANSWERS, str(pid_file))
    code, stderr = close_early(start("tree", "--protocol", "legacy", "-s", spec), lines=1)
    assert code == EXIT_OUTPUT_CLOSED and stderr == ""
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 30  # a hang guard, not a bound: the wait ends when the server is gone
    while time.monotonic() < deadline and alive(pid):
        time.sleep(0.05)
    assert not alive(pid)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize(
    "args",
    [
        ("tree", "--max-items", "3"),
        ("servers", "--max-items", "2"),
        ("prompts", "--max-items", "2"),
        ("match", "docs://handbook/welcome", "--max-items", "2"),
    ],
    ids=lambda args: args[0],
)
def test_a_bound_stop_is_exit_3_with_a_warning_not_an_error(args: tuple[str, ...]) -> None:
    result = run_cli(*args)
    assert result.code == 3, result
    [line] = result.stderr.splitlines()
    assert line.startswith("warning: server demo: ") and line.endswith("stopped at the max-items bound")
    assert "error" not in result.stderr


def test_a_tools_bound_stop_is_exit_3_with_a_warning() -> None:
    """`tools` lists tools only: its bound is the tools list's (the demo offers none)."""
    result = run_cli("-s", raw_server(caps="tools", tools=5, page_size=2), "tools", "--max-items", "2")
    assert result.code == 3, result
    [line] = result.stderr.splitlines()
    assert line.startswith("warning: server raw_server.py: ")
    assert line.endswith("stopped at the max-items bound")
    assert "incomplete (tools)" in line and "resources" not in line.replace("no resources", "")


def test_match_json_counts_the_lists_it_never_asked_for_as_null() -> None:
    result = run_cli("match", "docs://handbook/welcome", "--json")
    assert result.code == 0, result
    [server] = json.loads(result.stdout)["servers"]
    assert server["lists"]["prompts"]["asked"] is False and server["lists"]["tools"]["asked"] is False
    assert server["prompts"] is None and server["tools"] is None
    assert server["lists"]["prompts"]["items"] is None  # not 0: that would say the list is empty
    assert server["resources"] > 0 and server["templates"] > 0
    tree = json.loads(run_cli("tree", "--json").stdout)["servers"][0]
    assert tree["prompts"] > 0 and tree["tools"] == 0  # asked; the demo declares no tools: it has none


def test_a_server_that_never_connected_has_null_counts() -> None:
    result = run_cli("tree", "--json", "-s", "/nonexistent/mcp-server")
    assert result.code == 1, result
    [server] = json.loads(result.stdout)["servers"]
    assert not server["ok"]
    assert [server[kind] for kind in ("resources", "templates", "prompts", "tools")] == [None] * 4
