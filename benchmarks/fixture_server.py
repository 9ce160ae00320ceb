"""A near-zero-cost MCP stdio server with N resources in pages of 1,000 (a benchmark fixture).

Run: python benchmarks/fixture_server.py --count 1000000 [--page 1000] [--no-prefix | --ignore-prefix]
     [--delay S] [--flat [--shuffled]]

Why its own server and not the SDK's: listing a million resources from an SDK-built server measures the
server (it builds and dumps a pydantic model per resource). This one writes each page with string
formatting, so what a benchmark measures is the client. It speaks the handshake era only (`server/discover`
is answered -32601, so an `auto` client falls back to `initialize`, as against most servers today), lists
two templates, and honours SEP-1269's `prefix` on both lists (cursor = a position in the filtered list)
unless `--no-prefix`, in which case a `prefix` param is rejected with -32602, like a strict server, or
`--ignore-prefix`, in which case it is read and ignored (everything is listed), like most servers today.

URIs: ``bench://host{h}/area{a}/group{g}/item{i}.json`` with 100 items per group, 100 groups per area, 10
areas per host; resource k is item k % 100 of group (k // 100) % 100 and so on. Every item has `uri`, `name`
and `mimeType`; every tenth also a `description` and a `size` (fields a client must keep, or find again).
`--flat` puts every resource under one node instead (``bench://flat/item{k}.json``: the widest fan-out a
view can meet), and `--shuffled` lists those in a fixed scrambled order (`item{k}` for k = p * 7919 mod N at
position p), as a server listing by hash or by date would: a client cannot take the natural order as
given. `--delay` waits that long before each resources page (tests of progress and Ctrl+C, pages
paced for a benchmark). Standard library only (a fixture must not depend on what it measures).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from typing import Any

TEMPLATES = [
    {
        "uriTemplate": "bench://host{h}/area{a}/group{g}/item{i}.json",
        "name": "item",
        "mimeType": "application/json",
    },
    {"uriTemplate": "bench://search{?q}", "name": "search"},
]


FLAT_TEMPLATES = [
    {"uriTemplate": "bench://flat/item{i}.json", "name": "item", "mimeType": "application/json"}
]


def uri_of(k: int) -> str:
    return f"bench://host{k // 100_000}/area{k // 10_000 % 10}/group{k // 100 % 100}/item{k % 100}.json"


def flat_uri_of(k: int) -> str:
    return f"bench://flat/item{k}.json"


def item_json(k: int, flat: bool = False) -> str:
    uri = flat_uri_of(k) if flat else uri_of(k)
    if k % 10:
        return f'{{"uri":"{uri}","name":"item {k}","mimeType":"application/json"}}'
    return (
        f'{{"uri":"{uri}","name":"item {k}","mimeType":"application/json",'
        f'"description":"resource number {k} of the benchmark","size":{k * 7 % 100_003}}}'
    )


# Resource k's URI by level: (text before the number, resources one of it holds, how many a parent has).
_LEVELS = (("bench://host", 100_000, 0), ("/area", 10_000, 10), ("/group", 100, 100), ("/item", 1, 100))


def matching_spans(prefix: str, count: int, base: int = 0, level: int = 0, above: str = "") -> list[range]:
    """The resources whose URI starts with `prefix`, as ranges of k, found by walking the hierarchy and
    pruning what cannot match: O(matches), so a prefix listing of 10^7 resources costs what it returns."""
    text, size, upper = _LEVELS[level]
    spans: list[range] = []
    upper = upper or -(-count // size)  # hosts: as many as `count` needs
    for number in range(upper):
        start = base + number * size
        if start >= count:
            break
        here = f"{above}{text}{number}" + (".json" if size == 1 else "")
        if here.startswith(prefix):  # everything below matches
            spans.append(range(start, min(start + size, count)))
        elif prefix.startswith(here) and size > 1:
            spans.extend(matching_spans(prefix, count, start, level + 1, here))
    return spans


class Spans:
    """Ranges of k read as one sequence (length, slices), never made into a list of 10^7 numbers."""

    def __init__(self, spans: list[range]) -> None:
        self.spans = spans
        self.starts = [0]
        for span in spans:
            self.starts.append(self.starts[-1] + len(span))

    def __len__(self) -> int:
        return self.starts[-1]

    def slice(self, start: int, end: int) -> Iterator[int]:
        for at, span in enumerate(self.spans):
            lo, hi = max(start, self.starts[at]), min(end, self.starts[at + 1])
            if lo < hi:
                yield from span[lo - self.starts[at] : hi - self.starts[at]]


SHUFFLE_STRIDE = 7919  # a prime: a permutation of range(N) for every N it does not divide


class Shuffled:
    """range(count) in the order p * SHUFFLE_STRIDE mod count, without a list of it."""

    def __init__(self, count: int) -> None:
        if count and count % SHUFFLE_STRIDE == 0:
            raise SystemExit(f"--shuffled needs a count that {SHUFFLE_STRIDE} does not divide")
        self.count = count

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[int]:
        return self.slice(0, self.count)

    def slice(self, start: int, end: int) -> Iterator[int]:
        return (p * SHUFFLE_STRIDE % self.count for p in range(start, end))


class Catalogue:
    """The resource indexes a listing walks, per prefix (the last prefix's filtered indexes are cached)."""

    def __init__(self, count: int, flat: bool = False, shuffled: bool = False) -> None:
        self.count = count
        self.flat = flat
        self.templates = FLAT_TEMPLATES if flat else TEMPLATES
        self._all: range | Shuffled = Shuffled(count) if shuffled else range(count)
        self._prefix = ""
        self._matching: list[int] | Spans | None = None

    def indexes(self, prefix: str) -> range | Shuffled | list[int] | Spans:
        if not prefix:
            return self._all
        if prefix != self._prefix or self._matching is None:
            self._prefix = prefix
            if self.flat:
                self._matching = [k for k in self._all if flat_uri_of(k).startswith(prefix)]
            else:
                self._matching = Spans(matching_spans(prefix, self.count))
        return self._matching


def template_matches(text: str, prefix: str) -> bool:
    literal = text.split("{", 1)[0]
    return text.startswith(prefix) or ("{" in text and prefix.startswith(literal))


def answer(
    message: dict[str, Any],
    catalogue: Catalogue,
    page: int,
    honour_prefix: bool,
    delay: float = 0.0,
    ignore_prefix: bool = False,
) -> str | None:
    """The response line for one request, or None for a notification."""
    ident = message.get("id")
    method = message.get("method")
    params = message.get("params") or {}
    if ident is None:
        return None
    head = f'{{"jsonrpc":"2.0","id":{json.dumps(ident)},'
    if method == "initialize":
        result = {
            "protocolVersion": params.get("protocolVersion", "2025-11-25"),
            "capabilities": {"resources": {}},
            "serverInfo": {"name": "bench-fixture", "version": "1"},
        }
        return head + f'"result":{json.dumps(result)}}}'
    if method == "ping":
        return head + '"result":{}}'
    if method in ("resources/list", "resources/templates/list"):
        prefix = None if ignore_prefix else params.get("prefix")
        if prefix is not None and (not honour_prefix or not isinstance(prefix, str)):
            return head + '"error":{"code":-32602,"message":"Invalid params: unknown parameter prefix"}}'
        prefix = prefix or ""
        if method == "resources/templates/list":
            chosen = [t for t in catalogue.templates if template_matches(t["uriTemplate"], prefix)]
            return head + f'"result":{{"resourceTemplates":{json.dumps(chosen)}}}}}'
        if delay:
            time.sleep(delay)
        indexes = catalogue.indexes(prefix)
        cursor = params.get("cursor")
        try:
            start = int(cursor) if cursor is not None else 0
        except (TypeError, ValueError):
            start = -1
        if start < 0 or (cursor is not None and start >= len(indexes)):
            return head + '"error":{"code":-32602,"message":"invalid cursor"}}'
        end = min(start + page, len(indexes))
        items = ",".join(item_json(k, catalogue.flat) for k in _slice(indexes, start, end))
        more = f',"nextCursor":"{end}"' if end < len(indexes) else ""
        return head + f'"result":{{"resources":[{items}]{more}}}}}'
    return head + f'"error":{{"code":-32601,"message":"Method not found: {method}"}}}}'


def _slice(indexes: range | Shuffled | list[int] | Spans, start: int, end: int) -> Iterator[int]:
    if isinstance(indexes, (Spans, Shuffled)):
        return indexes.slice(start, end)
    return iter(indexes[start:end])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--page", type=int, default=1000)
    prefix_mode = parser.add_mutually_exclusive_group()
    prefix_mode.add_argument("--no-prefix", action="store_true", help="reject `prefix` with -32602")
    prefix_mode.add_argument("--ignore-prefix", action="store_true", help="list everything whatever `prefix`")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds to wait before each page")
    parser.add_argument("--flat", action="store_true", help="every resource under bench://flat/")
    parser.add_argument("--shuffled", action="store_true", help="with --flat: list in a scrambled order")
    args = parser.parse_args()
    if args.shuffled and not args.flat:
        parser.error("--shuffled goes with --flat")
    catalogue = Catalogue(args.count, args.flat, args.shuffled)
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict):
            continue
        reply = answer(message, catalogue, args.page, not args.no_prefix, args.delay, args.ignore_prefix)
        if reply is not None:
            out.write(reply.encode() + b"\n")
            out.flush()


if __name__ == "__main__":
    main()
