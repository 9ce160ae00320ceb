"""No server process outlives the explorer (issue 9), even one that ignores stdin EOF and SIGTERM and
forks a child that does the same (`stubborn`), or one that exits on EOF but leaves a child behind
(`leaves-child`).

Each test starts the fixture through the explorer as a user would (the CLI as a subprocess; the TUI in a
pseudo-terminal, pressing `q`, and with Pilot), reads the pids the fixture wrote, and polls (generously)
until neither process nor anything else in the server's process group runs; zombies count as gone.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from textual.pilot import Pilot

from explorer.connection import stdio
from tests.app_helpers import SIZE, make_app, settled_app, wait_settled
from tests.helpers.cli import run_cli
from tests.helpers.pty_tui import pty_tui
from tests.hostile_helpers import (
    hostile_server,
    hostile_spec,
    hostile_words,
    kill_leftovers,
    read_pids,
    wait_all_gone,
    wait_all_gone_async,
)

pytestmark = [pytest.mark.skipif(sys.platform != "linux", reason="reads /proc"), pytest.mark.slow]


def assert_nothing_left(pids: list[int]) -> None:
    left = wait_all_gone(pids, pgid=pids[0])
    kill_leftovers(left)
    assert not left, f"still running after the explorer exited: {left}"


# ------------------------------------------------------------------------------------------------ CLI


@pytest.mark.parametrize("mode", ["stubborn", "leaves-child"])
def test_the_cli_leaves_no_process_behind(mode: str, tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    spec = hostile_server(mode, resources=3, pid_file=pid_file)
    result = run_cli("tree", "--protocol", "legacy", "-s", spec)
    assert result.code == 0, result
    assert_nothing_left(read_pids(pid_file))


# ------------------------------------------------------------------------------------------------ TUI


def run_tui_and_quit(spec: str, pid_file: Path, home: Path) -> tuple[int, list[int]]:
    """Start the real TUI in a pseudo-terminal, wait for the server, press `q`; (exit code, pids)."""
    with pty_tui(spec, home) as tui:
        tui.wait_for(pid_file)
        pids = read_pids(pid_file)
        tui.drain(2.0)  # let the listing finish on screen
        os.write(tui.master, b"q")
        return tui.exit_status(), pids


@pytest.mark.parametrize("mode", ["stubborn", "leaves-child"])
def test_the_tui_leaves_no_process_behind_after_q(mode: str, tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    code, pids = run_tui_and_quit(hostile_server(mode, resources=3, pid_file=pid_file), pid_file, tmp_path)
    assert code == 0
    assert_nothing_left(pids)


@pytest.mark.anyio
async def test_closing_the_app_stops_a_server_that_left_a_child(tmp_path: Path) -> None:
    """With Pilot: the connection's own shutdown (no exit-time safety net) ends the whole group."""
    pid_file = tmp_path / "pids"
    async with settled_app(hostile_spec("lingering", "leaves-child", resources=3, pid_file=pid_file)) as (
        _app,
        pilot,
    ):
        pids = read_pids(pid_file)
        await pilot.press("q")
    left = await wait_all_gone_async(pids, pgid=pids[0])
    kill_leftovers(left)
    assert not left, f"still running after the app closed: {left}"
    assert pids[0] not in stdio.live_server_groups()


def test_quitting_stops_the_servers_before_the_loop_ends(tmp_path: Path) -> None:
    """`app.run()` as the command runs it: after `q` the app itself has stopped every server, so the
    exit-time safety net finds nothing (it used to find each server still running: the stop a cancelled
    worker left behind died with the loop)."""
    pid_file = tmp_path / "pids"
    app = make_app(hostile_spec("lingering", "leaves-child", resources=3, pid_file=pid_file))
    pids: list[int] = []

    async def quit_when_settled(pilot: Pilot[object]) -> None:
        await wait_settled(pilot, app)
        pids.extend(read_pids(pid_file))
        await pilot.press("q")

    try:
        app.run(headless=True, size=SIZE, auto_pilot=quit_when_settled)
        assert pids, "the server never started"
        assert pids[0] not in stdio.live_server_groups(), "the app left its server to the exit-time net"
        left = wait_all_gone(pids, pgid=pids[0])
        assert not left, f"still running after the app closed: {left}"
    finally:
        stdio.stop_leftover_servers(grace=0.2)
        kill_leftovers(pids)


# --------------------------------------------------------------------------------------- safety net


def test_the_safety_net_terminates_then_kills_every_registered_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    proc = subprocess.Popen(
        hostile_words("stubborn", pid_file=pid_file),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    pids: list[int] = [proc.pid]
    try:
        pids = read_pids(pid_file)
        running_before = [name for _pgid, name in stdio.live_server_groups().items()]
        stdio._register_group(proc.pid, "stubborn")
        assert stdio.live_server_groups()[proc.pid] == "stubborn"
        # Every registered group is stopped: this one, and any an earlier test in this worker left.
        stopped = stdio.stop_leftover_servers(grace=0.2)
        assert "stubborn" in stopped
        assert set(stopped) <= {"stubborn", *running_before}
        proc.wait(timeout=10)
        assert_nothing_left(pids)
        assert proc.pid not in stdio.live_server_groups()
        # (Not its return code: the safety net reaps its own children, so Popen may find it reaped.)
    finally:
        kill_leftovers(pids)
        proc.wait(timeout=10)
        assert proc.stdin is not None
        proc.stdin.close()
