"""A closed terminal (SIGHUP) or a `kill` (SIGTERM) stops the servers before the explorer ends.

Their default action ended Python at once, skipping the exit-time safety net, so a server that ignores
stdin EOF and SIGTERM (`stubborn`, which forks a child that does the same) ran on for ever. Each test
starts the explorer as a user would (the TUI in a pseudo-terminal, the CLI as a subprocess), waits for the
server's pids, signals the explorer, and checks its exit status and that no server process is left.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT
from tests.helpers.pty_tui import pty_tui
from tests.hostile_helpers import hostile_server, kill_leftovers, read_pids, wait_all_gone

pytestmark = [pytest.mark.skipif(sys.platform != "linux", reason="reads /proc"), pytest.mark.slow]

LEAVE_ALTERNATE_SCREEN = b"\x1b[?1049l"


def left_behind(pids: list[int]) -> list[int]:
    """The server's processes still running once the explorer ended (killed here, so none leaks)."""
    left = wait_all_gone(pids, pgid=pids[0])
    kill_leftovers(left)
    return left


def stubborn_server(pid_file: Path) -> str:
    """Ignores stdin EOF and SIGTERM, forks a child that does the same, and never ends its listing (the
    CLI is still at work when the signal comes)."""
    return hostile_server("stubborn", "hang-list", resources=3, pid_file=pid_file)


def signal_tui(sig: signal.Signals, spec: str, pid_file: Path, home: Path) -> tuple[int, list[int], bytes]:
    """Start the real TUI in a pseudo-terminal, wait for the server, send `sig` to the TUI;
    (exit status, the server's pids, what the TUI wrote to the terminal after the signal)."""
    with pty_tui(spec, home) as tui:
        tui.wait_for(pid_file)
        pids = read_pids(pid_file)
        tui.drain(2.0)  # let the app connect and draw
        tui.written.clear()
        tui.proc.send_signal(sig)
        return tui.exit_status(), pids, bytes(tui.written)


def signal_cli(sig: signal.Signals, pid_file: Path) -> tuple[int, list[int], str]:
    """Run `tree` on the stubborn server, send `sig` once it runs; (exit status, pids, stderr)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "explorer", "tree", "--protocol", "legacy", "-s", stubborn_server(pid_file)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        start_new_session=True,
    )
    try:
        pids = read_pids(pid_file, timeout=60)
        time.sleep(1.0)  # let it send its requests: the listing never ends
        proc.send_signal(sig)
        _stdout, stderr = proc.communicate(timeout=60)
        return proc.returncode, pids, stderr
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)


# ------------------------------------------------------------------------------------------------ TUI


def test_closing_the_terminal_stops_the_tui_servers(tmp_path: Path) -> None:
    """SIGHUP: the terminal is gone, so nothing is restored on it; the signal still ends the app."""
    pid_file = tmp_path / "pids"
    code, pids, _written = signal_tui(signal.SIGHUP, stubborn_server(pid_file), pid_file, tmp_path)
    left = left_behind(pids)
    assert not left, f"still running after the terminal closed: {left}"
    assert code == -signal.SIGHUP  # a shell says 129


def test_sigterm_stops_the_tui_servers_and_restores_the_terminal(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    code, pids, written = signal_tui(signal.SIGTERM, stubborn_server(pid_file), pid_file, tmp_path)
    left = left_behind(pids)
    assert not left, f"still running after SIGTERM: {left}"
    assert code == 128 + signal.SIGTERM
    assert LEAVE_ALTERNATE_SCREEN in written, "the terminal was left in the app's screen"


# ------------------------------------------------------------------------------------------------ CLI


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_stops_the_cli_servers(sig: signal.Signals, tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    code, pids, stderr = signal_cli(sig, pid_file)
    left = left_behind(pids)
    assert not left, f"still running after {sig.name}: {left}"
    assert code == -sig, stderr  # ended by the signal, as before: a shell says 128 + its number
    assert "Traceback" not in stderr


def test_ctrl_c_still_stops_the_cli_listing_with_130(tmp_path: Path) -> None:
    """SIGINT keeps its own handling: the listing stops, what arrived is printed, exit 130."""
    pid_file = tmp_path / "pids"
    code, pids, stderr = signal_cli(signal.SIGINT, pid_file)
    left = left_behind(pids)
    assert not left, f"still running after Ctrl+C: {left}"
    assert code == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr


def test_a_cli_run_under_nohup_survives_the_terminal_closing(tmp_path: Path) -> None:
    """A SIGHUP that was ignored when the explorer started (`nohup`) stays ignored: the run finishes."""
    spec = hostile_server("slow-list", delay=2, resources=3)
    proc = subprocess.Popen(
        [sys.executable, "-m", "explorer", "tree", "--protocol", "legacy", "-s", spec],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN),  # what nohup does
    )
    try:
        time.sleep(1.0)  # started, and waiting for its first page
        proc.send_signal(signal.SIGHUP)
        stdout, stderr = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    assert proc.returncode == 0, stderr
    assert "fixture://" in stdout, stdout
