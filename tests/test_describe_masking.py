"""A spec's description masks a filled-in secret whatever it holds: each word is masked, then quoted (a
`'` quoted first becomes `'"'"'`, which the raw secret no longer matches)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from explorer.config import ServerSpec
from explorer.config.spec import Redactor
from explorer.sanitize import sanitize_line
from tests.helpers.cli import run_cli_at_home
from tests.helpers.hostile_secrets import SECRETS
from tests.helpers.tiny_server import tiny_server


@pytest.mark.parametrize("secret", SECRETS)
def test_describe_masks_a_secret_holding_shell_characters(secret: str) -> None:
    args = ("--key", secret, f"--token={secret}", f"pre {secret} post", "it's")
    spec = ServerSpec(name="s", transport="stdio", command="srv", args=args, secrets=(secret,))
    described = spec.describe()
    assert described == "stdio: srv --key *** --token=*** 'pre *** post' 'it'\"'\"'s'"
    assert secret not in described and sanitize_line(secret, limit=None) not in described


def test_describe_still_quotes_words_without_secrets() -> None:
    spec = ServerSpec(name="s", transport="stdio", command="my srv", args=("a*", "ok"), secrets=("zzzz",))
    assert spec.describe() == "stdio: 'my srv' 'a*' ok"


LISTS = """
def answer(method, params):
    lists = {"resources/list": {"resources": []}, "resources/templates/list": {"resourceTemplates": []}}
    return lists.get(method)
"""


@pytest.mark.slow
def test_the_servers_command_masks_an_input_holding_a_quote(tmp_path: Path) -> None:
    """The hunt's repro: a VS Code input filled in with `'` was printed in the server's header line."""
    secret = "s3cr'et-token-1"
    command = shlex.split(tiny_server(tmp_path, LISTS))
    server = {"type": "stdio", "command": command[0], "args": [*command[1:], "--key", "${input:key}"]}
    config = {
        "inputs": [{"id": "key", "type": "promptString", "description": "API key", "password": True}],
        "servers": {"srv": server},
    }
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(config))
    result = run_cli_at_home(tmp_path, "servers", "-c", str(path), "--input", f"key={secret}")
    assert result.code == 0, str(result)
    header = result.stdout.splitlines()[0]
    assert header.startswith("# srv  (stdio: ") and header.endswith(" --key ***)")
    assert "s3cr" not in result.stdout + result.stderr


@pytest.mark.parametrize("secret", SECRETS)
def test_the_output_masking_catches_a_secret_quoted_before_it_was_masked(secret: str) -> None:
    """The CLI's last line of defence (`Redactor`, at every sink) knows the `shlex.quote` form too."""
    line = shlex.join(["srv", "--key", secret, f"--token={secret}", f"pre {secret} post"])
    masked = Redactor([secret]).text(line)
    assert secret not in masked
    assert shlex.split(masked) == ["srv", "--key", "***", "--token=***", "pre *** post"]


@pytest.mark.parametrize("secret", ["sec\\ret-token-1", "two\nlines-token", "quo'te-token-1"])
def test_the_repr_of_a_spec_masks_a_secret_repr_would_escape(secret: str) -> None:
    """`repr` writes `\\` and a newline escaped: masking its text afterwards missed the secret."""
    spec = ServerSpec(name="s", transport="stdio", command="tool", args=("--key", secret), secrets=(secret,))
    shown = repr(spec)
    assert repr(secret)[1:-1] not in shown and secret not in shown
    assert "'--key', '***'" in shown
