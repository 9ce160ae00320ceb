"""The benchmark scripts still run (no timing is asserted: speed claims come from the scripts themselves)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_template_match_benchmark_quick_prints_a_row_per_size() -> None:
    script = ROOT / "benchmarks" / "bench_template_match.py"
    proc = subprocess.run(
        [sys.executable, str(script), "--quick"], capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:3] == ["vars", "match", "ms"]
    sizes = [int(line.split()[0]) for line in lines[1:]]
    assert sizes == [10, 50, 100, 200, 256]
    assert all(len(line.split()) == 8 for line in lines[1:])  # every figure of every row
