"""Benchmark: matching and diagnosing URIs made to make a backtracking matcher hang (a script, not a test).

Run: python benchmarks/bench_template_pathological.py [--length 2000]

Adjacent expressions (``{a}{b}{c}``) can split a long URI in very many ways; the search remembers dead
states and has a step budget, so each case costs about as much however long the URI grows. The baseline,
in the same run, is the same URI matched against a one-expression template (``{+all}``), one pass with
no choice to make. Best of several runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from best_of import best

from explorer.model.templates import diagnose, match


def cases(length: int) -> list[tuple[str, str, str]]:
    """The cases of tests/test_templates.py::test_pathological_inputs_stay_fast, at any length."""
    return [
        ("adjacent", "{a}{b}{c}/{d}", "a" * length + "/b/c"),
        ("list-items", "{x,y,z}/{w}", "a," * (length // 2) + "/b/c"),
        ("dashes", "{a}-{b}-{c}x", "a-" * (length // 2) + "?x"),
        ("reserved", "{+a}{+b}{+c}!x", "/" * length + "!y"),
        ("dicts", "{.a*}{.b*}{.c*}", ".a=b" * (length // 4)),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--length", type=int, default=2000)
    args = parser.parse_args()
    print(f"{'case':<12}{'URI chars':>10}{'match+diagnose ms':>19}{'baseline ms':>13}{'ratio':>9}")
    for name, template, uri in cases(args.length):
        hard = best(lambda template=template, uri=uri: (match(template, uri), diagnose(template, uri)))
        easy = best(lambda uri=uri: (match("{+all}", uri), diagnose("{+all}", uri)))
        print(f"{name:<12}{len(uri):>10,}{1000 * hard:>19.2f}{1000 * easy:>13.2f}{hard / easy:>8.1f}x")
    print(
        "baseline: the same URI against {+all}; a case stays flat as --length grows, the baseline is linear"
    )


if __name__ == "__main__":
    main()
