"""Browsing a server of 10^7 resources a subtree at a time (SEP-1269's `prefix`): a script, not a test.

Run: python benchmarks/bench_browse.py [--count 10000000] [--bound 20000] [--quick]

A server with 10^7 resources cannot be listed whole by any client here (about 5 GB and a minute and a
half at the rate of `bench_listing.py`). The explorer lists it up to its item bound (`--bound`), then
the user types a URI prefix into the `/` filter and presses Enter: the explorer lists that subtree with
`prefix` on every page (the fixture server honours it in O(matches)) and merges it into the tree. For
each prefix: seconds from Enter to the first painted frame (the frame probe of `bench_tui.py`) whose tree
holds everything the prefix listing brought (all its resources, or the bound's worth) and says it is
done, and how many resources are under the prefix then; at the end the app's peak RSS. Baseline of the
same run, per prefix: the CLI's `tree --prefix P -s SERVER > /dev/null`, a whole process (spawn to
exit), which lists the same subtree.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_tui import SIZE, FrameProbe, peak_rss_mb, send_key, timed_key  # noqa: E402
from fixture_server import Spans, matching_spans  # noqa: E402

FIXTURE = ROOT / "benchmarks" / "fixture_server.py"


def prefixes(count: int) -> tuple[str, ...]:
    """An area (10,000 resources), a group far down (100), a host (100,000: the bound cuts it); at 10^7
    hosts 37, 99 and 50, none of them in the bounded first listing."""
    hosts = max(1, count // 100_000)
    return (
        f"bench://host{hosts * 37 // 100}/area5/",
        f"bench://host{hosts - 1}/area9/group99/",
        f"bench://host{hosts // 2}/",
    )


def server_command(count: int) -> list[str]:
    return [sys.executable, str(FIXTURE), "--count", str(count)]


async def browse(count: int, bound: int) -> dict[str, Any]:
    from explorer.app import ExplorerApp
    from explorer.config import ListingBounds, ServerSpec

    command = server_command(count)
    spec = ServerSpec(name="fixture", transport="stdio", command=command[0], args=tuple(command[1:]))
    bounds = ListingBounds(max_items=bound, max_pages=bound // 100 + 10, max_bytes=2**40, max_seconds=3600)
    app = ExplorerApp([spec], bounds=bounds, remember_theme=False)
    started = time.perf_counter()
    result: dict[str, Any] = {"count": count, "bound": bound}
    async with app.run_test(size=SIZE):
        probe = FrameProbe(app)
        screen: Any = app.screen
        status = screen.catalogue.servers["fixture"]
        while status.state not in ("incomplete", "ready", "failed"):  # noqa: ASYNC110 - no event to wait on
            await asyncio.sleep(0.02)
        result["bounded_listing_s"] = round(time.perf_counter() - started, 2)
        result["state"] = status.state
        tree = screen.catalogue.tree
        box = screen.query_one("#filter")
        for prefix in prefixes(count):
            expected = min(len(Spans(matching_spans(prefix, count))), bound)
            assert expected > 0, prefix
            await timed_key(app, probe, "/", lambda: bool(box.has_focus))
            for char in prefix:
                send_key(app, char)
            await probe.until(lambda prefix=prefix: box.value == prefix)

            def listed(prefix: str = prefix, expected: int = expected) -> bool:
                """The listing by prefix ended (its notice is out) and the tree holds what it brought."""
                notices = (str(notice.message) for notice in app._notifications)
                done = any(message.startswith(f"fixture: {prefix}: listed") for message in notices)
                return done and tree.count_under(prefix).resources >= expected

            seconds = await timed_key(app, probe, "enter", listed)
            result[prefix] = {"seconds": round(seconds, 3), "resources": tree.count_under(prefix).resources}
            await timed_key(app, probe, "escape", lambda: screen.tree_widget.filter_result is None)
        result["tree_resources"] = tree.root.resource_count
        result["peak_rss_mb"] = round(peak_rss_mb())
    return result


def cli_prefix_seconds(count: int, bound: int, prefix: str) -> float:
    command = [sys.executable, "-m", "explorer", "tree", "--prefix", prefix, "--max-items", str(bound)]
    command += ["-s", " ".join(server_command(count))]
    started = time.perf_counter()
    done = subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    if done.returncode not in (0, 3):  # 3: the item bound cut the listing, as it cuts the TUI's
        raise SystemExit(f"tree --prefix {prefix} failed: {done.stderr.decode()[-2000:]}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000_000)
    parser.add_argument("--bound", type=int, default=20_000)
    parser.add_argument("--quick", action="store_true", help="a smoke run: 10^5 resources, bound 2,000")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    count, bound = (100_000, 2_000) if args.quick else (args.count, args.bound)
    result = asyncio.run(browse(count, bound))
    for prefix in prefixes(count):
        result[prefix]["cli_tree_prefix_s"] = round(cli_prefix_seconds(count, bound, prefix), 2)
    if args.json:
        print(json.dumps(result))
        return
    print(f"Browsing {count:,} resources by prefix (item bound {bound:,}; 160x45, headless, frames rendered)")
    print(f"  bounded listing       {result['bounded_listing_s']} s ({result['state']})")
    for prefix in prefixes(count):
        row = result[prefix]
        print(
            f"  {prefix:<32} {row['resources']:>7,} resources  Enter to frame {row['seconds'] * 1000:8.1f} ms"
            f"   CLI tree --prefix (baseline) {row['cli_tree_prefix_s']:.2f} s"
        )
    print(f"  resources in the tree {result['tree_resources']:,}, peak RSS {result['peak_rss_mb']} MB")


if __name__ == "__main__":
    main()
