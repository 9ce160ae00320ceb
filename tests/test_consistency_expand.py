"""`expand` on the command line and the template form build the same URI from the same typed text."""

from __future__ import annotations

import pytest

from explorer.model.fields import check_template, template_fields
from explorer.model.templates import parse_template
from tests.helpers.cli import run_cli

CASES = [
    ("x://q{?params*}", "params", "a=1,b=2", "x://q?a=1&b=2"),
    ("x://p{/segs*}", "segs", "a/b", "x://p/a/b"),
    ("x://p{/segs*}", "segs", "a,b", "x://p/a%2Cb"),
    ("x://f{.ext*}", "ext", "tar.gz", "x://f.tar.gz"),
    ("x://q{?tags*}", "tags", "a,b", "x://q?tags=a&tags=b"),
    ("x://{id}", "id", "a,b", "x://a%2Cb"),
]


@pytest.mark.parametrize(("template", "name", "text", "uri"), CASES)
def test_cli_expand_builds_the_uri_the_form_builds(template: str, name: str, text: str, uri: str) -> None:
    parsed = parse_template(template)
    form = check_template(parsed, template_fields(parsed), {name: text})
    assert form.uri == uri
    result = run_cli("expand", template, f"{name}={text}")
    assert result.code == 0, result
    assert result.stdout.strip() == uri


def test_cli_expand_keeps_an_empty_value_defined() -> None:
    result = run_cli("expand", "x://s{?q}", "q=")
    assert (result.code, result.stdout.strip()) == (0, "x://s?q="), result
