"""Benchmark of the URI prefix tree at 1,000,000 resources (a script, not a test).

Run: python benchmarks/bench_uri_tree.py [--scale 0.1]

Every figure is printed next to a baseline measured in the same run (a plain dict, `sorted()`, a linear
scan), so the ratios stay meaningful across machines. Memory per resource comes from tracemalloc (exact
traced bytes of a second, fresh build); the peak resident set of the run comes from `resource.getrusage`.
"""

from __future__ import annotations

import argparse
import gc
import random
import resource
import sys
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from best_of import best

from explorer.model.entries import ResourceEntry
from explorer.model.uri_tree import UriTree

PAGE = 1000
WIDE = 10_000
RAW: dict[str, Any] = {}  # one shared raw dict: measure the tree, not 1M empty dicts


def peak_rss() -> int:
    """Peak resident set in bytes (ru_maxrss is KiB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


timed = partial(best, repeat=1)  # one run unless told: a first call may be the one to measure (caches)


def per_call(action: Callable[[Any], object], keys: list[Any]) -> float:
    started = time.perf_counter()
    for key in keys:
        action(key)
    return (time.perf_counter() - started) / len(keys)


def make_alpha(scale: float) -> list[ResourceEntry]:
    """Deep part: bench://hostH/areaA/groupG/setS/itemI.json, plus one folder with 10,000 files."""
    hosts, areas, groups, sets = 10, 10, 10, 33
    items = max(1, round(30 * scale))
    entries = [
        ResourceEntry("alpha", f"bench://host{h}/area{a}/group{g}/set{s}/item{i}.json", f"item {i}", RAW)
        for h in range(hosts)
        for a in range(areas)
        for g in range(groups)
        for s in range(sets)
        for i in range(items)
    ]
    wide = [ResourceEntry("alpha", f"bench://host0/wide/f{i:05d}.txt", f"f{i}", RAW) for i in range(WIDE)]
    random.shuffle(wide)  # a server lists in its own order; the tree sorts on demand
    return entries + wide


