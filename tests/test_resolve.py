"""resolve_uri (why does this URI resolve, or not?) and the entry records it works on."""

from __future__ import annotations

import pytest

from explorer.model.entries import ResourceEntry, TemplateEntry
from explorer.model.resolve import resolve, resolve_uri, snapshot, too_large_for
from explorer.model.uri_tree import UriTree
from tests.factories import res, tpl


def two_servers() -> UriTree:
    tree = UriTree()
    tree.add_resources(
        [
            res("beta", "docs://help/intro"),
            res("alpha", "docs://help/intro"),
            res("alpha", "docs://guide/setup"),
            res("beta", "files:///etc/hosts"),
        ]
    )
    tree.add_templates(
        [
            tpl("alpha", "docs://{section}/{page}"),
            tpl("beta", "docs://help/{topic}"),
            tpl("beta", "files:///{+path}"),
        ]
    )
    return tree


# ------------------------------------------------------------------------------------------ listed


def test_a_listed_uri_names_every_server_that_lists_it() -> None:
    tree = two_servers()

    found = resolve_uri(tree, "docs://help/intro")

    assert found.listed_by == ("alpha", "beta")
    assert found.node is not None and found.node is tree.node_for("docs://help/intro")
    assert found.resolves
    assert found.uri == "docs://help/intro"


def test_a_uri_that_is_only_a_folder_of_the_tree_is_not_listed() -> None:
    found = resolve_uri(two_servers(), "docs://help")

    assert found.listed_by == ()
    assert found.node is None


# ------------------------------------------------------------------------------------------ templates


def test_matches_across_servers_come_most_specific_first_with_values() -> None:
    found = resolve_uri(two_servers(), "docs://help/faq")

    assert found.listed_by == () and found.node is None
    assert found.resolves
    assert [(m.entry.server, m.entry.uri_template, m.values) for m in found.matches] == [
        ("beta", "docs://help/{topic}", {"topic": "faq"}),
        ("alpha", "docs://{section}/{page}", {"section": "help", "page": "faq"}),
    ]
    assert found.matches[0].specificity > found.matches[1].specificity
    assert found.near_misses == []


def test_equal_literals_prefer_fewer_variables() -> None:
    tree = UriTree()
    tree.add_templates([tpl("a", "x://item/{id}{?lang}"), tpl("b", "x://item/{id}")])

    found = resolve_uri(tree, "x://item/7")

    assert [m.entry.server for m in found.matches] == ["b", "a"]


def test_values_come_back_decoded() -> None:
    found = resolve_uri(two_servers(), "docs://help/caf%C3%A9%20menu")

    assert found.matches[0].values == {"topic": "café menu"}


def test_a_listed_uri_also_reports_templates_that_produce_it() -> None:
    found = resolve_uri(two_servers(), "docs://help/intro")

    assert {m.entry.uri_template for m in found.matches} == {"docs://help/{topic}", "docs://{section}/{page}"}


# ------------------------------------------------------------------------------------------ not resolving


def test_near_misses_explain_why_templates_do_not_produce_the_uri() -> None:
    found = resolve_uri(two_servers(), "docs://help/a/b")

    assert not found.resolves
    assert found.matches == []
    misses = {(server, template): report for server, template, report in found.near_misses}
    assert set(misses) == {("beta", "docs://help/{topic}"), ("alpha", "docs://{section}/{page}")}
    topic = misses[("beta", "docs://help/{topic}")]
    assert not topic.matched
    assert any("/" in problem and "topic" in problem for problem in topic.problems)
    assert all(report.problems for report in misses.values())


def test_near_misses_are_limited() -> None:
    tree = UriTree()
    tree.add_templates([tpl("s", f"x://a/{{v{i}}}") for i in range(10)])

    found = resolve_uri(tree, "x://a/1/2", near_miss_limit=3)

    assert len(found.near_misses) == 3


def test_templates_for_another_place_are_not_near_misses() -> None:
    found = resolve_uri(two_servers(), "other://nowhere/at/all")

    assert found.near_misses == []
    assert found.matches == [] and found.listed_by == ()
    assert found.nearest.is_root


