"""Every scale benchmark in one go (a script, not a test): the figures of benchmarks/README.md.

Run: python benchmarks/run_all.py [--quick]

In order: the CLI listing table at 10^4, 10^5 and 10^6 (`bench_listing.py`, 3 rounds, plus the SDK-built
server at 10^5 and 10^6 under one node), the TUI at the same scales (`bench_tui.py`), browsing 10^7 by
prefix (`bench_browse.py`), start-up (`bench_startup.py`), prefix queries and tree building
(`bench_prefix.py`) and the JSON libraries (`bench_json.py`). 7 to 12 minutes on a 2-core machine;
`--quick` is a smoke run of each (about a minute).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def plan(quick: bool) -> list[list[str]]:
    if quick:
        return [
            ["bench_listing.py", "--quick"],
            [
                "bench_tui.py",
                "--count",
                "2000",
                "--presses",
                "10",
                "--no-baseline",
                "--phases",
                "floor,listing,wide",
            ],
            ["bench_browse.py", "--quick"],
            ["bench_startup.py", "--rounds", "1"],
            ["bench_prefix.py", "--max-power", "4"],
            ["bench_json.py", "--items", "100"],
        ]
    return [
        ["bench_listing.py", "--scales", "4,5,6", "--rounds", "3", "--flat-scale", "6"],
        ["bench_tui.py", "--count", "10000"],
        ["bench_tui.py", "--count", "100000"],
        ["bench_tui.py", "--count", "1000000"],
        ["bench_browse.py", "--count", "10000000"],
        ["bench_startup.py", "--rounds", "7"],
        ["bench_prefix.py", "--max-power", "6"],
        ["bench_json.py"],
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one small run of each benchmark")
    args = parser.parse_args()
    started = time.perf_counter()
    for script, *options in plan(args.quick):
        print(f"\n$ python benchmarks/{script} {' '.join(options)}", flush=True)
        subprocess.run([sys.executable, str(BENCH / script), *options], check=True)
    print(f"\nall benchmarks: {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
