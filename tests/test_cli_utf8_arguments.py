"""An argument or option value that is not UTF-8 is a usage error naming it (exit 2, one line), in every
command, as `expand` says it: never Python's UnicodeEncodeError (exit 1)."""

from __future__ import annotations

import os

import pytest

from tests.helpers.cli import demo_server, run_cli

pytestmark = pytest.mark.slow

BAD = os.fsdecode(b"\xff")  # how Python hands the command an undecodable byte of its arguments


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (
            ("read", "--json", "docs://" + BAD),
            "the URI is not valid UTF-8 (an undecodable byte at character 8)",
        ),
        (("read", "docs://" + BAD), "the URI is not valid UTF-8"),
        (("match", "docs://" + BAD), "the URI is not valid UTF-8"),
        (("match", "--json", "docs://" + BAD), "the URI is not valid UTF-8"),
        (("prompt", "p" + BAD), "the name is not valid UTF-8 (an undecodable byte at character 2)"),
        (("prompt", "p", "a=" + BAD), "argument 2 is not valid UTF-8 (an undecodable byte at character 3)"),
        (("tree", "--prefix", BAD), "the value of --prefix is not valid UTF-8"),
        (("-H", "X: " + BAD, "tree"), "the value of --header is not valid UTF-8"),
        (("expand", "x://{a}" + BAD, "a=1"), "the template is not valid UTF-8"),
        (("expand", "x://{a}", "a=" + BAD), "argument 2 is not valid UTF-8"),
    ],
    ids=lambda value: value[0] if isinstance(value, tuple) else None,
)
def test_a_non_utf8_word_is_one_usage_line(args: tuple[str, ...], named: str) -> None:
    server = () if "expand" in args else ("-s", demo_server())
    result = run_cli(*server, *args)
    assert result.code == 2, result
    [line] = result.stderr.splitlines()
    assert line.startswith("error: " + named), line
    assert "Traceback" not in result.stderr and "codec" not in result.stderr
    assert result.stdout == ""
