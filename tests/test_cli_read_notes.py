"""`read` says how a content was read as `note:` and a problem with it as `warning:`, on stderr.

Found: the model tells the two kinds apart (`Content.informational`, `Decoded.informational`: the TUI
mutes a declared charset and colours bytes that are not in theirs), but `read` printed both as
`note: ...`, so a blob printed as a summary because its bytes are not in its charset, or a text read as
UTF-8 because its charset is none, looked as harmless as a latin-1 text decoded as declared.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.tiny_server import tiny_server

SERVER = """
CONTENTS = json.loads(sys.argv[1])
def answer(method, params):
    if method == "resources/read":
        return {"contents": CONTENTS}
    if method in ("resources/list", "resources/templates/list"):
        return {"resources": [], "resourceTemplates": []}
    return None
"""


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


CONTENTS = [
    {"uri": "c://latin", "mimeType": "text/plain; charset=latin-1", "blob": b64(b"caf\xe9")},
    {"uri": "c://ascii", "mimeType": "text/plain; charset=us-ascii", "blob": b64(b"ab\xe9")},
    {"uri": "c://klingon", "mimeType": "text/plain; charset=klingon", "blob": b64("naïve".encode())},
]


@pytest.mark.slow
def test_read_says_an_informational_note_as_note_and_a_problem_as_warning(tmp_path: Path) -> None:
    spec = tiny_server(tmp_path, SERVER, json.dumps(CONTENTS))
    result = run_cli("-s", spec, "read", "c://latin")
    assert result.code == 0, result  # notes, either kind, never change the exit code
    assert result.stdout.splitlines() == [  # the contents alone: no note mixed in
        "--- c://latin (text/plain; charset=latin-1)",
        "café",
        "--- c://ascii (text/plain; charset=us-ascii)",
        "[blob: text/plain; charset=us-ascii, 3 bytes]",
        "--- c://klingon (text/plain; charset=klingon)",
        "naïve",
    ]
    assert result.stderr.splitlines() == [
        "note: c://latin: decoded from the declared charset latin-1",
        "warning: c://ascii: declared as text, but the bytes are not us-ascii, the declared charset "
        "(ordinal not in range(128) at byte 2): printed as a blob",
        "warning: c://klingon: the declared charset 'klingon' is not one Python knows: read as UTF-8",
    ]


@pytest.mark.slow
def test_read_of_a_lone_latin1_blob_has_only_a_note(tmp_path: Path) -> None:
    spec = tiny_server(tmp_path, SERVER, json.dumps(CONTENTS[:1]))
    result = run_cli("-s", spec, "read", "c://latin")
    assert (result.code, result.stdout, result.stderr) == (
        0,
        "café\n",
        "note: c://latin: decoded from the declared charset latin-1\n",
    ), result


@pytest.mark.slow
def test_read_json_carries_the_result_as_sent_and_no_note(tmp_path: Path) -> None:
    spec = tiny_server(tmp_path, SERVER, json.dumps(CONTENTS))
    result = run_cli("-s", spec, "read", "--json", "c://latin")
    assert result.code == 0, result
    assert json.loads(result.stdout)["result"] == {"contents": CONTENTS}
    assert "note:" not in result.stderr and "warning:" not in result.stderr, result
