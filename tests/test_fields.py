"""Form fields of templates and prompts: labels, required rule, typed text -> values, per-field errors."""

from __future__ import annotations

import pytest

from explorer.model.fields import (
    check_prompt,
    check_template,
    format_value,
    parse_text,
    prompt_fields,
    template_fields,
)
from explorer.model.templates import parse_template


def fields_of(template: str) -> dict[str, tuple[str, bool, str | None]]:
    return {f.name: (f.label, f.required, f.separator) for f in template_fields(parse_template(template))}


def test_labels_required_and_separators() -> None:
    assert fields_of("docs://handbook/{chapter}{#section}") == {
        "chapter": ("{chapter}", True, None),
        "section": ("{#section}", False, None),
    }
    assert fields_of("file:///{+path}") == {"path": ("{+path}", True, None)}
    assert fields_of("metrics://rollup{/segments*}") == {"segments": ("{/segments*}", False, "/")}
    assert fields_of("docs://search{?q,limit}") == {
        "q": ("{?q}", False, None),
        "limit": ("{?limit}", False, None),
    }
    assert fields_of("x://{.ext*}{?tags*}{x:3}") == {
        "ext": ("{.ext*}", False, "."),
        "tags": ("{?tags*}", False, ","),
        "x": ("{x:3}", True, None),
    }
    # a repeated name is one field; required if any occurrence is
    assert fields_of("x://{?v}/{v}") == {"v": ("{?v}", True, None)}


def test_parse_and_format_round_trip() -> None:
    (segments,) = template_fields(parse_template("m://r{/segments*}"))
    assert parse_text(segments, "eu-west/checkout/") == ["eu-west", "checkout"]
    assert parse_text(segments, "") is None and parse_text(segments, "/") is None
    assert format_value(segments, ["a", "b"]) == "a/b"
    (params,) = template_fields(parse_template("x://q{?params*}"))
    assert parse_text(params, "a=1,b=2") == {"a": "1", "b": "2"}
    assert parse_text(params, "a=1,b") == ["a=1", "b"]
    assert format_value(params, {"a": "1", "b": "2"}) == "a=1,b=2"
    (plain,) = template_fields(parse_template("x://{id}"))
    assert parse_text(plain, "a,b") == "a,b"
    assert format_value(plain, "z") == "z" and format_value(plain, None) == ""


@pytest.mark.parametrize(
    ("template", "texts", "uri"),
    [
        ("x://{id}", {"id": "a/b c"}, "x://a%2Fb%20c"),
        ("file:///{+path}", {"path": "src/a b.py"}, "file:///src/a%20b.py"),
        ("m://r{/segments*}", {"segments": "eu/api"}, "m://r/eu/api"),
        ("d://s{?q,limit}", {"q": "a&b"}, "d://s?q=a%26b"),
        ("d://s{?q,limit}", {}, "d://s"),
    ],
)
def test_check_template_expands_with_rfc6570_encoding(template: str, texts: dict[str, str], uri: str) -> None:
    parsed = parse_template(template)
    check = check_template(parsed, template_fields(parsed), texts)
    assert check.ok and check.uri == uri


def test_check_template_errors() -> None:
    parsed = parse_template("x://{code:3}/{a}{b}")
    fields = template_fields(parsed)
    check = check_template(parsed, fields, {"code": "abcdef", "a": "x"})
    assert "keeps only the first 3" in check.errors["code"]
    assert "required" in check.errors["b"]
    check = check_template(parsed, fields, {"code": "abc", "a": "x", "b": "yz"})
    assert set(check.errors) == {"a", "b"} and "read back a = 'xy'" in check.errors["a"]
    assert check.uri == "x://abc/xyz" and not check.ok
    assert check_template(parsed, fields, {"code": "abc", "a": "xy", "b": "z"}).errors == {}
    assert set(check_template(parsed, fields, {"code": "abc", "a": "x"}).errors) == {"b"}


def test_prompt_fields_and_check() -> None:
    prompt = {
        "name": "p",
        "arguments": [
            {"name": "a", "required": True, "description": "first", "title": "A"},
            {"name": "b"},
            {"name": "a"},  # duplicate: ignored
            {"required": True},  # no name: ignored
            "junk",
        ],
    }
    fields = prompt_fields(prompt)
    assert [(f.name, f.required, f.title, f.description) for f in fields] == [
        ("a", True, "A", "first"),
        ("b", False, None, None),
    ]
    assert prompt_fields({"name": "x"}) == [] and prompt_fields({"arguments": "x"}) == []
    missing = check_prompt(fields, {"b": "2"})
    assert not missing.ok and set(missing.errors) == {"a"}
    ok = check_prompt(fields, {"a": "1", "b": ""})
    assert ok.ok and ok.values == {"a": "1"}
