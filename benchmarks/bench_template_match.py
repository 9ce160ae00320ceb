"""Benchmark: matching a URI against a template with many query variables (a script, not a test).

Run: python benchmarks/bench_template_match.py [--quick]

The template is ``bench://search{?q0,q1,...}`` with N variables, up to the limit of 256, and the URI
defines every one of them. Matching should grow linearly with N (it used to be quadratic: 100
variables took 1.7 s and 104 MB, 400 took 33 s and 1.5 GB). Every figure is printed next to baselines
measured in the same run, so the ratios stay meaningful across machines:

- ``match/expand``: the time of matching over the time of expanding the same template with the same
  values (expansion is linear in N): flat when matching is linear too.
- ``per var vs N=10``: the matching time per variable over the same at the smallest N: near 1 when
  linear (a quadratic matcher would grow like N/10).
- ``miss``: matching the same URI with an unknown parameter appended (no match: the search must give
  up as fast as it succeeds).
- peak memory from tracemalloc, and its ratio per variable against the smallest N.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from best_of import best as timed

from explorer.model.templates import MAX_TEMPLATE_VARIABLES, expand, match, parse_template

SIZES = (10, 50, 100, 200, MAX_TEMPLATE_VARIABLES)


def peak_bytes(action: Callable[[], object]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def case(count: int) -> tuple[str, dict[str, str], str]:
    template = "bench://search{?" + ",".join(f"q{i}" for i in range(count)) + "}"
    values = {f"q{i}": f"value {i}" for i in range(count)}
    return template, values, expand(template, values)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="one timing per figure (a smoke run)")
    args = parser.parse_args()
    repeat = 1 if args.quick else 15

    print(
        f"{'vars':>5} {'match ms':>9} {'expand ms':>9} {'match/expand':>12} {'per var vs N=10':>15} "
        f"{'miss ms':>8} {'peak KB':>8} {'peak/var vs N=10':>16}"
    )
    first: tuple[float, float] | None = None
    for count in SIZES:
        template, values, uri = case(count)
        parsed = parse_template(template)
        found = match(parsed, uri)  # warm the caches (pattern, uritemplate), and check the answer
        if found != values:
            raise SystemExit(f"wrong match for {count} variables: {found!r}")
        matching = timed(lambda: match(parsed, uri), repeat)  # noqa: B023 (used at once)
        expanding = timed(lambda: expand(parsed, values), repeat)  # noqa: B023
        missing = timed(lambda: match(parsed, uri + "&unknown=1"), repeat)  # noqa: B023
        peak = peak_bytes(lambda: match(parsed, uri))  # noqa: B023
        per_var, peak_per_var = matching / count, peak / count
        if first is None:
            first = (per_var, peak_per_var)
        print(
            f"{count:>5} {matching * 1000:>9.2f} {expanding * 1000:>9.2f} {matching / expanding:>12.1f} "
            f"{per_var / first[0]:>15.2f} {missing * 1000:>8.2f} {peak / 1024:>8.0f} "
            f"{peak_per_var / first[1]:>16.2f}"
        )


if __name__ == "__main__":
    main()
