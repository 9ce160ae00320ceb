"""The progress tokens a connection issued, and what request each stands for while it runs.

Why: the Log tab promises the progress of the explorer's requests, and a server reports progress only for
a request that carries a `_meta.progressToken`. The connection asks for it on reads, prompts and list
pages (`progress_description` says which) through the SDK's `on_progress`, which makes the request's id
its token, and records here a short description of the request (`resources/read demo://x`) until the
request ends. A `notifications/progress` is then labelled by looking its token up as it arrives (a
server may echo the token as a string of the number: the same token, as the SDK matches it).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from explorer.connection.answer_checks import coerced
from explorer.connection.sizes import RequestId

__all__ = ["IssuedTokens", "ignore_progress", "progress_description"]

_NAMED_BY = {"resources/read": "uri", "prompts/get": "name"}
_LISTS = frozenset({"resources/list", "resources/templates/list", "prompts/list", "tools/list"})
_SHOWN = 200  # characters of a URI or name kept in a description


def progress_description(method: str, params: Mapping[str, Any] | None) -> str | None:
    """A short description of a request that asks for progress (`resources/read demo://x`,
    `resources/list under demo://`), or None for a method that does not ask for it, or a request that
    carries a token of its caller's already."""
    params = params or {}
    meta = params.get("_meta")
    if isinstance(meta, Mapping) and "progressToken" in meta:
        return None
    if method in _NAMED_BY:
        named = params.get(_NAMED_BY[method])
        return f"{method} {named[:_SHOWN]}" if isinstance(named, str) else method
    if method in _LISTS:
        prefix = params.get("prefix")
        return f"{method} under {prefix[:_SHOWN]}" if isinstance(prefix, str) and prefix else method
    return None


class IssuedTokens(Mapping[RequestId, str]):
    """Token -> description of the requests in flight that asked for progress (see the module)."""

    def __init__(self) -> None:
        self._issued: dict[RequestId, str] = {}

    def issue(self, token: RequestId, description: str) -> None:
        self._issued[coerced(token)] = description

    def drop(self, token: RequestId) -> None:
        self._issued.pop(coerced(token), None)

    def __getitem__(self, token: RequestId) -> str:
        if isinstance(token, bool) or not isinstance(token, int | str):
            raise KeyError(token)
        return self._issued[coerced(token)]

    def __iter__(self) -> Iterator[RequestId]:
        return iter(list(self._issued))

    def __len__(self) -> int:
        return len(self._issued)


async def ignore_progress(progress: float, total: float | None, message: str | None) -> None:
    """The SDK's `on_progress` for a request: nothing to do, as the same notification reaches the
    connection's message handler (and the Log tab) as news."""
    return None
