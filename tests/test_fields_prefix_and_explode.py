"""A variable used anywhere with a prefix modifier takes one string, whatever its first use.

Found: the form (`explorer.model.fields`) read a variable by its FIRST use. In ``d://r{/x*}/p/{x:3}``
that is the explode ``{/x*}``, so a typed ``abcdef`` became ``["abcdef"]``, which ``{x:3}`` cannot take
(RFC 6570 2.4.1): ``expand 'd://r{/x*}/p/{x:3}' x=abcdef`` exited 2, the form and a drill row said
"cannot be expanded", for every value. A string is what RFC 6570 expands there (``{/x*}`` with a
string is ``{/x}``): ``d://r/abcdef/p/abc``. The matcher reads it back the same way, so the form's
round-trip check passes. A list given for such a variable is still refused with the RFC's sentence.
"""

from __future__ import annotations

import pytest

from explorer.model.drilldown import Drill
from explorer.model.fields import check_template, parse_text, template_fields
from explorer.model.templates import UnusableValue, expand, match, parse_template
from tests.helpers.cli import run_cli

CASES = [
    ("d://r{/x*}/p/{x:3}", "x", "abcdef", "d://r/abcdef/p/abc"),  # the explode first
    ("d://r/p/{x:3}{/x*}", "x", "abcdef", "d://r/p/abc/abcdef"),  # the prefix first
    ("d://q{?y*}/{y:2}", "y", "k=v", "d://q?y=k%3Dv/k%3D"),  # no key=value map either
    ("d://{z*}/{z:1}", "z", "a,b", "d://a%2Cb/a"),  # no list split at ","
]


@pytest.mark.parametrize(("template", "name", "text", "uri"), CASES)
def test_the_form_reads_a_prefixed_variable_as_one_string(
    template: str, name: str, text: str, uri: str
) -> None:
    parsed = parse_template(template)
    [spec] = template_fields(parsed)
    assert spec.separator is None and parse_text(spec, text) == text
    check = check_template(parsed, [spec], {name: text})
    assert (check.values, check.uri, check.errors, check.problem) == ({name: text}, uri, {}, None)
    assert match(parsed, uri) == {name: text}  # what the round-trip check and `match` read back


@pytest.mark.parametrize(("template", "name", "text", "uri"), CASES)
def test_a_drill_value_for_a_prefixed_variable_expands(template: str, name: str, text: str, uri: str) -> None:
    drill = Drill.start(template, "s").with_value(text)
    assert (drill.problem, drill.uri) == (None, uri)


@pytest.mark.slow
@pytest.mark.parametrize(("template", "name", "text", "uri"), CASES)
def test_cli_expand_gives_the_uri(template: str, name: str, text: str, uri: str) -> None:
    result = run_cli("expand", template, f"{name}={text}")
    assert (result.code, result.stdout, result.stderr) == (0, uri + "\n", ""), result


def test_a_list_for_a_prefixed_variable_is_still_refused_and_others_still_split() -> None:
    with pytest.raises(UnusableValue, match=r"x is a list, but \{x:3\} takes a string: RFC 6570 says"):
        expand("d://r{/x*}/p/{x:3}", {"x": ["abcdef"]})
    [spec] = template_fields(parse_template("d://r{/x*}/p/{x}"))  # no prefix: the explode splits
    assert spec.separator == "/" and parse_text(spec, "a/b") == ["a", "b"]
    assert expand("d://r{/x*}/p/{x}", {"x": ["a", "b"]}) == "d://r/a/b/p/a,b"


def test_expand_refuses_a_variable_given_twice() -> None:
    """`x=a/b x=c`: the last word silently won, where the user may have meant two items."""
    result = run_cli("expand", "d://r{/x*}", "x=a", "x=b")
    assert result.code == 2, result
    assert result.stdout == ""
    assert result.stderr.startswith("error: x is given twice: give each variable once"), result
