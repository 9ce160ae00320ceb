"""New children of a wide node are merged into its cached natural order (not sorted again from scratch),
and the order is exactly the one a full sort gives."""

from __future__ import annotations

import random

from explorer.model.entries import ResourceEntry
from explorer.model.natural import natural_key
from explorer.model.uri_tree import UriTree


def entry(uri: str) -> ResourceEntry:
    return ResourceEntry("a", uri, uri.rsplit("/", 1)[-1], {"uri": uri})


def test_pages_merged_into_a_wide_node_keep_the_natural_order_of_a_full_sort() -> None:
    rng = random.Random(7)
    names = [f"item{k}.json" for k in range(6000)] + [f"Item-{k:03d}" for k in range(300)] + ["g2", "g10"]
    rng.shuffle(names)
    tree = UriTree()
    node = None
    for start in range(0, len(names), 500):  # pages of 500 after a first one: merged, not re-sorted
        tree.add_resources(entry(f"x://wide/{name}") for name in names[start : start + 500])
        node = tree.node_for("x://wide")
        assert node is not None
        shown = [child.segment for child in tree.children(node)]
        assert shown == sorted(names[: start + 500], key=natural_key)
    assert node is not None and node.child_count == len(names)


def test_a_few_children_added_to_a_wide_node_land_in_their_places() -> None:
    tree = UriTree()
    tree.add_resources(entry(f"x://w/item{k}") for k in range(0, 4000, 2))
    node = tree.node_for("x://w")
    assert node is not None
    before = tree.children(node)
    tree.add_resources(entry(f"x://w/item{k}") for k in range(1, 400, 2))  # 200 new: a merge
    after = tree.children(node)
    assert before is not after  # a new list: a view may still hold the old one
    assert [child.segment for child in after] == sorted(
        [f"item{k}" for k in range(0, 4000, 2)] + [f"item{k}" for k in range(1, 400, 2)], key=natural_key
    )
