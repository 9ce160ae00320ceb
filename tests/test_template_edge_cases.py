"""Two template edge cases found by a hunt, as a user meets them.

1. A variable used twice, exploded first and prefix-limited later (``d://r{/x*}/p/{x:3}``): the
   exploded use makes the value a list, and RFC 6570 2.4.1 says "Prefix modifiers are not applicable to
   variables that have composite values". `expand` raised a bare `TypeError`: the CLI printed a
   traceback, and the TUI exited when such a drill row was read, copied or followed. Now `expand` says
   why (`UnusableValue`, a `TemplateError`), and the form, the drill-down and the CLI give a variable
   used with a prefix anywhere one string (`tests/test_fields_prefix_and_explode.py`): the row reads.
2. A template whose literal text expansion pct-encodes (``t://a b/{x}`` expands to ``t://a%20b/...``)
   was filed under the raw text (``t://a b``), away from the URIs it produces, and `tree --prefix` with
   the encoded prefix left it out.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.model.drilldown import Drill
from explorer.model.entries import TemplateEntry
from explorer.model.fields import check_template, template_fields
from explorer.model.resolve import resolve_uri, too_large_for
from explorer.model.templates import TemplateError, UnusableValue, expand, parse_template
from explorer.model.uri_tree import UriTree
from tests.app_helpers import main_screen, preview_text, settled_app, stdio_spec, wait_for
from tests.helpers.cli import run_cli
from tests.helpers.tiny_server import tiny_server

# ------------------------------------------------------------------------- 1. a list where a prefix is


def test_expand_names_the_variable_a_composite_value_reaches_a_prefix_of() -> None:
    with pytest.raises(TemplateError, match=r"x is a list, but \{x:3\} takes a string") as caught:
        expand("d://r{/x*}/p/{x:3}", {"x": ["abcd"]})
    assert isinstance(caught.value, UnusableValue) and caught.value.variable == "x"
    with pytest.raises(UnusableValue, match=r"y is a map of key=value pairs, but \{\?y:2\}"):
        expand("{?y:2}", {"y": {"k": "v"}})
    # An empty list or map is undefined (RFC 6570 2.3): nothing to cut, nothing wrong.
    assert expand("d://r{/x*}/p/{x:3}", {"x": []}) == "d://r/p/"
    assert expand("{x:3}", {"x": {}}) == ""


_OPERATORS = st.sampled_from(["", "+", "#", ".", "/", ";", "?", "&"])
_USE = st.tuples(_OPERATORS, st.sampled_from(["", "*", ":1", ":3"])).map(lambda t: f"{{{t[0]}x{t[1]}}}")
_TEMPLATES = st.lists(st.tuples(st.sampled_from(["", "/", "-", "/p/"]), _USE), min_size=1, max_size=3).map(
    lambda parts: "d://r" + "".join(literal + use for literal, use in parts)
)
_TEXT = st.sampled_from(["", "abcd", "a/b", "a,b", "k=v", "a=1,b=2", "é.x"])
_VALUES = st.one_of(
    _TEXT, st.lists(_TEXT, max_size=3), st.dictionaries(st.sampled_from(["k", "x"]), _TEXT, max_size=2)
)


@settings(max_examples=300, deadline=None)
@given(_TEMPLATES, _VALUES, _TEXT)
def test_one_variable_used_twice_never_raises_more_than_a_template_error(
    template: str, value: str | list[str] | dict[str, str], typed: str
) -> None:
    """A str, list or map for a variable used with any two operators and modifiers: a URI or a
    `TemplateError` from `expand`; the form and the drill-down say why instead of raising."""
    parsed = parse_template(template)
    with contextlib.suppress(TemplateError):  # a URI, or an error that says why: nothing else
        expand(parsed, {"x": value})
    check = check_template(parsed, template_fields(parsed), {"x": typed})
    assert check.uri is not None or check.problem is not None
    if typed:
        drill = Drill.start(template, "s").with_value(typed)
        assert drill.problem is not None or isinstance(drill.uri, str)


_COMPLETING = """
TEMPLATES = {templates!r}
CAPABILITIES = {{"resources": {{}}, "completions": {{}}}}
def answer(method, params):
    if method == "resources/templates/list":
        return {{"resourceTemplates": [{{"uriTemplate": t, "name": "t"}} for t in TEMPLATES]}}
    if method == "resources/list":
        return {{"resources": [{{"uri": u, "name": u}} for u in {resources!r}]}}
    if method == "completion/complete":
        return {{"completion": {{"values": ["abcd"]}}}}
    if method == "resources/read":
        return {{"contents": [{{"uri": params["uri"], "text": "read " + params["uri"]}}]}}
    return None
