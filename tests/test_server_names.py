"""Default names for `-s` command lines: what a user would call the server, not `node` or `index.js`."""

from __future__ import annotations

import pytest

from explorer.config.options import parse_server_option


@pytest.mark.parametrize(
    ("command", "name"),
    [
        (
            "node /x/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js /tmp",
            "server-filesystem",
        ),
        ("node ./build/index.js", "index.js"),  # nothing better to name it after
        ("node server.js", "server.js"),
        ("node ./tools/pkg/lib/cli.js --stdio", "pkg"),
        ("python src/app/main.py", "main.py"),  # the folder above is no build folder: keep the script
        ("python -m explorer demo-server", "explorer"),
        ("npx -y @modelcontextprotocol/server-memory@2026.8.31", "server-memory"),
        ("uvx mcp-server-fetch", "mcp-server-fetch"),
        ("env TOKEN=x uvx mcp-server-git", "mcp-server-git"),
    ],
)
def test_default_names(command: str, name: str) -> None:
    assert parse_server_option(command, config=None, sse=False, headers={}).name == name
