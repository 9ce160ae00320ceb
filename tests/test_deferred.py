"""A worker cancelled before it starts leaves no coroutine never awaited (a RuntimeWarning otherwise)."""

from __future__ import annotations

import gc
import warnings

import pytest

from explorer.deferred import Deferred

pytestmark = pytest.mark.anyio

calls: list[int] = []


async def work(value: int, *, twice: bool = False) -> int:
    calls.append(value)
    return value * 2 if twice else value


def collect_warnings(make: object) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        del make
        gc.collect()
    return [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]


def test_a_deferred_never_awaited_makes_no_coroutine() -> None:
    calls.clear()
    assert collect_warnings(Deferred(work, 1)) == []
    assert calls == []
    # What the workers were given before: the warning a user saw in the logs.
    assert any("never awaited" in text for text in collect_warnings(work(1)))


async def test_a_deferred_awaited_runs_its_call_once() -> None:
    calls.clear()
    assert await Deferred(work, 3, twice=True) == 6
    assert calls == [3]
