"""A stdio server's stderr log: one file per server per run, capped, quoted from this connection only."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.connection import stderr_log
from explorer.connection.stderr_log import begin_run
from explorer.connection.transports import tail
from explorer.paths import server_log_path
from tests.helpers.cli import raw_server, run_cli


def test_the_first_connection_of_a_run_empties_the_log(tmp_path: Path) -> None:
    log = tmp_path / "srv.log"
    log.write_text("panic: last week's crash\n")
    stderr_log._begun.discard(log)
    assert begin_run(log) == 0
    assert log.read_bytes() == b""


def test_a_reconnect_appends_after_a_marker_and_quotes_start_there(tmp_path: Path) -> None:
    log = tmp_path / "srv.log"
    stderr_log._begun.discard(log)
    begin_run(log)
    log.write_text("first connection said this\n")
    start = begin_run(log)
    with log.open("a") as handle:
        handle.write("second connection said that\n")
    assert "--- reconnected at " in log.read_text()
    assert tail(log, 4096, start=start) == "second connection said that\n"


def test_a_log_over_the_cap_keeps_its_newest_part(tmp_path: Path) -> None:
    log = tmp_path / "srv.log"
    stderr_log._begun.discard(log)
    begin_run(log)
    log.write_bytes(b"".join(b"line %06d\n" % i for i in range(20_000)))  # 240 kB
    begin_run(log, max_bytes=100_000)
    text = log.read_text()
    assert len(text) < 60_000
    assert text.startswith("--- earlier output dropped")
    assert "line 019999" in text and "line 000000" not in text


@pytest.mark.slow
def test_an_error_quotes_only_this_runs_stderr() -> None:
    spec = raw_server("exit-at-start")
    log = server_log_path("raw_server.py")
    log.write_text("fatal: an old run's message that must not be quoted\n")
    result = run_cli("tree", "-s", spec)
    assert result.code == 1
    assert "could not open the database (fixture)" in result.stderr
    assert "old run" not in result.stderr
    assert "old run" not in log.read_text()
