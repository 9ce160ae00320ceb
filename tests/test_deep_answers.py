"""A server's answer nested deeper than the JSON encoders go (pydantic stops near 255 levels, orjson at 255
on output, the standard library at Python's recursion limit): the protocol log shows it cut, `--wire-log`
records it and the read still works, and `--json` output is valid JSON; never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from explorer.screens.protocol_log import ProtocolLogScreen
from explorer.widgets.frame_list import FrameList
from explorer.widgets.preview import TextView
from tests.app_helpers import settled_app, stdio_spec, wait_for
from tests.helpers.cli import run_cli
from tests.helpers.tiny_server import tiny_server

TOO_DEEP = "too deep to show as JSON"

# `resources/list` and `resources/read` answer with a `_meta` nested DEPTH levels deep; `prompts/get` too.
_BODY = """
DEPTH = int(sys.argv[1])
CAPABILITIES = {"resources": {}, "prompts": {}}
def deep():
    value = 1
    for _ in range(DEPTH):
        value = {"a": value}
    return value
def answer(method, params):
    if method == "resources/list":
        return {"resources": [{"uri": "x://deep", "name": "deep"}], "_meta": deep()}
    if method == "resources/read":
        return {"contents": [{"uri": "x://deep", "text": "hi"}], "_meta": deep()}
    if method == "prompts/list":
        return {"prompts": [{"name": "p"}]}
    if method == "prompts/get":
        return {"messages": [{"role": "user", "content": {"type": "text", "text": "hi", "_meta": deep()}}]}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    return None
"""


def deep_server(folder: Path, depth: int) -> str:
    body = "sys.setrecursionlimit(10000)\n" + _BODY  # for the server's own json.dumps
    return tiny_server(folder, body, str(depth))


def depth_of(value: object) -> int:
    depth = 0
    while isinstance(value, dict) and "a" in value:
        value, depth = value["a"], depth + 1
    return depth


@pytest.mark.anyio
@pytest.mark.slow
async def test_the_protocol_log_shows_a_frame_too_deep_for_json_cut(tmp_path: Path) -> None:
    spec = stdio_spec("deep", deep_server(tmp_path, 300))
    async with settled_app(spec) as (app, pilot):
        await pilot.press("L")
        await wait_for(pilot, lambda: isinstance(app.screen, ProtocolLogScreen))
        log = app.screen
        frames = log.query_one(FrameList)
        await wait_for(pilot, lambda: any(f.method is None and f.kind == "response" for f in frames.frames))
        listing = max(i for i, f in enumerate(frames.frames) if f.kind == "response")
        frames.cursor = listing
        frames.focus()

        def detail() -> str:
            return "\n".join(view.text for view in log.query(TextView))

        await wait_for(pilot, lambda: TOO_DEEP in detail())
        assert '"resources"' in detail() and "x://deep" in detail()
        assert app.is_running


def test_wire_log_records_a_deep_answer_and_the_read_works(tmp_path: Path) -> None:
    log = tmp_path / "wire.jsonl"
    for depth in (260, 1000):
        log.unlink(missing_ok=True)
        spec = deep_server(tmp_path, depth)
        result = run_cli("read", "x://deep", "--json", "--wire-log", str(log), "-s", spec)
        assert result.code == 0, result.stderr
        assert orjson.loads(result.stdout)["result"]["contents"][0]["text"] == "hi"
        records = [json.loads(line) for line in log.read_text().splitlines()]
        read = [r for r in records if r["dir"] == "recv" and "contents" in json.dumps(r["frame"])[:400]]
        assert read, records
        assert TOO_DEEP in json.dumps(read[-1]["frame"])


@pytest.mark.parametrize("secret", [[], ["-e", "TOKEN=abcd1234"]])
def test_json_output_of_an_answer_a_thousand_deep_is_valid_json(tmp_path: Path, secret: list[str]) -> None:
    spec = deep_server(tmp_path, 1000)
    result = run_cli("read", "x://deep", "--json", *secret, "-s", spec)
    assert result.code == 0, result.stderr
    assert "Traceback" not in result.stderr
    data = orjson.loads(result.stdout)  # strict JSON, up to 1,024 levels
    assert depth_of(data["result"]["_meta"]) == 1000

    prompt = run_cli("prompt", "p", "--json", *secret, "-s", spec)
    assert prompt.code == 0, prompt.stderr
    assert "Traceback" not in prompt.stderr
    assert depth_of(orjson.loads(prompt.stdout)["result"]["messages"][0]["content"]["_meta"]) == 1000


def test_a_number_json_cannot_hold_is_written_as_null_with_a_warning(tmp_path: Path) -> None:
    body = """
def answer(method, params):
    if method == "resources/list":
        return {"resources": [{"uri": "x://n", "name": "n"}]}
    if method == "resources/read":
        return {"contents": [{"uri": "x://n", "text": "hi"}], "_meta": {"big": 10**100, "inf": 1e400}}
    return None
"""
    result = run_cli("read", "x://n", "--json", "-s", tiny_server(tmp_path, body))
    assert result.code == 0, result.stderr
    meta = json.loads(result.stdout)["result"]["_meta"]  # strict: Infinity is not JSON
    assert meta == {"big": 10**100, "inf": None}
    assert "Infinity" not in result.stdout
    assert "warning: a number too large for JSON (or not a number) written as null." in result.stderr
