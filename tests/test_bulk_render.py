"""`tree`'s output written a run of leaves at a time is exactly the output written one node at a time.

The bulk paths (`_leaf_block`, `_leaf_elements`) take C-level passes over a run of leaves and fall back to
one by one whenever something in the run needs the sanitizer, a title, masking or JSON escapes. These
tests write the same trees both ways (the one-by-one way forced by finding no run of leaves) and compare
the bytes, over names a server may really send: non-ASCII, controls, quotes, backslashes, titles,
queries, URIs two servers list.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.cli import output, tree_render
from explorer.cli.tree_render import TextRows, write_rows, write_tree_json
from explorer.model import uri_nodes
from explorer.model.entries import ResourceEntry
from explorer.model.uri_nodes import UriNode
from explorer.model.uri_tree import UriTree
from tests.factories import res


def _text(tree: UriTree, several: bool = False, depth: int | None = None) -> str:
    stdout = sys.stdout
    sys.stdout = buffer = io.StringIO()
    try:
        rows = TextRows()
        write_rows(tree, rows, depth=depth, several=several)
        rows.flush()
    finally:
        sys.stdout = stdout
    return buffer.getvalue()


def _json(tree: UriTree) -> bytes:
    parts: list[bytes] = []
    write_tree_json(tree, parts.append)
    return b"".join(parts)


def _both_ways(
    tree: UriTree, several: bool = False
) -> tuple[tuple[str, bytes], tuple[str, bytes], list[int]]:
    """(text, JSON) written in bulk, then one by one; and the sizes of the runs the bulk way found."""
    runs: list[int] = []
    finder = uri_nodes.leaf_entries

    def recording(nodes: Sequence[UriNode], start: int, limit: int) -> list[ResourceEntry]:
        found = finder(nodes, start, limit)
        runs.append(len(found))
        return found

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tree_render, "leaf_entries", recording)
        bulk = (_text(tree, several), _json(tree))
        patch.setattr(tree_render, "leaf_entries", lambda nodes, start, limit: [])
        single = (_text(tree, several), _json(tree))
    return bulk, single, runs


_HOSTILE = ["é", "\x1b[31m", '"', "\\", "\u202e", "?q=", "#f", "\x7f", "", "007", "\n", "s" * 300]


@st.composite
def _groups(draw: st.DrawFn) -> list[ResourceEntry]:
    """Folders of leaves alike (as servers list them: runs the bulk way takes), each maybe with one leaf
    that differs (a hostile or empty piece, another naming, MIME type, title or server)."""
    entries: list[ResourceEntry] = []
    for _ in range(draw(st.integers(1, 4))):
        folder = draw(st.sampled_from(["s://flat", "s://a/b", "x:", 's://q/"dir']))
        stem = draw(st.sampled_from(["item", "x-", "file_", "é"]))
        naming = draw(st.sampled_from(["same", "other", "empty"]))
        mime = draw(st.sampled_from([None, "text/plain", ""]))
        title = draw(st.sampled_from([None, None, "A title", 'with "title" inside']))
        server = draw(st.sampled_from(["s", 's"q']))
        count = draw(st.integers(1, 40))
        odd = draw(st.integers(0, count * 2))  # past the end: no leaf differs
        spoiler = draw(st.sampled_from(_HOSTILE))
        change = draw(st.sampled_from(["segment", "name", "long", "mime", "title", "server", "extra"]))
        for k in range(count):
            segment = f"{stem}{k}"
            leaf_naming, leaf_mime, leaf_title, leaf_server = naming, mime, title, server
            fields: dict[str, object] = {}
            if k == odd:
                if change == "segment":
                    segment += spoiler
                elif change == "name":
                    leaf_naming = "other" if naming == "same" else "hostile"
                elif change == "long":  # past what a row shows of it: cut by the sanitizer
                    leaf_naming = "long"
                    leaf_mime = "text/" + "x" * 60 if mime else mime
                elif change == "mime":
                    leaf_mime = "a\x1bb" if mime else "text/x"
                elif change == "title":
                    leaf_title = "t\x1b[2J"
                elif change == "server":
                    leaf_server = "t"
                else:
                    fields["description"] = 'a "title" in a value'
            uri = f"{folder}{segment}" if folder.endswith(":") else f"{folder}/{segment}"
            name = {
                "same": segment,
                "other": f"item {k}",
                "empty": "",
                "hostile": f"n{spoiler}",
                "long": "n" * 121,
            }[leaf_naming]
            if leaf_mime is not None:
                fields["mimeType"] = leaf_mime
            if leaf_title is not None:
                fields["title"] = leaf_title
            entries.append(ResourceEntry(leaf_server, uri, name, {"uri": uri, "name": name, **fields}))
    return entries


@given(_groups())
@settings(max_examples=300, deadline=None)
def test_bulk_output_is_the_output_written_one_by_one(entries: list[ResourceEntry]) -> None:
    tree = UriTree(keep_order=False)
    tree.add_resources(entries)
    several = len({entry.server for entry in entries}) > 1
    bulk, single, _runs = _both_ways(tree, several)
    assert bulk == single


def test_a_wide_plain_folder_is_written_in_runs_and_reads_as_before() -> None:
    """The common case takes the bulk way (runs of up to `_LEAF_RUN` leaves), and what a user reads is
    unchanged: one row per resource in natural order, its name and MIME type; JSON with every leaf."""
    tree = UriTree(keep_order=False)
    count = 3000
    tree.add_resources(
        res("s", f"bench://flat/item{k * 7919 % count}.json", f"item {k * 7919 % count}", mimeType="a/j")
        for k in range(count)
    )
    with pytest.MonkeyPatch.context() as patch:  # plain leaves never take the one-by-one way
        patch.setattr(tree_render, "_leaf_line", None)
        assert _text(tree).count("\n") == count + 1
    bulk, single, runs = _both_ways(tree)
    assert bulk == single
    assert max(runs) == tree_render._LEAF_RUN
    lines = bulk[0].splitlines()
    assert lines[1:4] == [
        "  item0.json  item 0  [a/j]",
        "  item1.json  item 1  [a/j]",
        "  item2.json  item 2  [a/j]",
    ]
    assert len(lines) == count + 1
    assert bulk[1].count(b'"segment": "item') == count


def test_a_folder_of_folders_and_leaves_keeps_its_order_and_depth() -> None:
    tree = UriTree(keep_order=False)
    tree.add_resources(res("s", f"s://h/g{g}/i{i}", f"n{i}") for g in range(30) for i in range(40))
    tree.add_resources(res("s", f"s://h/leaf{k}", f"n{k}") for k in range(70))
    bulk, single, runs = _both_ways(tree)
    assert bulk == single
    assert 40 in runs and 70 in runs
    assert _text(tree, depth=2).count("\n") == 1 + 30 + 70


def test_masked_secrets_are_written_one_by_one_and_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a secret to mask, no run is written in bulk (the bulk rows mask nothing)."""
    tree = UriTree(keep_order=False)
    tree.add_resources(res("s", f"s://h/tok-hunter2-{k}", "hunter2") for k in range(50))
    monkeypatch.setattr(output, "_redactor", output._redactor)  # restored after, as the two below
    monkeypatch.setattr(output, "_registered", {"hunter2"})
    monkeypatch.setattr(output, "_runtime_seen", -1)
    text, data = _text(tree), _json(tree)
    assert "hunter2" not in text and b"hunter2" not in data
    assert text.count("\n") == 51


