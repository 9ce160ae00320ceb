"""`auth` without a subcommand prints its help as help (lines, on stderr) and exits 2.

Before, click's "no arguments: here is the help" error went through the one-line usage error path: the
whole help flattened into `error: Usage: ... Commands: list ... logout ...` on one line.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers.cli import run_cli_at_home


def test_auth_alone_prints_its_help_in_lines_and_exits_2(tmp_path: Path) -> None:
    result = run_cli_at_home(tmp_path, "auth")
    assert result.code == 2, result
    assert result.stderr.startswith("Usage: mcp-url-explorer auth"), result
    assert "\nCommands:\n" in result.stderr and "  logout" in result.stderr
    assert "error:" not in result.stderr and result.stdout == ""
