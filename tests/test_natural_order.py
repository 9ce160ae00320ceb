"""A wide node's children kept in natural order page by page (`explorer.model.natural_order`): the order a
full sort gives, snapshots that later pages never change, and the tree's use of it at and past `WIDE`."""

from __future__ import annotations

import random
import threading

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.model.entries import ResourceEntry
from explorer.model.natural import natural_key
from explorer.model.natural_order import WIDE, ChildSeq, NaturalOrder
from explorer.model.tree_filter import compute_filter
from explorer.model.uri_tree import UriTree


def entry(uri: str) -> ResourceEntry:
    return ResourceEntry("a", uri, uri.rsplit("/", 1)[-1], {"uri": uri})


def order_of(names: list[str]) -> NaturalOrder[str]:
    return NaturalOrder(names, [natural_key(name) for name in names])


@given(
    st.lists(st.lists(st.integers(0, 5000), max_size=300), max_size=12),
    st.integers(0, 2**32 - 1),
)
@settings(max_examples=60, deadline=None)
def test_pages_in_any_order_give_the_order_of_a_full_sort_and_snapshots_never_change(
    pages: list[list[int]], seed: int
) -> None:
    rng = random.Random(seed)
    seen: set[str] = set()
    order = order_of([])
    held: list[tuple[ChildSeq[str], list[str]]] = []
    for numbers in pages:
        fresh = [f"item{n}" for n in dict.fromkeys(numbers) if f"item{n}" not in seen]
        rng.shuffle(fresh)
        order.insert(fresh, [natural_key(name) for name in fresh])
        seen.update(fresh)
        shot = order.snapshot()
        expected = sorted(seen, key=natural_key)
        assert list(shot) == expected and len(shot) == len(order) == len(expected)
        assert list(reversed(shot)) == expected[::-1]
        held.append((shot, expected))
        if seen and rng.random() < 0.5:  # a removal now and then
            gone = rng.choice(sorted(seen))
            assert order.remove(gone, natural_key(gone))
            seen.discard(gone)
    for shot, expected in held:  # every snapshot is still what it was when it was taken
        assert list(shot) == expected


def test_blocks_split_and_indexing_and_slicing_read_across_them() -> None:
    names = [f"n{k}" for k in range(5000)]
    order = order_of(names[::4])
    for offset in (1, 2, 3):  # interleaved: blocks fill past twice their size and split
        order.insert(names[offset::4], [natural_key(name) for name in names[offset::4]])
    shot = order.snapshot()
    assert len(shot._blocks) > 2
    expected = sorted(names, key=natural_key)
    assert [shot[k] for k in range(0, 5000, 37)] == expected[::37]
    assert (
        shot[-1] == expected[-1] and shot[1234:3456] == expected[1234:3456] and shot[::-7] == expected[::-7]
    )
    assert shot[4990:99999] == expected[4990:] and shot[3:3] == []
    try:
        shot[5000]
    except IndexError:
        pass
    else:
        raise AssertionError("an index past the end must raise")


def test_a_listing_in_order_only_appends() -> None:
    order = order_of([f"k{n}" for n in range(10)])
    shot = order.snapshot()
    order.insert([f"k{n}" for n in range(10, 3000)], [natural_key(f"k{n}") for n in range(10, 3000)])
    assert list(order.snapshot()) == [f"k{n}" for n in range(3000)]
    assert list(shot) == [f"k{n}" for n in range(10)]  # the first block was copied, not extended


def test_removing_what_is_not_there_says_so() -> None:
    order = order_of(["a", "b"])
    assert not order.remove("c", "c") and not order.remove("z", "z")
    assert order.remove("a", "a") and order.remove("b", "b") and len(order.snapshot()) == 0
    assert not order.remove("a", "a")


