"""The children of a wide node in natural order, kept up to date page by page (`NodeKids` above `WIDE`).

Why: sorting 10^6 children when a node is first expanded takes about a second (a key per child, then the
sort), and merging a page into a sorted list of 10^6 copies the whole list, since a list handed to a view
is never mutated (about 30 ms a page). Here the items sit in blocks of about `LOAD`, each with the sort
keys of its items, so a page costs its keys (computed in bulk by the caller), then per item two C-level
bisections and an insert into one short list. A view gets `snapshot()`: an immutable sequence of the
blocks as they are, which later pages never change (a block is copied before its first change after a
snapshot: copy on write). So the first expand of a node of 10^6 children costs a snapshot, not a sort.

Memory: a key string per item of a wide node (a segment without digits is its own key, so it costs only
the list slot); the order exists only for nodes of at least `WIDE` children.

Threads: the tree is written by one thread; a filter scan reads `snapshot()` from another. One lock per
order keeps a snapshot from being taken halfway through a change.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from itertools import accumulate, chain
from threading import Lock
from typing import Generic, TypeVar, overload

from explorer.model.natural import TIE_BREAK

__all__ = ["LOAD", "WIDE", "ChildSeq", "NaturalOrder"]

T = TypeVar("T")

LOAD = 1000  # items per block when blocks are made; a block is split in two past twice that
WIDE = 4096  # children from which a node keeps its order this way (below it, a sorted list is cheap)


class ChildSeq(Sequence[T]):
    """An immutable view of blocks: indexing by bisection over the block starts, iteration in C."""

    __slots__ = ("_blocks", "_starts", "tie_broken")

    def __init__(self, blocks: tuple[list[T], ...], tie_broken: bool = True) -> None:
        self._blocks = blocks
        self._starts = list(accumulate(map(len, blocks), initial=0))
        self.tie_broken = tie_broken
        """Whether some item's key has a tie-break (`natural.TIE_BREAK`: a segment with leading zeros),
        so that a prefix of keys may match texts that do not start alike (`uri_nodes.starting_with`)."""

    def __len__(self) -> int:
        return self._starts[-1]

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        starts = self._starts
        size = starts[-1]
        if isinstance(index, slice):
            start, stop, step = index.indices(size)
            if step != 1:
                return list(self)[index]
            found: list[T] = []
            block = bisect_right(starts, start) - 1
            while start < stop:
                base = starts[block]
                items = self._blocks[block]
                found.extend(items[start - base : stop - base])
                start = base + len(items)
                block += 1
            return found
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("ChildSeq index out of range")
        block = bisect_right(starts, index) - 1
        return self._blocks[block][index - starts[block]]

    def __iter__(self) -> Iterator[T]:
        return chain.from_iterable(self._blocks)

    def __reversed__(self) -> Iterator[T]:
        return chain.from_iterable(map(reversed, reversed(self._blocks)))


class NaturalOrder(Generic[T]):
    """Items sorted by their (distinct) keys, in blocks; `snapshot()` hands out an immutable view."""

    __slots__ = ("_blocks", "_keys", "_lock", "_maxes", "_owned", "_size", "_snapshot", "_tie_breaks")

    def __init__(self, items: Sequence[T], keys: Sequence[str]) -> None:
        """`items` with their `keys`, in any order."""
        order = sorted(range(len(items)), key=keys.__getitem__)
        ranked = list(map(items.__getitem__, order))
        ranked_keys = list(map(keys.__getitem__, order))
        self._blocks = [ranked[at : at + LOAD] for at in range(0, len(ranked), LOAD)]
        self._keys = [ranked_keys[at : at + LOAD] for at in range(0, len(ranked_keys), LOAD)]
        self._maxes = [block[-1] for block in self._keys]  # the last key of each block
        self._owned = [True] * len(self._blocks)  # False: the block is in a snapshot, copy before changing
        self._size = len(ranked)
        self._snapshot: ChildSeq[T] | None = None
        self._lock = Lock()
        self._tie_breaks = _tie_breaks(keys)

    def __len__(self) -> int:
        return self._size

    def snapshot(self) -> ChildSeq[T]:
        """The items in order as they are now; the same object until the next change."""
        with self._lock:
            seen = self._snapshot
            if seen is None:
                seen = self._snapshot = ChildSeq(tuple(self._blocks), self._tie_breaks > 0)
                self._owned = [False] * len(self._blocks)
            return seen

    def insert(self, items: Sequence[T], keys: Sequence[str]) -> None:
        """Add items that are not in the order yet, with their keys, in any order."""
        if not items:
            return
        if len(items) >= self._size:  # as many as there are (a first big page): sort them all at once
            with self._lock:
                merged = NaturalOrder(
                    [*chain.from_iterable(self._blocks), *items], [*chain.from_iterable(self._keys), *keys]
                )
                self._blocks, self._keys, self._maxes = merged._blocks, merged._keys, merged._maxes
                self._owned, self._size, self._snapshot = merged._owned, merged._size, None
                self._tie_breaks = merged._tie_breaks
            return
        order = sorted(range(len(items)), key=keys.__getitem__)
        with self._lock:
            self._snapshot = None
            maxes = self._maxes
            ranked = [items[at] for at in order]
            ranked_keys = [keys[at] for at in order]
            if not maxes or ranked_keys[0] > maxes[-1]:
                self._append(ranked, ranked_keys)
            else:
                self._insert_sorted(ranked, ranked_keys)
            self._size += len(items)
            self._tie_breaks += _tie_breaks(keys)
            self._snapshot = None

    def remove(self, item: T, key: str) -> bool:
        """Take `item` (stored under `key`) out; False when it is not there."""
        with self._lock:
            maxes = self._maxes
            block = bisect_left(maxes, key)
            if block == len(maxes):
                return False
            keys = self._keys[block]
            at = bisect_left(keys, key)
            if at == len(keys) or keys[at] != key or self._blocks[block][at] is not item:
                return False
            self._snapshot = None
            items = self._writable(block)
            del items[at]
            del keys[at]
            if keys:
                maxes[block] = keys[-1]
            else:
                del self._blocks[block], self._keys[block], maxes[block], self._owned[block]
            self._size -= 1
            self._tie_breaks -= TIE_BREAK in key
            return True

    def _writable(self, block: int) -> list[T]:
        """The block's list, copied first if a snapshot holds it."""
        if not self._owned[block]:
            self._blocks[block] = list(self._blocks[block])
            self._owned[block] = True
        return self._blocks[block]

    def _append(self, items: list[T], keys: list[str]) -> None:
        """Sorted items that all come after the last one (a listing in order): fill the last block, then
        new ones."""
        at = 0
        if self._blocks and len(self._keys[-1]) < LOAD:
            room = LOAD - len(self._keys[-1])
            self._writable(len(self._blocks) - 1).extend(items[:room])
            self._keys[-1].extend(keys[:room])
            self._maxes[-1] = self._keys[-1][-1]
            at = room
        for start in range(at, len(items), LOAD):
            self._blocks.append(items[start : start + LOAD])
            self._keys.append(keys[start : start + LOAD])
            self._maxes.append(self._keys[-1][-1])
            self._owned.append(True)

    def _insert_sorted(self, items: list[T], keys: list[str]) -> None:
        """Sorted items, each into its block by two bisections; the blocks only move forward."""
        maxes, all_keys, blocks, owned = self._maxes, self._keys, self._blocks, self._owned
        block = 0
        for item, key in zip(items, keys, strict=True):
            block = bisect_left(maxes, key, block)
            if block == len(maxes):  # after everything: at the end of the last block
                block -= 1
                maxes[block] = key
            block_keys = all_keys[block]
            at = bisect_left(block_keys, key)
            block_keys.insert(at, key)
            if not owned[block]:
                blocks[block] = list(blocks[block])
                owned[block] = True
            blocks[block].insert(at, item)
            if len(block_keys) > 2 * LOAD:
                self._split(block)

    def _split(self, block: int) -> None:
        items, keys = self._blocks[block], self._keys[block]
        self._blocks[block : block + 1] = [items[:LOAD], items[LOAD:]]
        self._keys[block : block + 1] = [keys[:LOAD], keys[LOAD:]]
        self._maxes[block : block + 1] = [keys[LOAD - 1], keys[-1]]
        self._owned[block : block + 1] = [True, True]


def _tie_breaks(keys: Sequence[str]) -> int:
    """How many of `keys` hold a tie-break: one C-level search of them all, a count only when found."""
    if TIE_BREAK not in "".join(keys):
        return 0
    return sum(TIE_BREAK in key for key in keys)
