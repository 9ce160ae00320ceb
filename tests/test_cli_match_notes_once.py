"""`match`: a note on a value is said once, not once per reading of the URI.

A hunt found `match` of a 5,000-character URI against `x://j/{a}{b}` printing the same `note:` 16 times
(once per alternative reading, each of which holds the same long value of `a`), none saying which reading
it was about.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.tiny_server import tiny_server

pytestmark = pytest.mark.slow

TWO_VARIABLES = """
def answer(method, params):
    if method == "resources/list":
        return {"resources": []}
    if method == "resources/templates/list":
        return {"resourceTemplates": [{"uriTemplate": "x://j/{a}{b}", "name": "j"}]}
    return None
"""


def test_a_note_on_a_long_value_is_said_once_for_every_reading(tmp_path: Path) -> None:
    server = tiny_server(tmp_path, TWO_VARIABLES)
    result = run_cli("-s", server, "match", "x://j/" + "a" * 5000)
    assert result.code == 0, result
    assert result.stdout.count("    or  ") >= 2, result.stdout  # several readings, each with the value cut
    notes = [line for line in result.stderr.splitlines() if line.startswith("note: ")]
    assert len(notes) == len(set(notes)) >= 1, notes
    assert "the value of a is cut here at 4,000 characters" in notes[0], notes
