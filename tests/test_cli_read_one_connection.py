"""`read` with several servers reads on the connection that listed the URI, and never connects twice.

Before, `read` listed every server (one connection each), closed those connections and opened a new one
to read: a stdio server was started twice, and a stateful server that knows a resource only in the session
that listed it refused the read. When no server could even connect, the first was started again (a hung
server cost its whole timeout twice). `read --watch --json` had no `servers` array, which `read --json`
has. Each server here appends a line to a file (its first argument) each time it is started.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.cli import demo_server, run_cli, warnings_of
from tests.helpers.tiny_server import tiny_server
from tests.test_cli_interrupt_json import ctrl_c_after
from tests.test_read_failed_servers import LISTS_DOC as READ_FAILED_LISTS_DOC

pytestmark = pytest.mark.slow

HANG_GUARD = 120.0  # seconds; a guard against a hang, never a timing assertion

COUNTS_STARTS = """
import pathlib
with open(sys.argv[1], "a") as _starts:
    _starts.write("started\\n")
"""

LISTS_DOC = COUNTS_STARTS + READ_FAILED_LISTS_DOC  # lists x://doc and reads it

LISTS_NOTHING = (
    COUNTS_STARTS
    + """
def answer(method, params):
    if method == "resources/list":
        return {"resources": []}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    return None
"""
)

# A stateful server: a resource exists only in the session that listed it.
STATEFUL = (
    COUNTS_STARTS
    + """
LISTED = set()
def answer(method, params):
    if method == "resources/list":
        LISTED.add("x://session/doc")
        return {"resources": [{"uri": "x://session/doc", "name": "doc"}]}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    if method == "resources/read":
        if params.get("uri") in LISTED:
            return {"contents": [{"uri": params["uri"], "text": "listed in this session"}]}
        return None  # refused: not listed in this session (answered as an unknown method)
    return None
"""
)

# Lists x://doc; reads it only when its second argument says so.
LISTS_AND_MAY_READ = (
    COUNTS_STARTS
    + """
def answer(method, params):
    if method == "resources/list":
        return {"resources": [{"uri": "x://doc", "name": "doc"}]}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    if method == "resources/read" and sys.argv[2] == "reads":
        return {"contents": [{"uri": params["uri"], "text": "read by " + NAME}]}
    return None
NAME = pathlib.Path(sys.argv[0]).name
"""
)

EXITS_AT_ONCE = """
import sys
with open(sys.argv[1], "a") as starts:
    starts.write("started\\n")
sys.exit(3)
"""

NEVER_ANSWERS = """
import sys, time
with open(sys.argv[1], "a") as starts:
    starts.write("started\\n")
