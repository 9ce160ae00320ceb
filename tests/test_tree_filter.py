"""Tree filter (core): prefix queries from the trie, substring scans, counts, limits, cancellation.

Every result is checked against a brute-force answer computed from the plain list of entries: which URIs
and templates match, how many lie below each listed node, which nodes are visible.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.model import tree_filter
from explorer.model.entries import ResourceEntry, TemplateEntry
from explorer.model.listing import template_in_prefix
from explorer.model.tree_filter import FilterResult, compute_filter, is_prefix_query
from explorer.model.uri_segments import template_placed_text
from explorer.model.uri_tree import PatternNode, UriNode, UriTree
from tests.factories import res, tpl


def sample_tree() -> tuple[UriTree, list[ResourceEntry], list[TemplateEntry]]:
    resources = [
        res("a", "demo://docs/readme.md", "Readme"),
        res("a", "demo://docs/guide/intro.md", "Intro"),
        res("a", "demo://docs/guide/setup.md", "Setting things up", title="Setup Guide"),
        res("a", "demo://docs/guide2/other.md", "Other"),
        res("b", "demo://docs/readme.md", "Readme (b)"),
        res("a", "demo://src/explorer/model/uri_tree.py", "uri_tree.py"),
        res("a", "demo://api?page=1", "first page"),
        res("a", "demo://api/v1", "API v1"),
        res("b", "file:///home/u/notes.txt", "notes"),
        res("b", "file:///home/u/", "home folder"),
        res("b", "urn:isbn:0451450523", "A book"),
    ]
    templates = [
        tpl("a", "demo://docs/{id}", "Doc by id"),
        tpl("a", "demo://docs/guide/{page}", "Guide page"),
        tpl("b", "demo://{+path}", "Anything"),
    ]
    tree = UriTree()
    tree.add_resources(resources)
    tree.add_templates(templates)
    return tree, resources, templates


# ------------------------------------------------------------------------------------- brute force


def brute_matches(
    resources: list[ResourceEntry], templates: list[TemplateEntry], text: str
) -> tuple[set[str], set[str]]:
    """URIs and template texts that match `text` under the documented rules."""
    if is_prefix_query(text):
        uris = {entry.uri for entry in resources if entry.uri.startswith(text)}
        # A template matches when it can expand to URIs under the prefix: `tree --prefix`'s rule.
        texts = {entry.uri_template for entry in templates if template_in_prefix(entry.uri_template, text)}
        return uris, texts
    needle = text.lower()

    def hit(value: object) -> bool:
        return isinstance(value, str) and needle in value.lower()

    uris = {
        entry.uri for entry in resources if hit(entry.uri) or hit(entry.name) or hit(entry.raw.get("title"))
    }
    texts = {  # a template's text as written or as placed (its literal prefix as its URIs write it)
        entry.uri_template
        for entry in templates
        if hit(entry.uri_template)
        or hit(template_placed_text(entry.uri_template))
        or hit(entry.name)
        or hit(entry.raw.get("title"))
    }
    return uris, texts


def ancestors_and_self(node: UriNode) -> list[UriNode]:
    found: list[UriNode] = []
    current: UriNode | None = node
    while current is not None:
        found.append(current)
        current = current.parent
    return found


def pattern_for(tree: UriTree, text: str) -> PatternNode:
    for node in iter_nodes(tree):
        for pattern in tree.patterns(node):
            if pattern.uri_template == text:
                return pattern
    raise AssertionError(text)


def iter_nodes(tree: UriTree) -> list[UriNode]:
    return iter_nodes_below(tree, tree.root)


def iter_nodes_below(tree: UriTree, top: UriNode) -> list[UriNode]:
    found: list[UriNode] = []
    stack = [top]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(tree.children(node))
    return found


def check_against_brute(
    tree: UriTree, resources: list[ResourceEntry], templates: list[TemplateEntry], text: str
) -> FilterResult:
    result = compute_filter(tree, text)
    uris, texts = brute_matches(resources, templates, text)
    assert result.total == len(uris) + len(texts), (text, sorted(uris), sorted(texts))
    if result.mode == "prefix":
        templates_for = {entry.uri_template for entry in tree.templates_for(text)}  # `tree --prefix`
        assert result.total == tree.count_under(text).resources + len(templates_for)
    nodes = [tree.node_for(uri) for uri in uris]
    assert all(node is not None for node in nodes)
    patterns = [pattern_for(tree, text_) for text_ in texts]

    # The children a `full` node's matches are listed as (all of them, or the many a prefix takes).
    listed = {child for node in result.full for child in result.shown_children.get(node, ())}
    for node in result.full:
        if node not in result.shown_children:  # listed nowhere: every child is a match
            listed.update(tree.children(node))

    def shown(node: UriNode | PatternNode) -> bool:
        """Listed as visible, or at or below a whole subtree's top (`whole`, or a listed child of `full`)."""
        if node in result.visible or node in listed:
            return True
        parent = node.parent
        while parent is not None:
            if parent in result.whole or parent in listed:
                return True
            parent = parent.parent
        return False

    assert all(shown(item) == result.covers(item) for item in [*nodes, *patterns])
    for node in result.full:  # a child of a `full` node that is not listed is not a match
        for child in tree.children(node):
            assert result.is_whole(child) == (child in listed), (text, child)
            assert (child in result.counts) == (child in listed), (text, child)

    # Every match and every ancestor of a match is shown; nothing else is listed as visible.
    for item in [*nodes, *patterns]:
        assert item is not None
        assert shown(item), (text, item)
        parent = item.parent
        while parent is not None:
            assert shown(parent), (text, item, parent)
            parent = parent.parent
    matched_nodes = [node for node in nodes if node is not None]
    tops = [*result.whole, *listed]
    # Matches at or below each node, counted by walking up from every match once (a pairwise check of
    # matches against listed children is quadratic: minutes for a wide node's thousand matches).
    below: Counter[UriNode] = Counter()
    for start in [*matched_nodes, *(pattern.parent for pattern in patterns)]:
        for ancestor in ancestors_and_self(start):
            below[ancestor] += 1
    for item in [*result.visible, *tops]:
        if isinstance(item, PatternNode):
            assert item.uri_template in texts
            continue
        assert below[item] or item is tree.root, (text, item)
        if item in result.counts:
            assert result.counts[item] == below[item], (text, item)
    # A whole node's entire subtree matches.
    for top in tops:
        assert result.is_whole(top) and top in result.counts
    top_set = set(tops)
    for entry in resources:
        node = tree.node_for(entry.uri)
        if node is not None and not top_set.isdisjoint(ancestors_and_self(node)):
            assert entry.uri in uris, (text, entry.uri)
    if result.total:
        assert result.first is not None and shown(result.first)
        assert tree.root in result.visible
    return result


