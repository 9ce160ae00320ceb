"""A near miss names a variable the template repeats when the URI gives it two values.

`x://{id}/items/{id}` against `x://1/items/2`: the near miss (`match`, the go-to box) said only "the value
would not round-trip: expand gives x://1/items/1", which leaves the user to find out why. It now says first
that `id` is '1' at its first place and '2' at its second, with the values sanitized and cut.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.model.resolve import resolve_uri
from explorer.model.templates import diagnose
from explorer.model.uri_tree import UriTree
from tests.factories import tpl
from tests.helpers.cli import run_cli
from tests.helpers.tiny_server import tiny_server

TWO_VALUES = (
    "the template uses id twice, and the URI gives it two values: '1' at its first place ({id}) and '2' at "
    "its second place ({id}) (a variable has one value wherever it is used)"
)


def test_diagnose_names_the_variable_its_two_places_and_values_first() -> None:
    report = diagnose("x://{id}/items/{id}", "x://1/items/2")
    assert not report.matched
    assert report.problems[0] == TWO_VALUES
    assert report.values == {"id": "1"}


def test_the_places_are_named_as_the_template_writes_them() -> None:
    report = diagnose("x://a{?id}&b{/id}", "x://a?id=1&b/2")
    assert report.problems[0] == (
        "the template uses id twice, and the URI gives it two values: '1' at its first place ({?id}) and "
        "'2' at its second place ({/id}) (a variable has one value wherever it is used)"
    )
    three = diagnose("x://{x}/{x}/{x}", "x://a/a/b")
    assert three.problems[0].startswith("the template uses x 3 times, and the URI gives it two values: 'a'")
    assert "'b' at its third place ({x})" in three.problems[0]


def test_a_prefixed_use_must_hold_the_first_characters_of_the_value() -> None:
    report = diagnose("x://{/x*}/p/{x:3}", "x:///abcdef/p/abd")
    assert report.problems[0] == (
        "the template uses x twice: it is 'abcdef' at its first place ({/x*}), so its second place ({x:3}) "
        "holds its first 3 characters, 'abc', but the URI has 'abd' there"
    )
    # the value is taken from the use without a prefix, as `match` takes it, wherever it comes
    same_expression = diagnose("x://{/v:1,v}", "x:///a/bc")
    assert same_expression.values == {"v": "bc"}
    assert same_expression.problems[0].startswith("the template uses v twice: it is 'bc' at its second place")


def test_uses_that_agree_are_no_problem() -> None:
    assert diagnose("x://{id}/items/{id}", "x://1/items/1").matched
    assert diagnose("x://{/x*}/p/{x:3}", "x:///abcdef/p/abc").matched
    # a near miss for another reason says nothing of a conflict
    other = diagnose("x://{id}/items/{id}", "x://1/items/1?page=2")
    assert other.problems[0] == "the URI has a query '?page=2' that the template has no place for"
    assert not any("two values" in problem for problem in other.problems)


def test_the_values_are_sanitized_and_cut() -> None:
    hostile = "%1B%5B31m%E2%80%AE" + "z" * 200
    report = diagnose("x://{id}/items/{id}", f"x://1/items/{hostile}")
    [said] = [p for p in report.problems if "two values" in p]
    assert "\x1b" not in said and "\u202e" not in said
    assert "'\\x1b[31m\\u202e" in said and "… [+" in said
    assert len(said) < 300


def test_resolve_gives_the_near_miss_that_match_and_go_to_show() -> None:
    tree = UriTree()
    tree.add_templates([tpl("alpha", "x://{id}/items/{id}")])
    found = resolve_uri(tree, "x://1/items/2")
    [(server, template, report)] = found.near_misses
    assert (server, template) == ("alpha", "x://{id}/items/{id}")
    assert report.problems[:1] == [TWO_VALUES]  # the go-to box shows the first two


SERVER = """
def answer(method, params):
    if method == "resources/list":
        return {"resources": []}
    if method == "resources/templates/list":
        return {"resourceTemplates": [{"uriTemplate": "x://{id}/items/{id}", "name": "item"}]}
    return None
"""


@pytest.mark.slow
def test_cli_match_says_which_variable_has_two_values(tmp_path: Path) -> None:
    server = tiny_server(tmp_path, SERVER)
    result = run_cli("-s", server, "match", "x://1/items/2")
    assert result.code == 1, result
    [line] = [line for line in result.stdout.splitlines() if "near miss" in line]
    assert f"x://{{id}}/items/{{id}}  near miss: {TWO_VALUES}" in line
