"""Natural order of URI segments (`g2` before `g10`), as the tree shows its children."""

from __future__ import annotations

import random
import re
from functools import cmp_to_key
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.model import natural, uri_nodes
from explorer.model.entries import ResourceEntry
from explorer.model.natural import natural_key, natural_keys
from explorer.model.natural_order import NaturalOrder
from explorer.model.uri_nodes import UriNode, starting_with
from explorer.model.uri_tree import UriTree

_RUN = re.compile(r"[0-9]+")


def reference(a: str, b: str) -> int:
    """Character by character; two runs of ASCII digits compare as numbers; equal numbers written with
    leading zeros come after the ones without (then by their text)."""
    i = j = 0
    while i < len(a) and j < len(b):
        run_a, run_b = _RUN.match(a, i), _RUN.match(b, j)
        if run_a and run_b:
            na, nb = int(run_a.group()), int(run_b.group())
            if na != nb:
                return -1 if na < nb else 1
            i, j = run_a.end(), run_b.end()
            continue
        if a[i] != b[j]:
            return -1 if a[i] < b[j] else 1
        i, j = i + 1, j + 1
    if (len(a) - i) != (len(b) - j):
        return -1 if len(a) - i < len(b) - j else 1

    def zeros(text: str) -> bool:
        return any(len(m.group()) > 1 and m.group().startswith("0") for m in _RUN.finditer(text))

    left, right = (zeros(a), a), (zeros(b), b)
    return 0 if left == right else -1 if left < right else 1


def test_numbers_sort_by_value() -> None:
    names = ["g10", "g2", "g1", "item-10", "item-9", "item-1", "v1.10", "v1.9", "v1.2", "a", "b", "9", "10"]
    random.Random(3).shuffle(names)

    assert sorted(names, key=natural_key) == [
        "9", "10", "a", "b", "g1", "g2", "g10", "item-1", "item-9", "item-10", "v1.2", "v1.9", "v1.10",
    ]  # fmt: skip


def test_leading_zeros_and_long_numbers_give_one_stable_order() -> None:
    names = ["g02", "g2", "g002", "g1", "g3", "x" + "9" * 30, "x" + "1" + "0" * 29, "x" + "9" * 29]

    once = sorted(names, key=natural_key)
    assert once == sorted(reversed(names), key=natural_key)  # the same whatever the input order
    assert once[:5] == ["g1", "g2", "g002", "g02", "g3"]
    assert once[5:] == ["x" + "9" * 29, "x" + "1" + "0" * 29, "x" + "9" * 30]


@given(st.lists(st.text(alphabet="ab-.0129", max_size=8), max_size=30))
@settings(max_examples=300)
def test_the_key_orders_as_the_reference_comparison(names: list[str]) -> None:
    assert sorted(names, key=natural_key) == sorted(names, key=cmp_to_key(reference))


@given(st.lists(st.text(alphabet="ab-\n.00129\u00e9", max_size=12), min_size=60, max_size=120))
@settings(max_examples=200)
def test_bulk_keys_are_the_one_by_one_keys(names: list[str]) -> None:
    """Joints, leading zeros and non-ASCII text included: the bulk path gives the very same strings."""
    assert natural_keys(names) == [natural_key(name) for name in names]


def test_bulk_keys_handle_long_runs_and_leading_zeros_among_many() -> None:
    names = [f"item{i}" for i in range(200)] + ["x" + "7" * 40, "g007", "0", "00", "a0b01", "9" * 9]
    assert natural_keys(names) == [natural_key(name) for name in names]