# -------------------------------------------------------------------------------------------- tests


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("demo://docs", True),
        ("demo:", True),
        ("urn:isbn", True),
        ("file:///home", True),
        ("docs", False),
        ("://", False),
        ("1abc:", False),
        ("", False),
        ("guide/intro", False),
    ],
)
def test_prefix_query_detection(text: str, expected: bool) -> None:
    assert is_prefix_query(text) is expected


@pytest.mark.parametrize(
    "text",
    [
        "demo://docs/guide",  # exact node: `guide2` also starts with it
        "demo://docs/guide/",
        "demo://docs/gu",
        "demo://docs/",
        "demo://docs",
        "demo://",
        "demo:",
        "dem",  # not a prefix query: substring
        "demo://api",
        "demo://api?",
        "demo://api?page=1",
        "demo://api/",
        "demo://docs/{",
        "demo://{",
        "demo://nothing/here",
        "file://",
        "file:///",
        "file:///home/u/",
        "urn:",
        "urn:isbn:04",
        "zzz://",
    ],
)
def test_prefix_queries_match_brute_force(text: str) -> None:
    tree, resources, templates = sample_tree()
    check_against_brute(tree, resources, templates, text)


def test_prefix_query_uses_whole_subtrees() -> None:
    tree, resources, templates = sample_tree()
    result = check_against_brute(tree, resources, templates, "demo://docs/gu")
    assert result.mode == "prefix"
    guide = tree.node_for("demo://docs/guide")
    guide2 = tree.node_for("demo://docs/guide2")
    assert result.whole == {guide, guide2}
    docs = tree.node_for("demo://docs")
    assert docs is not None
    # Ancestors are opened so the matches are on screen; the whole subtrees themselves stay closed.
    assert result.expand == (tree.root, tree.node_for("demo://"), docs)
    # intro, setup, other, the {page} template, and `demo://docs/{id}`, which can expand to `.../gu...`
    assert result.counts[docs] == 5
    assert result.first is guide