def test_a_node_turns_wide_at_the_threshold_and_keeps_its_order_as_pages_come() -> None:
    rng = random.Random(3)
    numbers = list(range(WIDE * 3))
    rng.shuffle(numbers)
    tree = UriTree()
    tree.add_resources(entry(f"x://w/item{n}") for n in numbers[: WIDE - 1])
    node = tree.node_for("x://w")
    assert node is not None
    assert node._kids is not None and node._kids.order is None  # below the threshold: a sorted list
    narrow = tree.children(node)
    for start in range(WIDE - 1, len(numbers), 700):
        tree.add_resources(entry(f"x://w/item{n}") for n in numbers[start : start + 700])
        shown = tree.children(node)
        assert [child.segment for child in shown] == sorted(
            (f"item{n}" for n in numbers[: start + 700]), key=natural_key
        )
    assert node._kids.order is not None
    assert len(narrow) == WIDE - 1  # what a view held before is unchanged
    assert tree.children(node) is tree.children(node)  # the same snapshot until the next change
    # Prefix queries and counts read the same order.
    assert [c.segment for c in tree.children_starting_with(node, "item5")][:3] == [
        "item5",
        "item50",
        "item51",
    ]
    assert tree.count_under("x://w/item1").resources == sum(1 for n in numbers if str(n).startswith("1"))


def test_removing_a_server_from_a_wide_node_takes_its_children_out_of_the_order() -> None:
    tree = UriTree()
    tree.add_resources(entry(f"x://w/item{n}") for n in range(WIDE + 500))
    tree.add_resources(ResourceEntry("b", f"x://w/b{n}", "b") for n in range(300))
    node = tree.node_for("x://w")
    assert node is not None
    before = tree.children(node)
    tree.remove_server("b")
    assert [c.segment for c in tree.children(node)] == [f"item{n}" for n in range(WIDE + 500)]
    assert len(before) == WIDE + 800  # the snapshot a view held stays whole
    tree.replace_server("a", [entry(f"x://w/item{n}") for n in range(0, WIDE + 500, 2)], [])
    assert [c.segment for c in tree.children(node)] == [f"item{n}" for n in range(0, WIDE + 500, 2)]


def test_a_snapshot_taken_by_another_thread_while_pages_come_is_always_whole() -> None:
    """The filter scan reads the order from a worker thread while the UI thread adds pages."""
    tree = UriTree()
    tree.add_resources(entry(f"x://w/item{n}") for n in range(0, 40_000, 4))
    node = tree.node_for("x://w")
    assert node is not None
    stop = threading.Event()
    problems: list[str] = []

    def read() -> None:
        while not stop.is_set():
            shot = tree.children(node)
            names = [child.segment for child in shot]
            if len(names) != len(shot) or names != sorted(names, key=natural_key):
                problems.append(f"a snapshot of {len(shot)} read {len(names)} out of order")
                return

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for offset in (1, 2, 3):
            for start in range(0, 40_000, 2000):
                tree.add_resources(entry(f"x://w/item{n}") for n in range(start + offset, start + 2000, 4))
    finally:
        stop.set()
        reader.join()
    assert problems == []
    assert len(tree.children(node)) == 40_000


def test_a_tree_read_once_sorts_when_asked_instead() -> None:
    """The CLI reads the order once, at the end: a sort then costs less than keeping it page by page."""
    tree = UriTree(keep_order=False)
    names = [f"item{n}" for n in range(WIDE + 100)]
    random.Random(5).shuffle(names)
    for start in range(0, len(names), 1000):
        tree.add_resources(entry(f"x://w/{name}") for name in names[start : start + 1000])
    node = tree.node_for("x://w")
    assert node is not None and node._kids is not None and node._kids.order is None
    assert [c.segment for c in tree.children(node)] == sorted(names, key=natural_key)


def test_a_scan_in_another_thread_while_pages_come_loses_no_child_from_the_order() -> None:
    """The filter scan walks the tree in a worker thread while the UI thread merges pages: it reads the
    order as of the last page and changes nothing, so no child added meanwhile goes missing from it."""
    tree = UriTree()
    stop = threading.Event()

    def scan() -> None:
        while not stop.is_set():
            compute_filter(tree, "zzz")  # matches nothing: walks every folder and reads every entry

    reader = threading.Thread(target=scan)
    reader.start()
    try:
        for page in range(60):
            tree.add_resources(entry(f"x://h/d{n % 40}/f{page}-{n}") for n in range(400))
    finally:
        stop.set()
        reader.join()
    for folder in tree.children(tree.nearest("x://h")):
        shown = [child.segment for child in tree.children(folder)]
        assert shown == sorted((child.segment for child in folder._kids.children.values()), key=natural_key)
