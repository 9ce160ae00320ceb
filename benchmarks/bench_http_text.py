"""Benchmark of mending HTTP answers (`explorer/connection/http_text.py`) on pages of about 10 MB.

Run: python benchmarks/bench_http_text.py [--size 10000000]

Every HTTP answer goes through `mended` before the SDK parses it. The baseline, measured in the same run, is
what the SDK does next with the same bytes: pydantic's JSON parse of the mended answer (its model
validation, which costs more, is left out). The target: mending costs a small part of that parse on every
kind of page, and linear time on the hostile ones (a page of escaped quotes with one emoji escaped as a
surrogate pair cost 100 ms a MB before mending looked at surrogate escapes alone; a run of 100,000
backslashes cost 135 s while runs were matched from inside). Each figure is the best of several.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pydantic_core
from best_of import best

from explorer.connection.http_text import mended


def listing_page(size: int, name: str) -> bytes:
    """A resources/list answer of about `size` bytes whose names are `name`."""
    item = {"uri": "fixture://items/0/item-0", "name": name, "mimeType": "text/plain"}
    count = max(1, size // len(json.dumps(item)))
    items = [{**item, "uri": f"fixture://items/{k // 50}/item-{k}"} for k in range(count)]
    return json.dumps({"jsonrpc": "2.0", "id": 7, "result": {"resources": items}}).encode()


def pages(size: int) -> dict[str, bytes]:
    quotes = json.dumps({"jsonrpc": "2.0", "id": 7, "result": {"text": 'say "hi" ' * (size // 11)}})
    return {
        "plain ASCII": listing_page(size, "item name"),
        "UTF-8 text": listing_page(size, "näme ✓ 日本語").decode("unicode_escape").encode("utf-8"),
        "emoji as pairs": listing_page(size, "party 🎉"),
        "escaped quotes + 1 pair": (quotes[:-3] + '\\ud83c\\udf89"}}').encode(),
        "lone surrogates": listing_page(size, "cut \ud83c"),
        "backslash runs": listing_page(size, "\\" * 40 + "\ud800"),
        "not UTF-8": listing_page(size, "@@").replace(b"@@", b"\xff\xfe"),
        "one long backslash run": json.dumps(["\\" * (size // 2) + "x", "\\u\ud800"]).encode(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=10_000_000)
    args = parser.parse_args()
    print(f"{'page':<26}{'MB':>6}{'mended':>11}{'parse (baseline)':>18}{'ratio':>8}")
    for name, page in pages(args.size).items():
        fixed = mended(page)
        pydantic_core.from_json(fixed)  # mended, the SDK's parser takes it
        mend = best(lambda page=page: mended(page), repeat=5)
        parse = best(lambda fixed=fixed: pydantic_core.from_json(fixed), repeat=5)
        print(
            f"{name:<26}{len(page) / 1e6:>6.1f}{1000 * mend:>8.1f} ms{1000 * parse:>15.1f} ms"
            f"{mend / parse:>7.2f}x"
        )
    print("ratio: mending a page against pydantic's JSON parse of the mended page (what the SDK does next)")


if __name__ == "__main__":
    main()
