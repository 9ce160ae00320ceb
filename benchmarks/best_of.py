"""The best of several timed runs, the one timing rule the micro-benchmarks share.

The minimum is what the code costs when nothing else gets in the way (a busy machine only ever adds
time); a full collection before each run keeps one run's garbage out of the next run's figure.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable


def best(action: Callable[[], object], repeat: int = 5) -> float:
    """Seconds of the fastest of `repeat` runs of `action`."""
    result = float("inf")
    for _ in range(repeat):
        gc.collect()
        started = time.perf_counter()
        action()
        result = min(result, time.perf_counter() - started)
    return result
