"""A small least-recently-used cache of painted lines that never makes a reference cycle.

Why not Textual's `LRUCache`: it links its entries in a ring of lists that point at each other, so a cache
that is cleared or dropped is a reference cycle, and every strip in it (a dozen objects each, with the
caches Textual gives every strip) waits for the cyclic collector instead of being freed at once. The tree
starts a new cache at each change of its rows (every filter keystroke, every page merged below an open
node), and the full collection that came later freed some 40,000 such objects in one go: 28 to 77 ms in a
frame, measured at 10^4 while typing a filter. An `OrderedDict` keeps its order in C, out of the
collector's sight, so a dropped cache is freed by reference counting like any dict.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

__all__ = ["LineCache"]

K = TypeVar("K")
V = TypeVar("V")


class LineCache(Generic[K, V]):
    """Up to `maxsize` values by key; a lookup that finds one makes it the most recent, and adding one to a
    full cache drops the least recent."""

    __slots__ = ("_entries", "_maxsize")

    def __init__(self, maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError("a line cache holds at least one line")
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._maxsize = maxsize

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def get(self, key: K) -> V | None:
        entries = self._entries
        value = entries.get(key)
        if value is not None:
            entries.move_to_end(key)
        return value

    def __setitem__(self, key: K, value: V) -> None:
        entries = self._entries
        entries[key] = value
        entries.move_to_end(key)
        if len(entries) > self._maxsize:
            entries.popitem(last=False)

    def discard(self, key: K) -> None:
        self._entries.pop(key, None)

    def clear(self) -> None:
        self._entries.clear()
