"""Bases for the wrappers laid on a transport's `(read, write)` streams (the protocol log's tap, the flood
gate, the check for stray answers, the server's own messages put right).

Why one place: each wrapper changes only `receive` or `send`; the rest (async iteration that ends at
the stream's end, the context manager, every other attribute passed through to the stream under it) is
the same for all, and four copies of it had grown. `anyio` is imported where it is used: the protocol
log's module is imported before the SDK, on the way to the first frame.
"""

from __future__ import annotations

from typing import Any, Self

__all__ = ["ReceiveWrapper", "SendWrapper"]


class _Wrapper:
    def __init__(self, inner: Any) -> None:
        self._inner = inner

    async def __aenter__(self) -> Self:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> Any:
        return await self._inner.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class ReceiveWrapper(_Wrapper):
    """A read stream: subclasses override `receive`; iteration stops at the stream's end."""

    async def receive(self) -> Any:
        return await self._inner.receive()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class SendWrapper(_Wrapper):
    """A write stream: subclasses override `send`."""

    async def send(self, item: Any) -> None:
        await self._inner.send(item)
