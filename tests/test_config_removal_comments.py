""" "Delete from config.toml: NAME" takes the comment block written just above the server's table (no
blank line between) with the table, instead of leaving it orphaned above the next one; a comment set
apart by a blank line, a comment at the top of the file, and the comments of other tables stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.config.writer import remove_server

BETA = '[servers.beta]\ncommand = "b"\n'
GAMMA = '[servers.gamma]\ncommand = "c"\n'


@pytest.mark.parametrize(
    ("text", "left"),
    [
        pytest.param(
            f"{BETA}\n# alpha: the local files server\n# (started with uv)\n"
            '[servers.alpha]\ncommand = "a"\n\n'
            f"# gamma: the last one\n{GAMMA}",
            f"{BETA}\n# gamma: the last one\n{GAMMA}",
            id="middle table",
        ),
        pytest.param(
            f'# alpha\n[servers.alpha]\ncommand = "a"\n\n# beta\n{BETA}',
            f"# beta\n{BETA}",
            id="first table",
        ),
        pytest.param(
            f'# beta\n{BETA}\n# alpha\n[servers.alpha]\ncommand = "a"\n',
            f"# beta\n{BETA}",
            id="last table",
        ),
        pytest.param(
            f'{BETA}\n# a note about the servers below\n\n[servers.alpha]\ncommand = "a"\n\n{GAMMA}',
            f"{BETA}\n# a note about the servers below\n\n{GAMMA}",
            id="comment separated by a blank line",
        ),
        pytest.param(
            '# alpha\n[servers.alpha]\n# the command\ncommand = "a"\n# its environment\n[servers.alpha.env]\n'
            f'A = "1"\n# beta, right below\n{BETA}',
            f"# beta, right below\n{BETA}",
            id="comments inside the table",
        ),
        pytest.param(
            '# my explorer config\ntheme = "explorer-dark"\n\n'
            f'# alpha\n[servers.alpha]\ncommand = "a"\n\n{BETA}',
            f'# my explorer config\ntheme = "explorer-dark"\n\n{BETA}',
            id="comment at file top",
        ),
        pytest.param(
            f'{BETA}# alpha, right after beta\n[servers.alpha]\ncommand = "a"\n\n{GAMMA}',
            f"{BETA}\n{GAMMA}",
            id="comment right after the previous table",
        ),
        pytest.param(
            '[servers.beta]\r\ncommand = "b"\r\n\r\n# alpha\r\n[servers.alpha]\r\ncommand = "a"\r\n\r\n'
            '# gamma\r\n[servers.gamma]\r\ncommand = "c"\r\n',
            '[servers.beta]\r\ncommand = "b"\r\n\r\n# gamma\r\n[servers.gamma]\r\ncommand = "c"\r\n',
            id="CRLF line ends",
        ),
    ],
)
def test_the_comment_block_just_above_the_removed_table_goes_with_it(
    tmp_path: Path, text: str, left: str
) -> None:
    own = tmp_path / "config.toml"
    own.write_bytes(text.encode())
    assert remove_server(own, "alpha")
    assert own.read_bytes().decode() == left