def test_a_title_is_shown_whether_or_not_a_value_says_title() -> None:
    """`title` skips decoding an entry's other fields only when the key cannot be there."""
    titled = res("s", "s://h/a", "a", title="The A", size=3)
    worded = res("s", "s://h/b", "b", description='a "title" word', size=3)
    plain = res("s", "s://h/c", "c", mimeType="text/plain")
    nested = res("s", "s://h/d", "d", annotations={"title": "not the item's"})
    assert (titled.title, worded.title, plain.title, nested.title) == ("The A", None, None, None)


def test_leaf_runs_end_at_a_folder_and_at_a_uri_two_servers_list() -> None:
    tree = UriTree(keep_order=False)
    tree.add_resources(res("s", f"s://h/f/item{k}") for k in range(200))
    tree.add_resources([res("s", "s://h/f/item150/below"), res("t", "s://h/f/item90")])
    folder = tree.node_for("s://h/f")
    assert folder is not None
    children = tree.children(folder)
    assert len(uri_nodes.leaf_entries(children, 0, 1000)) == 90  # item90: two servers
    assert len(uri_nodes.leaf_entries(children, 91, 1000)) == 150 - 91  # item150: a folder now
    assert len(uri_nodes.leaf_entries(children, 151, 20)) == 20  # the limit
    assert uri_nodes.leaf_entries(children, 150, 1000) == []


