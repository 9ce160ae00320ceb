"""JSON errors say who made them: `origin` is "server" for an error the server answered with, "explorer" for
one of the explorer's own (it gave up waiting, the server closed the connection).

Many servers answer -32000 and -32001 for errors of their own, the codes the SDK gives a closed connection
and a request's timeout: `code` alone could not tell "the server said -32001" from "we gave up waiting".
`code` stays what it was. Through the CLI, as a script reads it.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.cli import raw_server, run_cli

pytestmark = pytest.mark.slow

PROMPTS_SERVER = """
import json, sys, time
MODE = sys.argv[1]
def send(obj):
    sys.stdout.write(json.dumps(obj) + "\\n")
    sys.stdout.flush()
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method, ident = message.get("method"), message["id"]
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": ident, "result": {"protocolVersion": "2025-06-18",
              "capabilities": {"prompts": {}}, "serverInfo": {"name": "prompts", "version": "1"}}})
    elif method == "prompts/list" and MODE == "own-timeout":
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32001, "message": "upstream timed out"}})
    elif method == "prompts/list" and MODE == "silent":
        pass  # never answers
    else:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "Method not found"}})
"""


def prompts_server(folder: Path, mode: str) -> str:
    script = folder / "prompts_server.py"
    script.write_text(PROMPTS_SERVER)
    return shlex.join([sys.executable, str(script), mode])


def only_server_error(stdout: str) -> dict[str, Any]:
    [server] = json.loads(stdout)["servers"]
    assert server["ok"] is False
    error: dict[str, Any] = server["error"]
    return error


def test_a_server_that_exits_is_the_explorers_error_not_the_servers_minus_32000() -> None:
    result = run_cli("--timeout", "10", "read", "--json", "x://y", "-s", raw_server("exit-at-start"))

    assert result.code == 1, result
    error = json.loads(result.stdout)["error"]
    assert error["origin"] == "explorer" and error["code"] == -32000, error
    assert "closed the connection" in error["message"]


def test_our_timeout_while_connecting_is_the_explorers_error() -> None:
    spec = raw_server("hang-init")
    result = run_cli("--timeout", "2", "--protocol", "legacy", "prompts", "--json", "-s", spec)

    assert result.code == 1, result
    error = only_server_error(result.stdout)
    assert error["origin"] == "explorer" and error["code"] == -32001, error
    assert "(timeout; --timeout SECONDS waits longer)" in error["message"]


def test_our_timeout_while_listing_prompts_is_the_explorers_error(tmp_path: Path) -> None:
    spec = prompts_server(tmp_path, "silent")
    result = run_cli("--timeout", "2", "--protocol", "legacy", "prompts", "--json", "-s", spec)

    assert result.code == 1, result
    error = only_server_error(result.stdout)
    assert error["origin"] == "explorer" and error["code"] == -32001, error
    assert "(timeout; --timeout SECONDS waits longer)" in error["message"]


def test_a_servers_own_minus_32001_is_the_servers_error(tmp_path: Path) -> None:
    spec = prompts_server(tmp_path, "own-timeout")
    result = run_cli("--timeout", "10", "--protocol", "legacy", "prompts", "--json", "-s", spec)

    assert result.code == 1, result
    error = only_server_error(result.stdout)
    assert error["origin"] == "server" and error["code"] == -32001, error
    assert "upstream timed out" in error["message"]


def test_a_servers_own_minus_32001_to_a_read_is_the_servers_error() -> None:
    spec = raw_server("read-errors")
    result = run_cli("--timeout", "10", "--protocol", "legacy", "read", "--json", "err://-32001", "-s", spec)

    assert result.code == 1, result
    error = json.loads(result.stdout)["error"]
    assert error["origin"] == "server" and error["code"] == -32001, error