def test_the_nearest_existing_prefix_is_named() -> None:
    tree = two_servers()

    found = resolve_uri(tree, "docs://guide/missing/deeper/page")

    assert not found.resolves
    assert found.nearest is tree.node_for("docs://guide")
    assert found.nearest.prefix == "docs://guide"


def test_the_nearest_prefix_of_an_unknown_scheme_is_the_root() -> None:
    tree = two_servers()

    assert resolve_uri(tree, "zzz://x").nearest is tree.root


def test_resolving_an_empty_tree() -> None:
    found = resolve_uri(UriTree(), "docs://help/intro")

    assert not found.resolves
    assert found.nearest.is_root
    assert (found.listed_by, found.matches, found.near_misses) == ((), [], [])


# ------------------------------------------------------------------------------------------ entries


@pytest.mark.parametrize(
    ("template", "prefix"),
    [
        ("docs://help/{id}", "docs://help/"),
        ("docs://help/{id}/{sub}", "docs://help/"),
        ("file:///{+path}", "file:///"),
        ("{scheme}://x", ""),
        ("docs://fixed/page", "docs://fixed/page"),
        ("search://q{?term}", "search://q"),
    ],
)
def test_literal_prefix_is_the_text_before_the_first_brace(template: str, prefix: str) -> None:
    assert tpl("s", template).literal_prefix == prefix


@pytest.mark.parametrize(
    ("raw", "mime"),
    [
        ({"mimeType": "text/markdown"}, "text/markdown"),
        ({}, None),
        ({"mimeType": None}, None),
        ({"mimeType": 42}, None),
        ({"mimeType": ["text/plain"]}, None),
    ],
)
def test_mime_type_is_only_ever_a_string(raw: dict[str, object], mime: str | None) -> None:
    assert ResourceEntry("s", "x://1", "one", raw).mime_type == mime


def test_entries_compare_by_identity_fields_not_raw() -> None:
    a = ResourceEntry("s", "x://1", "one", {"size": 1})
    b = ResourceEntry("s", "x://1", "one", {"size": 2})

    assert a == b and hash(a) == hash(b)
    assert a != ResourceEntry("other", "x://1", "one")
    assert TemplateEntry("s", "x://{a}", "t", {"k": 1}) == TemplateEntry("s", "x://{a}", "t")


# ------------------------------------------------------------------------------- readings and limits


def test_other_readings_of_the_uri_come_as_alternatives() -> None:
    tree = UriTree()
    tree.add_templates([tpl("docs", "docs://{name}{.ext}")])

    [found] = resolve_uri(tree, "docs://readme.md").matches

    assert found.values == {"name": "readme", "ext": "md"}  # the reading that defines the most variables
    assert found.alternatives == ({"name": "readme.md"},)


def test_a_template_too_large_to_use_is_a_near_miss_that_says_so() -> None:
    tree = UriTree()
    huge = "x://big/" + "".join(f"{{v{i}}}" for i in range(300))
    tree.add_templates([tpl("s", huge), tpl("s", "x://other/{id}")])

    found = resolve_uri(tree, "x://big/abc")

    assert found.matches == []
    [(server, template, report)] = found.near_misses
    assert (server, template) == ("s", huge)
    assert report.problems == ["the template is too large to use (300 variables; the limit is 256)"]
    assert [(e.uri_template, why) for e, why in too_large_for(tree.templates_under(""), "x://big/abc")] == [
        (huge, "300 variables; the limit is 256")
    ]
    assert too_large_for(tree.templates_under(""), "x://other/1") == []


def test_snapshot_then_resolve_is_resolve_uri_and_sees_no_later_change() -> None:
    tree = two_servers()
    request = snapshot(tree, "docs://help/faq")
    tree.add_templates([tpl("gamma", "docs://help/{+rest}")])  # after the snapshot: not seen

    found = resolve(request)

    assert [(m.entry.server, m.values) for m in found.matches] == [
        ("beta", {"topic": "faq"}),
        ("alpha", {"section": "help", "page": "faq"}),
    ]
    assert len(resolve_uri(tree, "docs://help/faq").matches) == 3


def test_resolve_stops_when_asked() -> None:
    found = resolve(snapshot(two_servers(), "docs://help/faq"), stop=lambda: True)

    assert found.matches == [] and found.near_misses == []
