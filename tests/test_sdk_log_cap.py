"""The SDK's log (`sdk.log`) is capped and repeats are counted, not written: a server that makes the SDK
log a traceback per message (invalid notifications) can neither fill the disk nor spend the CPU on them,
and nothing of it reaches the terminal."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.connection.sdk_logs import FORMAT, KEEP_EACH, MAX_LOG_BYTES, TRACEBACKS_EACH, CappedLog
from tests.helpers.cli import run_cli
from tests.helpers.tiny_server import tiny_server

CAP = 4096


@pytest.fixture
def sdk_logger() -> Iterator[logging.Logger]:
    """A logger of its own, routed nowhere else (the process's `client` logger may be routed already)."""
    logger = logging.getLogger("test-sdk-log-cap")
    logger.propagate = False
    yield logger
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
        handler.close()


def capped(logger: logging.Logger, path: Path, max_bytes: int = CAP) -> CappedLog:
    handler = CappedLog(path, max_bytes=max_bytes)
    handler.setFormatter(logging.Formatter(FORMAT))
    logger.addHandler(handler)
    return handler


def log_failure(logger: logging.Logger, method: str = "notifications/progress") -> None:
    """What the SDK does with a notification it cannot validate: a warning with the traceback."""
    try:
        raise ValueError("2 validation errors for ProgressNotification")
    except ValueError:
        logger.warning("Failed to validate notification: %s", method, exc_info=True)


def test_the_file_stays_under_its_cap_however_many_records_come(
    sdk_logger: logging.Logger, tmp_path: Path
) -> None:
    path = tmp_path / "sdk.log"
    capped(sdk_logger, path)
    for kind in range(300):  # more kinds than are told apart, each written a few times
        for _ in range(KEEP_EACH + 1):
            sdk_logger.warning(f"kind {kind}: " + "x" * 700)  # a message per kind, as an f-string makes
            assert path.stat().st_size <= CAP
    sdk_logger.warning("one huge record %s", "y" * 1_000_000)
    assert path.stat().st_size <= CAP
    sdk_logger.handlers[0].close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sdk.log", "sdk.log.1"]  # one backup, no more
    assert all(p.stat().st_size <= CAP for p in tmp_path.iterdir())


def test_repeats_are_counted_and_a_summary_says_how_many_were_left_out(
    sdk_logger: logging.Logger, tmp_path: Path
) -> None:
    path = tmp_path / "sdk.log"
    capped(sdk_logger, path, max_bytes=MAX_LOG_BYTES)
    for _ in range(20_000):
        log_failure(sdk_logger)
    sdk_logger.handlers[0].close()  # as logging.shutdown does at exit
    text = path.read_text()
    assert text.count("Failed to validate notification: notifications/progress") == KEEP_EACH + 4
    assert text.count("Traceback (most recent call last)") == TRACEBACKS_EACH
    summaries = re.findall(r"… ([\d,]+) more records like this: .* \(left out (so far|in all)\)", text)
    assert summaries == [("100", "so far"), ("1,000", "so far"), ("10,000", "so far"), ("19,995", "in all")]
    assert len(text) < 10_000  # not 20,000 tracebacks (27 MB)


def test_kinds_are_counted_apart(sdk_logger: logging.Logger, tmp_path: Path) -> None:
    path = tmp_path / "sdk.log"
    capped(sdk_logger, path, max_bytes=MAX_LOG_BYTES)
    for _ in range(KEEP_EACH + 7):
        log_failure(sdk_logger, "notifications/progress")
        sdk_logger.error("Received exception from stream")
    sdk_logger.handlers[0].close()
    text = path.read_text()
    assert "… 7 more records like this: Failed to validate notification" in text
    assert "… 7 more records like this: Received exception from stream (left out in all)" in text


def test_a_log_found_over_its_cap_keeps_only_its_newest_part(
    sdk_logger: logging.Logger, tmp_path: Path
) -> None:
    path = tmp_path / "sdk.log"
    path.write_bytes(b"".join(b"old line %07d\n" % i for i in range(100_000)))  # 1.7 MB, from before the cap
    capped(sdk_logger, path)
    sdk_logger.warning("new")
    assert path.stat().st_size <= CAP
    text = path.read_text()
    assert "old line 0099999" in text and "old line 0000000" not in text and text.endswith("WARNING new\n")


def test_nothing_reaches_the_terminal_even_when_the_log_cannot_be_written(
    sdk_logger: logging.Logger, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "sdk.log").mkdir()  # a folder where the file should be: every write fails
    capped(sdk_logger, tmp_path / "sdk.log")
    for _ in range(50):
        log_failure(sdk_logger)
    sdk_logger.handlers[0].close()
    captured = capfd.readouterr()
    assert captured.out == captured.err == ""


ANSWERS = """
N = int(sys.argv[1])
NAME = "bad-notifications"
def answer(method, params):
    if method == "resources/list":
        for k in range(N):  # an update's URI may not be a number: the SDK logs a traceback
            send({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                  "params": {"uri": k}})
        return {"resources": [{"uri": "bad://a", "name": "a"}]}
    return {"resourceTemplates": []}
"""


@pytest.mark.slow
def test_invalid_notifications_leave_a_capped_log_and_nothing_on_the_terminal(
    tmp_path: Path, isolated_home: Path
) -> None:
    notifications = 3_000  # 4 MB of tracebacks before the cap
    spec = tiny_server(tmp_path, ANSWERS, str(notifications))
    result = run_cli("tree", "--protocol", "legacy", "-s", spec)
    assert result.code == 0, result
    assert "bad://a" in result.stdout and result.stderr == "", result
    log = isolated_home / "logs" / "sdk.log"
    assert log.stat().st_size <= MAX_LOG_BYTES and not log.with_name("sdk.log.1").exists()
    text = log.read_text()
    left_out = notifications - KEEP_EACH
    assert f"… {left_out:,} more records like this: Failed to validate notification" in text
    assert text.count("Traceback (most recent call last)") == TRACEBACKS_EACH
