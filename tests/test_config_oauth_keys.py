"""Every client's own keys in a JSON server entry, and in its `oauth` object (Claude Code's `clientId` and
`callbackPort`), load without a warning; a real typo of a key the explorer reads still warns, with its
guess. Each entry below is written as that client's documentation shows one (see `config/typos.py`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.config import ConfigError, load_config

HTTP = "https://h.test/mcp"

ENTRIES: dict[str, tuple[str, dict[str, object]]] = {
    "Claude Desktop": ("mcpServers", {"command": "npx", "args": ["-y", "srv"], "env": {"A": "1"}}),
    "Claude Code stdio": ("mcpServers", {"type": "stdio", "command": "npx", "args": [], "env": {"A": "1"}}),
    "Claude Code http": (
        "mcpServers",
        {
            "type": "http",
            "url": HTTP,
            "headers": {"X-Team": "a"},
            "headersHelper": "/usr/local/bin/make-headers",
            "oauth": {
                "clientId": "my-client",
                "callbackPort": 8080,
                "authServerMetadataUrl": "https://auth.h.test/.well-known/openid-configuration",
                "scopes": "read write",
            },
        },
    ),
    "VS Code stdio": (
        "servers",
        {
            "type": "stdio",
            "command": "npx",
            "args": [],
            "env": {"A": "1"},
            "envFile": ".env",
            "sandboxEnabled": True,
            "sandbox": {"filesystem": {"allowWrite": ["${workspaceFolder}"]}},
            "dev": {"watch": "src/**/*.ts", "debug": {"type": "node"}},
            "gallery": True,
            "version": "1.0.0",
        },
    ),
    "VS Code http": (
        "servers",
        {"type": "http", "url": HTTP, "headers": {}, "oauth": {"clientId": "my-client"}},
    ),
    "Cursor": (
        "mcpServers",
        {
            "type": "http",
            "url": HTTP,
            "headers": {},
            "auth": {"CLIENT_ID": "id", "CLIENT_SECRET": "secret", "scopes": ["read"]},
        },
    ),
    "Windsurf": (
        "mcpServers",
        {"serverUrl": HTTP, "headers": {}, "disabled": False, "disabledTools": ["x"], "alwaysAllow": []},
    ),
    "Gemini CLI stdio": (
        "mcpServers",
        {
            "command": "npx",
            "args": [],
            "env": {},
            "cwd": ".",
            "timeout": 30000,
            "trust": False,
            "description": "files",
            "includeTools": ["a"],
            "excludeTools": ["b"],
        },
    ),
    "Gemini CLI http": (
        "mcpServers",
        {
            "httpUrl": HTTP,
            "headers": {},
            "authProviderType": "google_credentials",
            "targetAudience": "x.apps.googleusercontent.com",
            "targetServiceAccount": "sa@p.iam.gserviceaccount.com",
            "oauth": {
                "enabled": True,
                "clientId": "id",
                "clientSecret": "secret",
                "authorizationUrl": "https://auth.h.test/authorize",
                "issuer": "https://auth.h.test",
                "tokenUrl": "https://auth.h.test/token",
                "scopes": ["read"],
                "audiences": ["api"],
                "redirectUri": "http://localhost:7777/oauth/callback",
                "tokenParamName": "access_token",
                "registrationUrl": "https://auth.h.test/register",
            },
        },
    ),
    "Copilot CLI": (
        "mcpServers",
        {"type": "local", "command": "npx", "args": [], "env": {}, "cwd": ".", "tools": ["*"], "timeout": 60},
    ),
}


def write(tmp_path: Path, top: str, entry: dict[str, object]) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({top: {"s": entry}}))
    (tmp_path / ".env").write_text("A=1\n")
    return path


@pytest.mark.parametrize("client", sorted(ENTRIES))
def test_an_entry_as_each_client_documents_it_loads_without_a_warning(tmp_path: Path, client: str) -> None:
    top, entry = ENTRIES[client]
    config = load_config(write(tmp_path, top, entry))
    assert list(config.servers) == ["s"]
    assert config.warnings == []


def test_claude_codes_oauth_client_port_and_scopes_are_read_as_it_registers_them(tmp_path: Path) -> None:
    top, entry = ENTRIES["Claude Code http"]
    spec = load_config(write(tmp_path, top, entry)).servers["s"]
    assert spec.oauth is not None
    assert spec.oauth.scopes == ("read", "write")
    assert spec.oauth.client_id == "my-client"
    assert (spec.oauth.redirect_port, spec.oauth.redirect_host) == (8080, "localhost")


def test_vs_codes_client_id_is_read_with_the_explorers_own_redirect(tmp_path: Path) -> None:
    path = write(tmp_path, "servers", {"type": "http", "url": HTTP, "oauth": {"clientId": "vs-client"}})
    spec = load_config(path).servers["s"]
    assert spec.oauth is not None and spec.oauth.client_id == "vs-client"
    assert (spec.oauth.redirect_port, spec.oauth.redirect_host) == (None, "127.0.0.1")


@pytest.mark.parametrize("port", [0, 70000, "8080", True])
def test_a_callback_port_that_is_not_a_port_is_one_sentence(tmp_path: Path, port: object) -> None:
    path = write(tmp_path, "mcpServers", {"type": "http", "url": HTTP, "oauth": {"callbackPort": port}})
    with pytest.raises(ConfigError, match='"callbackPort" must be a port number'):
        load_config(path)


def test_a_real_typo_still_warns_next_to_other_clients_keys(tmp_path: Path) -> None:
    entry = {
        "comand": "npx",
        "command": "npx",
        "argz": ["x"],
        "headersHelper": "h",
        "tools": ["*"],
        "trust": True,
    }
    path = write(tmp_path, "mcpServers", entry)
    assert load_config(path).warnings == [
        f'{path}: server "s": unknown setting(s) argz (did you mean "args"?), '
        'comand (did you mean "command"?) ignored'
    ]


def test_a_typo_in_a_json_oauth_object_warns_but_claude_codes_keys_do_not(tmp_path: Path) -> None:
    oauth = {"clientId": "id", "callbackPort": 8080, "client_idd": "x", "scope": "read"}
    path = write(tmp_path, "mcpServers", {"type": "http", "url": HTTP, "oauth": oauth})
    assert load_config(path).warnings == [
        f'{path}: server "s": oauth: unknown setting(s) client_idd (did you mean "client_id"?), '
        'scope (did you mean "scopes"?) ignored'
    ]


def test_the_explorers_toml_warns_about_a_camel_case_oauth_key_and_names_its_own(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        f'[servers.s]\nurl = "{HTTP}"\n\n[servers.s.oauth]\nclientId = "id"\ncallbackPort = 8080\n'
    )
    assert load_config(path).warnings == [
        f'{path}: server "s": oauth: unknown setting(s) callbackPort, clientId (did you mean "client_id"?) '
        "ignored"
    ]
