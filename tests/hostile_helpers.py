"""Helpers for the round-two hostile-server tests (issue 9): the fixture's spec, and process checks."""

from __future__ import annotations

import shlex
import sys
import time
import unicodedata
from collections.abc import Iterable
from pathlib import Path

from explorer.config import ServerSpec
from tests.helpers.cli import CliResult
from tests.helpers.paths import FIXTURES

HOSTILE_SERVER = FIXTURES / "hostile_server.py"


def hostile_words(*modes: str, **options: object) -> list[str]:
    words = [sys.executable, str(HOSTILE_SERVER)]
    for mode in modes:
        words += ["--mode", mode]
    for key, value in options.items():
        words += ["--" + key.replace("_", "-"), str(value)]
    return words


def hostile_server(*modes: str, **options: object) -> str:
    """A -s SPEC that starts `tests/fixtures/hostile_server.py` with these modes."""
    return shlex.join(hostile_words(*modes, **options))


def hostile_spec(name: str, *modes: str, **options: object) -> ServerSpec:
    words = hostile_words(*modes, **options)
    return ServerSpec(name=name, transport="stdio", command=words[0], args=tuple(words[1:]))


def assert_no_traceback(result: CliResult) -> None:
    assert "Traceback" not in result.stderr, result
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert all(line.startswith(("error: ", "warning: ")) for line in lines), result


def invisible_or_control(text: str) -> list[str]:
    """Characters that must never reach a terminal raw (JSON indentation newlines excepted)."""
    from explorer.sanitize import escaped_code_points

    ranges = escaped_code_points()
    return [
        f"U+{ord(c):04X}"
        for c in set(text)
        if c != "\n" and any(low <= ord(c) <= high for low, high in ranges)
    ]


def longest_mark_run(text: str) -> int:
    longest = run = 0
    for char in text:
        run = run + 1 if unicodedata.category(char).startswith("M") else 0
        longest = max(longest, run)
    return longest


# ------------------------------------------------------------------------------------------ processes


def read_pids(path: Path, timeout: float = 30.0) -> list[int]:
    """The pids the fixture wrote (server, then its child), once both run."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            words = path.read_text().split()
            if len(words) == 2:
                return [int(w) for w in words]
        time.sleep(0.05)
    raise AssertionError(f"the fixture did not write {path}")


def running(pid: int) -> bool:
    """True while `pid` exists and is not a zombie (a zombie is dead; only its entry waits to be reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def group_members(pgid: int) -> list[int]:
    """Running (non-zombie) processes whose process group is `pgid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def wait_all_gone(pids: Iterable[int], pgid: int, timeout: float = 15.0) -> list[int]:
    """Poll until none of `pids` and nothing in group `pgid` runs; what still runs after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        left = sorted({p for p in pids if running(p)} | set(group_members(pgid)))
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


async def wait_all_gone_async(pids: Iterable[int], pgid: int, timeout: float = 15.0) -> list[int]:
    """`wait_all_gone` for async tests: the event loop keeps running (a server may be stopping on it)."""
    import anyio

    deadline = time.monotonic() + timeout
    while True:
        left = sorted({p for p in pids if running(p)} | set(group_members(pgid)))
        if not left or time.monotonic() > deadline:
            return left
        await anyio.sleep(0.1)


def kill_leftovers(pids: Iterable[int]) -> None:
    """Test cleanup: SIGKILL what a failed test left running (only these pids, which it started)."""
    import contextlib
    import os
    import signal

    for pid in pids:
        if running(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