def test_bulk_keys_across_chunks_are_the_one_by_one_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many texts are keyed a chunk at a time: the keys are the same, in the same places, at every border.
    Chunks of 100: two in bulk with leading zeros, a last short one (under 64: one by one); then a joint
    inside a text, in the middle chunk only (that chunk one by one, the others in bulk)."""
    monkeypatch.setattr(natural, "_BULK_CHUNK", 100)
    calls = [0]
    bulk = natural._natural_keys

    def counting(texts: list[str]) -> list[str]:
        calls[0] += 1
        return bulk(texts)

    monkeypatch.setattr(natural, "_natural_keys", counting)
    names = [f"item{i}.json" for i in range(230)] + ["g007", "x" + "1" * 20] * 5
    random.Random(5).shuffle(names)
    assert natural_keys(names) == [natural_key(name) for name in names]
    assert calls[0] == 3
    names[150] = "a\nb9"
    assert natural_keys(names) == [natural_key(name) for name in names]


@pytest.mark.parametrize("small_keys_from", [1 << 16, 0], ids=["str-keys", "small-keys"])
def test_many_siblings_sort_in_bulk_as_one_key_at_a_time(
    monkeypatch: pytest.MonkeyPatch, small_keys_from: int
) -> None:
    """Past `_BULK_FROM` nodes the keys are computed in bulk and handed to the sort in list order: the
    order is the one-by-one sort's, leading zeros included (siblings never share a segment), with str
    keys and with the smaller ones very many nodes take."""
    monkeypatch.setattr(uri_nodes, "_SMALL_KEYS_FROM", small_keys_from)
    names = [f"item{i}" for i in range(3000)] + ["g007", "g7", "g07", "00", "0", "x" + "9" * 30]
    random.Random(9).shuffle(names)
    parent = UriNode("", None)
    nodes = [UriNode(name, parent) for name in names]
    assert len(nodes) >= uri_nodes._BULK_FROM
    assert [n.segment for n in uri_nodes.natural_sorted(nodes)] == sorted(names, key=natural_key)


def _record_key_sizes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many names each call for natural keys (of either kind) made keys of, in order."""
    sizes: list[int] = []
    keyed, sort_keyed = uri_nodes.natural_keys, uri_nodes.natural_sort_keys

    def recording(texts: list[str]) -> list[str]:
        sizes.append(len(texts))
        return keyed(texts)

    def sort_recording(texts: list[str]) -> list[bytes]:
        sizes.append(len(texts))
        return sort_keyed(texts)

    monkeypatch.setattr(uri_nodes, "natural_keys", recording)
    monkeypatch.setattr(uri_nodes, "natural_sort_keys", sort_recording)
    return sizes