"""


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_drill_row_of_an_exploded_variable_with_a_prefix_elsewhere_reads(tmp_path: Path) -> None:
    template = "d://r{/x*}/p/{x:3}"
    server = tiny_server(tmp_path, _COMPLETING.format(templates=[template], resources=[]))
    async with settled_app(stdio_spec("tiny", server)) as (app, pilot):
        screen = main_screen(app)
        tree = screen.tree_widget
        assert tree.select_prefix(template)
        await pilot.press("right")  # drill: the server completes x with "abcd"
        row = "{/x*} = abcd"
        await wait_for(pilot, lambda: any(label.startswith(row) for _d, label, _n in tree.visible_rows()))
        await pilot.press("down")  # from the template to its one candidate
        drill = tree.cursor_drill
        assert drill is not None and drill.is_concrete and drill.fixed == {"x": "abcd"}
        assert (drill.problem, drill.uri) == (None, "d://r/abcd/p/abc")  # x is one string, as RFC 6570 allows
        assert "cannot be expanded" not in tree.visible_rows()[tree.cursor_line][1]

        await pilot.press("enter")  # read it
        await wait_for(pilot, lambda: "read d://r/abcd/p/abc" in preview_text(app))
        assert not any("Cannot read" in str(n.message) for n in app._notifications)
        assert app.is_running and app.return_code is None


# ------------------------------------------------------------------------------ 2. encoded literals


def _tpl(text: str, server: str = "s") -> TemplateEntry:
    return TemplateEntry(server, text, "t")


@pytest.mark.parametrize(
    ("template", "parent", "label"),
    [
        ("t://a b/{x}", "t://a%20b", "{x}"),
        ("t://é/{x}", "t://%C3%A9", "{x}"),
        ("o://nl\n/{x}", "o://nl%0A", "{x}"),
        ("o://p/%zz/{x}", "o://p/%25zz", "{x}"),
        ("t://host/é{x}", "t://host", "é{x}"),  # the label is the server's own text
        ("t://a%20b/{y}", "t://a%20b", "{y}"),  # already encoded: as it was
    ],
)
def test_a_template_sits_under_its_literal_as_expansions_write_it(
    template: str, parent: str, label: str
) -> None:
    tree = UriTree()
    tree.add_templates([_tpl(template)])
    pattern = tree.pattern_for(template)
    assert pattern is not None
    assert (pattern.parent.prefix, pattern.label, pattern.uri_template) == (parent, label, template)
    written = expand(template, {"x": "1", "y": "1"})
    assert written.startswith(pattern.literal_prefix) and written.startswith(parent)
    assert [e.uri_template for e in tree.templates_under(parent)] == [template]
    assert [e.uri_template for e in tree.templates_for(written)] == [template]
    assert tree.count_under(parent).templates == 1


def test_a_raw_and_an_encoded_literal_are_two_templates_under_one_node() -> None:
    tree = UriTree()
    tree.add_templates([_tpl("t://a b/{x}"), _tpl("t://a%20b/{x}", "other")])
    raw, encoded = tree.pattern_for("t://a b/{x}"), tree.pattern_for("t://a%20b/{x}")
    assert raw is not None and encoded is not None and raw is not encoded
    assert raw.parent is encoded.parent and raw.label == encoded.label == "{x}"
    assert (dict(raw.templates), dict(encoded.templates)) == (
        {"s": _tpl("t://a b/{x}")},
        {"other": _tpl("t://a%20b/{x}", "other")},
    )
    tree.remove_server("s")
    assert tree.pattern_for("t://a b/{x}") is None and tree.pattern_for("t://a%20b/{x}") is encoded


def test_near_misses_and_too_large_compare_the_encoded_literal() -> None:
    tree = UriTree()
    tree.add_templates([_tpl("t://a b/{x}")])
    resolution = resolve_uri(tree, "t://a%20b/1/2")  # a "/" {x} cannot hold: a near miss
    assert [template for _s, template, _r in resolution.near_misses] == ["t://a b/{x}"]
    huge = _tpl("t://a b/" + "{v}" * 300)
    assert [entry for entry, _why in too_large_for([huge], "t://a%20b/1")] == [huge]


_LISTING = """
def answer(method, params):
    if method == "resources/templates/list":
        return {"resourceTemplates": [
            {"uriTemplate": "t://a b/{x}", "name": "space literal"},
            {"uriTemplate": "t://\\u00e9/{x}", "name": "unicode literal"},
            {"uriTemplate": "t://other/{x}", "name": "elsewhere"},
        ]}
    if method == "resources/list":
        return {"resources": [{"uri": "t://a%20b/1", "name": "one"}]}
    return None
"""


@pytest.mark.slow
def test_cli_tree_files_an_encoded_literal_under_the_encoded_prefix(tmp_path: Path) -> None:
    server = tiny_server(tmp_path, _LISTING)
    result = run_cli("-s", server, "tree")
    assert result.code == 0, result
    lines = result.stdout.splitlines()
    start = lines.index("  a%20b  (2)")
    assert lines[start + 1 : start + 3] == ["    {x}  [template]  space literal", "    1  one"]
    assert "    {x}  [template]  unicode literal" in lines[lines.index("  %C3%A9  (1)") :]
    assert not any(line.strip().startswith(("a b", "é")) for line in lines), result

    under = run_cli("-s", server, "tree", "--prefix", "t://a%20b/")
    assert under.code == 0, under
    assert "{x}  [template]  space literal" in under.stdout, under
    assert "elsewhere" not in under.stdout and "unicode literal" not in under.stdout

    found = run_cli("-s", server, "match", "t://a%20b/9")  # match agrees: the template produces it
    assert found.code == 0, found
    assert "t://a b/{x}  x=9" in found.stdout


@pytest.mark.parametrize("expression", ["{x:3*}", "{x*:3}"])
def test_a_prefix_and_an_explode_together_are_named_so_in_either_order(expression: str) -> None:
    """`{x*:3}` was "bad variable name 'x*'", as if the `*` were part of the name."""
    with pytest.raises(TemplateError, match=r"has both a prefix and '\*' \(RFC allows one\)"):
        parse_template("x://" + expression)
