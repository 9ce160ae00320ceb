"""Which JSON library for the listing path: parse a page, write indented output (a script, not a test).

Run: python benchmarks/bench_json.py [--items 1000]

The two jobs of a big `tree --json`: parsing a `resources/list` page of N items as it comes off the wire
(as the SDK does it, pydantic's `validate_json` of the JSON-RPC message, is the baseline), and writing a
batch of N resource objects laid out as `json.dumps(indent=2)` does (the standard library is the
baseline). orjson and msgspec are measured when installed; msgspec has no indented encoder, so it encodes
and then reformats (`msgspec.json.format`). Best of several runs, microseconds per item.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fixture_server import Catalogue, answer


def best(action: Callable[[], object], items: int, repeat: int = 20) -> float:
    fastest = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        fastest = min(fastest, time.perf_counter() - started)
    return fastest / items * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1000)
    args = parser.parse_args()
    count = args.items
    request = {"jsonrpc": "2.0", "id": 7, "method": "resources/list", "params": {}}
    line = (answer(request, Catalogue(count), count, True) or "").encode()
    batch: list[dict[str, Any]] = [
        {"server": "fixture", **item} for item in json.loads(line)["result"]["resources"]
    ]
    parse: dict[str, Callable[[], object]] = {}
    write: dict[str, Callable[[], object]] = {
        "json.dumps(indent=2)": lambda: json.dumps(batch, indent=2, ensure_ascii=False).encode()
    }
    try:
        import mcp_types

        adapter = mcp_types.jsonrpc_message_adapter
        parse["pydantic validate_json (the SDK's way)"] = lambda: adapter.validate_json(line, by_name=False)
    except ImportError:  # pragma: no cover - the SDK is a dependency
        pass
    parse["json.loads"] = lambda: json.loads(line)
    try:
        import orjson

        parse["orjson.loads"] = lambda: orjson.loads(line)
        write["orjson.dumps(OPT_INDENT_2)"] = lambda: orjson.dumps(batch, option=orjson.OPT_INDENT_2)
    except ImportError:
        print("orjson is not installed")
    try:
        import msgspec

        parse["msgspec.json.decode"] = lambda: msgspec.json.decode(line)
        write["msgspec encode + format(indent=2)"] = lambda: msgspec.json.format(
            msgspec.json.encode(batch), indent=2
        )
    except ImportError:
        print("msgspec is not installed (pip install msgspec to compare it)")
    print(f"python {sys.version.split()[0]}; a page of {count:,} items ({len(line):,} bytes); us per item")
    for title, table in (("parse a page", parse), ("write indented", write)):
        print(title)
        base = None
        for label, action in table.items():
            figure = best(action, count)
            base = figure if base is None else base
            print(f"  {label:<40} {figure:8.3f}   x{base / figure:6.1f} (speed against the first row)")


if __name__ == "__main__":
    main()
