"""The copied command line, run by bash: the exact argv, no substitution or glob, secrets masked.

Each line is run with `mcp-url-explorer` as a shell function that prints its argv (NUL-separated), in a
folder holding files a stray glob would match, with a marker file a stray `$(...)` would create.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from explorer.config import ServerSpec
from explorer.model.copy_as import read_command
from tests.helpers.cli import run_cli
from tests.helpers.hostile_secrets import SECRETS
from tests.helpers.tiny_server import tiny_server


def argv_of(line: str, folder: Path) -> list[str]:
    """The words `mcp-url-explorer` gets when bash runs `line` in `folder`."""
    script = "mcp-url-explorer() { printf '%s\\0' \"$@\"; }\n" + line
    done = subprocess.run(["bash", "-c", script], cwd=folder, capture_output=True, timeout=30, check=False)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return done.stdout.decode("utf-8").split("\0")[:-1]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A working folder whose files a glob such as `MYKEY=***` or `*` would expand to."""
    work = tmp_path / "work"
    work.mkdir()
    for name in ("MYKEY=leaked", "X=1", "-rf"):
        (work / name).write_text("")
    return work


def marker_of(folder: Path) -> Path:
    return folder.parent / "pwned"


HOSTILE_URIS = [
    "-rf",
    "--json",
    "-",
    "t://a\nb",
    "t://a\x1b]0;x\x07b\r",
    "t://é\u202e\u200b x",
    "t://$(touch {marker})`touch {marker}`",
    "t://'q\"\\ $HOME *",
]


@pytest.mark.parametrize("template", HOSTILE_URIS)
def test_the_copied_read_gives_the_exact_uri_after_dashes(template: str, folder: Path) -> None:
    marker = marker_of(folder)
    uri = template.format(marker=marker)
    line = read_command(ServerSpec(name="s", transport="stdio", command="srv"), uri)
    assert all(ord(char) >= 0x20 for char in line)  # nothing a terminal would act on when pasted
    assert argv_of(line, folder) == ["read", "-s", "srv", "--", uri]
    assert not marker.exists()


def test_a_uri_holding_nul_is_copied_percent_encoded(folder: Path) -> None:
    """No command-line word can hold NUL: that URI goes percent-encoded, as the URI form copies it."""
    line = read_command(ServerSpec(name="s", transport="stdio", command="srv"), "t://a\x00b")
    assert argv_of(line, folder) == ["read", "-s", "srv", "--", "t://a%00b"]


def test_env_goes_as_the_explorers_own_options_each_quoted(folder: Path) -> None:
    marker = marker_of(folder)
    env = {
        "MYKEY": "abc-value",
        f"X$(touch {marker})": "v-secret",
        "A B`touch " + str(marker) + "`": "x-secret",
        "PLAIN": f"1'$(touch {marker})\"*",
    }
    spec = ServerSpec(name="s", transport="stdio", command="srv", env=env, plain_env=frozenset({"PLAIN"}))
    line = read_command(spec, "t://x", protocol="legacy")
    assert argv_of(line, folder) == [
        "read", "-s", "srv",
        "-e", "MYKEY=***",
        "-e", f"X$(touch {marker})=***",
        "-e", f"A B`touch {marker}`=***",
        "-e", f"PLAIN=1'$(touch {marker})\"*",
        "--protocol", "legacy", "--", "t://x",
    ]  # fmt: skip
    assert not marker.exists()
    assert "abc-value" not in line and "v-secret" not in line


@pytest.mark.parametrize("secret", SECRETS)
def test_a_filled_in_secret_is_masked_in_every_word_of_the_copy(secret: str, folder: Path) -> None:
    args = ("--key", secret, f"--token={secret}", f"pre {secret} post")
    spec = ServerSpec(name="s", transport="stdio", command="srv", args=args, secrets=(secret,))
    line = read_command(spec, "t://x")
    words = argv_of(line, folder)
    assert secret not in line and secret not in "\0".join(words)
    assert words[:2] == ["read", "-s"] and words[3:] == ["--", "t://x"]
    assert shlex.split(words[2]) == ["srv", "--key", "***", "--token=***", "pre *** post"]
    assert not marker_of(folder).exists()


@pytest.mark.parametrize("secret", SECRETS)
def test_a_filled_in_secret_in_a_url_is_masked(secret: str, folder: Path) -> None:
    spec = ServerSpec(name="s", transport="http", url=f"https://h.test/mcp/{secret}/x", secrets=(secret,))
    words = argv_of(read_command(spec, "t://x"), folder)
    assert words == ["read", "-s", "https://h.test/mcp/***/x", "--", "t://x"]


SERVER = """
import os
def answer(method, params):
    if method == "resources/list":
        return {"resources": []}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    if method == "resources/read":
        got = json.dumps({"uri": params["uri"], "MYKEY": os.environ.get("MYKEY")})
        return {"contents": [{"uri": params["uri"], "text": "GOT " + got}]}
    return None
"""


@pytest.mark.slow
@pytest.mark.parametrize("uri", ["-rf", "t://a\nb", "--json"])
def test_the_pasted_line_reads_the_same_uri_with_the_env_reaching_the_server(
    uri: str, tmp_path: Path, folder: Path
) -> None:
    """The words bash gives the explorer from the copied line: the server gets the exact URI, and the
    env value (the `***` the copy holds, for the user to fill in) reaches it."""
    command = shlex.split(tiny_server(tmp_path, SERVER))
    spec = ServerSpec(name="s", transport="stdio", command=command[0], args=command[1:], env={"MYKEY": "k"})
    words = argv_of(read_command(spec, uri), folder)
    result = run_cli(*words)
    assert result.code == 0, str(result)
    got = [line for line in result.stdout.splitlines() if line.startswith("GOT ")]
    assert got and json.loads(got[0][4:]) == {"uri": uri, "MYKEY": "***"}
