"""A server's request whose id is no string or integer (`1.5`, `true`) is answered as JSON-RPC 2.0 says, an
error -32600 "Invalid Request" to the id null, and said among the connection's problems. The SDK's parser
took it for a notification (the id dropped): it went unanswered and unsaid, and the server waited."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from explorer.connection.errors import ProtocolProblems, UnreadableMessage
from explorer.connection.server_messages import ServerMessages
from tests.helpers.cli import run_cli, warnings_of

pytestmark = pytest.mark.slow

# While listing, it sends two sampling requests with odd ids, and answers the listing only once it has
# received an answer to each (what it receives that is no request is written to the file named by argv[1]).
SERVER = """
import json, sys
RECEIVED = open(sys.argv[1], "a")
ODD_IDS = [1.5, True]

def send(obj):
    sys.stdout.write(json.dumps(obj) + "\\n")
    sys.stdout.flush()

def answers(wanted):
    for line in sys.stdin:
        message = json.loads(line)
        if "method" not in message:
            RECEIVED.write(line.strip() + "\\n")
            RECEIVED.flush()
            wanted -= 1
            if wanted == 0:
                return

for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message or "method" not in message:
        continue
    method, ident = message["method"], message["id"]
    if method == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"resources": {}},
                  "serverInfo": {"name": "odd", "version": "1"}}
    elif method == "resources/list":
        for odd in ODD_IDS:
            send({"jsonrpc": "2.0", "id": odd, "method": "sampling/createMessage",
                  "params": {"messages": [], "maxTokens": 1}})
        answers(len(ODD_IDS))
        result = {"resources": [{"uri": "odd://one", "name": "one"}]}
    elif method == "resources/templates/list":
        result = {"resourceTemplates": []}
    else:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "Method not found"}})
        continue
    send({"jsonrpc": "2.0", "id": ident, "result": result})
"""


def test_requests_with_odd_ids_are_answered_invalid_and_said(tmp_path: Path) -> None:
    script, received = tmp_path / "odd.py", tmp_path / "received.jsonl"
    script.write_text(SERVER)
    spec = shlex.join([sys.executable, str(script), str(received)])
    # Unanswered, the listing waits for --timeout and the tree fails.
    result = run_cli("-s", spec, "--timeout", "10", "--protocol", "legacy", "tree", timeout=60)
    assert result.code == 0, result
    assert "odd://one" in result.stdout, result
    answers = [json.loads(line) for line in received.read_text().splitlines()]
    invalid = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}}
    assert answers == [invalid, invalid], result
    [warning] = warnings_of(result)
    assert "odd.py sent 2 requests the explorer could not read" in warning, result
    assert "sampling/createMessage whose id 1.5 is no string or integer" in warning, result


@pytest.mark.anyio
@pytest.mark.parametrize("odd", [1.5, True, None, {"a": 1}, [1]])
async def test_a_request_with_an_odd_id_is_answered_to_null(odd: object) -> None:
    """The connection's part, as the stdio reader hands such a request on (an `UnreadableMessage`)."""
    from_server, server_side = anyio.create_memory_object_stream[Any](1)
    to_server, written = anyio.create_memory_object_stream[Any](1)
    problems = ProtocolProblems()
    request = {"jsonrpc": "2.0", "id": odd, "method": "roots/list"}
    async with (
        ServerMessages(problems).watching((server_side, to_server)) as (read, _write),
        anyio.create_task_group() as group,
    ):
        group.start_soon(read.receive)  # the session's read loop: it gets nothing for this message
        await from_server.send(UnreadableMessage(request))
        with anyio.fail_after(10):
            answer = await written.receive()  # the error answer, written back to the server
        group.cancel_scope.cancel()
    frame = answer.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
    assert frame == {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}}
    said = problems.describe()
    assert said is not None and "roots/list whose id" in said and "is no string or integer" in said
