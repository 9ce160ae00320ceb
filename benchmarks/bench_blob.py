"""Benchmark: a 50 MB base64 blob read with a 1 MB cap (a script, not a test).

Run: python benchmarks/bench_blob.py [--megabytes 50]

The preview decodes only the prefix its cap needs, after validating the whole string with one regex scan
(`explorer.model.contents.binary.decode_prefix`). Baselines from the same run: `base64.b64decode` of the
whole blob (what decoding everything costs) and of just the capped prefix (the floor). Best of several runs.
"""

from __future__ import annotations

import argparse
import base64
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from best_of import best

from explorer.model.contents.binary import decode_prefix

CAP = 1_000_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--megabytes", type=float, default=50)
    args = parser.parse_args()
    size = int(args.megabytes * 1_000_000)
    blob = "QUJD" * (size // 3) + "QUI="
    wrapped = base64.encodebytes(b"ABC" * (size // 3)).decode("ascii")  # 76-character lines
    prefix = blob[: 4 * (CAP // 3 + 1)]
    whole = best(lambda: base64.b64decode(blob, validate=True), repeat=5)
    floor = best(lambda: base64.b64decode(prefix, validate=True), repeat=5)
    print(f"blob of {size:,} bytes, cap {CAP:,} bytes; seconds are the best of 5")
    print(f"{'what':<46}{'ms':>10}{'x whole decode':>16}")
    rows = [
        ("b64decode of the whole blob (baseline)", whole),
        ("b64decode of the capped prefix (floor)", floor),
        ("decode_prefix, one line", best(lambda: decode_prefix(blob, CAP), repeat=5)),
        ("decode_prefix, 76-character lines", best(lambda: decode_prefix(wrapped, CAP), repeat=5)),
    ]
    for label, seconds in rows:
        print(f"{label:<46}{1000 * seconds:>10.2f}{seconds / whole:>15.2f}x")


if __name__ == "__main__":
    main()
