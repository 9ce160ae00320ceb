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


def test_a_blob_with_whitespace_or_no_padding_is_read_as_the_tui_reads_it(tmp_path: Path) -> None:
    """Base64 wrapped in lines or without its padding is base64 (the TUI decodes it): its size is
    printed, with a note that it was not canonical; other characters are still refused, with why."""
    wrapped = {"uri": "e://a", "mimeType": "text/plain", "blob": "aGVs\nbG8g\nd29y\nbGQ="}
    code, stdout, _ = read(tmp_path, [wrapped])
    assert code == 0
    assert (
        stdout.strip() == "[blob: text/plain, 11 bytes (not canonical base64: whitespace or missing padding)]"
    )
    _, stdout, _ = read(tmp_path, [{"uri": "e://a", "mimeType": "text/plain", "blob": "aGVsbG8"}])
    assert (
        stdout.strip() == "[blob: text/plain, 5 bytes (not canonical base64: whitespace or missing padding)]"
    )
    _, stdout, _ = read(tmp_path, [{"uri": "e://a", "mimeType": "text/plain", "blob": "aGVsbG8="}])
    assert stdout.strip() == "[blob: text/plain, 5 bytes]"
    _, stdout, _ = read(tmp_path, [{"uri": "e://a", "blob": "not base64!!"}])
    assert stdout.strip() == (
        "[blob: application/octet-stream, 12 characters of INVALID base64: "
        "unexpected character '!' at offset 10]"
    )


def test_a_text_or_blob_that_is_no_string_is_said_as_the_tui_says_it(tmp_path: Path) -> None:
    _, stdout, _ = read(tmp_path, [{"uri": "e://a", "text": 5}])
    assert stdout.strip() == "[text is not a string (int)]"
    _, stdout, _ = read(tmp_path, [{"uri": "e://a", "blob": 12}])
    assert stdout.strip() == "[blob is not a string (int)]"
    _, stdout, _ = read(tmp_path, [{"uri": "e://a"}])
    assert stdout.strip() == "[the content has neither text nor blob]"
