"""An answer no parser can read (JSON nested too deep, a number longer than Python reads, broken JSON)
fails the request its head names at once, with why, instead of waiting for the timeout; a line with no
readable id is still counted as not JSON-RPC. A batch (a JSON array of messages, which the 2025-03-26
protocol allowed) is read message by message, each answer reaching its request."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from explorer.connection.errors import ProtocolProblems, UnreadableAnswer
from explorer.connection.stdio_lines import parse_line, refused_too_big
from tests.helpers.cli import run_cli
from tests.hostile_helpers import assert_no_traceback

DEEP = "[" * 100_000 + "]" * 100_000
LONG_NUMBER = "9" * (sys.get_int_max_str_digits() + 1)
ENVELOPE = '{"jsonrpc": "2.0", "id": 5, "result": {"resources": [], "_meta": %s}}'


def unread_why(message: Any, ident: int | str = 5) -> str:
    """The sentence of the error answer the reader made for `ident`."""
    error = message.message
    assert error.id == ident and isinstance(error.error.data, UnreadableAnswer)
    return error.error.data.why


@pytest.mark.parametrize(
    ("value", "why"),
    [
        (DEEP, "its JSON is nested too deep to parse"),
        (LONG_NUMBER, f"it holds a number of more than {sys.get_int_max_str_digits():,} digits"),
        ("[1, 2", "it is not valid JSON (Expecting ',' delimiter at character 70)"),
    ],
    ids=["deep", "long-number", "broken"],
)
def test_an_answer_no_parser_reads_fails_its_request_with_why(value: str, why: str) -> None:
    problems = ProtocolProblems()
    message = parse_line((ENVELOPE % value).encode(), problems)
    assert unread_why(message) == f"the server's answer to request 5 could not be read: {why}"
    assert problems.describe() is None  # the request says it: no second warning


def test_a_line_cut_by_the_end_of_output_is_left_to_the_connection_closing() -> None:
    """The server exited while writing it: "closed the connection" and its stderr say more than JSON's
    complaint about a line that stops short."""
    problems = ProtocolProblems()
    assert parse_line((ENVELOPE % "[1, 2").encode()[:-3], problems, cut=True) is None
    assert problems.not_json == 1


def test_a_string_id_is_shown_quoted() -> None:
    line = ('{"jsonrpc": "2.0", "id": "page-2", "result": ' + DEEP + "}").encode()
    message = parse_line(line, ProtocolProblems())
    assert unread_why(message, "page-2").startswith(
        "the server's answer to request 'page-2' could not be read"
    )


@pytest.mark.parametrize(
    "line",
    [
        '{"result": {"_meta": ' + DEEP + '}, "id": 5, "jsonrpc": "2.0"}',  # the id is not at its head
        '{"jsonrpc": "2.0", "id": 5, "method": "ping", "params": {"x": ' + DEEP + "}}",  # its own request
        '{"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": ' + LONG_NUMBER + "}}",
    ],
    ids=["id-elsewhere", "servers-request", "notification"],
)
def test_a_line_with_no_answer_id_at_its_head_is_still_counted(line: str) -> None:
    problems = ProtocolProblems()
    assert parse_line(line.encode(), problems) is None
    assert problems.not_json == 1 and "1 line that is not a JSON-RPC message" in str(problems.describe())


# ------------------------------------------------------------------------------------------------ batches


def answer(ident: int, uri: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "result": {"resources": [{"uri": uri, "name": uri}]}}


def test_a_batch_hands_on_each_message_in_order() -> None:
    problems = ProtocolProblems()
    notification = {"jsonrpc": "2.0", "method": "notifications/resources/list_changed"}
    batch = parse_line(json.dumps([answer(5, "x://a"), notification, answer(6, "x://b")]).encode(), problems)
    assert [getattr(m.message, "id", None) for m in batch] == [5, None, 6]
    assert batch[0].message.result["resources"][0]["uri"] == "x://a"
    assert problems.describe() is None


def test_a_batch_fails_the_broken_answers_it_holds_and_counts_what_is_not_a_message() -> None:
    problems = ProtocolProblems()
    line = json.dumps([answer(5, "x://a"), {"jsonrpc": "2.0", "id": 6, "result": [1]}, 7]).encode()
    good, broken = parse_line(line, problems)
    assert good.message.id == 5
    assert unread_why(broken, 6).endswith('(its "result" is a list, not an object)')
    assert problems.not_json == 1  # the 7: once for the line


def test_a_batch_too_big_to_read_fails_the_request_its_head_names() -> None:
    refusal = refused_too_big(b'[{"jsonrpc": "2.0", "id": 9, "result": {"contents": [{"text": "xxx', 1024)
    assert refusal is not None and refusal.message.id == 9


# ---------------------------------------------------------------------------------------------------- CLI


SERVER = r"""
import json, sys

MODE = sys.argv[1]
INIT = {"protocolVersion": "2025-03-26", "capabilities": {"resources": {}},
        "serverInfo": {"name": "odd", "version": "1"}}
ITEM = {"uri": "odd://a", "name": "a"}


def write(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def listing(ident):
    head = '{"jsonrpc": "2.0", "id": %s, "result": {"resources": [%s], "_meta": ' % (
        json.dumps(ident), json.dumps(ITEM))
    if MODE == "deep":
        return head + "[" * 100000 + "]" * 100000 + "}}"
    if MODE == "long-number":
        return head + "9" * 4301 + "}}"
    return json.dumps([{"jsonrpc": "2.0", "id": ident, "result": {"resources": [ITEM]}}])  # a batch


for line in sys.stdin:
    message = json.loads(line)
    method, ident = message.get("method"), message.get("id")
    if ident is None:
        continue
    if method == "initialize":
        write(json.dumps({"jsonrpc": "2.0", "id": ident, "result": INIT}))
    elif method == "resources/list":
        write(listing(ident))
    else:
        write(json.dumps({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "no"}}))
"""


def odd_server(tmp_path: Path, mode: str) -> str:
    (tmp_path / "server.py").write_text(SERVER)
    return shlex.join([sys.executable, str(tmp_path / "server.py"), mode])


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mode", "why"),
    [
        ("deep", "its JSON is nested too deep to parse"),
        ("long-number", "it holds a number of more than 4,300 digits"),
    ],
)
def test_the_cli_says_at_once_why_an_answer_could_not_be_read(tmp_path: Path, mode: str, why: str) -> None:
    """With --timeout 60, only the fix can say this: before, the listing waited and said it timed out."""
    result = run_cli("tree", "--protocol", "legacy", "--timeout", "60", "-s", odd_server(tmp_path, mode))
    assert result.code == 1, result
    assert_no_traceback(result)
    assert "listing resources: the server's answer to request" in result.stderr, result
    assert f"could not be read: {why}" in result.stderr, result
    assert "did not answer" not in result.stderr and "not a JSON-RPC message" not in result.stderr, result


@pytest.mark.slow
def test_the_cli_lists_a_page_sent_as_a_batch(tmp_path: Path) -> None:
    result = run_cli(
        "tree", "--json", "--protocol", "legacy", "--timeout", "60", "-s", odd_server(tmp_path, "batch")
    )
    assert result.code == 0, result
    [server] = json.loads(result.stdout)["servers"]
    assert server["ok"] and server["complete"] and server["resources"] == 1, server
