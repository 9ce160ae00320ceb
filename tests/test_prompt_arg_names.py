"""`prompt NAME ARG=VALUE` with argument (and prompt) names a plain `NAME=VALUE` word could not reach.

`prompts` shows names sanitized (`who\\x1b` for ESC, `line\\nbreak`), so what a user copied from there
matched nothing and was sent as a new, undeclared argument; a name holding `=` (`x=y`) was cut at its
own `=`; and the TUI's "Copy as command line" wrote such arguments as words that ran something else
(`'x=y=1'` sent `x`, `-v=1` was read as an option). A raw stdio server lists such names and echoes
what prompts/get gave it.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from explorer.cli.prompt_cmd import GivenArguments
from explorer.config import ServerSpec
from explorer.model.copy_as import prompt_command
from tests.helpers.cli import CliResult, run_cli
from tests.helpers.paths import ROOT
from tests.helpers.tiny_server import tiny_server

ALIKE = ["e" + "\u0301" * 8 + "\u0300", "e" + "\u0301" * 8 + "\u0302"]  # marks past the 8th: shown alike
PROMPTS: list[dict[str, Any]] = [
    {
        "name": "echo",
        "arguments": [
            {"name": "who\x1b", "required": True},
            {"name": "a b"},
            {"name": "x=y"},
            {"name": "line\nbreak"},
            {"name": "-v"},
        ],
    },
    {"name": "evil\x1b[2J", "arguments": [{"name": "who"}]},
    {"name": "-dash", "arguments": [{"name": "k"}]},
    {"name": "alike", "arguments": [{"name": name} for name in ALIKE]},
]

BODY = f"""
CAPABILITIES = {{"prompts": {{}}}}
PROMPTS = json.loads({json.dumps(PROMPTS)!r})
def answer(method, params):
    if method == "prompts/list":
        return {{"prompts": PROMPTS}}
    if method == "prompts/get":
        got = {{"name": params.get("name"), "arguments": params.get("arguments") or {{}}}}
        return {{"messages": [{{"role": "user", "content": {{"type": "text", "text": json.dumps(got)}}}}]}}
    return None
