"""`read --watch --for N` under a storm of `resources/updated`: it exits once `--for` has passed, not after
the unsubscribe's answer queued behind the storm (it waited up to `--timeout` more), and says what happened:
changes were announced, only no re-read finished in time (it said no new version came)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.tiny_server import tiny_server

pytestmark = pytest.mark.slow

# Announces 200 changes right after its subscribe answer; never answers the re-read, nor anything after
# it (the unsubscribe included): it waits until the explorer stops it or is gone.
STORM = """
import os, time
PARENT = os.getppid()
CAPABILITIES = {"resources": {"subscribe": True}}
STATE = {"reads": 0, "flood": False}
_send_once = send

def send(obj):
    _send_once(obj)
    if STATE["flood"]:  # the subscribe's answer is out: the storm follows it
        STATE["flood"] = False
        for _ in range(200):
            _send_once({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                        "params": {"uri": "res://storm"}})

def answer(method, params):
    if method == "resources/read":
        STATE["reads"] += 1
        while STATE["reads"] > 1 and os.getppid() == PARENT:  # until the explorer is gone
            time.sleep(0.2)
        return {"contents": [{"uri": "res://storm", "text": "version one"}]}
    if method == "resources/subscribe":
        STATE["flood"] = True
        return {}
    return None
"""


def test_watch_for_exits_after_for_and_says_the_changes_were_announced(tmp_path: Path) -> None:
    server = tiny_server(tmp_path, STORM, name="storm.py")
    # The hang guard (45 s) is below --timeout (60 s): waiting for the unsubscribe's answer hits it.
    result = run_cli(
        "-s", server, "--timeout", "60", "--protocol", "legacy", "read", "--watch", "--for", "2", "res://storm",
        timeout=45,
    )  # fmt: skip
    assert result.code == 3, result
    assert "version one" in result.stdout, result
    said = re.search(
        r"warning: server storm\.py: [\d,]+ changes of res://storm were announced, "
        r"but no re-read finished within 2 seconds \(--for\)",
        result.stderr,
    )
    assert said is not None, result
    assert "no new version" not in result.stderr, result
