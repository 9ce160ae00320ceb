"""The TUI at scale, driven by Pilot (a script, not a test): listing time, memory, collector pauses.

Run: python benchmarks/bench_tui.py [--count 1000000]

The app (160x45, headless) lists `fixture_server.py` with N resources in pages of 1,000, bounds raised to
fit. Measured: seconds from start (imports included) to Pilot's first pause and to the listing complete
in the catalogue (the server bar says so; the first frame from process start is bench_startup.py's), the
peak resident set of the process (getrusage; the server is another process), every pause of the cyclic
collector (gc.callbacks) while listing and for a few seconds of browsing after it (cursor keys,
expanding a node), and how many objects the collector still walks at the end. The baseline in the same
run is the SDK's own listing loop (`sdk_list.py`) on the same server, as a whole process.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explorer.config import ListingBounds, ServerSpec  # noqa: E402

FIXTURE = ROOT / "benchmarks" / "fixture_server.py"
SIZE = (160, 45)


class Pauses:
    """Every collection's duration, by phase (set `phase` to file the next ones elsewhere)."""

    def __init__(self) -> None:
        self.phase = "start"
        self.by_phase: dict[str, list[float]] = {}
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.by_phase.setdefault(self.phase, []).append(time.perf_counter() - self._started)

    def longest_ms(self, phase: str) -> float:
        return round(max(self.by_phase.get(phase, [0.0])) * 1000, 1)


def peak_rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return (peak if sys.platform == "darwin" else peak * 1024) / 2**20


async def run_app(count: int, pauses: Pauses) -> dict[str, Any]:
    from explorer.app import ExplorerApp

    spec = ServerSpec(
        name="fixture", transport="stdio", command=sys.executable, args=(str(FIXTURE), "--count", str(count))
    )
    bounds = ListingBounds(
        max_items=count * 2 + 10, max_pages=count // 100 + 10, max_bytes=2**40, max_seconds=3600
    )
    started = time.perf_counter()
    app = ExplorerApp([spec], bounds=bounds, remember_theme=False)
    result: dict[str, Any] = {}
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        result["pilot_ready_s"] = round(time.perf_counter() - started, 2)  # imports included
        pauses.phase = "listing"
        screen: Any = app.screen
        while True:
            await asyncio.sleep(0.05)
            status = screen.catalogue.servers["fixture"]
            if status.state in ("ready", "incomplete", "failed"):
                break
        result["listing_s"] = round(time.perf_counter() - started, 2)
        result["state"] = status.state
        result["resources"] = status.listing.count("resources") if status.listing is not None else 0
        await pilot.pause()
        pauses.phase = "browsing"
        browse_started = time.perf_counter()
        for key in ("down", "right", "down", "down", "right", "down", "end", "home"):
            await pilot.press(key)
            await pilot.pause()
        await asyncio.sleep(max(0.0, 3.0 - (time.perf_counter() - browse_started)))
        result["tracked_objects"] = len(gc.get_objects())
        result["frozen_objects"] = gc.get_freeze_count()
    return result


def sdk_baseline(count: int) -> float:
    started = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "sdk_list.py"),
            "--",
            sys.executable,
            str(FIXTURE),
            "--count",
            str(count),
        ],
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--no-baseline", action="store_true", help="skip the SDK listing loop")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    import compileall

    compileall.compile_dir(ROOT / "explorer", quiet=1)  # as an installed package has it
    pauses = Pauses()
    gc.callbacks.append(pauses)
    result = asyncio.run(run_app(args.count, pauses))
    gc.callbacks.remove(pauses)
    result["peak_rss_mb"] = round(peak_rss_mb())
    result["gc_max_pause_listing_ms"] = pauses.longest_ms("listing")
    result["gc_max_pause_browsing_ms"] = pauses.longest_ms("browsing")
    result["gc_max_pause_ms"] = max(pauses.longest_ms(p) for p in pauses.by_phase)
    if not args.no_baseline:
        sdk = sdk_baseline(args.count)
        result["sdk_list_s"] = round(sdk, 2)
        result["listing_vs_sdk"] = round(result["listing_s"] / sdk, 2)
    if args.json:
        print(json.dumps(result))
        return
    print(f"TUI at {args.count:,} resources (Pilot, {SIZE[0]}x{SIZE[1]})")
    for key, value in result.items():
        print(f"  {key:<28} {value}")


if __name__ == "__main__":
    main()
