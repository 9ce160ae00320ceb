"""A reference floor: a bare JSON-RPC client on pipes, orjson and nothing else (no SDK, no asyncio).

Run: python benchmarks/bare_client.py -- COMMAND [ARGS...]

It says `initialize`, then asks `resources/list` page after page and parses each answer; it keeps nothing.
No real client can be this cheap (no validation, no entries, no tree); it shows what the pipe and the
parse cost, i.e. how far the other figures are from the floor.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import orjson


def main() -> None:
    command = sys.argv[1:]
    if command[:1] == ["--"]:
        command = command[1:]
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    ident = 0

    def ask(method: str, params: dict[str, Any]) -> Any:
        nonlocal ident
        ident += 1
        proc.stdin.write(
            orjson.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params}) + b"\n"
        )
        proc.stdin.flush()
        while True:
            message = orjson.loads(proc.stdout.readline())
            if message.get("id") == ident:
                return message["result"]

    ask(
        "initialize",
        {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bare", "version": "1"}},
    )
    proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    count = 0
    cursor: str | None = None
    while True:
        result = ask("resources/list", {"cursor": cursor} if cursor is not None else {})
        count += len(result["resources"])
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    proc.stdin.close()
    proc.wait()
    print(f"{count} resources", file=sys.stderr)


if __name__ == "__main__":
    main()
