"""A set and a dict split into many small ones by hash, for the few containers that reach 10^6 entries.

Why: a dict or set grows by rebuilding its whole table in one step, and that step holds the interpreter
lock: 25 ms at 700,000 keys on a quiet machine, 110 to 120 ms measured in the app at 10^6 while a listing
streamed (the table is fresh memory, faulted in page by page), twice per listing (the listing's seen URIs,
a wide node's children). Nothing else runs meanwhile, a key included. Split into `SHARDS` parts, each part
grows on its own and 64 times smaller: the same work comes in steps of well under a millisecond.

Only for containers that get that big: every access pays a hash and an index (tens of ns), and a method
call where a dict's would be in C. Making one from a dict is a step of its own (about 1 ms per 4,096
entries): a node's children are sharded early (`uri_nodes.SHARD_FROM`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Generic, TypeVar

__all__ = ["SHARDS", "ShardedDict", "ShardedSet"]

K = TypeVar("K")
V = TypeVar("V")

SHARDS = 64  # a power of two: a hash's low bits pick the part
_MASK = SHARDS - 1


class ShardedSet(Generic[K]):
    """The part of `set` a listing uses: `in`, `add`, `len`, iteration. Hot loops take `part(key)`
    themselves."""

    __slots__ = ("parts",)

    def __init__(self) -> None:
        self.parts: list[set[K]] = [set() for _ in range(SHARDS)]

    def part(self, key: K) -> set[K]:
        return self.parts[hash(key) & _MASK]

    def __contains__(self, key: object) -> bool:
        return key in self.parts[hash(key) & _MASK]

    def add(self, key: K) -> None:
        self.parts[hash(key) & _MASK].add(key)

    def __len__(self) -> int:
        return sum(map(len, self.parts))

    def __iter__(self) -> Iterator[K]:
        return chain.from_iterable(self.parts)


class ShardedDict(Generic[K, V]):
    """The part of `dict` a node's children use: get, set, delete, `len`, truthiness, values (in no
    particular order, as the children's dict never promised one to its readers: they sort)."""

    __slots__ = ("_size", "parts")

    def __init__(self, items: Iterable[tuple[K, V]] = ()) -> None:
        self.parts: list[dict[K, V]] = [{} for _ in range(SHARDS)]
        self._size = 0
        for key, value in items:
            self[key] = value

    def get(self, key: K, default: V | None = None) -> V | None:
        return self.parts[hash(key) & _MASK].get(key, default)

    def __getitem__(self, key: K) -> V:
        return self.parts[hash(key) & _MASK][key]

    def __setitem__(self, key: K, value: V) -> None:
        part = self.parts[hash(key) & _MASK]
        if key not in part:
            self._size += 1
        part[key] = value

    def __delitem__(self, key: K) -> None:
        del self.parts[hash(key) & _MASK][key]
        self._size -= 1

    def __contains__(self, key: object) -> bool:
        return key in self.parts[hash(key) & _MASK]

    def __len__(self) -> int:
        return self._size

    def __bool__(self) -> bool:
        return self._size > 0

    def __iter__(self) -> Iterator[K]:
        return chain.from_iterable(self.parts)

    def values(self) -> Iterator[V]:
        return chain.from_iterable(part.values() for part in self.parts)
