"""Run `python -m explorer ...` with every garbage-collector pause recorded (a benchmark helper).

Run: GC_PROBE_OUT=stats.json python benchmarks/gc_probe.py tree --json ...

`gc.callbacks` times each collection (start to stop); at exit the count, the longest pause and the total
go to the JSON file named by `GC_PROBE_OUT`, with the number of objects the collector tracks at the end.
The callback costs a few microseconds per collection, nothing the figures can show.
"""

from __future__ import annotations

import atexit
import gc
import json
import os
import runpy
import sys
import time
from pathlib import Path
from typing import Any

_pauses: list[tuple[int, float]] = []
_started = [0.0]


def _timer(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _started[0] = time.perf_counter()
    else:
        _pauses.append((int(info["generation"]), time.perf_counter() - _started[0]))


def _report() -> None:
    target = os.environ.get("GC_PROBE_OUT")
    if not target:
        return
    longest = max(_pauses, key=lambda p: p[1], default=(0, 0.0))
    stats = {
        "collections": len(_pauses),
        "full": sum(1 for generation, _ in _pauses if generation == 2),
        "max_pause_ms": round(longest[1] * 1000, 2),
        "max_pause_generation": longest[0],
        "total_ms": round(sum(p for _, p in _pauses) * 1000, 1),
        "longest_ms": sorted((round(p * 1000, 1) for _, p in _pauses), reverse=True)[:5],
        "tracked_at_exit": len(gc.get_objects()),
        "frozen_at_exit": gc.get_freeze_count(),
    }
    Path(target).write_text(json.dumps(stats))


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    gc.callbacks.append(_timer)
    atexit.register(_report)
    sys.argv = ["mcp-url-explorer", *sys.argv[1:]]
    runpy.run_module("explorer", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
