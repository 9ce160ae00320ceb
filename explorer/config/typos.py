"""Did-you-mean for config keys: which unknown key is most likely a misspelt key the explorer reads.

Why its own module: a JSON server entry is shared with other clients, whose own keys (`autoApprove`,
`timeout`, VS Code's `dev`, Cursor's `auth`) the explorer ignores as a matter of course; only a key that is
a near miss of one it reads (`comand`, `Env`, `env_file`, `headres`) is worth a warning there. The
explorer's own TOML warns about every unknown key and adds the same guess.

A near miss: the same key in another case or with `_`/`-` (`EnvFile`, `env_file`), a common synonym
(`cmd`, `arguments`, `environment`), or one edit away (two when both keys have five letters or more),
a swap of two neighbouring letters counting as one (`evn`, `agrs`).
"""

from __future__ import annotations

from collections.abc import Collection

__all__ = ["OTHER_CLIENT_KEYS", "likely_meant"]

# Keys that MCP clients keep in a server entry of their JSON configs and the explorer does not read
# (Claude Code, VS Code, Cursor, Windsurf, Cline, Roo Code, Kiro, Gemini CLI, GitHub Copilot CLI): never a
# typo, even the ones one letter away from a key the explorer reads (VS Code's `dev`, Cursor's `auth`).
OTHER_CLIENT_KEYS = frozenset(
    {
        "alwaysAllow",
        "auth",
        "authProviderType",
        "autoApprove",
        "description",
        "dev",
        "disabledTools",
        "enabled",
        "excludeTools",
        "gallery",
        "headersHelper",
        "includeTools",
        "name",
        "networkTimeout",
        "sandbox",
        "sandboxEnabled",
        "targetAudience",
        "targetServiceAccount",
        "timeout",
        "tools",
        "transportType",
        "trust",
        "version",
        "watchPaths",
    }
)

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


def likely_meant(key: str, known: Collection[str]) -> str | None:
    """The key of `known` that `key` most likely misspells, or None (also for keys other clients use)."""
    if key in known or key in OTHER_CLIENT_KEYS:
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
