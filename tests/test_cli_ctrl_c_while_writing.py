"""Ctrl+C while `tree --json` is being written: the first lets the document be written whole, a second
cuts it and says so.

Found by a CLI hunt: once the listings were done, the signal receiver was gone and Python's own handler
raised KeyboardInterrupt inside the write, so one Ctrl+C left a JSON document cut after its first 64 KB,
with nothing said on stderr. The first Ctrl+C now says the rest is being written and the command exits
130 at the end with a whole document; a second one stops at once (130) and stderr says the output is
incomplete.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from explorer.cli.ctrl_c import CUT_SHORT, WHILE_WRITING
from tests.helpers.cli import demo_server
from tests.helpers.paths import ROOT
from tests.helpers.tiny_server import tiny_server

pytestmark = pytest.mark.slow

HANG_GUARD = 120.0
FIXTURE = ROOT / "benchmarks" / "fixture_server.py"


class Writer:
    """A command's JSON (by default `tree --json` of 20,000 resources, some 11 MB) into a pipe nobody
    reads until told."""

    def __init__(self, *args: str) -> None:
        server = f"{sys.executable} {FIXTURE} --count 20000"
        env = {key: value for key, value in os.environ.items() if key != "FORCE_COLOR"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "explorer", *(args or ("-s", server, "tree", "--json"))],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            env=env,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        stderr = self.proc.stderr
        assert stderr is not None
        self.reader = threading.Thread(
            target=lambda: [self.lines.put(line.decode()) for line in stderr], daemon=True
        )
        self.reader.start()
        self.said: list[str] = []

    def first_bytes(self) -> bytes:
        """The document's start: the listing is done and writing has begun (the rest waits on the pipe,
        far larger than its buffer)."""
        assert self.proc.stdout is not None
        return os.read(self.proc.stdout.fileno(), 16)

    def ctrl_c_taken(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        while not any(WHILE_WRITING in line for line in self.said):
            self.said.append(self.lines.get(timeout=HANG_GUARD))

    def rest(self) -> tuple[bytes, str]:
        assert self.proc.stdout is not None
        data = self.proc.stdout.read()
        self.proc.wait(timeout=HANG_GUARD)
        self.reader.join(timeout=HANG_GUARD)
        while not self.lines.empty():
            self.said.append(self.lines.get())
        return data, "".join(self.said)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def ctrl_c_while_writing(writer: Writer, *, times: int = 1) -> tuple[bytes, str]:
    """Press Ctrl+C `times` while `writer` writes (the first one taken before the next); all it wrote,
    and its stderr."""
    try:
        start = writer.first_bytes()
        writer.ctrl_c_taken()
        for _ in range(times - 1):
            writer.proc.send_signal(signal.SIGINT)
        rest, stderr = writer.rest()
    finally:
        writer.close()
    return start + rest, stderr


def test_one_ctrl_c_while_writing_leaves_a_whole_document_and_exit_130() -> None:
    writer = Writer()
    written, stderr = ctrl_c_while_writing(writer)
    document = json.loads(written)
    assert len(document["resources"]) == 20000
    assert document["tree"]["count"] == 20002  # 20,000 resources and the fixture's two templates
    assert writer.proc.returncode == 130, stderr
    assert CUT_SHORT not in stderr and "Traceback" not in stderr, stderr


def test_a_second_ctrl_c_while_writing_stops_and_says_the_output_is_incomplete() -> None:
    writer = Writer()
    written, stderr = ctrl_c_while_writing(writer, times=2)
    with pytest.raises(json.JSONDecodeError):
        json.loads(written)
    assert writer.proc.returncode == 130, stderr
    assert stderr.rstrip("\n").endswith(CUT_SHORT), stderr
    assert "Traceback" not in stderr, stderr


BIG_READ = """
def answer(method, params):
    if method == "resources/list":
        return {"resources": [{"uri": "x://big", "name": "big"}]}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    if method == "resources/read":
        return {"contents": [{"uri": "x://big", "text": "x" * 8_000_000}]}
    return None
"""


@pytest.mark.parametrize("servers", [1, 2])
def test_one_ctrl_c_while_read_writes_leaves_a_whole_document_and_exit_130(
    tmp_path: Path, servers: int
) -> None:
    """`read` wrote inside its Ctrl+C block, whose receiver dropped the signal: exit 0, nothing said."""
    big = tiny_server(tmp_path, BIG_READ)
    others = ("-s", demo_server()) if servers == 2 else ()
    writer = Writer("-s", big, *others, "read", "x://big", "--json")
    written, stderr = ctrl_c_while_writing(writer)
    document = json.loads(written)
    assert document["ok"] is True and len(document["result"]["contents"][0]["text"]) == 8_000_000
    assert writer.proc.returncode == 130, stderr
