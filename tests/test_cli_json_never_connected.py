"""A server that never connected has the keys of one that did in every `--json` command's `servers[]`.

`servers --json` and `tree --json` had this fixed before (tests/test_cli_json_same_keys.py). A hunt next
to the demo server found `prompts --json` giving the server that was down `name`, `ok` and `error` only,
without the `complete` and `stoppedBy` of the connected one: a script reading `s["complete"]` of each
failed with a KeyError. `tools`, `match`, `prompt`, `read` and `read --watch` are checked the same way.
`error` keeps its documented type: a string in `tools`/`match`, an object in `prompts`/`prompt`/`read`.
"""

from __future__ import annotations

import json

import pytest

from tests.helpers.cli import demo_server, run_cli

pytestmark = pytest.mark.slow

DOWN = "no-such-command-xyz"  # never connects: the command is not found

COMMANDS = {
    "prompts": ["prompts", "--json"],
    "tools": ["tools", "--json"],
    "match": ["match", "--json", "docs://about"],
    "prompt": ["prompt", "--json", "describe-logo"],
    "read": ["read", "--json", "docs://about"],
    "read --watch": ["read", "--watch", "--count", "0", "--json", "docs://about"],
}
ERROR_IS_TEXT = {"tools", "match"}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_server_that_never_connected_has_every_key_of_one_that_did(command: str) -> None:
    result = run_cli("-s", demo_server(), "-s", DOWN, *COMMANDS[command])
    assert result.stdout, result
    up, down = json.loads(result.stdout)["servers"]
    assert up["ok"] is True and down["ok"] is False, result.stdout
    assert set(down) == set(up) - {"notes", "warning"}, (sorted(up), sorted(down))
    assert up["error"] is None
    if command in ERROR_IS_TEXT:
        assert isinstance(down["error"], str) and "not found" in down["error"], down["error"]
    else:
        assert down["error"]["origin"] == "explorer" and "not found" in down["error"]["message"], down
    if "complete" in up:
        assert down["complete"] is False and down["stoppedBy"] is None, down
