"""The baseline client: the SDK's own typed listing loop, `Client.list_resources` page by page.

Run: python benchmarks/sdk_list.py -- COMMAND [ARGS...]   (the server, started on stdio)

No tree and no output: it lists every page (each validated into the SDK's models) and prints the count on
stderr. This is what a client written with the SDK does at the least, so `tree` is measured against it.
"""

from __future__ import annotations

import sys

import anyio
from mcp import Client, StdioServerParameters


async def list_all(command: list[str]) -> int:
    count = 0
    params = StdioServerParameters(command=command[0], args=command[1:])
    async with Client(params) as client:
        cursor: str | None = None
        while True:
            page = await client.list_resources(cursor=cursor)
            count += len(page.resources)
            cursor = page.next_cursor
            if cursor is None:
                return count


def main() -> None:
    command = sys.argv[1:]
    if command[:1] == ["--"]:
        command = command[1:]
    count = anyio.run(list_all, command)
    print(f"{count} resources", file=sys.stderr)


if __name__ == "__main__":
    main()
