"""Did-you-mean for config keys: which unknown key is most likely a misspelt key the explorer reads.

Why its own module: a JSON server entry is shared with other clients, whose own keys (`autoApprove`,
`timeout`, VS Code's `dev`, Cursor's `auth`) the explorer ignores as a matter of course; only a key that is
a near miss of one it reads (`comand`, `Env`, `env_file`, `headres`) is worth a warning there. The
explorer's own TOML warns about every unknown key and adds the same guess. The same goes for the keys of a
server's `oauth` object, where Claude Code, VS Code and Gemini CLI keep camelCase keys of their own
(`clientId`, `callbackPort`) beside the explorer's snake_case ones.

A near miss: the same key in another case or with `_`/`-` (`EnvFile`, `env_file`), a common synonym
(`cmd`, `arguments`, `environment`), or one edit away (two when both keys have five letters or more),
a swap of two neighbouring letters counting as one (`evn`, `agrs`).
"""

from __future__ import annotations

from collections.abc import Collection

__all__ = ["CLIENT_KEYS", "CLIENT_OAUTH_KEYS", "OTHER_CLIENT_KEYS", "OTHER_CLIENT_OAUTH_KEYS", "likely_meant"]

# The keys each client documents for a server entry of its JSON config; none is ever a typo, even one a
# letter away from a key the explorer reads (VS Code's `dev`, Cursor's `auth`). Keys the explorer reads
# too are listed as well, so that each set is the client's whole list as its doc gives it.
CLIENT_KEYS: dict[str, frozenset[str]] = {
    # modelcontextprotocol.io/quickstart/user ("claude_desktop_config.json"): command, args, env.
    "Claude Desktop": frozenset({"command", "args", "env"}),
    # code.claude.com/docs/en/mcp ("Add MCP servers from JSON configuration", "Use dynamic headers for
    # custom authentication", "Use pre-configured OAuth credentials"): type (stdio, http, sse, ws).
    "Claude Code": frozenset({"type", "command", "args", "env", "url", "headers", "headersHelper", "oauth"}),
    # code.visualstudio.com/docs/agents/reference/mcp-configuration ("Standard I/O (stdio) servers",
    # "HTTP and Server-Sent Events (SSE) servers", "Development mode"); `gallery` and `version` are
    # written by its "MCP: Add Server" gallery install.
    "VS Code": frozenset(
        {
            "type",
            "command",
            "args",
            "env",
            "envFile",
            "cwd",
            "url",
            "headers",
            "oauth",
            "dev",
            "sandboxEnabled",
            "sandbox",
            "gallery",
            "version",
        }
    ),
    # cursor.com/docs/context/mcp ("Configuration", "Static OAuth for remote servers"): `auth` holds
    # CLIENT_ID, CLIENT_SECRET and scopes.
    "Cursor": frozenset({"type", "command", "args", "env", "envFile", "url", "headers", "auth"}),
    # docs.windsurf.com/windsurf/cascade/mcp ("mcp_config.json"): `serverUrl` for a remote server; the
    # MCP panel writes `disabled`, `disabledTools` and `alwaysAllow`.
    "Windsurf": frozenset(
        {"command", "args", "env", "serverUrl", "url", "headers", "disabled", "disabledTools", "alwaysAllow"}
    ),
    # geminicli.com/docs/tools/mcp-server ("Configuration properties"; the `mcpServerConfigSchema` of
    # google-gemini/gemini-cli's extension config).
    "Gemini CLI": frozenset(
        {
            "type",
            "command",
            "args",
            "env",
            "cwd",
            "url",
            "httpUrl",
            "headers",
            "tcp",
            "timeout",
            "trust",
            "description",
            "includeTools",
            "excludeTools",
            "oauth",
            "authProviderType",
            "targetAudience",
            "targetServiceAccount",
            "extensionName",
        }
    ),
    # docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/add-mcp-servers (type `local`,
    # `stdio`, `http` or `sse`; `tools` lists the tools allowed, `timeout` is per tool call).
    "Copilot CLI": frozenset({"type", "command", "args", "env", "cwd", "url", "headers", "tools", "timeout"}),
    # Cline, Roo Code, Kiro and other `mcpServers` clients (their docs' "MCP settings" pages).
    "others": frozenset(
        {
            "alwaysAllow",
            "autoApprove",
            "disabled",
            "disabledTools",
            "enabled",
            "name",
            "networkTimeout",
            "timeout",
            "transportType",
            "watchPaths",
        }
    ),
}

# The keys each client documents inside a server entry's `oauth` object (camelCase, where the explorer's
# own are snake_case: `clientId` there is no typo of `client_id`).
CLIENT_OAUTH_KEYS: dict[str, frozenset[str]] = {
    # code.claude.com/docs/en/mcp ("Use pre-configured OAuth credentials", "Use a fixed OAuth callback
    # port", "Override OAuth metadata discovery", "Restrict OAuth scopes").
    "Claude Code": frozenset({"clientId", "callbackPort", "authServerMetadataUrl", "scopes"}),
    # code.visualstudio.com/docs/agents/reference/mcp-configuration ("The `oauth` object").
    "VS Code": frozenset({"clientId"}),
    # geminicli.com/docs/tools/mcp-server ("OAuth configuration properties").
    "Gemini CLI": frozenset(
        {
            "enabled",
            "clientId",
            "clientSecret",
            "authorizationUrl",
            "issuer",
            "tokenUrl",
            "scopes",
            "audiences",
            "redirectUri",
            "tokenParamName",
            "registrationUrl",
        }
    ),
}

OTHER_CLIENT_KEYS = frozenset().union(*CLIENT_KEYS.values())
OTHER_CLIENT_OAUTH_KEYS = frozenset().union(*CLIENT_OAUTH_KEYS.values())

_SYNONYMS = {"cmd": "command", "arguments": "args", "argv": "args", "environment": "env"}


def _folded(key: str) -> str:
    return key.strip().lower().replace("_", "").replace("-", "")


def _distance(a: str, b: str, limit: int) -> int:
    """Edits (insert, delete, change, swap of neighbours) from `a` to `b`; `limit + 1` once past `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] = []
    row = list(range(len(b) + 1))
    for i, char in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, other in enumerate(b, 1):
            cost = 0 if char == other else 1
            current[j] = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + cost)
            if i > 1 and j > 1 and char == b[j - 2] and a[i - 2] == other:
                current[j] = min(current[j], before[j - 2] + 1)
        before, row = row, current
    return min(row[-1], limit + 1)


def likely_meant(key: str, known: Collection[str], others: Collection[str] = OTHER_CLIENT_KEYS) -> str | None:
    """The key of `known` that `key` most likely misspells, or None (also for `others`, the keys other
    clients use there: a server entry's by default)."""
    if key in known or key in others:
        return None
    folded = _folded(key)
    by_fold = {_folded(name): name for name in known}
    if folded in by_fold:
        return by_fold[folded]
    synonym = _SYNONYMS.get(folded)
    if synonym is not None and synonym in known:
        return synonym
    best: tuple[int, str] | None = None
    for fold, name in sorted(by_fold.items()):
        limit = 1 if min(len(fold), len(folded)) <= 4 else 2
        distance = _distance(folded, fold, limit)
        if distance <= limit and (best is None or distance < best[0]):
            best = (distance, name)
    return best[1] if best is not None else None
