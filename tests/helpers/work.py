"""Counting the work code does, so tests assert how much was done rather than how long it took.

A wall-clock bound fails whenever the machine is busy; a count of Python steps, calls or scanned
characters is the same on any machine, and still fails when an implementation does too much (a loop per
character, a full re-sort, a scan to the end of a 5 MB string). Speed itself is measured by the scripts
in `benchmarks/`, against a baseline run at the same time.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import explorer

EXPLORER_DIR = str(Path(explorer.__file__).resolve().parent)


@dataclass
class Steps:
    """Python lines executed, and functions entered, in the explorer's own code."""

    lines: int = 0
    calls: int = 0
    by_function: dict[str, int] = field(default_factory=dict)


@contextmanager
def count_steps(under: str = EXPLORER_DIR) -> Iterator[Steps]:
    """Count every line the interpreter runs in modules below `under` while the block runs.

    Work done in C (a regex scan, `sorted`, `str.join`) is not counted, so the count is what a pure-Python
    loop would add: a per-item loop over a million items shows as a million steps, on any machine.
    """
    steps = Steps()
    previous = sys.gettrace()

    def local(frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        if event == "line":
            steps.lines += 1
        return local

    def global_trace(frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        if event == "call" and frame.f_code.co_filename.startswith(under):
            steps.calls += 1
            name = frame.f_code.co_qualname
            steps.by_function[name] = steps.by_function.get(name, 0) + 1
            return local
        return None

    sys.settrace(global_trace)
    try:
        yield steps
    finally:
        sys.settrace(previous)


class ScanSpy:
    """A compiled pattern that adds up how many characters its searches were allowed to look at."""

    def __init__(self, pattern: Any, tally: list[int]) -> None:
        self._pattern = pattern
        self._tally = tally

    def _count(self, string: str, pos: int = 0, endpos: int | None = None) -> None:
        end = len(string) if endpos is None else min(endpos, len(string))
        self._tally[0] += max(0, end - pos)

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Any:
        self._count(string, pos, endpos)
        return self._pattern.search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Any:
        result = self._pattern.match(string, pos, endpos)
        self._tally[0] += (result.end() - pos + 1) if result is not None else 1  # a match reads what it took
        return result

    def sub(self, repl: Any, string: str, count: int = 0) -> Any:
        self._count(string)
        return self._pattern.sub(repl, string, count)

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Any:
        self._count(string, pos, endpos)
        return self._pattern.finditer(string, pos, endpos)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pattern, name)
