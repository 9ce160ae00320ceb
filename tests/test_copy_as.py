"""Copy as: URI, JSON-RPC request, headless command line; secrets masked; the line really works."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from explorer.config import ServerSpec
from explorer.model.copy_as import jsonrpc_prompt, jsonrpc_read, prompt_command, read_command
from tests.conftest import run_cli


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


def test_http_command_masks_header_values() -> None:
    spec = ServerSpec(
        name="r", transport="http", url="https://x.test/mcp", headers={"Authorization": "Bearer s3cr3t"}
    )
    line = read_command(spec, "docs://x", protocol="legacy")
    assert "s3cr3t" not in line
    assert shlex.split(line) == [
        "mcp-url-explorer", "read", "docs://x", "-s", "https://x.test/mcp", "-H", "Authorization: ***",
        "--protocol", "legacy",
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
    assert bare.startswith("env TOKEN=*** ") and "abc123456" not in bare


def test_the_copied_command_line_reproduces_the_read() -> None:
    spec = ServerSpec(
        name="demo", transport="stdio", command=sys.executable, args=("-m", "explorer", "demo-server")
    )
    words = shlex.split(read_command(spec, "docs://glossary"))
    assert words[0] == "mcp-url-explorer"
    result = run_cli(*words[1:])
    assert result.code == 0 and "GLOSSARY" in result.stdout.upper()
