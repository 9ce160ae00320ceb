"""A stdout that refuses what is written: a pipe closed during a big write is exit 141 (never a silent 0),
and a full disk or a closed stdout is one line on stderr and exit 1 (never a traceback)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.cli import demo_server, run_cli
from tests.helpers.paths import ROOT
from tests.helpers.tiny_server import tiny_server

pytestmark = pytest.mark.slow

HUGE = """
CAPABILITIES = {"resources": {}}
def answer(method, params):
    if method == "resources/list":
        return {"resources": [{"uri": "h://a/huge", "name": "huge"}]}
    if method == "resources/read":
        return {"contents": [{"uri": params["uri"], "text": "line of text\\n" * 400000}]}
    return None
"""

FULL = "error: could not write the output: No space left on device\n"


def _env(unbuffered: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONUNBUFFERED", "FORCE_COLOR")}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    return env


@pytest.mark.parametrize("unbuffered", [True, False], ids=["unbuffered", "buffered"])
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_a_big_read_cut_off_by_its_reader_exits_141(tmp_path: Path, unbuffered: bool, as_json: bool) -> None:
    """The 5 MB answer is one write; the pipe takes 64 KiB of it and its reader goes: the rest is
    written again and fails, as `read ... | head -1` must see (PYTHONUNBUFFERED used to make it exit 0)."""
    spec = tiny_server(tmp_path, HUGE)
    args = ["read", *(["--json"] if as_json else []), "h://a/huge", "-s", spec]
    proc = subprocess.Popen(
        [sys.executable, "-m", "explorer", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(unbuffered),
        cwd=ROOT,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.read(100)  # the big write has begun (and fills the pipe): then the reader goes
    proc.stdout.close()
    stderr = proc.stderr.read().decode("utf-8", "replace")
    code = proc.wait(timeout=120)
    assert first.startswith(b"{" if as_json else b"line of text")
    assert code == 141, stderr
    assert stderr == ""


@pytest.mark.parametrize("unbuffered", [True, False], ids=["unbuffered", "buffered"])
@pytest.mark.parametrize(
    "args",
    [
        ("tree",),
        ("tree", "--json"),
        ("read", "docs://faq"),
        ("read", "--json", "docs://faq"),
        ("tools", "--json"),
        ("expand", "{x}", "x=1"),
        ("--help",),
        ("tree", "--help"),
        ("locate", "config"),
    ],
    ids=lambda args: " ".join(args),
)
def test_a_full_disk_is_one_line_and_exit_1(args: tuple[str, ...], unbuffered: bool) -> None:
    server = () if args[0] in ("expand", "--help", "locate") else ("-s", demo_server())
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "explorer", *server, *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(unbuffered),
            cwd=ROOT,
            timeout=120,
            check=False,
        )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == FULL


@pytest.mark.parametrize(
    "args", [("read", "--json", "docs://faq"), ("tree",), ("expand", "{x}", "x=1")], ids=lambda a: a[0]
)
def test_a_closed_stdout_is_one_line_and_exit_1(args: tuple[str, ...]) -> None:
    server = () if args[0] == "expand" else ("-s", demo_server())
    proc = subprocess.run(
        ["sh", "-c", 'exec "$0" "$@" >&-', sys.executable, "-m", "explorer", *server, *args],
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == "error: could not write the output: stdout is closed\n"


def test_a_full_disk_during_watch_is_not_the_servers_fault() -> None:
    """`read --watch` writes inside the server's job: the write error is still ours, one line."""
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "explorer",
                "-s",
                demo_server(),
                "read",
                "--watch",
                "--for",
                "30",
                "docs://faq",
            ],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            timeout=120,
            check=False,
        )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == FULL


def test_an_answer_that_fits_is_still_written_whole() -> None:
    result = run_cli("expand", "x://{a}", "a=1")
    assert result.code == 0, result
    assert result.stdout == "x://1\n"