time.sleep(3600)
"""


def starts_of(path: Path) -> int:
    """How many times the server that writes `path` was started."""
    return path.read_text().count("started") if path.exists() else 0


def counted(tmp_path: Path, body: str, name: str, *args: str) -> tuple[str, Path]:
    """A tiny server that counts its starts: its -s SPEC and the file it counts them in."""
    starts = tmp_path / f"{name}.starts"
    return tiny_server(tmp_path, body, str(starts), *args, name=name), starts


def script(tmp_path: Path, text: str, name: str) -> tuple[str, Path]:
    """A plain script (no MCP server) that counts its starts: its -s SPEC and its count file."""
    path, starts = tmp_path / name, tmp_path / f"{name}.starts"
    path.write_text(text)
    return shlex.join([sys.executable, str(path), str(starts)]), starts


def json_objects(text: str) -> list[dict[str, Any]]:
    """The JSON objects `--watch --json` printed one after another."""
    decoder, objects, rest = json.JSONDecoder(), [], text.strip()
    while rest:
        obj, end = decoder.raw_decode(rest)
        objects.append(obj)
        rest = rest[end:].strip()
    return objects


# ------------------------------------------------------------------- one connection per server


def test_each_server_is_started_once_and_the_lister_reads(tmp_path: Path) -> None:
    other, other_starts = counted(tmp_path, LISTS_NOTHING, "other.py")
    lister, lister_starts = counted(tmp_path, LISTS_DOC, "lister.py")
    result = run_cli("read", "x://doc", "-s", other, "-s", lister)
    assert result.code == 0, result
    assert result.stdout == "the doc\n", result
    assert (starts_of(other_starts), starts_of(lister_starts)) == (1, 1), result


def test_a_stateful_server_reads_what_it_listed_in_the_same_session(tmp_path: Path) -> None:
    other, _ = counted(tmp_path, LISTS_NOTHING, "other.py")
    stateful, starts = counted(tmp_path, STATEFUL, "stateful.py")
    result = run_cli("read", "x://session/doc", "--json", "-s", other, "-s", stateful)
    assert result.code == 0, result
    document = json.loads(result.stdout)
    assert document["server"] == "stateful.py" and document["ok"] is True, document
    assert document["result"]["contents"][0]["text"] == "listed in this session"
    assert document["servers"] == [
        {"name": "other.py", "ok": True, "error": None},
        {"name": "stateful.py", "ok": True, "error": None},
    ]
    assert starts_of(starts) == 1, result


def test_the_next_candidate_reads_on_its_own_first_connection(tmp_path: Path) -> None:
    broken, broken_starts = counted(tmp_path, LISTS_AND_MAY_READ, "broken.py", "fails")
    working, working_starts = counted(tmp_path, LISTS_AND_MAY_READ, "working.py", "reads")
    result = run_cli("read", "x://doc", "-s", broken, "-s", working)
    assert result.code == 0, result
    assert result.stdout == "read by working.py\n", result
    assert warnings_of(result) == [
        "warning: server broken.py: reading x://doc: the server answered error -32601: Method not found; "
        "trying server working.py"
    ], result
    assert (starts_of(broken_starts), starts_of(working_starts)) == (1, 1), result


def test_a_server_that_failed_to_connect_does_not_hold_up_the_read(tmp_path: Path) -> None:
    gone, gone_starts = script(tmp_path, EXITS_AT_ONCE, "gone.py")
    lister, lister_starts = counted(tmp_path, LISTS_DOC, "lister.py")
    result = run_cli("read", "x://doc", "-s", gone, "-s", lister)
    assert result.code == 0, result
    assert result.stdout == "the doc\n", result
    [warning] = warnings_of(result)
    assert warning.startswith("warning: server gone.py: could not list its resources and templates ("), result
    assert (starts_of(gone_starts), starts_of(lister_starts)) == (1, 1), result


# ------------------------------------------------------ no second connection when none connected


def test_when_no_server_connects_none_is_started_again(tmp_path: Path) -> None:
    one, one_starts = script(tmp_path, EXITS_AT_ONCE, "one.py")
    two, two_starts = script(tmp_path, EXITS_AT_ONCE, "two.py")
    result = run_cli("read", "x://doc", "-s", one, "-s", two)
    assert result.code == 1, result
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: server one.py: "), result
    assert last.endswith(
        "(no server could be asked whether it lists this URI: one.py, two.py could not list theirs)"
    ), result
    assert len(warnings_of(result)) == 2, result
    assert (starts_of(one_starts), starts_of(two_starts)) == (1, 1), result
    as_json = run_cli("read", "x://doc", "--json", "-s", one, "-s", two)
    assert as_json.code == 1, as_json
    document = json.loads(as_json.stdout)
    assert document["ok"] is False and document["server"] == "one.py", document
    assert document["error"]["message"].endswith("one.py, two.py could not list theirs)"), document
    assert [s["name"] for s in document["servers"]] == ["one.py", "two.py"]
    assert [s["ok"] for s in document["servers"]] == [False, False]
    assert (starts_of(one_starts), starts_of(two_starts)) == (2, 2), as_json


def test_a_hanging_server_is_not_started_a_second_time(tmp_path: Path) -> None:
    hung, hung_starts = script(tmp_path, NEVER_ANSWERS, "hung.py")
    gone, gone_starts = script(tmp_path, EXITS_AT_ONCE, "gone.py")
    result = run_cli("--timeout", "1", "read", "x://doc", "-s", hung, "-s", gone, timeout=HANG_GUARD)
    assert result.code == 1, result
    assert (
        result.stderr.strip()
        .splitlines()[-1]
        .endswith(
            "(no server could be asked whether it lists this URI: hung.py, gone.py could not list theirs)"
        )
    ), result
    assert (starts_of(hung_starts), starts_of(gone_starts)) == (1, 1), result


# ------------------------------------------------------------------------ Ctrl+C while reading

HANGS_ON_READ = (
    COUNTS_STARTS
    + """
