"""Exporting the protocol log (`L`, then `e`) never crashes, never waits for good, never writes over a file.

A log folder that is a file is said in a notification; a FIFO at the export's name is left alone (opening
it would wait for a reader with the UI frozen); two exports in one second get two files. The clock the
screen names its files by is frozen here, so that the name an export tries first is known.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest

from explorer.screens import protocol_log
from explorer.screens.protocol_log import ProtocolLogScreen
from explorer.widgets.frame_list import FrameList
from tests.app_helpers import demo_spec, settled_app, wait_for

pytestmark = [pytest.mark.anyio, pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")]

FROZEN = time.localtime(1_700_000_000)
STEM = f"protocol-{time.strftime('%Y%m%d-%H%M%S', FROZEN)}"
GUARD = 30.0  # seconds: a hang guard, far beyond an export of a few dozen frames


@pytest.fixture(autouse=True)
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every export names the same second."""
    clock = SimpleNamespace(strftime=lambda form, when=None: time.strftime(form, FROZEN))
    monkeypatch.setattr(protocol_log, "time", clock)


def messages(app: Any) -> list[str]:
    return [str(n.message) for n in app._notifications]


@pytest.fixture
def fifo_reader() -> Iterator[Callable[[Path], Path]]:
    """A FIFO at the name an export tries first. Should an export open it anyway (and wait there with the
    whole event loop), a reader comes after the hang guard's time, so the test fails instead of hanging."""
    holder: dict[str, Path] = {}
    done = threading.Event()

    def unblock() -> None:
        if done.wait(GUARD + 10):
            return
        descriptor = os.open(holder["fifo"], os.O_RDONLY | os.O_NONBLOCK)
        os.set_blocking(descriptor, True)
        try:
            while os.read(descriptor, 65536):
                pass
        finally:
            os.close(descriptor)

    thread = threading.Thread(target=unblock, daemon=True)

    def make(path: Path) -> Path:
        os.mkfifo(path)
        holder["fifo"] = path
        thread.start()
        return path

    yield make
    done.set()
    if thread.is_alive():
        thread.join(GUARD + 20)


async def open_log(app: Any, pilot: Any) -> ProtocolLogScreen:
    await pilot.press("L")
    await wait_for(pilot, lambda: isinstance(app.screen, ProtocolLogScreen))
    screen = app.screen
    assert isinstance(screen, ProtocolLogScreen)
    await wait_for(pilot, lambda: bool(screen.query_one(FrameList).frames))
    return screen


async def export(app: Any, pilot: Any, before: int) -> str:
    """Press `e` and return the notification it gives."""
    with anyio.fail_after(GUARD):
        await pilot.press("e")
        await wait_for(pilot, lambda: len(messages(app)) > before, timeout=GUARD)
    return messages(app)[before]


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def exported(note: str) -> tuple[int, Path]:
    """How many frames and which file an "Exported N frames to FILE" notification names."""
    found = re.fullmatch(r"Exported ([\d,]+) frames to (.+)", note)
    assert found, note
    return int(found[1].replace(",", "")), Path(found[2])


async def test_a_log_folder_that_is_a_file_is_said_and_the_app_goes_on(isolated_home: Path) -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        screen = await open_log(app, pilot)
        logs = isolated_home / "logs"
        shutil.rmtree(logs, ignore_errors=True)
        logs.write_text("not a folder")
        note = await export(app, pilot, len(messages(app)))
        assert note.startswith("Export failed:") and str(logs) in note and "not a folder" in note
        assert app.is_running and app.screen is screen
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ProtocolLogScreen))
    assert logs.read_text() == "not a folder"


async def test_a_fifo_at_the_export_name_is_left_alone(
    isolated_home: Path, fifo_reader: Callable[[Path], Path]
) -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        await open_log(app, pilot)
        logs = isolated_home / "logs"
        logs.mkdir(exist_ok=True)
        fifo = fifo_reader(logs / f"{STEM}.jsonl")
        count, written = exported(await export(app, pilot, len(messages(app))))
    assert written == logs / f"{STEM}-2.jsonl" and count > 0
    assert len(records(written)) == count
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


async def test_two_exports_in_one_second_make_two_files(isolated_home: Path) -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        await open_log(app, pilot)
        logs = isolated_home / "logs"
        first_count, first = exported(await export(app, pilot, len(messages(app))))
        first_records = records(first)
        second_count, second = exported(await export(app, pilot, len(messages(app))))
    assert (first, second) == (logs / f"{STEM}.jsonl", logs / f"{STEM}-2.jsonl")
    assert set(logs.glob("protocol-*.jsonl")) == {first, second}
    assert records(first) == first_records and len(first_records) == first_count > 0
    assert len(records(second)) == second_count > 0
    assert {"t", "server", "dir", "frame"} <= set(records(second)[0])
