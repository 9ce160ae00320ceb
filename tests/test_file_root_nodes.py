"""One node per distinct prefix: `file:///etc/hosts` (an empty authority) made two `file://` nodes, the
scheme's and the empty authority's, in the model and in `tree --json`, while the TUI's chain row and the
text tree hid one. Now the empty first segment is glued to the next (`/etc`), so JSON, text and the rows
of the TUI show the same nodes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from explorer.cli.tree_render import write_tree_json
from explorer.model.tree_view import TreeRows
from explorer.model.uri_tree import UriNode, UriTree
from tests.factories import res, tpl
from tests.helpers.cli import run_cli
from tests.helpers.tiny_server import tiny_server


def _all_nodes(tree: UriTree) -> list[UriNode]:
    found: list[UriNode] = []
    stack = [tree.root]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(tree.children(node))
    return found


def _json_nodes(node: dict[str, Any]) -> list[tuple[str, str]]:
    """(prefix, segment) of every concrete node of a `tree --json` tree, depth first."""
    found: list[tuple[str, str]] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if not item.get("template"):
            found.append((item["prefix"], item["segment"]))
        stack.extend(reversed(item["children"]))
    return found


def _tree_json(tree: UriTree) -> dict[str, Any]:
    chunks: list[bytes] = []
    write_tree_json(tree, chunks.append)
    data: dict[str, Any] = json.loads(b"".join(chunks))
    return data


@pytest.mark.parametrize(
    ("uris", "prefixes"),
    [
        (["file:///etc/hosts"], ["", "file://", "file:///etc", "file:///etc/hosts"]),
        (["file:///"], ["", "file://", "file:///"]),
        (["file://host/x"], ["", "file://", "file://host", "file://host/x"]),
        (["urn:isbn:1"], ["", "urn:", "urn:isbn:1"]),
        (["http://h/"], ["", "http://", "http://h", "http://h/"]),
        (
            ["file:///a", "file://h/b", "file:///", "file:////c"],
            ["", "file://", "file:///", "file:////c", "file:///a", "file://h", "file://h/b"],
        ),
        (["/abs/path", "/"], ["", "/", "/abs", "/abs/path"]),
    ],
)
def test_every_node_has_a_prefix_of_its_own(uris: list[str], prefixes: list[str]) -> None:
    tree = UriTree()
    tree.add_resources([res("s", uri) for uri in uris])
    nodes = _all_nodes(tree)
    assert sorted(node.prefix for node in nodes) == sorted(prefixes)
    for uri in uris:
        node = tree.node_for(uri)
        assert node is not None and node.has_resource and node.prefix == uri
    shown = _json_nodes(_tree_json(tree))
    assert sorted(prefix for prefix, _ in shown) == sorted(prefixes)  # JSON: the same nodes, once each


def test_file_urls_with_and_without_a_host_share_one_scheme_node_in_natural_order() -> None:
    tree = UriTree()
    tree.add_resources([res("s", u) for u in ("file:///g10", "file://h/b", "file:///g2", "file:///")])
    scheme = tree.node_for("file://")
    assert scheme is not None and scheme.items_below == 4
    assert [child.segment for child in tree.children(scheme)] == ["/", "/g2", "/g10", "h"]
    assert [child.prefix for child in tree.children(scheme)] == [
        "file:///",
        "file:///g2",
        "file:///g10",
        "file://h",
    ]
    # Prefix queries across the glued segment, as a `/` filter or `tree --prefix` asks them.
    assert sorted(e.uri for e in tree.resources_under("file:///g")) == ["file:///g10", "file:///g2"]
    assert sorted(e.uri for e in tree.resources_under("file:///g1")) == ["file:///g10"]
    assert sorted(e.uri for e in tree.resources_under("file://")) == sorted(
        e.uri for e in tree.resources_under("")
    )
    assert [e.uri for e in tree.resources_under("file://h")] == ["file://h/b"]


def test_a_template_of_the_empty_authority_hangs_on_the_scheme_node() -> None:
    tree = UriTree()
    tree.add_resources([res("s", "file:///logs/a.log")])
    tree.add_templates([tpl("s", "file:///{+path}"), tpl("s", "file:///logs/{date}.log")])
    scheme = tree.node_for("file://")
    assert scheme is not None and [p.label for p in tree.patterns(scheme)] == ["/{+path}"]
    assert tree.pattern_for("file:///{+path}") is not None
    assert sorted(t.uri_template for t in tree.templates_under("file:///")) == [
        "file:///logs/{date}.log",
        "file:///{+path}",
    ]


def test_the_tui_rows_show_the_scheme_once_with_the_paths_below() -> None:
    tree = UriTree()
    tree.add_resources([res("s", u) for u in ("file:///etc/hosts", "file:///etc/passwd", "file://h/b")])
    rows = TreeRows(tree)
    assert ["  " * row.depth + row.label for row in rows] == ["", "  file://"]
    rows.expand(1, 1)
    assert ["  " * row.depth + row.label for row in rows] == ["", "  file://", "    /etc", "    h/b"]


_BODY = """
def answer(method, params):
    if method == "resources/list":
        return {"resources": [{"uri": u, "name": u.rsplit("/", 1)[-1]} for u in URIS]}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    return None
"""


def test_tree_json_of_a_server_has_one_file_node_whose_children_are_the_paths(tmp_path: Path) -> None:
    uris = ["file:///etc/hosts", "file:///etc/passwd", "file:///tmp/x"]
    server = tiny_server(tmp_path, f"URIS = {uris!r}\n" + _BODY)
    result = run_cli("tree", "--json", "-s", server)
    assert result.code == 0, result
    top = json.loads(result.stdout)["tree"]
    assert [child["prefix"] for child in top["children"]] == ["file://"]
    scheme = top["children"][0]
    assert scheme["count"] == 3
    assert [(c["segment"], c["prefix"]) for c in scheme["children"]] == [
        ("/etc", "file:///etc"),
        ("/tmp", "file:///tmp"),
    ]
    assert [c["prefix"] for c in scheme["children"][0]["children"]] == [
        "file:///etc/hosts",
        "file:///etc/passwd",
    ]
    prefixes = [prefix for prefix, _ in _json_nodes(top)]
    assert len(prefixes) == len(set(prefixes)), prefixes

    text = run_cli("tree", "-s", server)
    assert text.code == 0, text
    lines = [line for line in text.stdout.splitlines() if not line.startswith("#")]
    assert lines == ["file://  (3)", "  /etc  (2)", "    hosts", "    passwd", "  /tmp/x  x"]
