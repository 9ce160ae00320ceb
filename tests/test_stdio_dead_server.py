"""A stdio server that exits while a child it left keeps its stdout open is noticed when it exits, not at
the timeout (`stdio._next_chunk`): its requests fail at once with the closed-connection sentence and the
end of its stderr, its last answers are still read, and nothing of its process group is left behind.

The server runs behind `sh wrapper.sh`, which starts `sleep 120 &` (it inherits the pipes) and then execs
the server, as a launcher script may. Every run waits up to `--timeout 60`: the closed-connection sentence
can only come from noticing the exit; before, each request waited for the timeout and said so.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from explorer.config import ServerSpec
from explorer.connection.errors import ServerFault
from explorer.connection.session import ServerConnection
from tests.helpers.cli import run_cli
from tests.hostile_helpers import (
    assert_no_traceback,
    kill_leftovers,
    read_pids,
    wait_all_gone,
    wait_all_gone_async,
)

pytestmark = [pytest.mark.skipif(sys.platform != "linux", reason="reads /proc"), pytest.mark.slow]

SERVER = r"""
import json, os, sys

MODE = sys.argv[1]
INIT = {"protocolVersion": "2025-06-18", "capabilities": {"resources": {}},
        "serverInfo": {"name": "dying", "version": "1"}}
PAGE = {"resources": [{"uri": f"dead://item{k}", "name": f"item {k}"} for k in range(3)], "nextCursor": "2"}


def answer(ident, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    message = json.loads(line)
    method, ident = message.get("method"), message.get("id")
    if ident is None:
        continue
    if method == "initialize":
        answer(ident, INIT)
    elif method == "resources/list" and MODE == "exit-after-page":
        answer(ident, PAGE)
        sys.stdin.readline()  # the next page's request: taken, never answered
        sys.stderr.write("gave up after page 1\n")
        sys.stderr.flush()
        os._exit(1)
    elif method == "resources/list":
        answer(ident, {"resources": [{"uri": "dead://x", "name": "x"}]})
    elif method == "resources/read" and MODE == "answer-then-exit":
        answer(ident, {"contents": [{"uri": "dead://x", "text": "last words"}]})
        os._exit(0)  # its last answer is in the pipe as it exits
    elif method == "resources/read":
        sys.stderr.write("read crashed: segfault simulated\n")
        sys.stderr.flush()
        os._exit(139)
    else:
        error = {"code": -32601, "message": "no " + method}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": ident, "error": error}) + "\n")
        sys.stdout.flush()
"""

WRAPPER = """sleep 120 &
echo "$$ $!" > "$1"
shift
exec "$@"
"""
"""Leaves a child holding the pipes, writes its own pid (the group's) and the child's, execs the server."""

CLOSED = "the server closed the connection (did it exit?)"


def wrapped_words(tmp_path: Path, mode: str) -> list[str]:
    (tmp_path / "server.py").write_text(SERVER)
    (tmp_path / "wrapper.sh").write_text(WRAPPER)
    pids = tmp_path / "pids"
    return ["sh", str(tmp_path / "wrapper.sh"), str(pids), sys.executable, str(tmp_path / "server.py"), mode]


def assert_nothing_left(tmp_path: Path) -> None:
    pids = read_pids(tmp_path / "pids")
    left = wait_all_gone(pids, pgid=pids[0])
    kill_leftovers(left)
    assert not left, f"still running after the explorer exited: {left}"


def test_a_read_that_kills_the_server_fails_at_once_with_its_stderr(tmp_path: Path) -> None:
    spec = shlex.join(wrapped_words(tmp_path, "crash-on-read"))
    result = run_cli("read", "dead://x", "--timeout", "60", "-s", spec)
    assert result.code == 1, result
    assert_no_traceback(result)
    assert f"reading dead://x: {CLOSED}" in result.stderr, result
    assert "read crashed: segfault simulated" in result.stderr, result
    assert "did not answer" not in result.stderr, result
    assert_nothing_left(tmp_path)


def test_the_pages_before_the_exit_are_kept_and_the_next_fails_at_once(tmp_path: Path) -> None:
    """The server took the next page's request and exited without answering it."""
    spec = shlex.join(wrapped_words(tmp_path, "exit-after-page"))
    result = run_cli("tree", "--json", "--protocol", "legacy", "--timeout", "60", "-s", spec)
    [server] = json.loads(result.stdout)["servers"]
    assert result.code == 1, result
    assert not server["ok"] and server["resources"] == 3, server
    assert CLOSED in server["error"] and "gave up after page 1" in server["error"], server
    assert "did not answer" not in server["error"], server
    assert_nothing_left(tmp_path)


def test_an_answer_written_just_before_the_exit_is_still_read(tmp_path: Path) -> None:
    """What is in the pipe when the server exits is read before the connection is declared closed."""
    spec = shlex.join(wrapped_words(tmp_path, "answer-then-exit"))
    result = run_cli("read", "dead://x", "--timeout", "60", "-s", spec)
    assert result.code == 0, result
    assert "last words" in result.stdout, result
    assert_nothing_left(tmp_path)


@pytest.mark.anyio
async def test_the_fault_says_the_connection_closed(tmp_path: Path) -> None:
    words = wrapped_words(tmp_path, "crash-on-read")
    spec = ServerSpec(name="dying", transport="stdio", command=words[0], args=tuple(words[1:]))
    async with ServerConnection(
        spec, protocol="legacy", timeout=60.0, stderr_log=tmp_path / "stderr.log"
    ) as conn:
        with pytest.raises(ServerFault) as caught:
            await conn.read_resource("dead://x")
    message = caught.value.message
    assert message.startswith(f"reading dead://x: {CLOSED}"), message
    assert "read crashed: segfault simulated" in message, message
    pids = read_pids(tmp_path / "pids")
    left = await wait_all_gone_async(pids, pgid=pids[0])
    kill_leftovers(left)
    assert not left, f"still running after the connection closed: {left}"
