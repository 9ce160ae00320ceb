"""Benchmark of the sanitizer on 1 MB texts (a script, not a test).

Run: python benchmarks/bench_sanitize.py [--size 1000000]

The sanitizer escapes every character of categories Cc, Cf, Cs, Zl, Zp, every Default_Ignorable code point,
and caps runs of combining marks. On clean text it must cost about what one scan with the narrow character
class of the first release cost (the baseline below, measured in the same run: C0/C1 controls, bidi and
zero-width characters, surrogates, tags). Each figure is the best of several runs.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from best_of import best

from explorer.sanitize import _tables, is_clean, json_escape_unsafe, sanitize

# The first release's fast path: one search with this class, nothing else, on clean text.
BASELINE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u061c\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e"
    "\u2060-\u206f\ud800-\udfff\ufeff\ufff9-\ufffb\U000e0000-\U000e007f]"
)


def texts(size: int) -> dict[str, str]:
    ascii_text = ("The quick brown fox jumps over the lazy dog. 0123456789\n" * (size // 56 + 1))[:size]
    mixed = ("héllo wörld ✓ 日本語 Tiếng Việt, Ελληνικά, русский, עברית, हिन्दी\n" * (size // 60 + 1))[:size]
    emoji = ("a chat line with an emoji 🎉 and another one 🚀 in it, twice\n" * (size // 60 + 1))[:size]
    hostile = ("name\x1b[31m \u202eevil\u3164 e" + "\u0301" * 20 + "\ufe0f\n" * 2) * (size // 40 + 1)
    return {
        "clean ASCII": ascii_text,
        "clean mixed scripts": mixed,
        "clean, with emoji": emoji,
        "hostile": hostile[:size],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=1_000_000)
    args = parser.parse_args()
    started = time.perf_counter()
    _tables()
    print(f"tables built on first use in {1000 * (time.perf_counter() - started):.1f} ms")
    print(f"{'text':<22}{'baseline scan':>15}{'sanitize':>12}{'ratio':>8}{'is_clean':>11}{'json':>10}")
    for name, text in texts(args.size).items():
        baseline = best(lambda text=text: BASELINE.search(text), repeat=15)
        full = best(lambda text=text: sanitize(text, limit=None), repeat=15)
        clean = best(lambda text=text: is_clean(text), repeat=15)
        as_json = best(lambda text=text: json_escape_unsafe(text), repeat=15)
        ratio = f"{full / baseline:>7.1f}x" if name != "hostile" else f"{'-':>8}"
        print(
            f"{name:<22}{1000 * baseline:>12.2f} ms{1000 * full:>9.2f} ms{ratio}"
            f"{1000 * clean:>8.2f} ms{1000 * as_json:>7.2f} ms"
        )
    print("ratio: sanitize(limit=None) of a clean text against one scan with the first release's class")
    # The capped path looks at a window of about twice the limit: a huge string with its only escape at
    # the end costs what a short one does, far less than one scan of the whole.
    huge = "x" * (5 * args.size) + "\x1b"
    capped = best(lambda: sanitize(huge, limit=100), repeat=15)
    scan = best(lambda: BASELINE.search(huge), repeat=15)
    print(
        f"sanitize(limit=100) of {len(huge):,} characters: {1000 * capped:.3f} ms, "
        f"{capped / scan:.4f}x one baseline scan of it ({1000 * scan:.2f} ms)"
    )


if __name__ == "__main__":
    main()
