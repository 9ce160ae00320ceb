"""Benchmark: one long URI against thousands of templates that all produce it (a script, not a test).

Run: python benchmarks/bench_goto_templates.py [--quick]

What the go-to box and `match` do: `resolve` a URI (`docs://a/` and then L characters, a `%20` every
eight) against T templates of one shape, all of which match it. Baselines measured in the same run:

- ``unshared``: the same templates matched one at a time with the percent helpers' memory emptied before
  each (every template redoes the work on the URI's value, as before the helpers remembered it); the
  ratio ``shared/unshared`` is what remembering saves.
- ``one``: a single template, times T: the floor, had the T templates nothing to do but the one.

Shapes: ``{+p}`` (the whole rest of the URI is one reserved value), ``{x}/{+rest}`` (a segment, then the
rest), ``{/p*}`` (a path of segments; none of these match: the URI ends in a segment, which `{/p*}` takes
but the literal after it does not).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.model.entries import TemplateEntry
from explorer.model.resolve import ResolveRequest, resolve
from explorer.model.templates import expansion, pattern, percent, syntax
from explorer.model.uri_tree import UriTree

SHAPES: dict[str, Callable[[int], str]] = {
    "{+p}": lambda i: f"docs://a/{{+p{i}}}",
    "{x}/{+rest}": lambda i: f"docs://a/{{x{i}}}/{{+rest}}",
    "{/p*}": lambda i: f"docs://a/{{/p{i}*}}/v{i}",
}
_MEMOS = (percent.encode_keeping, percent.decode_reserved, percent.normalize_pct, percent.pct_decode)


def forget() -> None:
    """Empty the percent helpers' memory (what each template redid before they had one)."""
    for memo in _MEMOS:
        memo.cache_clear()  # type: ignore[attr-defined]


def cold() -> None:
    """Every cache of the templates package emptied: each contender parses and compiles its templates."""
    forget()
    for cached in (pattern._compile, pattern.matcher_for, expansion._uritemplate, syntax._parse_cached):
        cached.cache_clear()


def seconds(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def request(uri: str, templates: tuple[TemplateEntry, ...]) -> ResolveRequest:
    return ResolveRequest(uri, (), None, UriTree().nearest(uri), templates)


def unshared(uri: str, templates: tuple[TemplateEntry, ...]) -> None:
    for entry in templates:
        forget()
        resolve(request(uri, (entry,)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: 1,000 characters, 100 templates")
    args = parser.parse_args()
    length, count = (1000, 100) if args.quick else (7900, 5000)
    uri = "docs://a/" + "seg%20x/" * (length // 8) + "end"
    print(f"URI of {len(uri):,} characters, {count:,} templates of each shape")
    print(f"{'shape':<12} {'matched':>7} {'shared s':>9} {'unshared s':>11} {'ratio':>6} {'one x T s':>10}")
    for shape, make in SHAPES.items():
        templates = tuple(TemplateEntry("s", make(i), f"t{i}") for i in range(count))
        cold()
        found: list[int] = []
        shared = seconds(lambda: found.append(len(resolve(request(uri, templates)).matches)))  # noqa: B023
        cold()
        alone = seconds(lambda: unshared(uri, templates))  # noqa: B023
        cold()
        one = seconds(lambda: resolve(request(uri, templates[:1]))) * count  # noqa: B023
        print(f"{shape:<12} {found[0]:>7,} {shared:>9.2f} {alone:>11.2f} {shared / alone:>6.2f} {one:>10.2f}")


if __name__ == "__main__":
    main()
