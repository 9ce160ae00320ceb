"""An awaitable that makes its coroutine only when awaited, for UI workers that may never start.

Why: a worker given a coroutine object and cancelled before it starts (an exclusive group, a reconnect,
the app closing) leaves that coroutine never awaited, which Python reports as a RuntimeWarning. Given a
`Deferred`, the worker makes the coroutine when it runs, and nothing when it never does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import Any, Generic, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


class Deferred(Awaitable[T], Generic[T]):
    """`fn(*args, **kwargs)`, called when first awaited."""

    def __init__(self, fn: Callable[P, Coroutine[Any, Any, T]], *args: P.args, **kwargs: P.kwargs) -> None:
        self._call: Callable[[], Coroutine[Any, Any, T]] = lambda: fn(*args, **kwargs)

    def __await__(self) -> Generator[Any, None, T]:
        return self._call().__await__()
