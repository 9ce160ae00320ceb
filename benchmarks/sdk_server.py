"""An MCP server built with the SDK's low-level `Server`: N resources in pages of 1,000 (a benchmark fixture).

Run: python benchmarks/sdk_server.py --count 100000

The other fixture (`fixture_server.py`) costs next to nothing, so a benchmark against it measures the
client; this one is what a server written with the SDK costs (each page is a pydantic model dumped by the
SDK), so a client's listing is bound by the server, as it is against most real servers. Same URIs and
fields as `fixture_server.py`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import anyio
import mcp.types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fixture_server import uri_of


def resource(k: int) -> types.Resource:
    if k % 10:
        return types.Resource(uri=uri_of(k), name=f"item {k}", mime_type="application/json")
    return types.Resource(
        uri=uri_of(k),
        name=f"item {k}",
        mime_type="application/json",
        description=f"resource number {k} of the benchmark",
        size=k * 7 % 100_003,
    )


def build(count: int, page: int) -> Server[object]:
    async def list_resources(
        ctx: object, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        cursor = params.cursor if params is not None else None
        start = int(cursor) if cursor else 0
        end = min(start + page, count)
        more = str(end) if end < count else None
        return types.ListResourcesResult(resources=[resource(k) for k in range(start, end)], next_cursor=more)

    return Server("bench-sdk-server", on_list_resources=list_resources)


async def serve(count: int, page: int) -> None:
    server = build(count, page)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--page", type=int, default=1000)
    args = parser.parse_args()
    anyio.run(serve, args.count, args.page)


if __name__ == "__main__":
    main()
