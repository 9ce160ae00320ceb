"""URI prefix tree: segmenting, template placement, incremental counts, server refresh, prefix queries.

Counts, subtree servers and queries are checked against a brute-force recount of a plain dict model
after random sequences of inserts, removals and refreshes from three servers.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from explorer.cli.tree_render import write_tree_json
from explorer.model.entries import ResourceEntry, TemplateEntry
from explorer.model.natural import natural_key
from explorer.model.templates.percent import encode_keeping
from explorer.model.uri_segments import MAX_PATH_SEGMENTS, template_placed_text
from explorer.model.uri_tree import PatternNode, UriNode, UriTree, join_segments, segment_uri
from tests.factories import res, tpl
from tests.helpers.tree_walk import depth_first
from tests.helpers.work import count_steps


def tree_json(tree: UriTree) -> Any:
    """The tree as `tree --json` writes it (streamed by the CLI's renderer), parsed back."""
    chunks: list[bytes] = []
    write_tree_json(tree, chunks.append)
    return json.loads(b"".join(chunks))


def all_nodes(tree: UriTree) -> Iterator[tuple[list[str], UriNode]]:
    """Every concrete node with its segment path, read straight from the child maps."""
    stack: list[tuple[list[str], UriNode]] = [([], tree.root)]
    while stack:
        path, node = stack.pop()
        yield path, node
        for child in tree.children(node):
            stack.append(([*path, child.segment], child))


def all_patterns(tree: UriTree) -> list[PatternNode]:
    return [p for _, node in all_nodes(tree) for p in tree.patterns(node)]


# --------------------------------------------------------------------------------------- segmenting


@pytest.mark.parametrize(
    ("uri", "segments"),
    [
        ("scheme://authority/p/a/t/h?query", ["scheme://", "authority", "p", "a", "t", "h", "?query"]),
        ("file:///a/b.py", ["file://", "/a", "b.py"]),  # no node for the empty authority
        ("file:///", ["file://", "/"]),
        ("file://host/x", ["file://", "host", "x"]),
        ("file:////a", ["file://", "/", "a"]),
        ("file:///?q", ["file://", "/", "?q"]),
        ("http://h/", ["http://", "h", ""]),
        ("urn:/x", ["urn:", "/x"]),
        ("x://h/a/", ["x://", "h", "a", ""]),
        ("x://h/a//b", ["x://", "h", "a", "", "b"]),
        ("x://h/a?q=1/2#frag", ["x://", "h", "a", "?q=1/2#frag"]),
        ("x://h/a#frag/x?y", ["x://", "h", "a", "#frag/x?y"]),
        ("x://h?q", ["x://", "h", "?q"]),
        ("x://", ["x://"]),
        ("urn:isbn:1", ["urn:", "isbn:1"]),
        ("mailto:a@b", ["mailto:", "a@b"]),
        ("data:text/plain;base64,SGk=", ["data:", "text", "plain;base64,SGk="]),
        ("urn:", ["urn:"]),
        ("a/b%2Fc/d", ["a", "b%2Fc", "d"]),
        ("/abs/path", ["/abs", "path"]),
        ("/", ["/"]),
        ("//", ["/", ""]),
        ("1abc:/x", ["1abc:", "x"]),  # a scheme must start with a letter
        ("C+x.y-z://h", ["C+x.y-z://", "h"]),
        ("", []),
        ("?only", ["?only"]),
        ("x://h/ünï/日本", ["x://", "h", "ünï", "日本"]),
        ("x://h/[a]/{id}", ["x://", "h", "[a]", "{id}"]),
    ],
)
def test_segment_examples(uri: str, segments: list[str]) -> None:
    assert segment_uri(uri) == segments
    assert join_segments(segments) == uri


uri_alphabet = st.sampled_from([*"ab:/?#%2F[]{}+.-é日 ", "://", "x://", "urn:", "file:///", "%2F"])
uri_like = st.lists(uri_alphabet, max_size=12).map("".join)


@pytest.mark.slow
@given(st.one_of(st.text(), uri_like))
@settings(max_examples=500)
def test_join_inverts_segment_for_every_string(uri: str) -> None:
    segments = segment_uri(uri)
    assert join_segments(segments) == uri
    # Only the last segment may be a query/fragment, and path segments never contain "/" but a leading one
    # on the first (what an empty first segment, the empty authority of `file:///`, is glued into).
    assert all(not s.startswith(("?", "#")) for s in segments[:-1])
    has_scheme = bool(segments) and re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*:(//)?", segments[0]) is not None
    body = segments[1:] if has_scheme else segments
    assert not body or body[0] != ""  # its node would repeat its parent's prefix
    if body and body[0].startswith("/"):
        body = [body[0][1:], *body[1:]]
    assert all("/" not in s for s in body if not s.startswith(("?", "#")))


# ------------------------------------------------------------------------------------ placement


def pattern_at(tree: UriTree, node_prefix: str, label: str) -> PatternNode:
    node = tree.node_for(node_prefix)
    assert node is not None, node_prefix
    pattern = node.pattern(label)
    assert pattern is not None, (node_prefix, label, [p.label for p in tree.patterns(node)])
    return pattern


@pytest.mark.parametrize(
    ("template", "node_prefix", "label"),
    [
        ("docs://help/{id}", "docs://help", "{id}"),
        ("file:///logs/{date}.log", "file:///logs", "{date}.log"),
        ("demo://x/item{?q,limit}", "demo://x", "item{?q,limit}"),
        ("demo://{+path}", "demo://", "{+path}"),
        ("{x}", "", "{x}"),
        ("x://h/a?{q}", "x://h/a", "?{q}"),
        ("urn:{nid}", "urn:", "{nid}"),
    ],
)
def test_template_sits_under_last_complete_segment(template: str, node_prefix: str, label: str) -> None:
    tree = UriTree()
    assert tree.add_templates([tpl("s", template)]) == 1
    pattern = pattern_at(tree, node_prefix, label)
    assert pattern.uri_template == template
    assert set(pattern.templates) == {"s"}
    node = tree.node_for(node_prefix)
    assert node is not None
    # Every ancestor (root included) counts the template.
    while node is not None:
        assert node.template_count == 1
        node = node.parent


def test_pattern_next_to_concrete_articles_and_separate_from_hostile_braces() -> None:
    tree = UriTree()
    tree.add_resources([res("a", "docs://help/intro"), res("evil", "docs://help/{id}")])
    tree.add_templates([tpl("a", "docs://help/{id}")])
    help_node = tree.node_for("docs://help")
    assert help_node is not None
    assert [c.segment for c in tree.children(help_node)] == ["intro", "{id}"]
    assert [p.label for p in tree.patterns(help_node)] == ["{id}"]
    concrete = help_node.child("{id}")
    assert concrete is not None and set(concrete.resources) == {"evil"}
    assert help_node.resource_count == 2 and help_node.template_count == 1
    assert tree.servers(help_node) == frozenset({"a"})  # own resources (none) + its pattern children


def test_same_template_from_two_servers_is_one_pattern() -> None:
    tree = UriTree()
    tree.add_templates([tpl("a", "docs://help/{id}"), tpl("b", "docs://help/{id}")])
    tree.add_templates([tpl("a", "docs://help/{id}", "renamed")])  # replaces, not a new one
    pattern = pattern_at(tree, "docs://help", "{id}")
    assert set(pattern.templates) == {"a", "b"}
    assert pattern.templates["a"].name == "renamed"
    assert tree.root.template_count == 1
    tree.remove_server("a")
    assert set(pattern_at(tree, "docs://help", "{id}").templates) == {"b"}
    tree.remove_server("b")
    assert tree.root.template_count == 0 and tree.root.child_count == 0


# ------------------------------------------------------------------------------ resources, servers


def test_same_uri_from_two_servers_is_one_node_with_two_servers() -> None:
    tree = UriTree()
    assert tree.add_resources([res("a", "x://h/r"), res("b", "x://h/r"), res("a", "x://h/s")]) == 3
    node = tree.node_for("x://h/r")
    assert node is not None
    assert set(node.resources) == {"a", "b"}
    assert tree.servers(node) == frozenset({"a", "b"})
    assert tree.root.resource_count == 2  # distinct URIs
    tree.remove_server("b")
    assert tree.node_for("x://h/r") is node and set(node.resources) == {"a"}
    assert tree.root.resource_count == 2


def test_same_pair_twice_replaces_and_is_not_double_counted() -> None:
    tree = UriTree()
    assert tree.add_resources([res("a", "x://h/r", "first")]) == 1
    assert tree.add_resources([res("a", "x://h/r", "second"), res("a", "x://h/r", "third")]) == 0
    node = tree.node_for("x://h/r")
    assert node is not None and node.resources["a"].name == "third"
    assert tree.root.resource_count == 1 and tree.server_counts("a").resources == 1


def test_remove_server_leaves_other_servers_intact_and_prunes() -> None:
    tree = UriTree()
    tree.add_resources([res("a", f"x://h/a/{i}") for i in range(50)])
    tree.add_resources([res("b", f"x://h/b/{i}") for i in range(30)] + [res("b", "x://h/a/7")])
    tree.add_templates([tpl("b", "x://h/b/{n}"), tpl("a", "x://h/{k}")])
    held = tree.node_for("x://h/b/3")  # e.g. the UI's cursor
    assert held is not None and tree.attached(held)
    tree.remove_server("b")
    assert not tree.attached(held) and held.prefix == "x://h/b/3"
    assert tree.nearest(held.prefix).prefix == "x://h"  # where the cursor goes back to
    assert tree.node_for("x://h/b") is None  # pruned with everything below it
    assert tree.node_for("x://h/b/3") is None
    a7 = tree.node_for("x://h/a/7")
    assert a7 is not None and set(a7.resources) == {"a"}
    assert sorted(e.uri for e in tree.resources_under("x://h/")) == sorted(f"x://h/a/{i}" for i in range(50))
    assert [t.uri_template for t in tree.templates_under("")] == ["x://h/{k}"]
    assert tree.root.resource_count == 50 and tree.root.template_count == 1
    assert tree.known_servers() == frozenset({"a"})


def test_replace_server_is_one_version_and_keeps_unchanged_nodes() -> None:
    tree = UriTree()
    tree.add_resources([res("a", "x://h/keep"), res("a", "x://h/gone/deep"), res("b", "x://h/other")])
    tree.add_templates([tpl("a", "x://h/{old}")])
    keep = tree.node_for("x://h/keep")
    version = tree.version
    tree.replace_server("a", [res("a", "x://h/keep", "new name"), res("a", "x://h/new")], [])
    assert tree.version == version + 1
    assert tree.node_for("x://h/keep") is keep and keep is not None
    assert keep.resources["a"].name == "new name"
    assert tree.node_for("x://h/gone") is None
    assert tree.node_for("x://h/new") is not None
    assert tree.node_for("x://h/other") is not None
    assert tree.root.resource_count == 3 and tree.root.template_count == 0
    assert tree.server_counts("a") == (2, 0)
    with pytest.raises(ValueError):
        tree.replace_server("a", [res("b", "x://h/z")], [])


def test_version_grows_on_every_mutation() -> None:
    tree = UriTree()
    seen = [tree.version]
    tree.add_resources([res("a", "x://h/1")])
    seen.append(tree.version)
    tree.add_resources([res("a", "x://h/1", "renamed")])  # a replacement is a change too
    seen.append(tree.version)
    tree.add_templates([tpl("a", "x://{h}")])
    seen.append(tree.version)
    tree.remove_server("a")
    seen.append(tree.version)
    assert seen == sorted(set(seen))
    tree.add_resources([])
    tree.remove_server("nobody")
    assert tree.version == seen[-1]


def test_subtree_servers_cover_everything_below_and_follow_removals() -> None:
    tree = UriTree()
    tree.add_resources([res("a", "demo://resource/1"), res("a", "demo://resource/2"), res("b", "docs://x/y")])
    tree.add_templates([tpl("c", "docs://x/{id}"), tpl("a", "docs://{+path}")])
    assert tree.servers(node_at(tree, "demo://resource")) == frozenset()  # own only: nothing
    assert tree.subtree_servers(node_at(tree, "demo://resource")) == {"a"}
    assert tree.subtree_servers(node_at(tree, "docs://")) == {"a", "b", "c"}
    assert tree.subtree_servers(node_at(tree, "docs://x")) == {"b", "c"}
    assert tree.subtree_servers(node_at(tree, "docs://x/y")) == {"b"}
    assert tree.subtree_servers(tree.root) == {"a", "b", "c"}
    tree.add_resources([res("b", "demo://resource/1")])  # a collision adds b up the chain
    assert tree.subtree_servers(node_at(tree, "demo://")) == {"a", "b"}
    tree.remove_server("c")
    assert tree.subtree_servers(node_at(tree, "docs://x")) == {"b"}
    tree.replace_server("a", [res("a", "demo://resource/2")], [])
    assert tree.subtree_servers(node_at(tree, "docs://")) == {"b"}
    assert tree.subtree_servers(node_at(tree, "demo://resource")) == {"a", "b"}
    tree.remove_server("b")
    assert tree.subtree_servers(node_at(tree, "demo://resource")) == {"a"}
    assert tree.subtree_servers(tree.root) == {"a"}
    tree.remove_server("a")
    assert tree.subtree_servers(tree.root) == frozenset()
    # A server listed again gets its badge back (same bit).
    tree.add_resources([res("c", "docs://again")])
    assert tree.subtree_servers(tree.root) == {"c"}


def test_subtree_servers_sets_are_shared_per_mask() -> None:
    tree = UriTree()
    tree.add_resources([res("a", f"x://h/{i}/f") for i in range(100)] + [res("b", "x://h/0/g")])
    first = tree.subtree_servers(node_at(tree, "x://h/1"))
    assert first is tree.subtree_servers(node_at(tree, "x://h/2"))
    assert tree.subtree_servers(node_at(tree, "x://h/0")) == {"a", "b"}


def test_pattern_for_finds_the_pattern_of_a_template_text() -> None:
    tree = UriTree()
    tree.add_templates([tpl("a", "file:///{+p}"), tpl("a", "file://{host}/x"), tpl("a", "{x}")])
    tree.add_resources([res("a", "x://h/{id}")])  # a concrete URI with braces is not a pattern
    for text in ("file:///{+p}", "file://{host}/x", "{x}"):
        found = tree.pattern_for(text)
        assert found is not None and found.uri_template == text
    assert tree.pattern_for("x://h/{id}") is None
    assert tree.pattern_for("nothing://{x}") is None


def node_at(tree: UriTree, prefix: str) -> UriNode:
    found = tree.node_for(prefix)
    assert found is not None, prefix
    return found


# ------------------------------------------------------------------------------------ navigation


def test_node_for_and_nearest() -> None:
    tree = UriTree()
    tree.add_resources([res("a", "file:///a/b.py"), res("a", "file:///a/bc/d")])
    node = tree.node_for("file:///a")
    assert node is not None and node.prefix == "file:///a" and node.depth == 2
    assert tree.node_for("file:///a/b") is None
    assert tree.nearest("file:///a/b") is node  # "b" is not a whole segment of anything
    assert tree.nearest("file:///a/bc/d/e/f").prefix == "file:///a/bc/d"
    assert tree.nearest("zzz://nothing") is tree.root
    assert tree.node_for("") is tree.root


def test_templates_for_adds_templates_that_can_produce_the_prefix() -> None:
    tree = UriTree()
    tree.add_templates([tpl("a", "docs://help/{id}"), tpl("a", "docs://{+path}"), tpl("b", "other://{x}")])
    tree.add_resources([res("a", "docs://help/intro")])
    assert [t.uri_template for t in tree.templates_under("docs://help/intro")] == []
    assert sorted(t.uri_template for t in tree.templates_for("docs://help/intro")) == [
        "docs://help/{id}",
        "docs://{+path}",
    ]
    assert sorted(t.uri_template for t in tree.templates_under("docs://h")) == ["docs://help/{id}"]
    assert tree.count_under("docs://") == (1, 2)


def test_expanding_10k_children_is_fast_even_cold() -> None:
    """One sort key per child and a sort in C: no comparison in Python, nothing quadratic.

    (The time is measured by benchmarks/bench_uri_tree.py against `sorted()` of the same names.)
    """
    names = [f"item-{i * 7919 % 10_000:05d}" for i in range(10_000)]  # not in sorted order
    tree = UriTree()
    for start in range(0, len(names), 1000):
        tree.add_resources([res("a", f"x://h/{n}") for n in names[start : start + 1000]])
    host = tree.node_for("x://h")
    assert host is not None and host.child_count == 10_000
    with count_steps() as steps:
        children = tree.children(host)
    # About 18 Python lines per child today; a comparison sort in Python (n log n ~ 130,000 compares) or
    # anything quadratic is far past this.
    assert steps.lines <= 40 * 10_000, steps.lines
    assert steps.calls <= 5 * 10_000, steps.calls
    assert [c.segment for c in children] == sorted(names)


def test_children_sorted_and_handed_out_lists_never_change() -> None:
    tree = UriTree()
    tree.add_resources([res("a", f"x://h/{i:05d}") for i in range(0, 10_000, 2)])
    host = tree.node_for("x://h")
    assert host is not None
    first = tree.children(host)
    snapshot = list(first)
    tree.add_resources([res("a", f"x://h/{i:05d}") for i in range(1, 10_000, 2)])
    assert list(first) == snapshot  # what the UI holds is untouched
    second = tree.children(host)
    assert [c.segment for c in second] == [f"{i:05d}" for i in range(10_000)]
    with count_steps() as steps:
        tree.add_resources([res("a", "x://h/zz-new")])
        third = tree.children(host)
    assert third[-1].segment == "zz-new" and len(third) == 10_001
    # One new child is merged into the cached order: a few hundred Python lines, not a key per child.
    assert steps.lines <= 2_000, steps.lines
    tree.remove_server("a")
    assert tree.children(tree.root) == ()


def test_chain_end_collapses_single_child_runs() -> None:
    tree = UriTree()
    tree.add_resources([res("a", "x://h/src/explorer/model/a.py"), res("a", "x://h/src/explorer/model/b.py")])
    src = tree.node_for("x://h/src")
    assert src is not None
    end = tree.chain_end(src)
    assert end.prefix == "x://h/src/explorer/model"
    assert tree.chain_label(src) == "src/explorer/model"
    scheme = tree.node_for("x://")
    assert scheme is not None and tree.chain_label(scheme) == "x://h/src/explorer/model"
    # A node with its own resource or a pattern stops the chain.
    tree.add_templates([tpl("a", "x://h/src/{f}")])
    assert tree.chain_end(src) is src
    assert end.segment == "model" and end.parent is not None and end.parent.segment == "explorer"


def test_depth_first_rows_and_json() -> None:
    tree = UriTree()
    tree.add_resources([res("a", "docs://help/intro"), res("b", "docs://help/intro"), res("a", "urn:x")])
    tree.add_templates([tpl("a", "docs://help/{id}")])
    rows = [(r.depth, r.label) for r in depth_first(tree)]
    assert rows == [(0, "docs://"), (1, "help"), (2, "{id}"), (2, "intro"), (0, "urn:"), (1, "x")]
    collapsed = [(r.depth, r.label) for r in depth_first(tree, collapse=True)]
    assert collapsed == [(0, "docs://help"), (1, "{id}"), (1, "intro"), (0, "urn:x")]
    data = tree_json(tree)
    json.dumps(data)  # plain JSON types only
    assert data["count"] == 3 and data["prefix"] == ""
    docs = data["children"][0]
    assert (docs["segment"], docs["prefix"], docs["count"]) == ("docs://", "docs://", 2)
    help_items = docs["children"][0]["children"]
    assert help_items[0] == {
        "segment": "{id}",
        "prefix": "docs://help/",
        "count": 0,  # nothing below a template
        "template": True,
        "uriTemplate": "docs://help/{id}",
        "servers": ["a"],
        "children": [],
    }
    assert help_items[1]["prefix"] == "docs://help/intro" and help_items[1]["servers"] == ["a", "b"]
    assert help_items[1]["count"] == 0  # a leaf: its resource is the node itself, nothing below


@pytest.mark.slow
def test_a_deep_uri_is_cut_at_the_segment_cap() -> None:
    """A hostile URI thousands of segments deep makes at most `MAX_PATH_SEGMENTS` nodes below its scheme
    (the last holds the rest), and is found, written and removed as any other."""
    depth = sys.getrecursionlimit() * 3
    uri = "x://h/" + "/".join("d" for _ in range(depth))
    segments = segment_uri(uri)
    assert len(segments) == 1 + MAX_PATH_SEGMENTS and segments[-1].count("/") == depth - MAX_PATH_SEGMENTS + 1
    assert join_segments(segments) == uri
    tree = UriTree()
    tree.add_resources([res("a", uri)])
    tree.add_templates([tpl("a", uri + "/{x}")])
    rows = 1 + MAX_PATH_SEGMENTS + 1  # the scheme, the path, and the template: past the cap, beside it
    assert len(list(depth_first(tree))) == rows
    for prefix in ("x://h/d/d", uri[: len(uri) // 2], uri):  # above the cap, inside its last segment, all
        assert [e.uri for e in tree.resources_under(prefix)] == [uri]
    written: list[bytes] = []
    write_tree_json(tree, written.append)
    document = b"".join(written)
    assert document.count(b'"segment"') == rows + 1 and len(document) < 40 * len(uri)  # and the root
    node = tree.node_for(uri)
    assert node is not None and node.prefix == uri and tree.chain_end(tree.root) is node.parent
    assert [pattern.uri_template for pattern in tree.patterns(node.parent)] == [uri + "/{x}"]
    tree.remove_server("a")
    assert tree.root.child_count == 0


def test_prefix_query_walks_only_the_covering_subtree() -> None:
    tree = UriTree()
    tree.add_resources([res("a", f"x://h/d{i}/f{j}") for i in range(200) for j in range(20)])
    visited, whole = tree._descend("x://h/d17/")
    assert len(visited) <= 4  # root, scheme, host, d17
    assert [w.prefix for w in whole] == [f"x://h/d17/f{j}" for j in range(20)]  # natural order
    # A prefix ending inside a segment takes every sibling that starts with it.
    assert tree.count_under("x://h/d17").resources == 20 * 11  # d17, d170..d179
    assert tree.count_under("x://h/d17/f1").resources == 11


@pytest.mark.slow
@given(st.lists(st.tuples(st.sampled_from(["s1", "s2"]), uri_like), max_size=30))
@settings(max_examples=200)
def test_one_page_equals_one_by_one(page: list[tuple[str, str]]) -> None:
    """The sibling fast path of a page insert builds exactly the tree single inserts build."""
    ordered = sorted(page, key=lambda item: item[1])  # sorted pages hit the fast path most
    for items in (page, ordered):
        at_once, single = UriTree(), UriTree()
        assert at_once.add_resources([res(s, u) for s, u in items]) == len(set(items))
        for s, u in items:
            single.add_resources([res(s, u)])
        assert tree_json(at_once) == tree_json(single)


def test_page_insert_failing_midway_keeps_counts() -> None:
    def page() -> Iterator[ResourceEntry]:
        yield res("a", "x://h/d/1")
        yield res("a", "x://h/d/2")
        raise RuntimeError("listing broke")

    tree = UriTree()
    with pytest.raises(RuntimeError):
        tree.add_resources(page())
    assert tree.version == 1
    assert tree.root.resource_count == 2 and tree.count_under("x://h/d/").resources == 2
    tree.remove_server("a")
    assert tree.root.resource_count == 0 and tree.root.child_count == 0


# ------------------------------------------------------------------------- brute-force comparison

SERVERS = ["s1", "s2", "s3"]
URIS = [
    "x://h/a",
    "x://h/a/b",
    "x://h/a/",
    "x://h/a//b",
    "x://h/ab",
    "x://h/a?q=1",
    "x://h/a#frag",
    "x://h/a?q#f",
    "x://h/a/?q",
    "x://h/a/#f",
    "x://h",
    "x://",
    "x:/h",
    "x:",
    "file:///a/b.py",
    "file:///a/",
    "file:///",
    "file://h/b",
    "file://",
    "urn:isbn:1",
    "urn:",
    "mailto:a@b",
    "x://h/%2F/c",
    "x://h/[x]/c",
    "x://h/{id}",
    "x://ü/日本",
    "/no/scheme",
    "/",
    "no/scheme",
    "1a:/b",
    "?q",
    "",
]
TEMPLATES = [
    "x://h/{id}",
    "x://h/a/{id}",
    "x://h/a{?q}",
    "x://{+path}",
    "x://h/a?{q}",
    "file:///a/{f}.py",
    "urn:{nid}",
    "{x}",
    "x://h/ab{/p*}",
    "no/{scheme}",
]
uris = st.one_of(st.sampled_from(URIS), uri_like)
templates = st.one_of(st.sampled_from(TEMPLATES), uri_like.map(lambda s: s + "{v}"))
servers = st.sampled_from(SERVERS)
names = st.sampled_from(["n1", "n2"])


def check_prefix(
    tree: UriTree,
    model_res: dict[str, dict[str, ResourceEntry]],
    model_tpl: dict[str, dict[str, TemplateEntry]],
    p: str,
) -> None:
    """The tree's prefix queries equal a brute-force filter of the model."""
    expected_res = sorted(
        (e.server, e.uri, e.name) for d in model_res.values() for e in d.values() if e.uri.startswith(p)
    )
    got_res = sorted((e.server, e.uri, e.name) for e in tree.resources_under(p))
    assert got_res == expected_res, p
    all_tpl = [e for d in model_tpl.values() for e in d.values()]
    expected_under = sorted(
        (e.server, e.uri_template) for e in all_tpl if template_placed_text(e.uri_template).startswith(p)
    )
    assert sorted((e.server, e.uri_template) for e in tree.templates_under(p)) == expected_under, p
    expected_for = sorted(
        (e.server, e.uri_template)
        for e in all_tpl
        if template_placed_text(e.uri_template).startswith(p) or p.startswith(e.literal_prefix)
    )
    assert sorted((e.server, e.uri_template) for e in tree.templates_for(p)) == expected_for, p
    counts = tree.count_under(p)
    assert counts.resources == len({u for _, u, _ in expected_res})
    assert counts.templates == len({t for _, t in expected_under})


def test_prefix_queries_for_every_cut_of_odd_uris() -> None:
    """Every prefix of every odd URI and template, against a tree holding all of them (two servers)."""
    tree = UriTree()
    model_res: dict[str, dict[str, ResourceEntry]] = {"s1": {}, "s2": {}}
    model_tpl: dict[str, dict[str, TemplateEntry]] = {"s1": {}, "s2": {}}
    for server, uri_list in (("s1", URIS), ("s2", URIS[::3])):
        tree.add_resources([res(server, u) for u in uri_list])
        model_res[server].update({u: res(server, u) for u in uri_list})
    tree.add_templates([tpl("s1", t) for t in TEMPLATES])
    model_tpl["s1"].update({t: tpl("s1", t) for t in TEMPLATES})
    probes = {text[:cut] for text in URIS + TEMPLATES for cut in range(len(text) + 1)}
    probes |= {"x://h/a/", "x://h/a?", "x://h/a#", "x:/", "file:/", "zzz", "x://h/a/b/c/d"}
    for p in sorted(probes):
        check_prefix(tree, model_res, model_tpl, p)


class TreeMachine(RuleBasedStateMachine):
    """Random pages, removals and refreshes from three servers, checked against plain dicts."""

    def __init__(self) -> None:
        super().__init__()
        self.tree = UriTree()
        self.res: dict[str, dict[str, ResourceEntry]] = {s: {} for s in SERVERS}
        self.tpl: dict[str, dict[str, TemplateEntry]] = {s: {} for s in SERVERS}

    @rule(page=st.lists(st.tuples(servers, uris, names), max_size=8))
    def add_page(self, page: list[tuple[str, str, str]]) -> None:
        new_pairs = {(s, u) for s, u, _ in page if u not in self.res[s]}
        added = self.tree.add_resources([res(s, u, n) for s, u, n in page])
        for s, u, n in page:
            self.res[s][u] = res(s, u, n)
        assert added == len(new_pairs)

    @rule(page=st.lists(st.tuples(servers, templates, names), max_size=4))
    def add_templates(self, page: list[tuple[str, str, str]]) -> None:
        new_pairs = {(s, t) for s, t, _ in page if t not in self.tpl[s]}
        assert self.tree.add_templates([tpl(s, t, n) for s, t, n in page]) == len(new_pairs)
        for s, t, n in page:
            self.tpl[s][t] = tpl(s, t, n)

    @rule(server=servers)
    def remove(self, server: str) -> None:
        self.tree.remove_server(server)
        self.res[server] = {}
        self.tpl[server] = {}

    @rule(server=servers, uri_list=st.lists(uris, max_size=8), tpl_list=st.lists(templates, max_size=3))
    def replace(self, server: str, uri_list: list[str], tpl_list: list[str]) -> None:
        self.tree.replace_server(
            server, [res(server, u, "r") for u in uri_list], [tpl(server, t) for t in tpl_list]
        )
        self.res[server] = {u: res(server, u, "r") for u in uri_list}
        self.tpl[server] = {t: tpl(server, t) for t in tpl_list}

    @rule(prefix=st.one_of(uris, st.sampled_from(TEMPLATES)), cut=st.integers(0, 40))
    def prefix_queries(self, prefix: str, cut: int) -> None:
        for p in {prefix, prefix[:cut]}:
            check_prefix(self.tree, self.res, self.tpl, p)

    @invariant()
    def counts_match_brute_force(self) -> None:
        tree = self.tree
        by_uri: dict[str, dict[str, ResourceEntry]] = {}
        for server, entries in self.res.items():
            for uri, entry in entries.items():
                by_uri.setdefault(uri, {})[server] = entry
        seg_lists = {uri: segment_uri(uri) for uri in by_uri}
        texts: dict[str, dict[str, TemplateEntry]] = {}
        for server, tentries in self.tpl.items():
            for text, tentry in tentries.items():
                texts.setdefault(text, {})[server] = tentry
        patterns = {id(p): p for p in all_patterns(tree)}

        stored = 0
        for path, node in all_nodes(tree):
            assert node.prefix == join_segments(path)
            expected = sum(1 for segs in seg_lists.values() if segs[: len(path)] == path)
            assert node.resource_count == expected, (path, node.resource_count, expected)
            below = [p for p in patterns.values() if _is_under(p.parent, node)]
            assert node.template_count == len(below), path
            # Subtree servers: every server with a resource at or below the node, or a template below it.
            owners = {s for uri, segs in seg_lists.items() if segs[: len(path)] == path for s in by_uri[uri]}
            owners.update(s for p in below for s in p.templates)
            assert tree.subtree_servers(node) == owners, (path, tree.subtree_servers(node), owners)
            children = tree.children(node)
            # Natural order (`22` after `2a`: 2 < 22), as the tree promises.
            assert [c.segment for c in children] == sorted((c.segment for c in children), key=natural_key)
            assert all(c.parent is node for c in children)
            if node.has_resource:
                stored += 1
                assert dict(node.resources) == by_uri[node.prefix]
            elif node is not tree.root:
                assert node.child_count or node.pattern_count, f"empty node left behind: {path}"
        assert stored == len(by_uri) == tree.root.resource_count
        for uri in by_uri:
            found = tree.node_for(uri)
            assert found is not None and found.prefix == uri

        assert sorted(p.uri_template for p in patterns.values()) == sorted(texts)
        for pattern in patterns.values():
            assert dict(pattern.templates) == texts[pattern.uri_template]
            assert tree.subtree_servers(pattern) == frozenset(pattern.templates)
            assert tree.pattern_for(pattern.uri_template) is pattern
            parent_prefix = pattern.parent.prefix
            # The pattern hangs under a node whose text leads its literal prefix.
            assert pattern.literal_prefix.startswith(parent_prefix)
            assert pattern.uri_template.endswith(pattern.label)
            assert encode_keeping(pattern.uri_template[: len(pattern.uri_template) - len(pattern.label)]) in (
                parent_prefix,
                parent_prefix + "/",
            )
        for server in SERVERS:
            assert tree.server_counts(server) == (len(self.res[server]), len(self.tpl[server]))

        # The JSON view shows the same nodes, prefixes and counts.
        flat: list[tuple[str, int, bool]] = []
        stack = [tree_json(tree)]
        while stack:
            item = stack.pop()
            flat.append((item["prefix"], item["count"], "template" in item))
            stack.extend(item["children"])
        # A node's count is what is below it: its own resource is its line, not counted again.
        expected_flat = [
            (n.prefix, n.resource_count + n.template_count - (1 if n.has_resource else 0), False)
            for _, n in all_nodes(tree)
        ]
        expected_flat += [(p.literal_prefix, 0, True) for p in patterns.values()]
        assert sorted(flat) == sorted(expected_flat)
        # One node per distinct prefix (`file:///a` made a second `file://` node, its empty authority).
        prefixes = [n.prefix for _, n in all_nodes(tree)]
        assert len(prefixes) == len(set(prefixes)), sorted(prefixes)


def _is_under(node: UriNode, top: UriNode) -> bool:
    current: UriNode | None = node
    while current is not None:
        if current is top:
            return True
        current = current.parent
    return False


TestTreeMachine = pytest.mark.slow(TreeMachine.TestCase)
TestTreeMachine.settings = settings(
    max_examples=150, stateful_step_count=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


# ------------------------------------------------------------------------------ resource nodes


def test_resource_nodes_are_every_node_with_a_resource_in_tree_order() -> None:
    tree = UriTree()
    uris = ["s://a", "s://a/b", "s://a/b/c", "s://a/d", "t:x", "s://e/f/g"]
    tree.add_resources(res("a", uri) for uri in uris)
    tree.add_templates([tpl("a", "s://h/{x}")])  # a node without resources below: no resource node
    walked = [node.prefix for node in tree.resource_nodes()]
    in_order = [
        row.node.prefix
        for row in depth_first(tree)
        if isinstance(row.node, UriNode) and row.node.has_resource
    ]
    assert walked == in_order and sorted(walked) == sorted(uris)


def test_resource_nodes_skip_below_pruned_nodes_also_those_pruned_during_the_walk() -> None:
    """What a filter's name pass relies on: below a node pruned (a whole match) nothing is read, and a
    node pruned while the walk is inside it (10,000 children) is left within about 1,024 more."""
    tree = UriTree()
    tree.add_resources(res("a", f"s://w/item{k}") for k in range(10_000))
    tree.add_resources([res("a", "s://w"), res("a", "s://v/x"), res("a", "s://y/z")])
    wide = tree.node_for("s://w")
    assert wide is not None
    pruned: set[UriNode] = {tree.node_for("s://v")}  # type: ignore[arg-type]
    walked: list[str] = []
    for node in tree.resource_nodes(pruned):
        walked.append(node.prefix)
        if node.prefix == "s://w/item10":
            pruned.add(wide)
    assert "s://v/x" not in walked and walked[0] == "s://w"
    assert walked[-1] == "s://y/z"  # the walk goes on beside the pruned node
    assert 10 < len(walked) < 1_100