def test_siblings_listed_in_natural_order_are_checked_a_chunk_of_keys_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server that lists by id: the order is seen to be natural with no more than a chunk of keys made
    at a time (all of them at once were 70 MB at 10^6); out of order anywhere, even in the last chunk,
    the nodes are sorted as one key at a time would."""
    monkeypatch.setattr(uri_nodes, "_CHECK_CHUNK", 500)
    sizes = _record_key_sizes(monkeypatch)
    parent = UriNode("", None)
    in_order = [f"item{i}" for i in range(2300)] + ["item02300", "item2301", "j"]
    nodes = [UriNode(name, parent) for name in in_order]
    assert [n.segment for n in uri_nodes.natural_sorted(nodes)] == in_order
    assert sizes and max(sizes) <= 500

    # one swap: in the first look, across its end, in the middle, in the last chunk
    for at in (0, uri_nodes._FIRST_LOOK - 1, 1200, len(in_order) - 2):
        names = in_order[:]
        names[at], names[at + 1] = names[at + 1], names[at]
        nodes = [UriNode(name, parent) for name in names]
        assert [n.segment for n in uri_nodes.natural_sorted(nodes)] == in_order

    sizes.clear()  # scrambled, as listed by hash or date: found out by the first look alone
    scrambled = in_order[:]
    random.Random(4).shuffle(scrambled)
    nodes = [UriNode(name, parent) for name in scrambled]
    assert [n.segment for n in uri_nodes.natural_sorted(nodes)] == in_order
    assert sizes == [uri_nodes._FIRST_LOOK, len(scrambled)]  # then every key once, for the sort


def test_a_tree_no_view_watches_keeps_a_wide_node_in_one_dict() -> None:
    """The CLI's tree (`keep_order=False`) is read once, no frame waits on its growth: its children stay
    in a plain dict (C-level lookups); a tree a view watches splits it past `SHARD_FROM`."""
    uris = [f"x://h/flat/item{i}" for i in range(uri_nodes.SHARD_FROM + 10)]
    for keep_order, kind in ((False, dict), (True, uri_nodes.ShardedDict)):
        tree = UriTree(keep_order=keep_order)
        tree.add_resources(ResourceEntry("s", uri, "n") for uri in uris)
        folder = tree.node_for("x://h/flat")
        assert folder is not None and folder._kids is not None
        assert type(folder._kids.children) is kind
        assert [c.segment for c in tree.children(folder)][:3] == ["item0", "item1", "item2"]
        assert len(tree.children(folder)) == len(uris)


def test_tree_children_come_in_natural_order_as_pages_add_more() -> None:
    tree = UriTree()
    first = [f"x://h/d/item-{i}" for i in range(0, 300, 3)]
    random.Random(1).shuffle(first)
    tree.add_resources(ResourceEntry("s", uri, "n") for uri in first)
    folder = tree.node_for("x://h/d")
    assert folder is not None
    assert [c.segment for c in tree.children(folder)] == [f"item-{i}" for i in range(0, 300, 3)]
    handed_out = tree.children(folder)

    tree.add_resources([ResourceEntry("s", "x://h/d/item-10", "n")])  # a few: inserted one by one
    tree.add_resources(ResourceEntry("s", f"x://h/d/item-{i}", "n") for i in range(1, 300, 3))  # many
    assert [c.segment for c in tree.children(folder)] == [
        f"item-{i}" for i in sorted({*range(0, 300, 3), *range(1, 300, 3), 10})
    ]
    assert [c.segment for c in handed_out] == [f"item-{i}" for i in range(0, 300, 3)]  # never mutated
    # Prefix queries take their own string order: `item-1` covers item-1, item-10, item-100 ...
    present = {*range(0, 300, 3), *range(1, 300, 3), 10}
    ones = sorted(i for i in present if str(i).startswith("1"))
    assert tree.count_under("x://h/d/item-1").resources == len(ones)
    # ... and hands them out in display (natural) order.
    assert [e.uri for e in tree.resources_under("x://h/d/item-1")] == [f"x://h/d/item-{i}" for i in ones]


# ------------------------------------------------------------------ prefix queries in natural order

_PIECES = st.sampled_from(
    ["item", "a", "b", "-", ".", "0", "00", "05", "5", "50", "9", "10", "123456789012", "\0", "é"]
)


def _nodes_in_natural_order(names: set[str]) -> list[UriNode]:
    parent = UriNode("", None)
    return sorted((UriNode(name, parent) for name in names), key=lambda node: natural_key(node.segment))


@given(
    st.sets(st.lists(_PIECES, min_size=1, max_size=5).map("".join), max_size=80),
    st.lists(_PIECES, min_size=1, max_size=4).map("".join),
)
@settings(max_examples=400)
def test_starting_with_is_every_segment_that_starts_with_the_text_in_natural_order(
    names: set[str], text: str
) -> None:
    """Digits, leading zeros, runs of 9 and more (two-character length codes), NUL and non-ASCII."""
    nodes = _nodes_in_natural_order(names)
    for query in {text, text[:-1], text[1:]} - {""}:
        expected = [node for node in nodes if node.segment.startswith(query)]
        assert starting_with(nodes, query) == expected


@given(
    st.lists(st.sets(st.lists(_PIECES, min_size=1, max_size=5).map("".join), max_size=40), max_size=4),
    st.lists(_PIECES, min_size=1, max_size=4).map("".join),
    st.integers(0, 3),
)
@settings(max_examples=300)
def test_starting_with_over_a_wide_nodes_order_is_every_segment_that_starts_with_the_text(
    pages: list[set[str]], text: str, removed: int
) -> None:
    """A wide node's order (`ChildSeq`) takes whole key ranges by slices when no key has a tie-break:
    built page by page, with some children taken out again, so that what the order knows of tie-breaks
    (leading zeros) follows every change; the answer is still every segment that starts with the text."""
    parent = UriNode("", None)
    seen: dict[str, UriNode] = {}
    order: NaturalOrder[UriNode] = NaturalOrder([], [])
    for page in pages:
        fresh = [UriNode(name, parent) for name in sorted(page - seen.keys())]
        seen.update((node.segment, node) for node in fresh)
        order.insert(fresh, [natural_key(node.segment) for node in fresh])
    for name in sorted(seen)[:removed]:
        assert order.remove(seen.pop(name), natural_key(name))
    nodes = order.snapshot()
    in_order = sorted(seen.values(), key=lambda node: natural_key(node.segment))
    assert nodes.tie_broken == any("\0" in natural_key(name) for name in seen)
    for query in {text, text[:-1], text[1:]} - {""}:
        expected = [node for node in in_order if node.segment.startswith(query)]
        assert list(starting_with(nodes, query)) == expected, query


def test_starting_with_in_a_wide_node_without_leading_zeros_takes_whole_ranges(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """10^4 children `item0` .. `item9999`: `item4` is 1,111 of them in four ranges, `item0` one child
    (its range, not a check of every `item` child), no segment read one by one; a child with leading
    zeros added later is found by the check it brings back."""
    read: list[int] = []
    segment_of = uri_nodes._segment

    def counted(node: UriNode) -> str:
        read.append(1)
        return segment_of(node)

    monkeypatch.setattr(uri_nodes, "_segment", counted)
    parent = UriNode("", None)
    names = [f"item{n}" for n in range(10_000)]
    order = NaturalOrder([UriNode(name, parent) for name in names], natural_keys(names))
    nodes = order.snapshot()
    assert not nodes.tie_broken
    assert [node.segment for node in starting_with(nodes, "item4")] == sorted(
        (name for name in names if name.startswith("item4")), key=natural_key
    )
    assert [node.segment for node in starting_with(nodes, "item0")] == ["item0"]
    assert not read  # whole ranges, no segment read
    assert [node.segment for node in starting_with(nodes, "item04")] == []
    assert len(read) == 1_111  # `item04` has a leading zero: the keys of `item4` .. are checked
    read.clear()
    order.insert([UriNode("item04", parent)], [natural_key("item04")])
    nodes = order.snapshot()
    assert nodes.tie_broken
    assert [node.segment for node in starting_with(nodes, "item0")] == ["item0", "item04"]
    assert [node.segment for node in starting_with(nodes, "item4")][:2] == ["item4", "item40"]
    assert "item04" not in {node.segment for node in starting_with(nodes, "item4")}
    assert len(read) > 1_000  # with a tie-break in the order, every child in range is checked


def test_starting_with_a_digit_prefix_skips_what_natural_order_puts_between() -> None:
    nodes = _nodes_in_natural_order({f"item{n}" for n in range(1000)} | {"item05", "item5x", "item"})
    found = [node.segment for node in starting_with(nodes, "item5")]
    assert found == [
        "item5",
        "item5x",
        *[f"item{n}" for n in range(50, 60)],
        *[f"item{n}" for n in range(500, 600)],
    ]
    assert [node.segment for node in starting_with(nodes, "item0")] == ["item0", "item05"]
    assert starting_with(nodes, "item5000") == []


@pytest.mark.slow
def test_keys_made_in_two_threads_at_once_are_the_keys_made_alone() -> None:
    """The filter scan makes keys in a worker thread while the UI thread makes others (`prefix_head` too):
    nothing is shared between two key computations, so no key takes another text's tie-break."""
    import sys
    import threading

    from explorer.model import natural

    names = [f"a{n}" for n in range(200_000)]
    natural._cache.clear()
    made: dict[str, str] = {}
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        worker = threading.Thread(target=lambda: made.update((name, natural_key(name)) for name in names))
        worker.start()
        while worker.is_alive():
            natural.prefix_head("g0" * 20 + "x5")
            natural_key("g007")
        worker.join()
    finally:
        sys.setswitchinterval(interval)
    natural._cache.clear()
    assert made == {name: natural_key(name) for name in names}


