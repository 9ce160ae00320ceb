"""`read` with several servers that list the URI: when the first fails, the next is asked, and the
failure is said. Before, only the first was asked: one hung or broken server failed the read though
another server served the same URI."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.tiny_server import tiny_server

pytestmark = pytest.mark.slow

LISTS_AND_READS = """
NAME = sys.argv[1]
READS = sys.argv[2] == "reads"
def answer(method, params):
    if method == "resources/list":
        return {"resources": [{"uri": "x://shared/doc", "name": "doc"}]}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    if method == "resources/read" and READS:
        return {"contents": [{"uri": params["uri"], "text": "from " + NAME}]}
    return None
"""


def test_a_failing_first_server_hands_the_read_to_the_next(tmp_path: Path) -> None:
    broken = tiny_server(tmp_path, LISTS_AND_READS, "broken", "fails", name="broken.py")
    working = tiny_server(tmp_path, LISTS_AND_READS, "working", "reads", name="working.py")
    result = run_cli("read", "x://shared/doc", "-s", broken, "-s", working)
    assert result.code == 0, result
    assert result.stdout.strip() == "from working"
    assert (
        "warning: server broken.py: reading x://shared/doc: the server answered error -32601" in result.stderr
    )
    assert "trying server working.py" in result.stderr


def test_when_every_server_fails_the_last_error_is_the_answer(tmp_path: Path) -> None:
    one = tiny_server(tmp_path, LISTS_AND_READS, "one", "fails", name="one.py")
    two = tiny_server(tmp_path, LISTS_AND_READS, "two", "fails", name="two.py")
    result = run_cli("read", "x://shared/doc", "-s", one, "-s", two)
    assert result.code == 1, result
    assert "trying server two.py" in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("error: server two.py: reading x://shared/doc")