@pytest.mark.parametrize(
    "text",
    [
        "guide",
        "GUIDE",
        "readme",
        "setup guide",
        "md",
        "Readme (b)",
        "page",
        "o",
        "/",
        "api?",
        "e/u",
        "{",
        "zzz",
    ],
)
@pytest.mark.parametrize("slice_size", [None, 2])
def test_substring_queries_match_brute_force(
    text: str, slice_size: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if slice_size is not None:  # a node's children searched a few at a time, as a wide node's are
        monkeypatch.setattr(tree_filter, "_SLICE", slice_size)
    tree, resources, templates = sample_tree()
    result = check_against_brute(tree, resources, templates, text)
    assert result.mode == "substring"


def test_substring_matches_names_titles_and_templates() -> None:
    tree, _resources, _templates = sample_tree()
    result = compute_filter(tree, "setup guide")  # only in a title
    setup = tree.node_for("demo://docs/guide/setup.md")
    assert result.total == 1
    assert result.first is setup
    assert setup in result.matched and setup not in result.whole
    by_name = compute_filter(tree, "guide page")  # a template's name
    assert by_name.total == 1
    assert isinstance(by_name.first, PatternNode)
    assert by_name.first.uri_template == "demo://docs/guide/{page}"


def test_substring_prefix_match_takes_the_whole_subtree() -> None:
    tree, _resources, _templates = sample_tree()
    result = compute_filter(tree, "explorer")
    explorer = tree.node_for("demo://src/explorer")
    assert explorer is not None and result.is_whole(explorer)  # the only child of demo://src: `full`
    assert result.full == {tree.node_for("demo://src")} and result.total == 1


def test_a_substring_every_child_of_a_node_matches_is_one_record_for_the_node() -> None:
    """`i` in a node of 10^6 `item` leaves: the node answers for its children (no record, set or count per
    child), is opened, and the cursor goes to its first child."""
    tree = UriTree()
    tree.add_resources(res("s", f"x://h/w/item{i}") for i in range(5000))
    tree.add_resources([res("s", "x://h/other/zzz")])
    wide = tree.node_for("x://h/w")
    assert wide is not None
    result = compute_filter(tree, "i", limit=100)  # far fewer records allowed than children
    assert result.full == {wide} and not result.truncated and result.total == 5000
    assert result.first is tree.children(wide)[0] and wide in result.expand
    assert result.covers(tree.children(wide)[4321]) and result.count_below(wide) == 5000
    assert not result.covers(tree.node_for("x://h/other/zzz"))


def test_empty_text_matches_everything() -> None:
    tree, _resources, _templates = sample_tree()
    result = compute_filter(tree, "")
    assert result.total == tree.root.resource_count + tree.root.template_count
    assert tree.root in result.whole


def test_limit_truncates_and_counts_what_was_found() -> None:
    tree = UriTree()
    entries = [res("a", f"x://h/d{d}/f{i}.txt", f"file {i}") for d in range(20) for i in range(50)]
    tree.add_resources(entries)
    full = compute_filter(tree, "file")
    assert full.total == 1000 and not full.truncated
    partial = compute_filter(tree, "file", limit=120)
    assert partial.truncated
    assert 120 <= partial.total < 1000
    assert partial.counts[tree.root] == partial.total


def test_expand_lists_ancestors_of_the_first_matches_only() -> None:
    tree = UriTree()
    tree.add_resources(res("a", f"x://h/d{d:02d}/f.txt", "match") for d in range(30))
    result = compute_filter(tree, "match", expand=5)
    expected = {tree.root, tree.node_for("x://"), tree.node_for("x://h")}
    expected |= {tree.node_for(f"x://h/d{d:02d}") for d in range(5)}
    assert set(result.expand) == expected
    depths = [node.depth for node in result.expand]
    assert depths == sorted(depths)  # top-down


def test_cancelled_scan_stops() -> None:
    tree = UriTree()
    tree.add_resources(res("a", f"x://h/d{d}/e{e}/f.txt") for d in range(60) for e in range(60))
    calls = []

    def cancelled() -> bool:
        calls.append(1)
        return True

    result = compute_filter(tree, "nothing", cancelled=cancelled)
    assert calls
    assert result.cancelled


def test_a_scan_cancelled_after_it_found_matches_returns_at_once_with_nothing() -> None:
    """A stale scan is dropped: it must not spend its last moments assembling what it found (16 ms at
    10^6, while the scan of the newer text waits for the interpreter)."""
    tree = UriTree()
    tree.add_resources(res("a", f"x://h/d{d}/e{e}/match.txt") for d in range(60) for e in range(60))
    checks = [0]

    def cancelled() -> bool:
        checks[0] += 1
        return checks[0] > 3

    result = compute_filter(tree, "match", cancelled=cancelled)
    assert checks[0] == 4 and result.cancelled
    assert result.total == 0 and result.visible == frozenset({tree.root}) and not result.matched
    assert not compute_filter(tree, "match").cancelled  # the same scan uncancelled finds them all
    assert compute_filter(tree, "match").total == 3600


def test_a_scan_that_went_stale_in_its_last_step_or_at_its_limit_returns_empty_too() -> None:
    tree = UriTree()
    tree.add_resources(res("a", f"x://h/d{d}/match{e}.txt") for d in range(3) for e in range(3))
    assert compute_filter(tree, "match").total == 9  # one step of each pass covers all of it
    stale = compute_filter(tree, "match", cancelled=lambda: True)
    assert stale.cancelled and stale.total == 0
    capped = compute_filter(tree, "match", limit=2, cancelled=lambda: True)
    assert capped.cancelled and capped.total == 0 and not capped.matched


def test_case_insensitive_and_multi_server() -> None:
    tree = UriTree()
    tree.add_resources([res("a", "x://h/Alpha.TXT", "one"), res("b", "x://h/Alpha.TXT", "two")])
    result = compute_filter(tree, "alpha.txt")
    assert result.total == 1  # one URI listed by two servers counts once
    prefix = compute_filter(tree, "x://h/alpha")
    assert prefix.total == 0  # prefix queries are exact wire text


def test_core_module_imports_no_ui() -> None:
    code = (
        "import sys, explorer.model.tree_filter; "
        "print(any(m.split('.')[0] in ('textual', 'rich') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ------------------------------------------------------------------------------------ property tests

# Digits too: natural order (`a2` before `a10`) differs from the string order prefixes follow.
_SEGMENTS = st.sampled_from(
    ["a", "ab", "b", "", "B", "a?x", "c#f", "Ab", "x.y", "a1", "a10", "a2", "a01", "9", "10", "a b"]
)
_SCHEMES = st.sampled_from(["s://", "t://", "u:", "s:", "s3://", "s10:", ""])


@st.composite
def uris(draw: st.DrawFn) -> str:
    scheme = draw(_SCHEMES)
    parts = draw(st.lists(_SEGMENTS, min_size=1, max_size=4))
    return scheme + "/".join(parts)


@st.composite
def listings(draw: st.DrawFn) -> tuple[list[ResourceEntry], list[TemplateEntry]]:
    resources = [
        res(draw(st.sampled_from(["a", "b"])), uri, draw(st.sampled_from(["", "Name", "ab", "zz"])))
        for uri in draw(st.lists(uris(), min_size=1, max_size=25))
    ]
    templates = [
        tpl(draw(st.sampled_from(["a", "b"])), uri + "{" + var + "}", draw(st.sampled_from(["", "T", "tab"])))
        for uri, var in draw(st.lists(st.tuples(uris(), st.sampled_from(["id", "+p", "/x*"])), max_size=6))
    ]
    return resources, templates


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    listings(),
    st.one_of(
        uris(),
        st.sampled_from(["a", "b", "ab", "/", "?", "{", "zz", "x.", "s:/", "t:", "a1", "s1", "a%20", " b"]),
    ),
)
def test_filter_matches_brute_force_on_random_trees(
    listing: tuple[list[ResourceEntry], list[TemplateEntry]], text: str
) -> None:
    resources, templates = listing
    # Entries of one server for one URI replace each other: keep the last, as the tree does.
    kept_res = list({(entry.server, entry.uri): entry for entry in resources}.values())
    kept_tpl = list({(entry.server, entry.uri_template): entry for entry in templates}.values())
    tree = UriTree()
    tree.add_resources(kept_res)
    tree.add_templates(kept_tpl)
    for query in {text, text[: len(text) // 2], text[:-1]} - {""}:
        check_against_brute(tree, kept_res, kept_tpl, query)
        with patch.object(tree_filter, "_SLICE", 3):  # children searched a few at a time
            check_against_brute(tree, kept_res, kept_tpl, query)
        with patch.object(tree_filter, "LISTED_FROM", 2):  # a prefix's matches kept in order only
            check_against_brute(tree, kept_res, kept_tpl, query)


@pytest.mark.parametrize(
    "text", ["kv://k/item5", "kv://k/item50", "kv://k/item05", "kv://k/item", "kv://k/i", "kv:"]
)
@pytest.mark.parametrize("listed_from", [tree_filter.LISTED_FROM, 2])
def test_a_prefix_with_digits_takes_what_starts_with_it_not_what_sorts_between(
    text: str, listed_from: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`item5` takes `item5`, `item50`, `item512`, never `item6`, which natural order puts between them;
    enough children (300) that the keys are computed in bulk; the matches in sets, or in order only."""
    monkeypatch.setattr(tree_filter, "LISTED_FROM", listed_from)
    numbers = [*range(300), 5000]
    resources = [res("s", f"kv://k/item{n}") for n in numbers] + [
        res("s", "kv://k/item05"),
        res("s", "kv://k/x"),
    ]
    tree = UriTree()
    tree.add_resources(resources)
    check_against_brute(tree, resources, [], text)


@pytest.mark.parametrize("text", ["kv://k/item4", "kv://k/item0", "kv://k/item04", "kv://k/item42"])
def test_many_matches_among_a_wide_nodes_children_are_kept_in_order_only(text: str) -> None:
    """A node of 20,000 children (a wide node's order): the 1,111 under `item4` are the node's listed
    children (`full`), in no set; a child added by a later page is not one of them until the filter runs
    again; a pattern beside them and a deeper match still count."""
    numbers = range(20_000)
    resources = [res("s", f"kv://k/item{n}") for n in numbers] + [
        res("s", "kv://k/item04"),
        res("s", "kv://k/item4/deep"),
    ]
    templates = [tpl("s", "kv://k/item4{x}")]
    tree = UriTree()
    for start in range(0, len(resources), 1000):
        tree.add_resources(resources[start : start + 1000])
    tree.add_templates(templates)
    result = check_against_brute(tree, resources, templates, text)
    node = tree.node_for("kv://k")
    assert node is not None
    matches = [child for child in tree.children(node) if child.segment.startswith(text.rsplit("/", 1)[1])]
    if len(matches) >= tree_filter.LISTED_FROM:
        assert result.full == {node} and not result.whole
        assert list(result.shown_children[node]) == matches
        assert result.first is not None and result.count_below(node) == result.total
        tree.add_resources([res("s", text + "999999")])
        late = tree.node_for(text + "999999")
        assert late is not None and not result.covers(late) and late not in result.counts


@pytest.mark.parametrize("text", ["file:///etc", "file:", "file:/", "file://", "s://b", "s:/", "s:"])
def test_templates_beside_the_path_count_like_tree_prefix(text: str) -> None:
    """`file:{+path}` hangs under `file:`, beside `file://`: it can still expand under `file:///etc`."""
    resources = [res("a", "file:///etc/hosts"), res("a", "s://b/c")]
    templates = [tpl("a", "file:{+path}"), tpl("a", "file:///{+path}"), tpl("a", "s:/{x}b/ab")]
    tree = UriTree()
    tree.add_resources(resources)
    tree.add_templates(templates)
    result = check_against_brute(tree, resources, templates, text)
    listed = {node.uri_template for node in result.matched if isinstance(node, PatternNode)}
    inside = {
        p.uri_template for top in result.whole for n in iter_nodes_below(tree, top) for p in tree.patterns(n)
    }
    expected = {entry.uri_template for entry in templates if template_in_prefix(entry.uri_template, text)}
    assert listed | inside == expected
    assert result.counts[tree.root] == result.total
    for pattern in (p for p in result.matched if isinstance(p, PatternNode)):
        assert pattern.parent in result.visible and pattern.parent in result.expand  # on screen


def test_the_cursor_goes_to_the_template_with_the_longest_literal_part() -> None:
    tree = UriTree()
    tree.add_templates([tpl("a", "demo://a/{x}"), tpl("a", "demo://a/b{y}"), tpl("a", "demo://{+path}")])
    result = compute_filter(tree, "demo://a/bc/d")
    assert isinstance(result.first, PatternNode) and result.first.uri_template == "demo://a/b{y}"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(alphabet="abAB1İ/.\0", max_size=6), max_size=40),
    st.text(alphabet="ab1.", min_size=1, max_size=2),
)
def test_segment_hits_are_the_children_whose_segment_holds_the_needle(
    segments: list[str], needle: str
) -> None:
    """One C-level search over the joined segments when hits are few, one test per segment when they are
    many (`_DENSE`): the same indexes either way, each child once (None: lowering changed a length), also
    when a segment holds a NUL, the character that joins them."""
    parent = UriNode("", None)
    kids = [UriNode(segment, parent) for segment in segments]
    found = tree_filter._segment_hits(kids, needle)
    if found is None:
        assert any(len(segment.lower()) != len(segment) for segment in segments)
        return
    assert found == [index for index, segment in enumerate(segments) if needle in segment.lower()]


@pytest.mark.parametrize(("text", "most_read"), [("b", 0), ("w/item", 4_096), ("name 1", 10_001)])
def test_the_name_pass_reads_nothing_below_a_whole_match(text: str, most_read: int) -> None:
    """Every URI below a matched subtree contains the text: its names can add nothing, so the name pass
    does not read them. `b` matches the scheme itself: none of the 10,000 entries is read. `w/item` takes
    every child of a node of 10,000, found a slice of 8,192 at a time while the name pass reads 2,048 a
    step: it stops within 1,024 more once the node is known. `name 1` matches names only: all are read."""
    tree = UriTree()
    tree.add_resources(res("a", f"bs://w/item{k}", f"name {k}") for k in range(10_000))
    tree.add_resources([res("a", "bs://v/x", "item1 by name")])
    read: list[UriNode] = []
    nodes = tree.resource_nodes

    def watched(pruned: object = frozenset()) -> object:
        for node in nodes(pruned):  # type: ignore[arg-type]
            read.append(node)
            yield node

    tree.resource_nodes = watched  # type: ignore[assignment, method-assign]
    result = compute_filter(tree, text)
    uris, _ = brute_matches([*tree.resources_under("")], [], text)
    assert result.total == len(uris)
    assert len(read) <= most_read


def test_a_segment_holding_a_nul_shifts_no_other_child_of_a_wide_node() -> None:
    """A server's URI may hold a NUL: `b0` .. `b4` match `b`, `a\0q`, `zz` and `zy` do not (found by review:
    the segment-by-segment test of a dense slice split the joined segments at that NUL too)."""
    names = ["a\0q", "b0", "b1", "b2", "b3", "b4", "zz", "zy"]
    resources = [res("a", f"s://h/{name}") for name in names]
    tree = UriTree()
    tree.add_resources(resources)
    result = check_against_brute(tree, resources, [], "b")
    node = tree.node_for("s://h")
    assert node is not None
    shown = [child.segment for child in tree.children(node) if result.covers(child)]
    assert shown == ["b0", "b1", "b2", "b3", "b4"]
