"""Server specs, and the config files users already have.

Three file formats become one `Config`: JSON with `mcpServers` (Claude Desktop, Cursor, Claude Code,
the Inspector), JSON with `servers` (VS Code `mcp.json`, comments and trailing commas allowed), and the
explorer's own TOML (servers plus theme, keymap and listing bounds). The CLI's `-s/--server` values become
specs here too, so every way of naming a server ends in the same `ServerSpec`.

Header and env values usually hold tokens: `ServerSpec`'s repr and `describe()` mask them, and `redact()`
scrubs them from error messages and logs. Every problem a user can fix is a `ConfigError` whose message is
one sentence naming the file, the server and what is wrong; the CLI prints it and exits 2. A problem of
one server entry is that sentence as a warning instead, the entry left out (`Config.broken`), unless
`-s` names that entry or no entry of the file can be used.

The package is split by job: `spec` (the types, masking and redaction), `loaders` (config files and
placeholders) and `options` (`-s`/`-H` values and server selection); everything public is re-exported here.
"""

from __future__ import annotations

from explorer.config.loaders import load_config
from explorer.config.options import (
    default_config_path,
    demo_server_spec,
    parse_header,
    parse_server_option,
    select_servers,
)
from explorer.config.spec import (
    MASK,
    Config,
    ConfigError,
    InputPrompt,
    ListingBounds,
    OAuthSettings,
    ServerSpec,
    Transport,
    mask_url,
    redact,
    redact_value,
    secrets_of,
)

__all__ = [
    "MASK",
    "Config",
    "ConfigError",
    "InputPrompt",
    "ListingBounds",
    "OAuthSettings",
    "ServerSpec",
    "Transport",
    "default_config_path",
    "demo_server_spec",
    "load_config",
    "mask_url",
    "parse_header",
    "parse_server_option",
    "redact",
    "redact_value",
    "secrets_of",
    "select_servers",
]
