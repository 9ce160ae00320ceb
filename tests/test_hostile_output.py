"""Hostile servers, round two (issue 9), against the headless commands: output integrity, secrets,
prompt data. Each test runs `python -m explorer` against `tests/fixtures/hostile_server.py` in one or more
of its modes, as a user would; no traceback ever, every stderr line one `error:`/`warning:` sentence.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.cli import run_cli
from tests.hostile_helpers import (
    HOSTILE_SERVER,
    assert_no_traceback,
    hostile_server,
    hostile_words,
    invisible_or_control,
    longest_mark_run,
)

pytestmark = pytest.mark.slow

PROTOCOL = ("--protocol", "legacy")
INVISIBLE_ESCAPES = (
    "\\u115f",
    "\\u3164",
    "\\uffa0",
    "\\ufe0f",
    "\\U000e0100",
    "\\u034f",
    "\\u17b4",
    "\\u206a",
)
SECRET = 'tok"en\\wörd+/=42'  # a quote, a backslash, non-ASCII: echoed JSON-escaped, encoded, base64


# ------------------------------------------------------------------------------------ JSON envelope


def test_read_json_keeps_the_servers_result_under_its_own_key() -> None:
    spec = hostile_server("envelope", resources=3)
    result = run_cli("read", "fixture://items/0/item-1", "--json", *PROTOCOL, "-s", spec)
    assert result.code == 0, result
    data = json.loads(result.stdout)
    assert data["server"] == "hostile_server.py" and data["ok"] is True
    assert data["uri"] == "fixture://items/0/item-1" and "error" not in data
    assert set(data) == {"server", "uri", "ok", "result", "servers"}
    assert data["servers"] == [{"name": "hostile_server.py", "ok": True, "error": None}]
    forged = data["result"]  # what the server sent, exactly, where it cannot pass for the explorer's
    assert forged["server"] == "trusted-server" and forged["ok"] is False and forged["error"] == "forged"


def test_read_json_failure_has_the_same_envelope() -> None:
    result = run_cli("read", "err://-32603", "--json", *PROTOCOL, "-s", hostile_server("read-errors"))
    assert result.code == 1
    data = json.loads(result.stdout)
    assert set(data) == {"server", "uri", "ok", "error", "servers"} and data["ok"] is False
    assert set(data["error"]) == {"code", "message", "data", "origin"} and data["error"]["code"] == -32603
    assert data["error"]["origin"] == "server"  # the server answered it, not the explorer


def test_prompt_and_prompts_json_keep_the_servers_data_under_its_own_key() -> None:
    spec = hostile_server("envelope")
    got = run_cli("prompt", "greet", "who=Ada", "--json", *PROTOCOL, "-s", spec)
    assert got.code == 0, got
    data = json.loads(got.stdout)
    assert set(data) == {"server", "prompt", "arguments", "ok", "result", "servers"}
    assert data["server"] == "hostile_server.py" and data["prompt"] == "greet" and data["ok"] is True
    assert data["arguments"] == {"who": "Ada"}
    assert data["result"]["server"] == "trusted-server" and data["result"]["arguments"] == {"forged": "yes"}
    listed = run_cli("prompts", "--json", *PROTOCOL, "-s", spec)
    assert listed.code == 0, listed
    prompts = json.loads(listed.stdout)["prompts"]
    forger = next(p for p in prompts if p["prompt"]["name"] == "forger")
    assert forger["server"] == "hostile_server.py" and forger["prompt"]["server"] == "trusted-server"
    assert all(set(p) == {"server", "prompt", "problems"} for p in prompts)


# ---------------------------------------------------------------------------- invisible characters


def test_invisible_characters_are_escaped_in_text_and_json() -> None:
    spec = hostile_server("invisible", resources=3)
    tree = run_cli("tree", *PROTOCOL, "-s", spec)
    assert tree.code == 0, tree
    assert not invisible_or_control(tree.stdout), tree.stdout
    assert all(escape in tree.stdout for escape in INVISIBLE_ESCAPES)  # server name and resource name
    read = run_cli("read", "fixture://items/0/item-1", *PROTOCOL, "-s", spec)
    assert not invisible_or_control(read.stdout) and "\\U000e0068\\U000e0069" in read.stdout  # tags "hi"
    as_json = run_cli("read", "fixture://items/0/item-1", "--json", *PROTOCOL, "-s", spec)
    assert not invisible_or_control(as_json.stdout)
    assert "\\udb40\\udc68" in as_json.stdout and "\\u206a" in as_json.stdout and "\\ufffb" in as_json.stdout
    from tests.fixtures.hostile_server import INVISIBLE

    text = json.loads(as_json.stdout)["result"]["contents"][0]["text"]
    assert text.endswith(INVISIBLE)  # the decoded value is exact


def test_a_run_of_combining_marks_is_capped_in_text_and_escaped_in_json() -> None:
    spec = hostile_server("zalgo", resources=3)
    read = run_cli("read", "fixture://items/0/item-1", *PROTOCOL, "-s", spec)
    assert read.code == 0, read
    assert longest_mark_run(read.stdout) <= 8 and "[+4992 combining marks] after" in read.stdout
    tree = run_cli("tree", *PROTOCOL, "-s", spec)
    assert longest_mark_run(tree.stdout) <= 8 and "[+4992 combining marks]" in tree.stdout
    as_json = run_cli("read", "fixture://items/0/item-1", "--json", *PROTOCOL, "-s", spec)
    assert longest_mark_run(as_json.stdout) <= 8
    text = json.loads(as_json.stdout)["result"]["contents"][0]["text"]
    assert text.endswith("e" + "\u0301" * 5000 + " after")


# ----------------------------------------------------------------------------------------- prompts


def test_malformed_prompt_data_is_listed_and_shown_with_warnings_never_a_traceback() -> None:
    spec = hostile_server("bad-prompts")
    listed = run_cli("prompts", *PROTOCOL, "-s", spec)
    assert listed.code == 0, listed
    assert_no_traceback(listed)
    assert "args-string\n" in listed.stdout and "args-items(ok)" in listed.stdout
    assert "prompt args-number: its 'arguments' is a number, not a list: ignored" in listed.stderr
    as_json = run_cli("prompts", "--json", *PROTOCOL, "-s", spec)
    prompts = {p["prompt"]["name"]: p for p in json.loads(as_json.stdout)["prompts"]}
    assert prompts["args-object"]["prompt"]["arguments"] == {"name": "who"}  # as sent
    assert prompts["args-object"]["problems"] == ["its 'arguments' is an object, not a list: ignored"]
    got = run_cli("prompt", "shapes", *PROTOCOL, "-s", spec)
    assert got.code == 0, got
    assert_no_traceback(got)
    for shown in (
        "[an embedded resource whose 'resource' is a string, not an object]\njust a string, not an object",
        "[an embedded resource whose 'resource' is a list, not an object]",
        "[narrator] (unknown role)",
        "[message 6: its role is a number, not a string]",
        "[a content block of unknown type hologram]",
        "[message 14: it is a string, not an object]",
    ):
        assert shown in got.stdout, shown
    as_json = run_cli("prompt", "shapes", "--json", *PROTOCOL, "-s", spec)
    assert as_json.code == 0 and json.loads(as_json.stdout)["result"]["messages"][0]["content"]["resource"]


def test_a_prompt_error_is_printed_once_with_its_code_in_text_and_json() -> None:
    spec = hostile_server("prompt-error")
    text = run_cli("prompt", "greet", "who=Ada", *PROTOCOL, "-s", spec)
    assert text.code == 1
    assert_no_traceback(text)
    assert text.stderr.count("\n") == 1 and "no server has" not in text.stderr
    assert "error -32603: prompt template exploded (fixture)" in text.stderr
    as_json = run_cli("prompt", "greet", "who=Ada", "--json", *PROTOCOL, "-s", spec)
    data = json.loads(as_json.stdout)
    assert data["ok"] is False and data["error"]["code"] == -32603
    assert "prompt template exploded" in data["error"]["message"] and data["error"]["data"] == {
        "template": "greet"
    }
    assert as_json.stderr.count("\n") == 1


def test_not_found_is_said_only_when_every_listing_succeeded() -> None:
    failing, fine = hostile_server("prompts-list-error"), hostile_server()
    mixed = run_cli("prompt", "nope", *PROTOCOL, "-s", failing, "-s", fine)
    assert mixed.code == 1
    assert_no_traceback(mixed)
    assert "no server has a prompt named" not in mixed.stderr
    assert "error -32603: prompt registry unavailable" in mixed.stderr
    assert "'nope' is not among the prompts of hostile_server.py-2" in mixed.stderr
    only_failing = run_cli("prompt", "nope", "--json", *PROTOCOL, "-s", failing)
    assert "no server has" not in only_failing.stdout + only_failing.stderr
    assert json.loads(only_failing.stdout)["error"]["code"] == -32603
    nowhere = run_cli("prompt", "nope", *PROTOCOL, "-s", fine)
    assert nowhere.code == 1 and nowhere.stderr == "error: no server has a prompt named 'nope'\n"
    found = run_cli("prompt", "greet", "who=Ada", *PROTOCOL, "-s", failing, "-s", fine)
    assert found.code == 0 and "Hello Ada" in found.stdout
    assert found.stderr.startswith("warning: server hostile_server.py: could not list its prompts")
    dead = hostile_server("exit-at-start")  # a server that never connects does not hold the others up
    after_dead = run_cli("prompt", "greet", "who=Ada", *PROTOCOL, "-s", dead, "-s", fine)
    assert after_dead.code == 0 and "Hello Ada" in after_dead.stdout


def test_an_input_required_result_says_what_the_server_asked_for() -> None:
    spec = hostile_server("input-required")
    for args in (("read", "ask://tenant"), ("prompt", "greet", "who=Ada")):
        result = run_cli(*args, *PROTOCOL, "-s", spec)
        assert result.code == 1, result
        assert_no_traceback(result)
        assert "no 'contents' list" not in result.stderr and "no 'messages' list" not in result.stderr
        assert '"input required" result' in result.stderr
        assert 'input from you (elicitation/create) "Which tenant should I read from?"' in result.stderr
        assert "an LLM completion (sampling/createMessage)" in result.stderr
    as_json = run_cli("read", "ask://tenant", "--json", *PROTOCOL, "-s", spec)
    error = json.loads(as_json.stdout)["error"]
    assert error["data"]["resultType"] == "input_required" and "tenant" in error["data"]["inputRequests"]
    task = run_cli("read", "task://1", *PROTOCOL, "-s", spec)
    assert "a result of type 'task' instead of the result itself" in task.stderr


def test_an_input_required_listing_says_what_the_server_asked_for() -> None:
    """A listing page or prompt list that is an "input required" result read as a page without its list."""
    result = run_cli("tree", "--json", *PROTOCOL, "-s", hostile_server("input-required-lists"))
    assert_no_traceback(result)
    [server] = json.loads(result.stdout)["servers"]
    error = server["lists"]["resources"]["error"]
    assert error.startswith("listing resources: page 1: the server needs more input before it answers (a"), (
        error
    )
    assert "Which tenant should I read from?" in error and "has no 'resources' list" not in error
    prompts = run_cli("prompts", *PROTOCOL, "-s", hostile_server("input-required-lists"))
    assert prompts.code == 1, prompts
    assert "listing prompts: page 1: the server needs more input" in prompts.stderr, prompts


# ----------------------------------------------------------------------------------------- secrets


def secret_config(tmp_path: Path, *modes: str) -> Path:
    path = tmp_path / "servers.json"
    args = [str(HOSTILE_SERVER), *(w for m in modes for w in ("--mode", m)), "--resources", "3"]
    path.write_text(
        json.dumps(
            {"mcpServers": {"leaky": {"command": sys.executable, "args": args, "env": {"TOKEN": SECRET}}}}
        )
    )
    return path


def assert_secret_absent(*texts: str) -> None:
    data = SECRET.encode()
    forms = [SECRET, json.dumps(SECRET)[1:-1], json.dumps(SECRET, ensure_ascii=False)[1:-1]]
    forms += [
        base64.b64encode(data).decode().rstrip("="),
        base64.urlsafe_b64encode(data).decode().rstrip("="),
    ]
    for text in texts:
        for form in forms:
            assert form not in text, form


def test_a_secret_echoed_in_server_info_is_masked_in_tree_text_and_json(tmp_path: Path) -> None:
    config = secret_config(tmp_path, "echo-info")
    text = run_cli("tree", *PROTOCOL, "-c", str(config))
    assert text.code == 0, text
    assert "leaky-*** 1.0+***" in text.stdout
    as_json = run_cli("tree", "--json", *PROTOCOL, "-c", str(config))
    assert json.loads(as_json.stdout)["servers"][0]["serverInfo"] == {
        "name": "leaky-***",
        "version": "1.0+***",
    }
    assert_secret_absent(text.stdout, text.stderr, as_json.stdout, as_json.stderr)


def test_a_secret_echoed_json_escaped_percent_encoded_or_base64_is_masked(
    tmp_path: Path, isolated_home: Path
) -> None:
    config = secret_config(tmp_path, "echo-encoded")
    text = run_cli("read", "err://-32603", *PROTOCOL, "-c", str(config))
    assert text.code == 1
    assert_no_traceback(text)
    assert (
        'rejected {"token": "***"} | raw-json {"token": "***"} | query ?token=*** | form token=***'
        in text.stderr
    )
    assert "| b64 *** | b64url *** |" in text.stderr
    as_json = run_cli("read", "err://-32603", "--json", *PROTOCOL, "-c", str(config))
    assert_secret_absent(text.stdout, text.stderr, as_json.stdout, as_json.stderr)
    message = json.loads(as_json.stdout)["error"]["message"]
    assert message.count("***") >= 10  # every encoding, the three base64 alignments included
    logs = [path.read_text(errors="replace") for path in isolated_home.rglob("*.log")]
    assert any('starting: rejected {"token": "***"}' in log for log in logs)  # the server's stderr log
    assert_secret_absent(*logs)


@pytest.fixture
def url_echoing_server() -> Iterator[str]:
    """The fixture over HTTP; read errors echo the request's path, query and Authorization header."""
    proc = subprocess.Popen(
        [*hostile_words("echo-url", "read-errors", resources=3), "--http"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_url_credentials_are_masked_in_errors(url_echoing_server: str) -> None:
    with_secrets = url_echoing_server.replace("http://", "http://alice:hunter2pass@") + "?token=s3cr3t-token"
    result = run_cli("read", "err://-32603", "--json", *PROTOCOL, "-s", with_secrets)
    assert result.code == 1, result
    everything = result.stdout + result.stderr
    assert "hunter2pass" not in everything and "s3cr3t-token" not in everything
    assert base64.b64encode(b"alice:hunter2pass").decode() not in everything  # the Basic header it sent
    assert "unauthorized: /mcp?token=*** (authorization 'Basic ***')" in result.stderr
    token_user = url_echoing_server.replace("http://", "http://ghp_tokenvalue1@")
    leaked = run_cli("read", "err://-32603", *PROTOCOL, "-s", token_user)
    assert "ghp_tokenvalue1" not in leaked.stderr
    assert base64.b64encode(b"ghp_tokenvalue1:").decode().rstrip("=")[:-2] not in leaked.stderr
