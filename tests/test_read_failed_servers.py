"""`read` with several servers, some of which could not be asked (a command not found, a listing that
broke off). Before, `read` said nothing of them when another server read the URI (exit 0, no warning,
no `servers` in `--json`), and when nothing that answered listed the URI its error said that no server
lists it, though the one that does may be the server that failed. An empty URI (or one with a space)
was invisible in its messages (`reading : the server answered ...`)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from tests.helpers.cli import run_cli, warnings_of
from tests.helpers.tiny_server import tiny_server

pytestmark = pytest.mark.slow

LISTS_DOC = """
def answer(method, params):
    if method == "resources/list":
        return {"resources": [{"uri": "x://doc", "name": "doc"}]}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    if method == "resources/read" and params.get("uri") == "x://doc":
        return {"contents": [{"uri": "x://doc", "text": "the doc"}]}
    return None
"""

# Connects, then goes away when asked for its resources: its listing breaks off.
EXITS_ON_LIST = """
def answer(method, params):
    if method == "resources/list":
        sys.exit(0)
    return None
"""


def missing_command(tmp_path: Path) -> str:
    return shlex.join([str(tmp_path / "no-such-server")])


def test_a_server_that_could_not_be_asked_is_a_warning_when_another_reads_the_uri(tmp_path: Path) -> None:
    working = tiny_server(tmp_path, LISTS_DOC, name="working.py")
    result = run_cli("read", "x://doc", "-s", working, "-s", missing_command(tmp_path))
    assert result.code == 0, result
    assert result.stdout.strip() == "the doc"
    [warning] = warnings_of(result)
    assert warning.startswith(
        "warning: server no-such-server: could not list its resources and templates ("
    ), result
    assert "command not found" in warning, result


def test_read_json_has_each_server_and_why_it_could_not_be_asked(tmp_path: Path) -> None:
    working = tiny_server(tmp_path, LISTS_DOC, name="working.py")
    broken = tiny_server(tmp_path, EXITS_ON_LIST, name="broken.py")
    result = run_cli(
        "read", "x://doc", "--json", "-s", working, "-s", missing_command(tmp_path), "-s", broken
    )
    assert result.code == 0, result
    document = json.loads(result.stdout)
    assert document["ok"] is True
    assert document["result"]["contents"][0]["text"] == "the doc"
    servers = {s["name"]: s for s in document["servers"]}
    assert list(servers) == ["working.py", "no-such-server", "broken.py"]
    assert servers["working.py"] == {"name": "working.py", "ok": True, "error": None}
    assert servers["no-such-server"]["ok"] is False
    assert "command not found" in servers["no-such-server"]["error"]["message"]
    assert servers["no-such-server"]["error"]["origin"] == "explorer"
    assert servers["broken.py"]["ok"] is False
    assert servers["broken.py"]["error"]["message"], document
    assert len(warnings_of(result)) == 2, result


def test_when_no_server_that_answered_lists_the_uri_the_error_names_those_not_asked(tmp_path: Path) -> None:
    working = tiny_server(tmp_path, LISTS_DOC, name="working.py")
    broken = tiny_server(tmp_path, EXITS_ON_LIST, name="broken.py")
    specs = ["-s", working, "-s", missing_command(tmp_path), "-s", broken]
    result = run_cli("read", "x://elsewhere", *specs)
    assert result.code == 1, result
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: server working.py: reading x://elsewhere: "), result
    assert last.endswith(
        "(no server that answered lists this URI and no template of theirs matches it; "
        "no-such-server, broken.py could not be asked)"
    ), result
    assert "no server lists this URI" not in result.stderr, result
    assert [w.split(":")[1] for w in warnings_of(result)] == [" server no-such-server", " server broken.py"]
    document = json.loads(run_cli("read", "x://elsewhere", "--json", *specs).stdout)
    assert "no-such-server, broken.py could not be asked" in document["error"]["message"]
    assert [s["ok"] for s in document["servers"]] == [True, False, False]


def test_when_no_server_could_be_asked_the_error_says_so(tmp_path: Path) -> None:
    one = shlex.join([str(tmp_path / "one")])
    two = shlex.join([str(tmp_path / "two")])
    result = run_cli("read", "x://doc", "-s", one, "-s", two)
    assert result.code == 1, result
    last = result.stderr.strip().splitlines()[-1]
    assert last.endswith(
        "(no server could be asked whether it lists this URI: one, two could not list theirs)"
    )
    assert "no server lists this URI" not in result.stderr, result


def test_every_server_answering_still_says_nothing_lists_the_uri(tmp_path: Path) -> None:
    one = tiny_server(tmp_path, LISTS_DOC, name="one.py")
    two = tiny_server(tmp_path, LISTS_DOC, name="two.py")
    result = run_cli("read", "x://elsewhere", "-s", one, "-s", two)
    assert result.code == 1, result
    assert warnings_of(result) == [], result
    assert result.stderr.strip().endswith("(no server lists this URI and no template matches it)"), result


def test_a_lone_server_is_in_servers_too(tmp_path: Path) -> None:
    working = tiny_server(tmp_path, LISTS_DOC, name="working.py")
    failed = json.loads(run_cli("read", "x://elsewhere", "--json", "-s", working).stdout)
    assert failed["ok"] is False
    assert failed["servers"] == [{"name": "working.py", "ok": True, "error": None}]  # asked: it answered
    missing = json.loads(run_cli("read", "x://doc", "--json", "-s", missing_command(tmp_path)).stdout)
    assert missing["ok"] is False
    [server] = missing["servers"]
    assert server["ok"] is False and "command not found" in server["error"]["message"]


@pytest.mark.parametrize(("uri", "shown"), [("", "''"), ("a b", "'a b'"), ("x://doc ", "'x://doc '")])
def test_an_empty_or_spaced_uri_is_quoted_in_the_error(tmp_path: Path, uri: str, shown: str) -> None:
    working = tiny_server(tmp_path, LISTS_DOC, name="working.py")
    result = run_cli("read", "-s", working, "--", uri)
    assert result.code == 1, result
    assert result.stderr.startswith(f"error: server working.py: reading {shown}: the server answered "), (
        result
    )


def test_a_plain_uri_is_not_quoted(tmp_path: Path) -> None:
    working = tiny_server(tmp_path, LISTS_DOC, name="working.py")
    result = run_cli("read", "-s", working, "x://nope")
    assert result.stderr.startswith("error: server working.py: reading x://nope: the server answered "), (
        result
    )
