"""How many bytes each response took on the wire, for the listing's metadata bound.

Why the transport tells: measuring a page by serializing it again cost a second per million resources,
and the wire size is what the bound is about. The stdio reader knows each line's length; it records the
size under the response's id, and the connection takes it back when the response reaches the request that
sent that id. Transports that cannot tell (HTTP, parsed inside the SDK) record nothing, and the listing
measures the page itself. Bounded: sizes nobody takes (answers to the SDK's own requests) fall out.
"""

from __future__ import annotations

from collections import OrderedDict

from explorer.model.sizes import human_size

RequestId = int | str

MAX_MESSAGE_BYTES = 256 * 1024 * 1024
"""The largest JSON-RPC message taken from a server, on every transport: a stdio line past it is dropped,
not buffered; over HTTP it bounds one server-sent event. Big, because a server that cannot paginate sends
everything it lists in one message (20,000 resources are about 2 MB); bounded, because a server that never
ends one would else grow memory without limit."""


def limit_text(limit: int) -> str:
    """A limit set in binary units, said in them: `256 MiB` (a decimal `268.4 MB` read as another number)."""
    mib = limit / (1024 * 1024)
    return f"{mib:g} MiB" if mib >= 1 else human_size(limit)


class ResponseSizes:
    """Wire bytes of recent responses, by request id (at most `limit` kept)."""

    def __init__(self, limit: int = 64) -> None:
        self.limit = limit
        self._sizes: OrderedDict[RequestId, int] = OrderedDict()
        self._most: OrderedDict[RequestId, int] = OrderedDict()

    def expect_at_most(self, ident: RequestId, most: int) -> None:
        """The answer to `ident` is not worth reading past `most` bytes (a listing page past the listing's
        bytes bound): a transport that knows a message's size before it parses it refuses it unread."""
        limits = self._most
        limits[ident] = most
        if len(limits) > self.limit:
            limits.popitem(last=False)

    def most_for(self, ident: RequestId) -> int | None:
        """The size `expect_at_most` set for `ident` (forgotten once asked), or None."""
        return self._most.pop(ident, None)

    def record(self, ident: RequestId, size: int) -> None:
        sizes = self._sizes
        sizes[ident] = size
        if len(sizes) > self.limit:
            sizes.popitem(last=False)

    def take(self, ident: RequestId) -> int | None:
        """The size recorded for `ident` (forgotten once taken), or None when the transport did not tell."""
        return self._sizes.pop(ident, None)
