"""The nodes' underscore storage (`_res`, `_kids`, `_tpl`) is touched only by `uri_nodes.py` and its one
writer, `uri_tree.py`, as `uri_nodes.py` says: everyone else goes through the properties, so that the
counts, caches and server masks `UriTree` keeps beside that storage cannot drift from it."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers.paths import ROOT

STORAGE = {"_res", "_kids", "_tpl"}
OWNERS = {Path("explorer/model/uri_nodes.py"), Path("explorer/model/uri_tree.py")}


def storage_uses(source: str) -> list[tuple[int, str]]:
    """(line, attribute) of every use of the nodes' underscore storage in `source`."""
    return sorted(
        (node.lineno, node.attr)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute) and node.attr in STORAGE
    )


def test_only_the_tree_and_the_nodes_touch_the_nodes_storage() -> None:
    found = []
    for path in sorted((ROOT / "explorer").rglob("*.py")):
        relative = path.relative_to(ROOT)
        if relative in OWNERS:
            continue
        found += [f"{relative}:{line} .{attr}" for line, attr in storage_uses(path.read_text("utf-8"))]
    assert found == []


def test_the_guard_sees_reads_writes_and_mutations() -> None:
    source = "node._kids = None\nx = node._res\nnode._kids.children.pop('a')\nn._tpl[s] = t\n"
    assert [attr for _, attr in storage_uses(source)] == ["_kids", "_res", "_kids", "_tpl"]
    assert storage_uses("node.kids = None\nnode.resources\n") == []
