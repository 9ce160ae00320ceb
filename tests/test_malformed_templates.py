"""A server lists templates that are not RFC 6570 at all (`{unclosed`, `{a b}`): the tree said nothing
about them, though `match` calls them malformed and nothing can be expanded from them. The text tree and
the TUI's row now say so, with the parser's reason in the text tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.model.templates import malformed
from tests.app_helpers import settled_app, stdio_spec, tree_lines
from tests.helpers.cli import run_cli
from tests.helpers.tiny_server import tiny_server

pytestmark = pytest.mark.anyio

ANSWERS = """
NAME = "bad"
def answer(method, params):
    if method == "resources/list":
        return {"resources": [{"uri": "x://a/b", "name": "b"}]}
    if method == "resources/templates/list":
        return {"resourceTemplates": [
            {"uriTemplate": "x://a/{unclosed", "name": "bad1"},
            {"uriTemplate": "x://a/{a b}", "name": "bad2"},
            {"uriTemplate": "x://a/{ok}", "name": "good"}]}
    return None
"""


@pytest.fixture
def server(tmp_path: Path) -> str:
    return tiny_server(tmp_path, ANSWERS)


def test_malformed_names_the_syntax_error_and_nothing_else() -> None:
    assert malformed("x://a/{ok}") is None
    assert malformed("x://a/{unclosed") is not None
    assert malformed("{" + "}{".join(f"v{i}" for i in range(1200)) + "}") is None  # too large, not malformed


@pytest.mark.slow
def test_the_text_tree_marks_a_malformed_template(server: str) -> None:
    result = run_cli("tree", "-s", server)
    assert result.code == 0, result
    lines = {line.strip().split("  ")[0]: line for line in result.stdout.splitlines()}
    assert "[malformed: unclosed '{' at position 6" in lines["{unclosed"]
    assert "[malformed: bad variable name 'a b'" in lines["{a b}"]
    assert "malformed" not in lines["{ok}"]


@pytest.mark.slow
async def test_the_tui_row_marks_a_malformed_template(server: str) -> None:
    async with settled_app(stdio_spec("bad", server)) as (app, pilot):
        from explorer.widgets.resource_tree import ResourceTree

        tree = app.screen.query_one(ResourceTree)
        assert tree.select_prefix("x://a/{unclosed")  # its row revealed, its siblings with it
        await pilot.pause()
        rows = [line for line in tree_lines(app) if "⟨T⟩" in line]
        assert any("⚠ malformed" in row and "{unclosed" in row for row in rows), rows
        assert any("{ok}" in row and "malformed" not in row for row in rows), rows
