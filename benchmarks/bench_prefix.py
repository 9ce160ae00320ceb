"""Prefix queries and tree building at 10^4, 10^5 and 10^6 resources: growth (a script, not a test).

Run: python benchmarks/bench_prefix.py [--max-power 6]

The URIs are those of `fixture_server.py` (100 items per group, natural-order names). For each size N:
building the tree from pages of 1,000 (microseconds per resource: flat means linear growth), and three
queries with the same answer size k at every N: `count_under` and `resources_under` of one group
(k = 100), and `children` of a group in natural order. The baseline in the same run is a linear scan of
the URIs with `str.startswith` (O(n)); the tree's figures should stay flat as N grows (O(log n + k)).
Each query figure is the best of several runs, after a first (cold) one that builds the caches.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from fixture_server import uri_of  # noqa: E402

from explorer.model.entries import ResourceEntry  # noqa: E402
from explorer.model.uri_tree import UriTree  # noqa: E402

PAGE = 1000


def best(action: Callable[[], object], repeat: int = 7) -> float:
    action()  # cold: builds the sorted and prefix caches on the way
    fastest = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        fastest = min(fastest, time.perf_counter() - started)
    return fastest


def measure(count: int) -> dict[str, float]:
    uris = [uri_of(k) for k in range(count)]
    entries = [ResourceEntry.listed("fixture", {"uri": u, "name": u[-10:]}) for u in uris]
    tree = UriTree()
    gc.collect()
    gc.disable()  # the build alone (the collector's share is measured by the CLI benchmarks)
    started = time.perf_counter()
    for start in range(0, count, PAGE):
        tree.add_resources(entries[start : start + PAGE])
    build = time.perf_counter() - started
    gc.enable()
    middle = uri_of(count // 2)
    group = middle[: middle.rindex("/") + 1]  # ".../groupG/": 100 items whatever N
    node = tree.node_for(group.rstrip("/"))
    assert node is not None
    assert tree.count_under(group).resources == 100
    return {
        "build_us_per_resource": build / count * 1e6,
        "count_under_us": best(lambda: tree.count_under(group)) * 1e6,
        "resources_under_us": best(lambda: list(tree.resources_under(group))) * 1e6,
        "children_us": best(lambda: tree.children(node)) * 1e6,
        "scan_us": best(lambda: [u for u in uris if u.startswith(group)], repeat=3) * 1e6,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-power", type=int, default=6)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}; k = 100 resources per query; microseconds")
    head = f"{'N':>10} {'build/res':>10} {'count_under':>12} {'resources_under':>16} {'children':>9}"
    print(f"{head} {'scan (baseline)':>16} {'scan / resources_under':>23}")
    for power in range(4, args.max_power + 1):
        count = 10**power
        row = measure(count)
        ratio = row["scan_us"] / row["resources_under_us"]
        print(
            f"{count:>10,} {row['build_us_per_resource']:>10.2f} {row['count_under_us']:>12.1f} "
            f"{row['resources_under_us']:>16.1f} {row['children_us']:>9.2f} {row['scan_us']:>16.0f} "
            f"{ratio:>23.0f}"
        )


if __name__ == "__main__":
    main()
