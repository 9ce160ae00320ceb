"""The CLI at scale: `tree` against the SDK's own listing loop, whole processes, in the same run.

Run: python benchmarks/bench_listing.py [--scales 4,5,6] [--rounds 3] [--flat-scale 6] [--quick] [--json FILE]

For each scale N (10^4, 10^5, 10^6 resources, pages of 1,000, `fixture_server.py`), the contenders run one
after the other in each round (alternating, so a busy machine slows them alike): the SDK's typed listing
loop (`sdk_list.py`, the baseline), `tree --json > /dev/null`, `tree > /dev/null`, `tree --depth 1`, and the
bare orjson client (`bare_client.py`, the floor). Each figure is the median of the rounds: wall seconds
from spawn to exit, the peak resident set of the process (wait4; its server is smaller), and for `tree`
the longest pause of the cyclic collector (`gc_probe.py`, gc.callbacks). Ratios are against the SDK loop
of the same run. At 10^5 the same comparison runs against an SDK-built server (`sdk_server.py`), where the
server is the bottleneck. With `--flat-scale` (10^6 in `run_all.py`) the fixture puts all N under one node
(`--flat`): the widest fan-out, one dict of N children and one sort of N natural keys at the end, which
the usual layout (many small folders, names that repeat) never makes. It runs twice: listed in natural
order (`flat`: a server that lists by id, whose order a check confirms), and scrambled (`shuffled`,
`--flat --shuffled`: listed by hash or date, so the sort does all its work). Every `tree`
runs with bounds raised to fit N.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
PY = sys.executable


@dataclass
class Sample:
    seconds: float
    peak_mb: float
    gc_max_ms: float | None = None


@dataclass
class Contender:
    label: str
    command: list[str]
    shown: str  # the command as the README shows it
    probe: bool = False  # run under gc_probe.py
    samples: list[Sample] = field(default_factory=list)

    def median(self, what: str) -> float | None:
        values = [getattr(s, what) for s in self.samples if getattr(s, what) is not None]
        return statistics.median(values) if values else None


def run_once(contender: Contender) -> Sample:
    """Spawn, wait, measure (wall, peak RSS from wait4, collector pauses from the probe's file)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode compiled
    stats_path: Path | None = None
    if contender.probe:
        descriptor, name = tempfile.mkstemp(suffix=".json")
        os.close(descriptor)
        stats_path = Path(name)
        env["GC_PROBE_OUT"] = str(stats_path)
    started = time.perf_counter()
    proc = subprocess.Popen(
        contender.command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=ROOT
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{contender.label} failed ({proc.returncode}): {err.decode()[-2000:]}")
    peak = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024) / 2**20
    gc_max = None
    if stats_path is not None:
        gc_max = json.loads(stats_path.read_text())["max_pause_ms"]
        stats_path.unlink()
    return Sample(seconds, peak, gc_max)


def compile_explorer() -> None:
    """Bytecode for every module, as an installed package has (a fresh checkout would measure compiling)."""
    import compileall

    compileall.compile_dir(ROOT / "explorer", quiet=1)
    compileall.compile_dir(BENCH, quiet=1)


def bounds_for(count: int) -> list[str]:
    return [
        "--max-items",
        str(count * 2 + 10),
        "--max-pages",
        str(count // 100 + 10),
        "--max-bytes",
        str(2**40),
        "--list-timeout",
        "3600",
    ]


def contenders(count: int, server: str) -> list[Contender]:
    if server in ("fixture", "flat", "shuffled"):
        flat = {"fixture": [], "flat": ["--flat"], "shuffled": ["--flat", "--shuffled"]}[server]
        serve = [PY, str(BENCH / "fixture_server.py"), "--count", str(count), *flat]
        shown_server = " ".join(["benchmarks/fixture_server.py", "--count", str(count), *flat])
    else:
        serve = [PY, str(BENCH / "sdk_server.py"), "--count", str(count)]
        shown_server = f"benchmarks/sdk_server.py --count {count}"
    spec = " ".join(serve)
    bounds = bounds_for(count)
    probe = [PY, str(BENCH / "gc_probe.py"), "tree"]
    found = [
        Contender(
            "SDK list_resources loop",
            [PY, str(BENCH / "sdk_list.py"), "--", *serve],
            f"python benchmarks/sdk_list.py -- python {shown_server}",
        ),
        Contender(
            "tree --json",
            [*probe, "--json", *bounds, "-s", spec],
            f"mcp-url-explorer tree --json BOUNDS -s 'python {shown_server}' > /dev/null",
            probe=True,
        ),
    ]
    if server in ("fixture", "flat", "shuffled"):
        found += [
            Contender(
                "tree",
                [*probe, *bounds, "-s", spec],
                f"mcp-url-explorer tree BOUNDS -s 'python {shown_server}' > /dev/null",
                probe=True,
            ),
        ]
    if server == "fixture":
        found += [
            Contender(
                "tree --depth 1",
                [*probe, "--depth", "1", *bounds, "-s", spec],
                f"mcp-url-explorer tree --depth 1 BOUNDS -s 'python {shown_server}' > /dev/null",
                probe=True,
            ),
            Contender(
                "bare orjson client",
                [PY, str(BENCH / "bare_client.py"), "--", *serve],
                f"python benchmarks/bare_client.py -- python {shown_server}",
            ),
        ]
    return found


def measure(count: int, server: str, rounds: int) -> list[Contender]:
    found = contenders(count, server)
    for _ in range(rounds):
        for contender in found:
            contender.samples.append(run_once(contender))
    return found


def report(count: int, server: str, found: list[Contender]) -> list[dict[str, Any]]:
    base = found[0].median("seconds")
    assert base is not None
    rows = []
    for contender in found:
        seconds = contender.median("seconds")
        assert seconds is not None
        rows.append(
            {
                "scale": count,
                "server": server,
                "contender": contender.label,
                "seconds": round(seconds, 2),
                "vs_sdk": round(seconds / base, 2),
                "peak_mb": round(contender.median("peak_mb") or 0),
                "gc_max_ms": contender.median("gc_max_ms"),
                "rounds": len(contender.samples),
                "command": contender.shown,
            }
        )
    return rows


def print_rows(rows: list[dict[str, Any]]) -> None:
    head = f"{'N':>9} {'server':<8} {'contender':<26} {'seconds':>8} {'x SDK':>6}"
    print(f"{head} {'peak MB':>8} {'GC max ms':>9}")
    for row in rows:
        gc_max = "" if row["gc_max_ms"] is None else f"{row['gc_max_ms']:.1f}"
        print(
            f"{row['scale']:>9,} {row['server']:<8} {row['contender']:<26} {row['seconds']:>8.2f} "
            f"{row['vs_sdk']:>6.2f} {row['peak_mb']:>8} {gc_max:>9}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", default="4,5,6", help="powers of ten, comma-separated")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sdk-server-scale", type=int, default=5, help="power of ten (0: skip)")
    parser.add_argument("--flat-scale", type=int, default=0, help="power of ten, under one node (0: skip)")
    parser.add_argument("--quick", action="store_true", help="one round of 1,000 resources (a smoke run)")
    parser.add_argument("--json", type=Path, default=None, help="also write the rows to this file")
    args = parser.parse_args()
    plan: list[tuple[int, str, int]]
    if args.quick:
        plan = [(1000, "fixture", 1), (1000, "sdk", 1), (1000, "flat", 1), (1000, "shuffled", 1)]
    else:
        plan = [(10 ** int(p), "fixture", args.rounds) for p in args.scales.split(",") if p]
        if args.sdk_server_scale:
            plan.append((10**args.sdk_server_scale, "sdk", args.rounds))
        if args.flat_scale:
            plan.append((10**args.flat_scale, "flat", args.rounds))
            plan.append((10**args.flat_scale, "shuffled", args.rounds))
    compile_explorer()
    rows: list[dict[str, Any]] = []
    for count, server, rounds in plan:
        rows += report(count, server, measure(count, server, rounds))
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; medians of the rounds; x SDK = same run")
    print_rows(rows)
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
