"""`LineCache`: the painted lines a widget keeps, least recently used dropped first, and freed at once when
the cache is dropped (the tree starts a new one at every change of its rows)."""

from __future__ import annotations

import gc

import pytest

from explorer.widgets.line_cache import LineCache


class Line:
    """Stands for a painted strip (any object the collector tracks)."""


def test_the_least_recently_used_line_goes_first() -> None:
    cache: LineCache[int, str] = LineCache(3)
    for key in range(3):
        cache[key] = f"line {key}"
    assert cache.get(0) == "line 0"  # now the most recent
    cache[3] = "line 3"
    assert 1 not in cache and len(cache) == 3
    assert [cache.get(key) for key in (0, 2, 3)] == ["line 0", "line 2", "line 3"]
    cache[2] = "line 2 again"  # replacing a line makes it the most recent too
    cache[4] = "line 4"
    assert 0 not in cache and cache.get(2) == "line 2 again"
    cache.discard(2)
    cache.discard(99)  # not there: nothing to do
    assert 2 not in cache and cache.get(2) is None
    cache.clear()
    assert len(cache) == 0


def test_a_cache_holds_at_least_one_line() -> None:
    with pytest.raises(ValueError):
        LineCache(0)


def test_a_dropped_or_cleared_cache_frees_its_lines_without_the_cyclic_collector() -> None:
    """Textual's `LRUCache` links its entries in a ring: dropping one left every line in it for a full
    collection (28 to 77 ms in one frame, measured at 10^4)."""
    was_enabled = gc.isenabled()
    gc.disable()
    # Free what earlier tests left first: collected while the collector saves all, it would only be kept
    # in `gc.garbage`, and clearing that list does not free a cycle (the next collection finds it again:
    # a dead app's widgets, line caches included, failed this test once, by the order tests ran in).
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        kept: LineCache[int, Line] = LineCache(8)
        for key in range(20):
            kept[key] = Line()
        kept.clear()
        dropped: LineCache[int, Line] = LineCache(8)
        for key in range(20):
            dropped[key] = Line()
        del dropped
        gc.collect()
        assert not [item for item in gc.garbage if isinstance(item, Line | LineCache)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()