"""

pytestmark = pytest.mark.slow


@pytest.fixture
def server(tmp_path: Path) -> str:
    return tiny_server(tmp_path, BODY, name="names_server.py")


def got(result: CliResult) -> dict[str, Any]:
    """What the server was asked for, from `prompt --json`."""
    assert result.code == 0, result
    echoed: dict[str, Any] = json.loads(json.loads(result.stdout)["result"]["messages"][0]["content"]["text"])
    return echoed


def test_the_names_prompts_shows_are_the_names_prompt_takes(server: str) -> None:
    listing = run_cli("prompts", "-s", server)
    assert listing.code == 0, listing
    line = next(line for line in listing.stdout.splitlines() if line.startswith("echo("))
    assert "\x1b" not in listing.stdout and line.startswith("echo(who\\x1b*, a b, x=y, line\\nbreak, -v)")
    shown = ["who\\x1b", "a b", "x=y", "line\\nbreak"]  # as a user copies them from that line
    result = run_cli("prompt", "echo", "--json", "-s", server, *[f"{n}={i}" for i, n in enumerate(shown)])
    assert got(result) == {
        "name": "echo",
        "arguments": {"who\x1b": "0", "a b": "1", "x=y": "2", "line\nbreak": "3"},
    }
    assert "warning" not in result.stderr and json.loads(result.stdout)["arguments"]["who\x1b"] == "0"
    prompt = run_cli("prompt", "evil\\x1b[2J", "who=Ann", "--json", "-s", server)  # the prompt as shown
    assert got(prompt) == {"name": "evil\x1b[2J", "arguments": {"who": "Ann"}}


def test_arg_json_gives_exact_names_and_values(server: str) -> None:
    exact = {"-v": "1", "who\x1b": "A\x1bB", "x=y": "3=4"}
    result = run_cli("prompt", "echo", "--arg-json", json.dumps(exact), "--json", "-s", server)
    assert got(result) == {"name": "echo", "arguments": exact}
    for bad, said in [
        ("[1]", "--arg-json takes a JSON object"),
        ('{"who": 1}', "the value of 'who' is not a string"),
        ("{", "--arg-json is not JSON"),
    ]:
        refused = run_cli("prompt", "echo", "--arg-json", bad, "-s", server)
        assert refused.code == 2 and said in refused.stderr, refused


def test_an_unknown_or_ambiguous_name_is_said_with_the_names_as_shown(server: str) -> None:
    typo = run_cli("prompt", "echo", "who\\x1=1", "who\\x1b=2", "--json", "-s", server)
    assert got(typo)["arguments"] == {"who\\x1": "1", "who\x1b": "2"}  # sent anyway: the server decides
    assert (
        "prompt echo: 'who\\x1' is not one of its arguments (who\\x1b, a b, x=y, line\\nbreak, -v), "
        "sent anyway; did you mean 'who\\x1b'?"
    ) in typo.stderr
    assert "\x1b" not in typo.stderr and "\n" not in typo.stderr.strip()
    missing = run_cli("prompt", "echo", "a b=1", "-s", server)
    assert missing.code == 2 and "missing required argument(s): who\\x1b" in missing.stderr
    shown = ALIKE[0][:9] + "[+1 combining marks]"
    alike = run_cli("prompt", "alike", f"{shown}=1", "-s", server)
    assert alike.code == 2 and alike.stdout == "", alike
    assert "several of its arguments are shown alike" in alike.stderr and "--arg-json" in alike.stderr
    exact = run_cli("prompt", "alike", "--arg-json", json.dumps({ALIKE[1]: "1"}), "--json", "-s", server)
    assert got(exact)["arguments"] == {ALIKE[1]: "1"}


def test_copy_as_command_line_runs_the_same_prompt_again(server: str) -> None:
    """The TUI's copied line, run by bash as it is pasted, asks the server for exactly the same."""
    words = shlex.split(server)
    spec = ServerSpec(name="names", transport="stdio", command=words[0], args=tuple(words[1:]))
    asked = [
        ("echo", {"who\x1b": "A\x1bB", "a b": "1 2", "x=y": "1=2", "line\nbreak": "l\nm", "-v": "-w"}),
        ("evil\x1b[2J", {"who": "Ann"}),
        ("-dash", {"k": "v"}),
    ]
    for name, arguments in asked:
        line = prompt_command(spec, name, arguments)
        assert all(" " <= char < "\x7f" for char in line), line
        program = f'mcp-url-explorer() {{ "$PYTHON" -m explorer "$1" --json "${{@:2}}"; }}\n{line}\n'
        env = {**os.environ, "PYTHON": sys.executable}
        env.pop("FORCE_COLOR", None)
        ran = subprocess.run(
            ["bash", "-c", program],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=env,
            timeout=90,
            check=False,
        )
        result = CliResult(ran.returncode, ran.stdout, ran.stderr)
        assert got(result) == {"name": name, "arguments": arguments}, line
        assert "warning" not in result.stderr


def test_a_word_is_cut_at_the_first_equals_sign_that_ends_a_declared_name() -> None:
    both = GivenArguments.parse(["x=y=1"]).resolve(["x", "x=y"])
    assert both.arguments == {"x": "y=1"} and not both.unknown  # `x` declared: it wins, --arg-json says x=y
    exact_first = GivenArguments.parse(["who\\x1b=1"]).resolve(["who\x1b", "who\\x1b"])
    assert exact_first.arguments == {"who\\x1b": "1"}  # a name typed exactly beats one shown so
    for bad in ["novalue", "=1"]:
        with pytest.raises(ValueError, match="expected NAME=VALUE"):
            GivenArguments.parse([bad])
