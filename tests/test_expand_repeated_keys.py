"""A key typed twice in an exploded map (`{?q*}` with `a=1,a=2`) goes into the URI twice: `?a=1&a=2`.

`expand 'x://d{?q*}' 'q=a=1,a=2'` printed `x://d?q=a%3D1&q=a%3D2` with exit 0: because `a` repeated, the
items stopped being key=value pairs and became a list of strings, which is not what was typed
(`q=a=1,b=2` gave `?a=1&b=2`). RFC 6570 2.3 calls a map a list of name-value pairs, and a query string may
name a key twice, so the pairs are kept (`Pairs`), by the CLI and the template form alike (they share
`fields.parse_text`), and `match` reads such a URI back to the same pairs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.app import ExplorerApp
from explorer.connection.completion import Completer
from explorer.model.entries import TemplateEntry
from explorer.model.fields import check_template, format_value, parse_text, template_fields
from explorer.model.templates import expand, match, parse_template, round_trips
from explorer.screens.template_form import TemplateFormResult, TemplateFormScreen
from explorer.widgets.argument_form import ArgumentForm
from tests.app_helpers import SIZE, make_app, wait_for
from tests.helpers.cli import run_cli
from tests.helpers.tiny_server import tiny_server

CASES = [
    ("x://d{?q*}", "a=1,a=2", "x://d?a=1&a=2"),
    ("x://d{?q*}", "a=1,b=2,a=3", "x://d?a=1&b=2&a=3"),
    ("x://d?s=1{&q*}", "a=1,a=2", "x://d?s=1&a=1&a=2"),
    ("x://d{;q*}", "a=1,a=2", "x://d;a=1;a=2"),
    ("x://d{?q*}", "a=1,b=2", "x://d?a=1&b=2"),  # as before: no key repeats
]


@pytest.mark.parametrize(("template", "text", "uri"), CASES)
def test_cli_expand_writes_a_repeated_key_as_typed(template: str, text: str, uri: str) -> None:
    result = run_cli("expand", template, f"q={text}")
    assert (result.code, result.stdout.strip(), result.stderr) == (0, uri, "")


@pytest.mark.parametrize(("template", "text", "uri"), CASES)
def test_the_form_builds_the_same_uri_and_finds_nothing_wrong(template: str, text: str, uri: str) -> None:
    parsed = parse_template(template)
    fields = template_fields(parsed)
    check = check_template(parsed, fields, {"q": text})
    assert (check.uri, check.errors, check.problem) == (uri, {}, None)
    # `match` reads the URI back to values the form writes as the text typed
    back = match(parsed, uri)
    assert back is not None and format_value(fields[0], back["q"]) == text


def test_match_reads_a_repeated_key_back_as_pairs() -> None:
    assert match("x://d{?q*}", "x://d?a=1&a=2") == {"q": (("a", "1"), ("a", "2"))}
    assert match("x://d{;q*}", "x://d;a=1;b=2;a=3") == {"q": (("a", "1"), ("b", "2"), ("a", "3"))}
    # pairs named after the variable itself are still its list, as before
    assert match("x://d{?q*}", "x://d?q=1&q=2") == {"q": ["1", "2"]}


def test_a_list_item_holding_an_equals_sign_is_still_a_list_when_not_every_item_is_a_pair() -> None:
    spec = template_fields(parse_template("x://d{?q*}"))[0]
    assert parse_text(spec, "a=1,b") == ["a=1", "b"]
    assert parse_text(spec, "=1,=2") == ["=1", "=2"]  # no key: not pairs
    assert expand("x://d{?q*}", {"q": ["a=1", "a=2"]}) == "x://d?q=a%3D1&q=a%3D2"


def test_expand_help_says_a_key_may_repeat() -> None:
    result = run_cli("expand", "--help")
    assert result.code == 0
    assert "a key may repeat (NAME=a=1,a=2 gives ?a=1&a=2)" in " ".join(result.stdout.split())


SERVER = """
def answer(method, params):
    if method == "resources/list":
        return {"resources": []}
    if method == "resources/templates/list":
        return {"resourceTemplates": [{"uriTemplate": "x://d{?q*}", "name": "q"}]}
    return None
"""


@pytest.mark.slow
def test_cli_match_prints_the_words_expand_reads_back(tmp_path: Path) -> None:
    server = tiny_server(tmp_path, SERVER)
    text = run_cli("-s", server, "match", "x://d?a=1&a=2")
    assert text.code == 0, text
    assert text.stdout.rstrip().endswith("x://d{?q*}  q=a=1,a=2"), text
    assert "note:" not in text.stderr, text  # the words shown give the URI back
    as_json = run_cli("-s", server, "match", "--json", "x://d?a=1&a=2")
    [found] = json.loads(as_json.stdout)["matches"]
    assert found["values"] == {"q": [["a", "1"], ["a", "2"]]}


@pytest.mark.anyio
@pytest.mark.slow
async def test_the_template_form_reads_the_uri_with_the_key_twice() -> None:
    app: ExplorerApp = make_app()
    results: list[TemplateFormResult | None] = []
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        entry = TemplateEntry("none", "x://d{?q*}", "query")
        app.push_screen(TemplateFormScreen(entry, Completer(None)), results.append)
        await wait_for(
            pilot, lambda: isinstance(app.screen, TemplateFormScreen) and bool(app.screen.query(ArgumentForm))
        )
        await pilot.press(*"a=1,a=2")
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(results))
    [result] = results
    assert result is not None and result.uri == "x://d?a=1&a=2"


# ------------------------------------------------------------------------------------------ round trips

KEYS = st.sampled_from(["a", "b", "c-d", "é", "a b"])
TEXT = st.text(st.characters(codec="utf-8", exclude_characters=",="), max_size=6)


@settings(max_examples=150, deadline=None)
@given(
    operator=st.sampled_from(["?", "&", ";"]),
    pairs=st.lists(st.tuples(KEYS, TEXT), min_size=2, max_size=5).filter(
        lambda ps: len({k for k, _ in ps}) < len(ps)  # a key repeats
    ),
)
def test_expand_then_match_gives_the_pairs_back(operator: str, pairs: list[tuple[str, str]]) -> None:
    template = f"x://d{{{operator}q*}}"
    value = tuple(pairs)
    uri = expand(template, {"q": value})
    assert match(template, uri) == {"q": value}, uri
    assert round_trips(template, {"q": value})


@settings(max_examples=150, deadline=None)
@given(
    operator=st.sampled_from(["?", "&", ";"]),
    pairs=st.lists(st.tuples(KEYS, TEXT), min_size=1, max_size=5),
)
def test_typed_text_expands_and_matches_back_to_the_same_text(
    operator: str, pairs: list[tuple[str, str]]
) -> None:
    """What the form (and `expand`) reads from `k=v,k=v`, expanded and matched, is written back as typed."""
    parsed = parse_template(f"x://d{{{operator}q*}}")
    spec = template_fields(parsed)[0]
    text = ",".join(f"{k}={v}" for k, v in pairs)
    value = parse_text(spec, text)
    assert value is not None
    back = match(parsed, expand(parsed, {"q": value}))
    assert back is not None and format_value(spec, back["q"]) == text
