"""`read` in text: what a server sends in `contents` that is no content, and a lone content that names
another URI, are said on stderr. Before, they were left out without a word, or shown as if they were the
URI asked for; `--json` keeps the server's result as it is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.tiny_server import tiny_server

pytestmark = pytest.mark.slow

ANSWERS = """
CONTENTS = json.loads(sys.argv[1])
NAME = "odd"
def answer(method, params):
    if method == "resources/read":
        return {"contents": CONTENTS}
    return {"resources": [], "resourceTemplates": []}
"""


def read(tmp_path: Path, contents: object, *options: str) -> tuple[int, str, str]:
    command = tiny_server(tmp_path, ANSWERS, json.dumps(contents))
    result = run_cli("read", "e://a", *options, "-s", command)
    return result.code, result.stdout, result.stderr


def test_contents_that_are_not_objects_are_said_left_out(tmp_path: Path) -> None:
    code, stdout, stderr = read(tmp_path, [{"uri": "e://a", "text": "kept"}, "str", None])
    assert code == 0 and stdout.strip() == "kept"
    assert "warning: 2 of the 3 contents are not objects; left out" in stderr
    code, stdout, _ = read(tmp_path, [{"uri": "e://a", "text": "kept"}, "str", None], "--json")
    assert json.loads(stdout)["result"]["contents"][1:] == ["str", None]  # the JSON keeps them


def test_a_lone_content_of_another_uri_is_said(tmp_path: Path) -> None:
    code, stdout, stderr = read(tmp_path, [{"uri": "h://someone/else", "text": "theirs"}])
    assert code == 0 and stdout.strip() == "theirs"
    assert "warning: the content says it is h://someone/else, not the URI read" in stderr
    _, _, same = read(tmp_path, [{"uri": "e://a", "text": "mine"}])
    assert "warning" not in same
