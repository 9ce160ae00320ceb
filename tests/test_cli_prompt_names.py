"""`prompt` names a prompt as the user can type it back, and `prompts` says when a server offers none.

Before, the "did you mean" hint was the repr of the sanitized name: `did you mean 'p\\\\x1b[31mx'`, escaped
twice, which pasted back found nothing; and `prompts` printed nothing at all for a server without prompts
(`tools` says "(this server offers no tools)").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.tiny_server import tiny_server

pytestmark = pytest.mark.slow

ODD_NAME = """
CAPABILITIES = {"prompts": {}}
def answer(method, params):
    if method == "prompts/list":
        return {"prompts": [{"name": "p\\x1b[31mx"}]}
    return None
"""

TOOLS_ONLY = """
CAPABILITIES = {"tools": {}}
def answer(method, params):
    if method == "tools/list":
        return {"tools": []}
    return None
"""


def test_the_hint_shows_the_name_escaped_once(tmp_path: Path) -> None:
    server = tiny_server(tmp_path, ODD_NAME)
    result = run_cli("-s", server, "prompt", "p\x1b[31my")
    assert result.code == 1, result
    assert "did you mean 'p\\x1b[31mx'?" in result.stderr, result
    assert "\\\\x1b" not in result.stderr and "\x1b" not in result.stderr
    as_json = run_cli("-s", server, "prompt", "p\x1b[31my", "--json")
    message = json.loads(as_json.stdout)["error"]["message"]
    assert message == "no server has a prompt named 'p\x1b[31my'; did you mean 'p\x1b[31mx'?"  # exact


def test_prompts_says_a_server_offers_none(tmp_path: Path) -> None:
    result = run_cli("-s", tiny_server(tmp_path, TOOLS_ONLY), "prompts")
    assert result.code == 0 and result.stdout == "(this server offers no prompts)\n", result