@given(st.lists(st.text(alphabet="ab-\n\0.00129\u00e9\ud800", max_size=12), min_size=1, max_size=120))
@settings(max_examples=300)
def test_sort_keys_order_as_the_keys_do(names: list[str]) -> None:
    """Bytes without the common head, joints, NULs, leading zeros, non-ASCII and lone surrogates included:
    the same order as `natural_key`, ties (equal names) included."""
    keys = natural.natural_sort_keys(names)
    assert [name for _, name in sorted(zip(keys, names, strict=True))] == sorted(names, key=natural_key)
    pairs = pairwise(zip(keys, names, strict=True))
    assert all((a < b) == (natural_key(x) < natural_key(y)) for (a, x), (b, y) in pairs)


def test_sort_keys_drop_the_head_every_name_shares(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(natural, "_BULK_CHUNK", 100)
    names = [f"item{i * 7919 % 1000}.json" for i in range(1000)]
    keys = natural.natural_sort_keys(names)
    assert keys[:3] == [b"10.json", b"3919.json", b"3838.json"]  # "item" dropped, 919 -> length code 3
    in_order = [name for _, name in sorted(zip(keys, names, strict=True))]
    assert in_order == [f"item{i}.json" for i in range(1000)]
    # the common beginning ends inside a number: only up to its last non-digit is dropped
    assert natural.natural_sort_keys(["v12", "v13", "v2"]) == [b"212", b"213", b"12"]


@given(
    st.sampled_from(["item", "users/", "", "v2/x-", "a.b"]),
    st.sampled_from([".json", "", "/raw", ".v2.txt", "-x"]),
    st.sets(st.integers(0, 10**18 - 1), min_size=2, max_size=80),
)
@settings(max_examples=200)
def test_numbered_names_are_ordered_by_their_numbers_as_by_their_keys(
    head: str, tail: str, numbers: set[int]
) -> None:
    """Names that are one head, a number and one tail (how servers name what they list by id) sort by
    their ints, in the order their natural keys give."""
    names = [f"{head}{n}{tail}" for n in numbers]
    random.Random(len(names)).shuffle(names)
    span = natural.number_span(names)
    assert span is not None
    keys = natural.number_keys(names, span)
    assert keys is not None and sorted(keys) == sorted(numbers)
    assert [name for _, name in sorted(zip(keys, names, strict=True))] == sorted(names, key=natural_key)


@given(st.lists(st.text(alphabet="ab.07\u0663\u00b2", max_size=6), min_size=1, max_size=40, unique=True))
@settings(max_examples=300)
def test_number_keys_are_only_made_where_they_order_as_the_keys_do(names: list[str]) -> None:
    """Any names (Arabic-Indic and superscript digits, leading zeros, no number at all): either no int
    keys, or keys that order the names as `natural_key` does."""
    span = natural.number_span(names)
    keys = None if span is None else natural.number_keys(names, span)
    if keys is not None:
        assert [name for _, name in sorted(zip(keys, names, strict=True))] == sorted(names, key=natural_key)


@pytest.mark.parametrize(
    "names",
    [
        ["item1.json", "item02.json"],  # a leading zero: `item2` and `item02` share a key to the tie-break
        ["item1.json", "item\u0663.json"],  # a digit int() reads but the keys do not
        ["item1.json", "item.json"],  # no number
        ["item1.json", "item2.txt"],  # another tail
        ["item1.json", "item12.txt"],  # another tail, as long: what sits where the number would is digits
        ["item1.json", "item1x2.json"],  # a second number
        ["x1", "x" + "9" * 19],  # longer than a machine word
    ],
)
def test_names_that_are_not_one_head_a_number_and_one_tail_get_no_int_keys(names: list[str]) -> None:
    span = natural.number_span(names)
    assert span is None or natural.number_keys(names, span) is None


def test_numbered_siblings_listed_in_order_are_checked_by_their_ints(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that lists `item0` .. `itemN` by id: seen to be in order from the ints, with no natural
    key made past the first look; scrambled, sorted by the ints to the same order."""
    monkeypatch.setattr(uri_nodes, "_CHECK_CHUNK", 500)
    sizes = _record_key_sizes(monkeypatch)
    parent = UriNode("", None)
    in_order = [f"item{i}.json" for i in range(2300)]
    assert [n.segment for n in uri_nodes.natural_sorted(UriNode(s, parent) for s in in_order)] == in_order
    scrambled = in_order[:]
    random.Random(3).shuffle(scrambled)
    assert [n.segment for n in uri_nodes.natural_sorted(UriNode(s, parent) for s in scrambled)] == in_order
    assert sizes == [uri_nodes._FIRST_LOOK, uri_nodes._FIRST_LOOK]
    # one name without a plain number in the last chunk: that chunk and the sort take the keys
    sizes.clear()
    odd = [*in_order[:-1], "item02299.json"]
    assert [n.segment for n in uri_nodes.natural_sorted(UriNode(s, parent) for s in odd)] == odd
    assert sizes == [uri_nodes._FIRST_LOOK, 1, 2300 - 2000]  # the last name before it, then the chunk