@pytest.mark.parametrize("spoiler", [*_HOSTILE, "n" * 121, "m" * 61])
@pytest.mark.parametrize("field", ["segment", "name", "mimeType"])
def test_one_leaf_that_needs_the_sanitizer_is_written_as_one_by_one_would(spoiler: str, field: str) -> None:
    """A run of plain leaves with one in the middle whose segment, name or MIME type holds a control,
    format, quote or non-ASCII character, a newline, or is longer than a row shows: the bytes of the
    one-by-one way, where the sanitizer escapes or cuts it."""
    entries = []
    for k in range(20):
        item: dict[str, object] = {"uri": f"s://flat/item{k}", "name": f"item {k}", "mimeType": "text/plain"}
        if k == 9:
            key = "uri" if field == "segment" else field
            item[key] = f"{item[key]}{spoiler}"
        entries.append(ResourceEntry("s", str(item["uri"]), str(item["name"]), item))
    tree = UriTree(keep_order=False)
    tree.add_resources(entries)
    bulk, single, runs = _both_ways(tree)
    assert bulk == single
    assert max(runs) > 1  # the run was found; what it held decided the way it was written


def test_a_folder_listed_with_its_trailing_slash_keeps_its_empty_segment_row() -> None:
    """`s://h/f/` is the empty segment below `f`, first among its siblings: its row shows `/`."""
    tree = UriTree(keep_order=False)
    tree.add_resources(
        [res("s", "s://h/f/", "folder"), *(res("s", f"s://h/f/item{k}", f"n{k}") for k in range(9))]
    )
    bulk, single, runs = _both_ways(tree)
    assert bulk == single
    assert max(runs) == 10
    assert "\n  /  folder\n" in bulk[0]


def test_a_leaf_whose_item_is_not_plain_json_still_shows_its_title() -> None:
    """An item orjson cannot encode (an integer past 64 bits) is kept as its dict: its title is read
    from there, so the run it is in is written one by one."""
    entries = [res("s", f"s://flat/item{k}", f"n{k}") for k in range(20)]
    entries[9] = res("s", "s://flat/item9", "n9", title="The ninth", size=2**70)
    tree = UriTree(keep_order=False)
    tree.add_resources(entries)
    bulk, single, runs = _both_ways(tree)
    assert bulk == single and max(runs) == 20
    assert "\n  item9  The ninth\n" in bulk[0]


@pytest.mark.parametrize(
    "uri",
    ["s://h/données/item{k}", 's://h/q"d/item{k}', "api://h/items?id={k}"],
    ids=["non-ascii", "quote", "query"],
)
def test_a_run_that_cannot_be_written_in_bulk_is_looked_at_once(uri: str) -> None:
    """A run rejected for JSON (its folder's prefix needs escaping, its segments start a query) is
    written one by one whole: each leaf is looked at in one run at most, not in a run again from every
    leaf (3,000 leaves took 3.5 s so, against 0.06 s one by one)."""
    count = 3000
    tree = UriTree(keep_order=False)
    tree.add_resources(res("s", uri.format(k=k), f"n{k}") for k in range(count))
    looked_at: list[int] = []
    elements = tree_render._leaf_elements

    def counting(nodes: Sequence[UriNode], *args: object) -> bytes | None:
        looked_at.append(len(nodes))
        return elements(nodes, *args)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tree_render, "_leaf_elements", counting)
        data = json.loads(_json(tree))
    assert sum(looked_at) <= count  # at most once each (a folder whose prefix needs escaping: never)
    below = data
    while len(below["children"]) == 1:
        below = below["children"][0]
    assert len(below["children"]) == count
