"""A substring filter finds a template by its placed text too, as a prefix filter does.

A template whose literal prefix needs pct-encoding (``t://x/a b{y}``) writes ``a%20b`` in every URI it
expands to, and sits in the tree by that placed text (``t://x/a%20b{y}``); the prefix ``t://x/a%20b``
found it, the substring ``a%20b`` did not.
"""

from __future__ import annotations

import pytest

from explorer.model.entries import ResourceEntry, TemplateEntry
from explorer.model.tree_filter import compute_filter
from explorer.model.uri_tree import PatternNode, UriTree
from tests.factories import res, tpl
from tests.test_tree_filter import check_against_brute

TEMPLATES = ["t://x/a b{y}", "t://a b/{x}", "t://x/é{y}"]


def placed_tree() -> tuple[UriTree, list[ResourceEntry], list[TemplateEntry]]:
    resources = [res("alpha", "t://x/one"), res("alpha", "t://x/two"), res("alpha", "u://a/b")]
    templates = [tpl("alpha", text, "Thing") for text in TEMPLATES]
    tree = UriTree()
    tree.add_resources(resources)
    tree.add_templates(templates)
    return tree, resources, templates


def found_templates(tree: UriTree, text: str) -> set[str]:
    """The templates a filter by `text` shows: matched themselves, or below a whole matching subtree."""
    result = compute_filter(tree, text)
    shown: set[str] = set()
    stack = [tree.root]
    while stack:
        node = stack.pop()
        stack.extend(tree.children(node))
        shown.update(p.uri_template for p in tree.patterns(node) if result.covers(p))
    shown.update(p.uri_template for p in result.matched if isinstance(p, PatternNode))
    return shown


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a%20b", {"t://x/a b{y}", "t://a b/{x}"}),  # in every URI they expand to
        ("A%20B", {"t://x/a b{y}", "t://a b/{x}"}),  # case-insensitive, as every substring
        ("x/a%20", {"t://x/a b{y}"}),
        ("%c3%a9", {"t://x/é{y}"}),
        ("a b", {"t://x/a b{y}", "t://a b/{x}"}),  # the server's own text, as before
        ("é{", {"t://x/é{y}"}),
        ("zzz", set()),
        ("%20c", set()),
    ],
)
def test_a_substring_of_a_templates_placed_text_finds_it(text: str, expected: set[str]) -> None:
    tree, _, _ = placed_tree()
    assert found_templates(tree, text) == expected
    assert compute_filter(tree, text).total == len(expected)  # no resource holds these texts


def test_the_prefix_filter_finds_the_same_template() -> None:
    tree, _, _ = placed_tree()
    assert "t://x/a b{y}" in found_templates(tree, "t://x/a%20b")


@pytest.mark.parametrize("text", ["a%20b", "A%20B", "a b", "x/a%20", "%C3%A9", "zzz", "t://x/a%20b", "t://"])
def test_the_filter_agrees_with_the_documented_rule(text: str) -> None:
    """Visible nodes and counts, against the brute force of `test_tree_filter` (placed text included)."""
    tree, resources, templates = placed_tree()
    check_against_brute(tree, resources, templates, text)
