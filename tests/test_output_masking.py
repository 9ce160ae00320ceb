"""Secrets are masked in JSON output's values, never in its field names: a short env value (`text`,
`json`) must not turn the protocol's keys into `***`."""

from __future__ import annotations

import json
from pathlib import Path

from explorer.config.spec import Redactor
from tests.helpers.cli import run_cli
from tests.helpers.tiny_server import tiny_server

_BODY = """
def answer(method, params):
    if method == "resources/list":
        return {"resources": [{"uri": "x://nomime", "name": "n"}]}
    if method == "resources/read":
        return {"contents": [{"uri": "x://nomime", "text": "mode is text"}],
                "_meta": {"sk-live-9f8e7d": "a server's map keyed by the token"}}
    return None
"""


def test_a_short_env_value_masks_values_not_the_json_keys(tmp_path: Path) -> None:
    spec = tiny_server(tmp_path, _BODY)
    result = run_cli("read", "x://nomime", "--json", "-e", "MODE=text", "-s", spec)
    assert result.code == 0, result.stderr
    assert '"***"' not in result.stdout
    data = json.loads(result.stdout)
    assert data["result"]["contents"] == [{"uri": "x://nomime", "text": "mode is ***"}]


def test_a_token_a_server_sends_back_as_a_key_is_masked(tmp_path: Path) -> None:
    spec = tiny_server(tmp_path, _BODY)
    result = run_cli("read", "x://nomime", "--json", "-e", "TOKEN=sk-live-9f8e7d", "-s", spec)
    assert result.code == 0, result.stderr
    assert "9f8e7d" not in result.stdout
    assert json.loads(result.stdout)["result"]["_meta"] == {"***": "a server's map keyed by the token"}


def test_masking_a_value_a_thousand_levels_deep_is_a_loop() -> None:
    value: object = "the token abcd1234"
    for _ in range(5000):
        value = {"text": [value]}
    masked = Redactor(["abcd1234", "text"]).value(value)
    for _ in range(5000):
        assert isinstance(masked, dict) and list(masked) == ["text"]
        masked = masked["text"][0]
    assert masked == "the token ***"
