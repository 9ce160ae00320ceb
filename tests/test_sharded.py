"""The sharded set and dict behave as the set and dict they replace, and a node past `SHARD_FROM` children
(made small here) is the same tree to every reader."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import explorer.model.uri_nodes
from explorer.model.natural import natural_key
from explorer.model.sharded import ShardedDict, ShardedSet
from explorer.model.uri_tree import UriTree
from tests.factories import res

keys = st.text(alphabet="ab1/é\0", max_size=4)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["set", "del", "get"]), keys, st.integers()), max_size=80))
def test_the_sharded_dict_answers_as_a_dict(operations: list[tuple[str, str, int]]) -> None:
    plain: dict[str, int] = {}
    sharded: ShardedDict[str, int] = ShardedDict()
    for operation, key, value in operations:
        if operation == "set":
            plain[key] = sharded[key] = value
        elif operation == "del" and key in plain:
            del plain[key], sharded[key]
        assert sharded.get(key) == plain.get(key) and (key in sharded) == (key in plain)
        assert len(sharded) == len(plain) and bool(sharded) == bool(plain)
    assert sorted(sharded.values()) == sorted(plain.values()) and sorted(sharded) == sorted(plain)
    rebuilt = ShardedDict(plain.items())
    assert len(rebuilt) == len(plain) and all(rebuilt[key] == value for key, value in plain.items())


@settings(max_examples=200, deadline=None)
@given(st.lists(keys, max_size=80))
def test_the_sharded_set_answers_as_a_set(added: list[str]) -> None:
    plain: set[str] = set()
    sharded: ShardedSet[str] = ShardedSet()
    for key in added:
        assert (key in sharded) == (key in plain) and (key in sharded.part(key)) == (key in plain)
        plain.add(key)
        sharded.add(key)
        assert len(sharded) == len(plain)
    assert set(sharded) == plain


def test_a_node_with_many_children_is_sharded_and_reads_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(explorer.model.uri_nodes, "SHARD_FROM", 16)
    tree = UriTree()
    names = [f"item{n}" for n in range(300)]
    tree.add_resources([res("a", f"kv://k/{name}") for name in reversed(names[:200])])
    tree.add_resources([res("b", f"kv://k/{name}") for name in names[150:]])
    node = tree.node_for("kv://k")
    assert node is not None and isinstance(node._kids.children, ShardedDict)  # type: ignore[union-attr]
    assert [child.segment for child in tree.children(node)] == sorted(names, key=natural_key)
    assert all(tree.node_for(f"kv://k/{name}") is not None for name in names)
    assert tree.count_under("kv://k").resources == 300
    tree.remove_server("a")  # item0..item149 had only `a`: pruned from the sharded children
    assert [child.segment for child in tree.children(node)] == names[150:]
    assert tree.node_for("kv://k/item3") is None and tree.node_for("kv://k/item150") is not None
    assert tree.count_under("kv://k").resources == 150


def test_uris_of_two_servers_in_one_call_past_the_shard_point_share_their_nodes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The children dict is sharded in the middle of a run of siblings: the run goes on in the new one."""
    monkeypatch.setattr(explorer.model.uri_nodes, "SHARD_FROM", 16)
    tree = UriTree()
    uris = [f"kv://k/item{n}" for n in range(40)]
    tree.add_resources([res("a", uri) for uri in uris] + [res("b", uri) for uri in uris])
    assert tree.count_under("kv://k").resources == 40
    assert all(sorted(tree.servers(tree.node_for(uri))) == ["a", "b"] for uri in uris)  # type: ignore[arg-type]
