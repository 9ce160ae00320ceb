"""How many bytes each response took on the wire, for the listing's metadata bound.

Why the transport tells: measuring a page by serializing it again cost a second per million resources,
and the wire size is what the bound is about. The stdio reader knows each line's length; it records the
size under the response's id, and the connection takes it back when the response reaches the request that
sent that id. The HTTP client's response hook counts each answer's body the same way, by the id of the
request it answers (`http_limits`). Transports that cannot tell (legacy SSE: answers come on a stream of
their own) record nothing, and the listing measures the page itself. Bounded: sizes nobody takes (answers
to the SDK's own requests) fall out.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, TypeVar

from explorer.model.sizes import human_size

if TYPE_CHECKING:
    from explorer.connection.errors import UnreadableAnswer

RequestId = int | str
_V = TypeVar("_V")

MAX_MESSAGE_BYTES = 256 * 1024 * 1024
"""The largest JSON-RPC message taken from a server, on every transport: a stdio line past it is dropped,
not buffered; over HTTP it bounds one server-sent event. Big, because a server that cannot paginate sends
everything it lists in one message (20,000 resources are about 2 MB); bounded, because a server that never
ends one would else grow memory without limit."""


def limit_text(limit: int) -> str:
    """A limit set in binary units, said in them: `256 MiB` (a decimal `268.4 MB` read as another number)."""
    mib = limit / (1024 * 1024)
    return f"{mib:g} MiB" if mib >= 1 else human_size(limit)


class _Recent(OrderedDict[RequestId, _V]):
    """Values by request id, the oldest dropped past `limit`: what no request takes back (answers to the
    SDK's own requests) falls out."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def put(self, ident: RequestId, value: _V) -> None:
        self[ident] = value
        if len(self) > self.limit:
            self.popitem(last=False)


class ResponseSizes:
    """Wire bytes of recent responses, by request id (at most `limit` kept of each kind)."""

    def __init__(self, limit: int = 64) -> None:
        self.limit = limit
        self._sizes = _Recent[int](limit)
        self._most = _Recent[int](limit)
        self._refused = _Recent["UnreadableAnswer"](limit)

    def expect_at_most(self, ident: RequestId, most: int) -> None:
        """The answer to `ident` is not worth reading past `most` bytes (a listing page past the listing's
        bytes bound): a transport that knows a message's size before it parses it refuses it unread."""
        self._most.put(ident, most)

    def most_for(self, ident: RequestId) -> int | None:
        """The size `expect_at_most` set for `ident` (forgotten once asked), or None."""
        return self._most.pop(ident, None)

    def record(self, ident: RequestId, size: int) -> None:
        """`ident`'s answer took `size` bytes so far (a transport may tell as it reads, the last one wins)."""
        self._sizes.put(ident, size)

    def take(self, ident: RequestId) -> int | None:
        """The size recorded for `ident` (forgotten once taken), or None when the transport did not tell."""
        return self._sizes.pop(ident, None)

    def refuse(self, ident: RequestId, unread: UnreadableAnswer) -> None:
        """A transport that fails a request by other means than an answer of its own making (HTTP: the SDK
        words the error) says here why it refused `ident`'s answer."""
        self._refused.put(ident, unread)

    def refusal(self, ident: RequestId) -> UnreadableAnswer | None:
        """Why `ident`'s answer was refused (`refuse`; forgotten once asked), or None."""
        return self._refused.pop(ident, None)
