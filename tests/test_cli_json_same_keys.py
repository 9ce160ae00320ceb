"""Every server in `servers --json` and `tree --json` has the same keys, null where nothing is known.

A hunt found a server that never connected without `serverInfo`, `capabilities`, `instructions`,
`stoppedBy`, `lists` and others, though the README lists them for every server: a script reading
`server["serverInfo"]` of each failed with a KeyError on the one that was down.
"""

from __future__ import annotations

import json
import sys

import pytest

from tests.helpers.cli import demo_server, run_cli

pytestmark = pytest.mark.slow

DOWN = f'{sys.executable} -c "import sys; sys.exit(3)"'


@pytest.mark.parametrize("command", ["servers", "tree"])
def test_a_server_that_never_connected_has_every_key_null_or_empty(command: str) -> None:
    result = run_cli("-s", demo_server(), "-s", DOWN, command, "--json")
    assert result.code == 1, result
    up, down = json.loads(result.stdout)["servers"]
    assert up["ok"] is True and down["ok"] is False, result.stdout
    assert set(down) == set(up) - {"notes", "warning"}, (sorted(up), sorted(down))
    for key in ("serverInfo", "capabilities", "instructions", "stoppedBy", "lists", "skipped", "bytes"):
        assert down[key] is None, (key, down[key])
    assert down["pages"] == 0 and down["skipReasons"] == []