def make_beta(alpha: list[ResourceEntry], count: int) -> list[ResourceEntry]:
    """Half collides with alpha's URIs (one node, two servers), half is beta's own subtree."""
    shared = [ResourceEntry("beta", e.uri, e.name, RAW) for e in alpha[: count // 2]]
    own = [
        ResourceEntry("beta", f"beta://svc/b{i % 100}/r{i}", f"r{i}", RAW) for i in range(count - len(shared))
    ]
    return shared + own


def row(label: str, seconds: float, base_label: str, base_seconds: float) -> None:
    ratio = seconds / base_seconds if base_seconds > 0 else float("inf")
    times = f"{seconds * 1e3:>10.3f} ms   {base_label:<40} {base_seconds * 1e3:>9.3f} ms"
    print(f"{label:<44} {times}  x{ratio:8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the deep part to generate")
    args = parser.parse_args()
    random.seed(7)

    alpha = make_alpha(args.scale)
    beta = make_beta(alpha, max(2, round(100_000 * args.scale)))
    everything = alpha + beta
    pages = [everything[i : i + PAGE] for i in range(0, len(everything), PAGE)]
    distinct = len({e.uri for e in everything})
    print(f"python {sys.version.split()[0]}; {len(alpha):,} alpha + {len(beta):,} beta resources")
    print(f"{len(pages):,} pages of {PAGE}; {distinct:,} distinct URIs\n")

    tree = UriTree()

    def tree_insert() -> None:
        for page in pages:
            tree.add_resources(page)

    baseline: dict[str, ResourceEntry] = {}

    def dict_insert() -> None:
        baseline.clear()
        for page in pages:
            for entry in page:
                baseline[entry.uri] = entry

    gc.collect()
    tree_time = timed(tree_insert)
    base_insert = timed(dict_insert, repeat=3)  # cheap: best of 3 damps a busy machine
    assert tree.root.resource_count == distinct == len(baseline)

    print(f"{'operation':<44} {'tree':>13}   {'baseline':<40} {'':>12}  ratio")
    row(
        f"insert all ({len(everything):,} in pages)",
        tree_time,
        "dict[str, ResourceEntry] insert",
        base_insert,
    )
    per_entry = tree_time / len(everything)
    print(f"{'':<44} {per_entry * 1e6:>10.3f} us per resource")

    extra = [ResourceEntry("alpha", f"bench://host5/area5/group5/late/x{i}", "x", RAW) for i in range(PAGE)]
    extra_base: dict[str, ResourceEntry] = {}
    base_page = timed(lambda: extra_base.update((e.uri, e) for e in extra))
    row(
        "one more page of 1000 into the full tree",
        timed(lambda: tree.add_resources(extra)),
        "dict insert 1000",
        base_page,
    )

    wide = tree.node_for("bench://host0/wide")
    assert wide is not None and wide.child_count == WIDE
    in_listing_order = (e.uri for e in alpha if e.uri.startswith("bench://host0/wide/"))
    names = [uri.rsplit("/", 1)[1] for uri in in_listing_order]
    base_sort = timed(lambda: sorted(names), repeat=5)
    row(
        "children() of the 10k node, cold",
        timed(lambda: tree.children(wide)),
        "sorted() of 10,000 strings",
        base_sort,
    )
    row(
        "children() of the 10k node, warm",
        timed(lambda: tree.children(wide)),
        "sorted() of 10,000 strings",
        base_sort,
    )
    tree.add_resources([ResourceEntry("alpha", "bench://host0/wide/f05000a.txt", "new", RAW)])
    row(
        "children() after 1 new child (re-merge)",
        timed(lambda: tree.children(wide)),
        "sorted() of 10,000 strings",
        base_sort,
    )

    mid = "bench://host3/area4/"
    found: list[ResourceEntry] = []
    under = timed(lambda: found.extend(tree.resources_under(mid)))  # first call builds sorted caches
    warm = timed(lambda: list(tree.resources_under(mid)), repeat=5)
    scan: list[str] = []
    base_scan = timed(lambda: scan.extend(u for u in baseline if u.startswith(mid)))
    base_scan = min(base_scan, timed(lambda: [u for u in baseline if u.startswith(mid)], repeat=2))
    assert len({e.uri for e in found}) == len(scan)
    row(f"resources_under({mid!r}): {len(found):,}", under, "startswith scan of the dict keys", base_scan)
    row("resources_under(same prefix), again", warm, "startswith scan of the dict keys", base_scan)
    row(
        "count_under(same prefix)",
        timed(lambda: tree.count_under(mid), repeat=5),
        "startswith scan of the dict keys",
        base_scan,
    )

    probes = [random.choice(everything).uri for _ in range(10_000)]
    row(
        "node_for(uri), mean of 10,000",
        per_call(tree.node_for, probes),
        "dict lookup, mean",
        per_call(baseline.get, probes),
    )

    if hasattr(tree, "subtree_servers"):  # absent from versions before the subtree bitmasks
        folders = [node.parent for node in map(tree.node_for, probes) if node is not None and node.parent]
        row(
            "subtree_servers(parent node), mean of 10,000",
            per_call(tree.subtree_servers, folders),
            "servers(node) (own + patterns), mean",
            per_call(tree.servers, folders),
        )

    beta_keys = [e.uri for e in beta if e.uri.startswith("beta://")]
    beta_count = tree.server_counts("beta").resources
    removed = timed(lambda: tree.remove_server("beta"))
    base_remove = timed(
        lambda: [baseline.pop(k, None) for k in beta_keys + [e.uri for e in beta[: len(beta) // 2]]]
    )
    row(
        f"remove_server('beta'): {beta_count:,} entries",
        removed,
        f"dict delete of {len(beta):,} keys",
        base_remove,
    )
    assert tree.server_counts("beta").resources == 0
    assert tree.root.resource_count == distinct - len(beta_keys) + PAGE + 1

    # Memory: traced allocations of a fresh build (tracemalloc is exact; it slows the build, so it runs
    # after the timings). The entries themselves are the caller's and excluded from both figures.
    del tree, baseline
    found.clear()
    scan.clear()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    tree = UriTree()
    tree_insert()
    gc.collect()
    tree_bytes = tracemalloc.get_traced_memory()[0] - before
    before = tracemalloc.get_traced_memory()[0]
    baseline = {}
    dict_insert()
    dict_bytes = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    stored = len(everything)
    print()
    print(
        f"memory per stored resource (tracemalloc): tree {tree_bytes / stored:,.0f} B, "
        f"dict baseline {dict_bytes / stored:,.0f} B  x{tree_bytes / dict_bytes:.2f}"
    )
    print(f"peak resident set of the whole run (getrusage): {peak_rss() / 2**20:,.0f} MiB")


if __name__ == "__main__":
    main()