import time
def answer(method, params):
    if method == "resources/list":
        return {"resources": [{"uri": "x://slow", "name": "slow"}]}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    if method == "resources/read":
        pathlib.Path(sys.argv[2]).write_text("asked")
        time.sleep(3600)
    return None
"""
)


def test_ctrl_c_while_reading_on_the_listing_connection(tmp_path: Path) -> None:
    marker = tmp_path / "read.asked"
    other, other_starts = counted(tmp_path, LISTS_NOTHING, "other.py")
    slow, slow_starts = counted(tmp_path, HANGS_ON_READ, "slow.py", str(marker))
    code, stdout, stderr = ctrl_c_after([marker], "read", "--json", "x://slow", "-s", other, "-s", slow)
    assert code == 130, stderr
    message = "reading x://slow: stopped by Ctrl+C before the server answered"
    assert json.loads(stdout) == {
        "server": "slow.py",
        "uri": "x://slow",
        "ok": False,
        "error": {"code": None, "message": message, "data": None, "origin": "explorer"},
        "servers": [
            {"name": "other.py", "ok": True, "error": None},
            {"name": "slow.py", "ok": True, "error": None},
        ],
    }
    assert f"error: server slow.py: {message}" in stderr and "Traceback" not in stderr
    assert (starts_of(other_starts), starts_of(slow_starts)) == (1, 1), stderr


# ------------------------------------------------------------------- read --watch --json servers

CLOCK = "metrics://live/clock"
FAST = ("-e", "EXPLORER_DEMO_TICK_SECONDS=0.2")


def test_watch_json_has_the_servers_of_read_json(tmp_path: Path) -> None:
    missing = shlex.join([str(tmp_path / "no-such-server")])
    result = run_cli(
        "read", CLOCK, "--watch", "--count", "1", "--json", "-s", demo_server(), "-s", missing, *FAST
    )
    assert result.code == 0, result
    objects = json_objects(result.stdout)
    assert [o["version"] for o in objects] == [1, 2], result
    for obj in objects:
        demo, failed = obj["servers"]
        assert demo == {"name": obj["server"], "ok": True, "error": None}, obj
        assert failed["name"] == "no-such-server" and failed["ok"] is False, obj
        assert "command not found" in failed["error"]["message"] and failed["error"]["origin"] == "explorer"


def test_watch_json_of_a_lone_server_has_it_in_servers() -> None:
    result = run_cli("read", CLOCK, "--watch", "--count", "1", "--json", "-s", demo_server(), *FAST)
    assert result.code == 0, result
    objects = json_objects(result.stdout)
    assert objects and all(
        o["servers"] == [{"name": o["server"], "ok": True, "error": None}] for o in objects
    )


def test_watch_json_error_has_servers_too(tmp_path: Path) -> None:
    missing = shlex.join([str(tmp_path / "no-such-server")])
    result = run_cli("read", "x://doc", "--watch", "--for", "1", "--json", "-s", missing)
    assert result.code == 1, result
    [document] = json_objects(result.stdout)
    assert document["ok"] is False and set(document) == {"server", "uri", "ok", "error", "servers"}
    [server] = document["servers"]
    assert server["name"] == "no-such-server" and server["ok"] is False, document
    assert server["error"] == document["error"], document


# Lists its template, then exits when asked for its resources: its listing connection is gone.
EXITS_AFTER_TEMPLATES = (
    COUNTS_STARTS
    + """
def answer(method, params):
    if method == "resources/templates/list":
        return {"resourceTemplates": [{"uriTemplate": "x://t/{id}", "name": "t"}]}
    if method == "resources/list":
        sys.exit(0)
    if method == "resources/read":
        return {"contents": [{"uri": params["uri"], "text": "read on a new connection"}]}
    return None
"""
)


def test_a_server_whose_listing_connection_ended_is_read_on_a_new_one(tmp_path: Path) -> None:
    """A reviewer's find: the read went to the connection already closed ("the server closed the
    connection", exit 1) where `read` before connected again and read it."""
    other, _ = counted(tmp_path, LISTS_NOTHING, "other.py")
    exits, starts = counted(tmp_path, EXITS_AFTER_TEMPLATES, "exits.py")
    result = run_cli("read", "x://t/1", "-s", other, "-s", exits)
    assert result.code == 0, result
    assert result.stdout == "read on a new connection\n", result
    assert starts_of(starts) == 2, result  # the listing's connection, then the read's
