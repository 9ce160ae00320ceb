"""Config files, -s/-H parsing and server selection: every format, every user error, no leaked secrets."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

from explorer import paths
from explorer.config import (
    Config,
    ConfigError,
    InputPrompt,
    ListingBounds,
    ServerSpec,
    default_config_path,
    demo_server_spec,
    load_config,
    mask_url,
    parse_header,
    parse_server_option,
    redact,
    select_servers,
)
from explorer.config.options import check_startable, parse_env_options
from explorer.config.variables import HostContext


def write(tmp_path: Path, name: str, content: str | dict[str, object]) -> Path:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


def write_in(folder: Path, name: str, content: str | dict[str, object]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return write(folder, name, content)


def config_error(path: Path) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(str(path) + ": "), message
    assert "\n" not in message
    return message


# ------------------------------------------------------------------------------------- mcpServers JSON


def test_claude_desktop_format(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "claude_desktop_config.json",
        {
            "mcpServers": {
                "files": {
                    "command": "npx",
                    "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
                    "env": {"DEBUG": "1"},
                },
                "remote": {"url": "https://example.test/mcp", "headers": {"Authorization": "Bearer abc"}},
                "legacy": {"type": "sse", "url": "http://localhost:8000/sse"},
            }
        },
    )
    config = load_config(path)
    assert list(config.servers) == ["files", "remote", "legacy"]
    files = config.servers["files"]
    assert files == ServerSpec(
        name="files",
        transport="stdio",
        command="npx",
        args=("-y", "@modelcontextprotocol/server-filesystem", "/tmp"),
        env={"DEBUG": "1"},
    )
    assert config.servers["remote"].transport == "http"
    assert config.servers["remote"].headers == {"Authorization": "Bearer abc"}
    assert config.servers["legacy"].transport == "sse"
    assert config.source == path
    assert config.listing == ListingBounds()
    assert config.warnings == []


@pytest.mark.parametrize(
    ("declared", "transport"),
    [
        ("http", "http"),
        ("streamable-http", "http"),
        ("streamableHttp", "http"),
        ("sse", "sse"),
        ("SSE", "sse"),
    ],
)
def test_cursor_transport_types(tmp_path: Path, declared: str, transport: str) -> None:
    path = write(tmp_path, "mcp.json", {"mcpServers": {"x": {"type": declared, "url": "https://h/mcp"}}})
    assert load_config(path).servers["x"].transport == transport


def test_type_and_transport_that_disagree_are_warned_about(tmp_path: Path) -> None:
    """ "type" wins (the JSON clients' word), which was silent: a user who set "transport" saw it ignored."""
    server = {"type": "sse", "transport": "http", "url": "https://h/mcp"}
    config = load_config(write(tmp_path, "mcp.json", {"mcpServers": {"x": server}}))
    assert config.servers["x"].transport == "sse"
    assert any('both "type" and "transport" are set; "type" (\'sse\') is used' in w for w in config.warnings)
    agreeing = {"type": "sse", "transport": "sse", "url": "https://h/mcp"}
    assert load_config(write(tmp_path, "same.json", {"mcpServers": {"x": agreeing}})).warnings == []


def test_server_url_key_and_cwd_relative_to_the_file(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "mcp_config.json",
        {"mcpServers": {"w": {"serverUrl": "https://h/mcp"}, "s": {"command": "srv", "cwd": "sub"}}},
    )
    (tmp_path / "sub").mkdir()  # a cwd that does not exist leaves the server out
    config = load_config(path)
    assert config.servers["w"].url == "https://h/mcp"
    assert config.servers["s"].cwd == str(tmp_path / "sub")


def test_gemini_and_copilot_cli_entries_load(tmp_path: Path) -> None:
    """Gemini CLI's `httpUrl` is its Streamable HTTP URL; GitHub Copilot CLI's `"type": "local"` is stdio.
    Both were refused ("neither command nor url", "unknown type")."""
    gemini = {
        "g": {"httpUrl": "https://h/mcp", "timeout": 5000, "trust": False},
        "s": {"url": "https://h/sse"},
    }
    config = load_config(write(tmp_path, "settings.json", {"theme": "x", "mcpServers": gemini}))
    assert (config.servers["g"].url, config.servers["g"].transport) == ("https://h/mcp", "http")
    assert config.servers["s"].url == "https://h/sse" and config.warnings == []
    copilot = {"c": {"type": "local", "command": "srv", "args": ["-v"], "tools": ["*"]}}
    config = load_config(write(tmp_path, "mcp-config.json", {"mcpServers": copilot}))
    assert (config.servers["c"].command, config.servers["c"].transport) == ("srv", "stdio")
    assert config.warnings == []


def test_disabled_servers_are_skipped_with_a_warning(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "c.json",
        {"mcpServers": {"off": {"command": "x", "disabled": True}, "on": {"command": "y"}}},
    )
    config = load_config(path)
    assert list(config.servers) == ["on"]
    assert any('"off" is disabled' in warning for warning in config.warnings)


def test_empty_server_list_is_a_valid_config(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "c.json", {"mcpServers": {}})).servers == {}


# -------------------------------------------------------------------------------------- VS Code JSON


def test_vscode_format_with_inputs_and_placeholders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXPLORER_TEST_TOKEN", "s3cret-token")
    monkeypatch.delenv("EXPLORER_TEST_MISSING", raising=False)
    path = write(
        tmp_path,
        "mcp.json",
        {
            "inputs": [{"type": "promptString", "id": "api-key", "password": True}],
            "servers": {
                "local": {
                    "type": "stdio",
                    "command": "uvx",
                    "args": ["mcp-server-fetch", "--home=${userHome}"],
                    "env": {"TOKEN": "${env:EXPLORER_TEST_TOKEN}", "OTHER": "${env:EXPLORER_TEST_MISSING}"},
                },
                "gh": {
                    "type": "http",
                    "url": "https://api.example.test/mcp/",
                    "headers": {"Authorization": "Bearer ${input:api-key}"},
                },
                "events": {"type": "sse", "url": "http://localhost:3001/sse"},
            },
        },
    )
    config = load_config(path)
    local = config.servers["local"]
    assert local.env["TOKEN"] == "s3cret-token"
    assert local.env["OTHER"] == ""  # as VS Code does; never the placeholder sent literally
    assert local.args == ("mcp-server-fetch", f"--home={Path.home()}")
    assert local.inputs == ()
    # The input is asked for later (CLI or TUI): it stays in place and is listed on the spec.
    gh = config.servers["gh"]
    assert gh.headers == {"Authorization": "Bearer ${input:api-key}"}
    assert gh.inputs == (InputPrompt(id="api-key", password=True),)
    assert config.servers["events"].transport == "sse"
    joined = "\n".join(config.warnings)
    assert (
        "${env:EXPLORER_TEST_MISSING} is not set in the environment; the server gets an empty string"
        in joined
    )
    assert "s3cret-token" not in joined


def test_shell_style_placeholders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXPLORER_TEST_URL", "https://h.test")
    monkeypatch.delenv("EXPLORER_TEST_MISSING", raising=False)
    path = write(
        tmp_path,
        ".mcp.json",
        {"mcpServers": {"a": {"url": "${EXPLORER_TEST_URL}/mcp?x=${EXPLORER_TEST_MISSING:-dflt}"}}},
    )
    assert load_config(path).servers["a"].url == "https://h.test/mcp?x=dflt"


def test_vscode_jsonc_with_comments_and_trailing_commas(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "mcp.json",
        """{
  // my servers
  "servers": {
    /* local one */
    "a": {"command": "run-a", "args": ["// not a comment", "x,]"],},
  },
}
""",
    )
    assert load_config(path).servers["a"].args == ("// not a comment", "x,]")


def test_vscode_settings_json_nesting(tmp_path: Path) -> None:
    path = write(
        tmp_path, "settings.json", {"editor.fontSize": 12, "mcp": {"servers": {"a": {"command": "x"}}}}
    )
    assert list(load_config(path).servers) == ["a"]


# -------------------------------------------------------------------------------------------- TOML


TOML_EXAMPLE = """
theme = "explorer-dark"

[servers.demo]
command = "python"
args = ["-m", "explorer", "demo-server"]
env = { DEBUG = "1" }

[servers.remote]
url = "https://example.test/mcp"
transport = "sse"
headers = { Authorization = "Bearer xyz" }

[listing]
max_items = 500
max_pages = 10
max_seconds = 2.5
max_bytes = 1048576

[keymap]
filter = "slash,ctrl+f"
"""


def test_own_toml_format(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "config.toml", TOML_EXAMPLE))
    assert config.theme == "explorer-dark"
    assert list(config.servers) == ["demo", "remote"]
    assert config.servers["demo"].args == ("-m", "explorer", "demo-server")
    assert config.servers["demo"].env == {"DEBUG": "1"}
    assert config.servers["remote"].transport == "sse"
    assert config.listing == ListingBounds(max_items=500, max_pages=10, max_seconds=2.5, max_bytes=1048576)
    assert config.keymap == {"filter": "slash,ctrl+f"}
    assert config.warnings == []


def test_toml_with_only_settings_has_no_servers(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "config.toml", 'theme = "x"\n[listing]\nmax_seconds = 5\n'))
    assert config.servers == {}
    assert config.listing.max_seconds == 5.0
    assert config.listing.max_items == 100_000


def test_toml_unknown_settings_are_warnings(tmp_path: Path) -> None:
    text = 'colour = "red"\n[servers.a]\ncomand = "x"\ncommand = "y"\n[listing]\nmax_iterms = 3\n'
    config = load_config(write(tmp_path, "config.toml", text))
    joined = "\n".join(config.warnings)
    assert '"colour"' in joined
    assert "comand" in joined
    assert '"max_iterms"' in joined


def test_format_is_chosen_by_content_without_a_known_suffix(tmp_path: Path) -> None:
    assert list(load_config(write(tmp_path, "servers.conf", '[servers.a]\ncommand = "x"\n')).servers) == ["a"]
    assert list(
        load_config(write(tmp_path, "servers.cfg", {"mcpServers": {"b": {"command": "x"}}})).servers
    ) == ["b"]


# ------------------------------------------------------------------------------------------- errors


def test_missing_file(tmp_path: Path) -> None:
    assert "file not found" in config_error(tmp_path / "nope.json")


def test_unreadable_file(tmp_path: Path) -> None:
    folder = tmp_path / "folder.json"
    folder.mkdir()
    assert "directory" in config_error(folder)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b'{"mcpServers": {"\xff": 1}}')
    assert "UTF-8" in config_error(binary)


def test_bad_json_names_line_and_column(tmp_path: Path) -> None:
    message = config_error(write(tmp_path, "bad.json", '{\n  "mcpServers": {\n    "a": {"command" "x"}\n'))
    assert "invalid JSON at line 3, column 21 (Expecting" in message


def test_bad_toml_gives_the_parsers_message(tmp_path: Path) -> None:
    message = config_error(write(tmp_path, "bad.toml", "[servers.a]\ncommand = \n"))
    assert "invalid TOML" in message
    assert "line 2" in message


def test_top_level_must_be_an_object(tmp_path: Path) -> None:
    assert "top level must be a JSON object, not a list" in config_error(write(tmp_path, "l.json", "[1, 2]"))


def test_json_without_servers(tmp_path: Path) -> None:
    message = config_error(write(tmp_path, "other.json", {"name": "not an mcp config"}))
    assert '"mcpServers" or "servers"' in message


@pytest.mark.parametrize(
    ("servers", "problem"),
    [
        ([], '"mcpServers" must be an object of servers, not a list'),
        ({"x": "python"}, 'server "x" must be an object, not a string'),
        ({"x": {}}, 'server "x" has neither "command" nor "url"'),
        ({"x": {"args": ["a"]}}, 'server "x" has neither "command" nor "url"'),
        ({"x": {"command": "a", "url": "http://h"}}, 'server "x" has both "command" and "url"'),
        ({"x": {"command": "a", "args": "-m x"}}, 'server "x": "args" must be a list of strings'),
        ({"x": {"command": "a", "args": ["-p", 8080]}}, 'server "x": "args" must be a list of strings'),
        (
            {"x": {"command": "a", "env": ["A=1"]}},
            'server "x": "env" must be an object of strings, not a list',
        ),
        (
            {"x": {"command": "a", "env": {"PORT": 8080}}},
            '"env" value of "PORT" must be a string, not a number',
        ),
        (
            {"x": {"url": "http://h", "headers": {"A": None}}},
            '"headers" value of "A" must be a string, not null',
        ),
        ({"x": {"command": 3}}, 'server "x": "command" must be a non-empty string, not a number'),
        ({"x": {"command": ""}}, 'server "x": "command" must be a non-empty string'),
        ({"x": {"command": "a", "cwd": 1}}, 'server "x": "cwd" must be a non-empty string'),
        ({"x": {"type": "websocket", "url": "ws://h"}}, 'server "x" has unknown type "websocket"'),
        ({"x": {"type": "stdio", "url": "http://h"}}, 'server "x" has type "stdio" but no "command"'),
        ({"x": {"type": "sse", "command": "a"}}, 'server "x" has type "sse" but no "url"'),
        ({"x": {"url": "ftp://h/mcp"}}, 'server "x": "url" must start with http:// or https://'),
        ({"x": {"command": "a", "disabled": "yes"}}, '"disabled" must be true or false'),
        ({"": {"command": "a"}}, "a server has an empty name"),
    ],
)
def test_server_errors_name_the_file_and_the_problem(tmp_path: Path, servers: object, problem: str) -> None:
    message = config_error(write(tmp_path, "claude.json", {"mcpServers": servers}))
    assert problem in message


def test_toml_server_errors_say_table(tmp_path: Path) -> None:
    message = config_error(write(tmp_path, "config.toml", '[servers]\nx = "python"\n'))
    assert 'server "x" must be a table, not a string' in message
    message = config_error(
        write(tmp_path, "config.toml", '[servers.x]\ntransport = "ws"\nurl = "http://h"\n')
    )
    assert 'server "x" has unknown transport "ws"' in message


@pytest.mark.parametrize(
    ("listing", "problem"),
    [
        ("max_items = 0", 'listing "max_items" must be a positive whole number, not 0'),
        ("max_pages = -1", 'listing "max_pages" must be a positive whole number'),
        ("max_bytes = 1.5", 'listing "max_bytes" must be a positive whole number'),
        ('max_items = "10"', 'listing "max_items" must be a positive whole number'),
        ("max_items = true", 'listing "max_items" must be a positive whole number'),
        ("max_seconds = 0", 'listing "max_seconds" must be a positive number'),
        ("max_seconds = inf", 'listing "max_seconds" must be a positive number'),
        ("max_seconds = nan", 'listing "max_seconds" must be a positive number'),
    ],
)
def test_bounds_must_be_positive_numbers(tmp_path: Path, listing: str, problem: str) -> None:
    """A bound that cannot be used is a warning naming the file, and its default is used."""
    key = problem.split('"')[1]
    other = "max_items" if key == "max_pages" else "max_pages"  # a good bound beside it still applies
    path = write(tmp_path, "config.toml", f"[listing]\n{listing}\n{other} = 7\n")
    config = load_config(path)
    (warning,) = config.warnings
    assert warning.startswith(f"{path}: {problem}") and "; the default (" in warning
    assert getattr(config.listing, key) == getattr(ListingBounds(), key)
    assert getattr(config.listing, other) == 7


def test_other_toml_type_errors(tmp_path: Path) -> None:
    """The explorer's own settings that cannot be used are warnings, their defaults used; a `servers`
    that is no table is still an error (the servers cannot be known)."""
    cases = [
        ("theme = 3\n", '"theme" must be a theme name, not a number; the default theme is used'),
        ("listing = 3\n", '"listing" must be a table of bounds, not a number; the default bounds are used'),
        ("keymap = []\n", '"keymap" must be a table of binding ids to keys, not a list; the default keys'),
        ('[keymap]\nfilter = 1\ngoto = "g"\n', 'keymap "filter" must be a string of keys'),
    ]
    for index, (text, warning) in enumerate(cases):
        path = write(tmp_path, f"{index}.toml", text)
        config = load_config(path)
        assert [w for w in config.warnings if w.startswith(f"{path}: {warning}")] == config.warnings
        assert config.warnings and config.theme is None and config.listing == ListingBounds()
        assert config.keymap == ({"goto": "g"} if "goto" in text else {})
    assert '"servers" must be a table' in config_error(write(tmp_path, "e.toml", "servers = [1]\n"))


def test_listing_bounds_reject_bad_values_in_code() -> None:
    with pytest.raises(ValueError):
        ListingBounds(max_items=0)
    with pytest.raises(ValueError):
        ListingBounds(max_seconds=float("nan"))


# ---------------------------------------------------------------------------------------- -s SPEC


def test_url_becomes_streamable_http_named_by_host() -> None:
    spec = parse_server_option("https://api.example.test/mcp", config=None, sse=False, headers={})
    assert (spec.transport, spec.url, spec.name) == (
        "http",
        "https://api.example.test/mcp",
        "api.example.test",
    )
    local = parse_server_option(
        "http://user:pw@LocalHost:8000/sse", config=None, sse=True, headers={"A": "b"}
    )
    assert (local.transport, local.name, local.headers) == ("sse", "localhost:8000", {"A": "b"})


@pytest.mark.parametrize("pasted", ['"https://api.example.test/mcp"', "'https://api.example.test/mcp'"])
def test_a_url_pasted_with_its_quotes_is_the_url(pasted: str) -> None:
    """It was taken for a command line: "command not found: https://api.example.test/mcp"."""
    spec = parse_server_option(pasted, config=None, sse=False, headers={})
    assert (spec.transport, spec.url, spec.name) == (
        "http",
        "https://api.example.test/mcp",
        "api.example.test",
    )


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("http://", "has no host"),
        ("http://h:port/x", "invalid URL"),
        ("https://h/a b", "cannot contain spaces"),
    ],
)
def test_bad_urls(value: str, problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        parse_server_option(value, config=None, sse=False, headers={})


def test_command_line_is_split_like_a_shell() -> None:
    spec = parse_server_option(
        "python '/opt/my servers/server.py' --greeting \"hello world\"", config=None, sse=False, headers={}
    )
    assert spec.transport == "stdio"
    assert spec.command == "python"
    assert spec.args == ("/opt/my servers/server.py", "--greeting", "hello world")
    assert spec.name == "server.py"
    assert spec.headers == {}


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ("python -m explorer demo-server", "explorer"),
        ("python3.12 -u -X dev -m mcp_server_time --tz UTC", "mcp_server_time"),
        ("/usr/bin/python3 server.py", "server.py"),
        ("python -c 'import x'", "python"),
        ("node /x/dist/index.js stdio", "x"),  # an entry point is named after its package folder
        ("node --inspect -r dotenv/config build/main.js", "main.js"),
        ("npx -y @modelcontextprotocol/server-everything@2026.8.31", "server-everything"),
        ("npx mcp-remote https://h/mcp", "mcp-remote"),
        ("uvx mcp-server-fetch", "mcp-server-fetch"),
        ("uvx --from 'git+https://x/y' mcp-y==1.0", "mcp-y"),
        ("uv --directory /srv/weather run weather.py", "weather.py"),
        ("uv tool run 'mcp-server-git[cli]>=1'", "mcp-server-git"),
        ("pipx run mcp-server-sqlite --db x.db", "mcp-server-sqlite"),
        ("docker run -i --rm -e TOKEN ghcr.io/github/github-mcp-server:latest", "github-mcp-server"),
        ("deno run -A server.ts", "server.ts"),
        ("/opt/bin/my-server --stdio", "my-server"),
        ("C:\\\\tools\\\\server.exe", "server"),
    ],
)
def test_stdio_names_are_recognisable(value: str, name: str) -> None:
    assert parse_server_option(value, config=None, sse=False, headers={}).name == name


def test_split_error_and_empty_values() -> None:
    with pytest.raises(ConfigError, match="cannot split the command line"):
        parse_server_option("python 'unclosed", config=None, sse=False, headers={})
    for empty in ("", "   "):
        with pytest.raises(ConfigError, match="-s/--server is empty"):
            parse_server_option(empty, config=None, sse=False, headers={})
    with pytest.raises(ConfigError, match="the command is empty"):
        parse_server_option("''", config=None, sse=False, headers={})


def _config() -> Config:
    return Config(
        servers={
            "demo": demo_server_spec(),
            "remote": ServerSpec(
                name="remote",
                transport="http",
                url="https://h/mcp",
                headers={"Authorization": "Bearer old", "X-Keep": "1"},
            ),
        }
    )


def test_configured_name_is_looked_up_and_cli_headers_merged() -> None:
    config = _config()
    assert parse_server_option("demo", config=config, sse=False, headers={"A": "b"}) == demo_server_spec()
    remote = parse_server_option("remote", config=config, sse=False, headers={"authorization": "Bearer new"})
    assert remote.headers == {"X-Keep": "1", "authorization": "Bearer new"}
    assert config.servers["remote"].headers["Authorization"] == "Bearer old"  # the config is untouched


def test_unknown_name_with_a_config_is_an_error() -> None:
    with pytest.raises(ConfigError) as info:
        parse_server_option("remtoe", config=_config(), sse=False, headers={})
    assert str(info.value) == "unknown server name 'remtoe'; configured servers: demo, remote"


def test_single_token_executable_or_path_is_a_command_even_with_a_config(tmp_path: Path) -> None:
    config = _config()
    executable = Path(sys.executable).name
    assert parse_server_option(executable, config=config, sse=False, headers={}).command == executable
    script = write(tmp_path, "server.sh", "#!/bin/sh\n")
    assert parse_server_option(str(script), config=config, sse=False, headers={}).command == str(script)


def test_single_unknown_token_without_config_is_a_command() -> None:
    spec = parse_server_option("no-such-server-binary", config=None, sse=False, headers={})
    assert spec.command == "no-such-server-binary"


# ------------------------------------------------------------------------------------------- -H


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Authorization: Bearer abc", ("Authorization", "Bearer abc")),
        ("  X-Api-Key :   k:e:y  ", ("X-Api-Key", "k:e:y")),
        ("X-Empty:", ("X-Empty", "")),
    ],
)
def test_parse_header(value: str, expected: tuple[str, str]) -> None:
    assert parse_header(value) == expected


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("Authorization Bearer abc", "has no colon; expected 'Name: value'"),
        (": value", "has an empty name"),
        ("Bad Name: v", "is not a valid header name"),
        ("X-Inject: a\r\nEvil: 1", "control characters"),
    ],
)
def test_bad_headers(value: str, problem: str) -> None:
    with pytest.raises(ConfigError, match=problem) as info:
        parse_header(value)
    assert "abc" not in str(info.value)
    assert "value" not in str(info.value).replace("'Name: value'", "").replace("the value", "")


# ------------------------------------------------------------------------------------ select_servers


def test_select_uses_s_values_in_order() -> None:
    specs = select_servers(
        _config(), ["remote", "https://x.test/mcp", "demo"], sse=False, headers={}, default=demo_server_spec()
    )
    assert [spec.name for spec in specs] == ["remote", "x.test", "demo"]


def test_select_without_s_uses_every_configured_server_with_cli_headers() -> None:
    specs = select_servers(_config(), [], sse=False, headers={"X-Trace": "on"}, default=demo_server_spec())
    assert [spec.name for spec in specs] == ["demo", "remote"]
    assert specs[1].headers["X-Trace"] == "on"
    assert specs[0].headers == {}


def test_select_falls_back_to_the_default() -> None:
    default = demo_server_spec()
    assert select_servers(None, [], sse=False, headers={}, default=default) == [default]
    assert select_servers(Config(), [], sse=False, headers={}, default=default) == [default]


def test_select_makes_names_unique() -> None:
    values = ["https://h/a", "https://h/b", "https://h/c", "python -m h"]
    specs = select_servers(None, values, sse=False, headers={}, default=demo_server_spec())
    assert [spec.name for spec in specs] == ["h", "h-2", "h-3", "h-4"]
    assert [spec.url for spec in specs[:3]] == ["https://h/a", "https://h/b", "https://h/c"]


def test_generated_names_do_not_take_an_existing_name() -> None:
    config = Config(servers={"h-2": ServerSpec(name="h-2", transport="http", url="https://other/mcp")})
    specs = select_servers(
        config, ["https://h/a", "https://h/b", "h-2"], sse=False, headers={}, default=demo_server_spec()
    )
    assert [spec.name for spec in specs] == ["h", "h-3", "h-2"]


# ------------------------------------------------------------------------------------------ secrets


def test_repr_and_describe_mask_header_and_env_values() -> None:
    spec = ServerSpec(
        name="r",
        transport="http",
        url="https://bob:hunter22@h.test/mcp?api_key=k123456&page=2",
        headers={"Authorization": "Bearer tok-123456"},
    )
    for text in (repr(spec), spec.describe(), str(spec)):
        assert "tok-123456" not in text
        assert "hunter22" not in text
        assert "k123456" not in text
        assert "***" in text
    assert (
        spec.describe() == "http: https://bob:***@h.test/mcp?api_key=***&page=2 (headers: Authorization: ***)"
    )
    stdio = ServerSpec(
        name="s", transport="stdio", command="python", args=("-m", "x"), env={"TOKEN": "abcdef"}
    )
    assert "abcdef" not in repr(stdio)
    assert "'TOKEN': '***'" in repr(stdio)
    assert stdio.describe() == "stdio: python -m x (env: TOKEN=***)"


def test_describe_is_short_and_safe() -> None:
    spec = ServerSpec(name="s", transport="stdio", command="my server", args=("a b", "\x1b[2J"))
    assert spec.describe() == "stdio: 'my server' 'a b' '\\x1b[2J'"
    assert ServerSpec(name="h", transport="http", url="https://h/mcp").describe() == "http: https://h/mcp"


def test_redact_replaces_every_secret_in_a_message() -> None:
    spec = ServerSpec(
        name="r",
        transport="http",
        url="https://u:passw0rd@h/mcp?token=qwerty123",
        headers={"Authorization": "Bearer tok-123456", "X-Small": "1"},
    )
    message = "401 for Bearer tok-123456 (token tok-123456 at u:passw0rd, query qwerty123); retry 1 time"
    assert redact(message, spec) == "401 for *** (token *** at u:***, query ***); retry 1 time"
    stdio = ServerSpec(
        name="s", transport="stdio", command="x", env={"API_KEY": "sk-live-9999", "DEBUG": "1"}
    )
    assert redact("bad key sk-live-9999, DEBUG=1", stdio) == "bad key ***, DEBUG=1"


def test_mask_url_leaves_plain_urls_alone() -> None:
    assert mask_url("https://h/mcp?page=2") == "https://h/mcp?page=2"
    assert mask_url("http://[bad") == "http://[bad"


# ------------------------------------------------------------------------------------ spec and paths


def test_spec_copies_its_mappings_and_is_hashable() -> None:
    env = {"A": "1"}
    spec = ServerSpec(name="s", transport="stdio", command="x", args=["a"], env=env)  # type: ignore[arg-type]
    env["A"] = "2"
    assert spec.env == {"A": "1"}
    assert spec.args == ("a",)
    assert hash(spec) == hash(dataclasses.replace(spec))
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.name = "t"  # type: ignore[misc]


def test_spec_rejects_inconsistent_fields() -> None:
    with pytest.raises(ValueError):
        ServerSpec(name="s", transport="stdio")
    with pytest.raises(ValueError):
        ServerSpec(name="s", transport="http", command="x")
    with pytest.raises(ValueError):
        ServerSpec(name="s", transport="ws", url="ws://h")  # type: ignore[arg-type]


def test_demo_server_spec() -> None:
    spec = demo_server_spec()
    assert (spec.name, spec.transport, spec.command, spec.args) == (
        "demo",
        "stdio",
        sys.executable,
        ("-m", "explorer", "demo-server"),
    )


def test_default_config_path_only_when_the_file_exists() -> None:
    assert default_config_path() is None
    path = paths.config_file()
    path.parent.mkdir(parents=True)
    path.write_text('[servers.a]\ncommand = "x"\n')
    assert default_config_path() == path
    assert list(load_config(path).servers) == ["a"]


# ------------------------------------------------------------------------------------ VS Code variables


def fake_host(tmp_path: Path, **env: str) -> HostContext:
    return HostContext(home=tmp_path / "home", cwd=tmp_path / "here", platform="linux", env=env)


def test_variables_come_from_the_host_context(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    path = write_in(
        workspace / ".vscode",
        "mcp.json",
        {
            "servers": {
                "a": {
                    "command": "${userHome}${/}bin${pathSeparator}srv",
                    "args": ["${workspaceFolder}", "${workspaceFolderBasename}", "${cwd}", "${env:TOKEN}"],
                    "env": {"SHELL_STYLE": "${TOKEN}", "DEFAULTED": "${NOPE:-fallback}"},
                }
            }
        },
    )
    context = fake_host(tmp_path, TOKEN="t0ken")
    server = load_config(path, context=context).servers["a"]
    assert server.command == f"{tmp_path}/home/bin/srv"
    assert server.args == (str(workspace), "ws", str(tmp_path / "here"), "t0ken")
    assert server.env == {"SHELL_STYLE": "t0ken", "DEFAULTED": "fallback"}


def test_workspace_folder_outside_a_vscode_folder_is_the_current_directory(tmp_path: Path) -> None:
    path = write(
        tmp_path, "servers.json", {"mcpServers": {"a": {"command": "x", "args": ["${workspaceFolder}"]}}}
    )
    assert load_config(path, context=fake_host(tmp_path)).servers["a"].args == (str(tmp_path / "here"),)


def test_an_unset_variable_is_an_empty_string_and_a_warning(tmp_path: Path) -> None:
    path = write(
        tmp_path, "c.json", {"mcpServers": {"a": {"command": "x", "args": ["--t=${env:MISSING}", "${ALSO}"]}}}
    )
    config = load_config(path, context=fake_host(tmp_path))
    assert config.servers["a"].args == ("--t=", "")
    unset = "is not set in the environment; the server gets an empty string there"
    assert config.warnings == [
        f'{path}: server "a": ${{env:MISSING}} {unset}',
        f'{path}: server "a": ${{ALSO}} {unset}',
    ]


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (
            "${command:pickProcess}",
            "${command:pickProcess} runs a VS Code command, which only works inside VS Code",
        ),
        (
            "${config:editor.fontSize}",
            "${config:editor.fontSize} reads a VS Code setting, which only works inside",
        ),
        ("${file}", "${file} only has a value inside the editor"),
        ("${selectedText}", "${selectedText} only has a value inside the editor"),
        ("${secret:x}", '${secret:x} has an unknown variable kind "secret"'),
        ("${}", "${} is not a variable the explorer knows"),
        ("${a b}", "${a b} is not a variable the explorer knows"),
        ("${env:1x}", "${env:1x} does not name an environment variable"),
    ],
)
def test_unknown_variables_are_config_errors_naming_them(tmp_path: Path, value: str, problem: str) -> None:
    path = write(tmp_path, "c.json", {"mcpServers": {"a": {"command": "x", "args": [value]}}})
    assert f'server "a": {problem}' in config_error(path)


# ---------------------------------------------------------------------------------------------- envFile


def test_env_file_is_read_and_explicit_env_wins(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    write_in(
        workspace,
        ".env",
        "# comment\n\nexport PLAIN=one\nQUOTED=\"two words\\nnext\"  \nSINGLE='a \\n b'\n"
        'BARE=value # a comment\nEMPTY=\nOVERRIDDEN=from-file\nnot a line\nBROKEN="open\n',
    )
    path = write_in(
        workspace / ".vscode",
        "mcp.json",
        {
            "servers": {
                "a": {
                    "command": "x",
                    "envFile": "${workspaceFolder}/.env",
                    "env": {"OVERRIDDEN": "explicit"},
                },
                "b": {"command": "y", "envFile": ".env"},
            }
        },
    )
    config = load_config(path, context=fake_host(tmp_path))
    assert config.servers["a"].env == {
        "PLAIN": "one",
        "QUOTED": "two words\nnext",
        "SINGLE": "a \\n b",
        "BARE": "value",
        "EMPTY": "",
        "OVERRIDDEN": "explicit",
    }
    assert config.servers["b"].env["OVERRIDDEN"] == "from-file"  # relative to the workspace folder
    env_path = workspace / ".env"
    assert f'{path}: server "a": envFile {env_path} line 9 is not KEY=VALUE and is skipped' in config.warnings
    assert any("line 10 has an unterminated quoted value" in w for w in config.warnings)


def test_a_missing_env_file_is_a_config_error_naming_it(tmp_path: Path) -> None:
    path = write(tmp_path, "c.json", {"mcpServers": {"a": {"command": "x", "envFile": "secrets.env"}}})
    assert f'server "a": envFile {tmp_path / "secrets.env"} does not exist' in config_error(path)


def test_env_file_for_a_url_server_is_ignored_with_a_warning(tmp_path: Path) -> None:
    path = write(tmp_path, "c.json", {"mcpServers": {"a": {"url": "https://h/mcp", "envFile": "nope.env"}}})
    assert load_config(path).warnings == [f'{path}: server "a": envFile ignored for an http server']


# ------------------------------------------------------------------------------------ hostile files


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("deep.json", '{"mcpServers": ' + "[" * 5000 + "]" * 5000 + "}"),
        ("deep-jsonc.json", '{"mcpServers": // c\n' + "[" * 5000 + "]" * 5000 + "}"),
        ("deep-array.toml", "a = " + "[" * 5000 + "]" * 5000 + "\n"),
        ("deep-table.toml", "a = " + "{b = " * 5000 + "1" + "}" * 5000 + "\n"),
        ("deep-keys.toml", ".".join(["k"] * 20000) + " = 1\n"),
    ],
)
def test_thousands_of_nesting_levels_are_a_config_error(tmp_path: Path, name: str, text: str) -> None:
    assert "nested too deeply" in config_error(write(tmp_path, name, text))


def test_dots_inside_toml_strings_do_not_count_as_nesting(tmp_path: Path) -> None:
    dotted = "." * 2000
    config = load_config(write(tmp_path, "c.toml", f'[servers.a]\ncommand = "x"\nargs = ["{dotted}"]\n'))
    assert config.servers["a"].args == (dotted,)


@pytest.mark.parametrize(
    ("server", "problem"),
    [
        ({"url": "https://h:99999/mcp"}, '"url" invalid URL (its port is not a number from 0 to 65535)'),
        ({"url": "https://h:port/mcp"}, '"url" invalid URL'),
        ({"url": "https:///mcp"}, '"url" the URL has no host'),
        (
            {"url": "https://h/mcp", "headers": {"Authorization": "Bearer …"}},
            'header "Authorization": the value contains the non-ASCII character U+2026 at position 8',
        ),
        (
            {"url": "https://h/mcp", "headers": {"Bad Name": "v"}},
            'header "Bad Name" is not a valid header name',
        ),
    ],
)
def test_urls_and_headers_in_files_are_checked_up_front(tmp_path: Path, server: object, problem: str) -> None:
    assert problem in config_error(write(tmp_path, "c.json", {"mcpServers": {"x": server}}))


# ------------------------------------------------------------------------------- -H, -e, names, cwd


def test_non_ascii_header_value_is_refused_with_a_clear_sentence() -> None:
    with pytest.raises(ConfigError) as info:
        parse_header("Authorization: Bearer …")
    assert str(info.value) == (
        '-H/--header "Authorization": the value contains the non-ASCII character U+2026 at position 8 '
        "(an ellipsis: is it a placeholder copied from an example?); HTTP header values must be ASCII"
    )
    with pytest.raises(ConfigError, match=r"U\+00E9 at position 4") as accented:
        parse_header("X-Name: caf\u00e9-secret")
    assert "secret" not in str(accented.value)


def test_env_options() -> None:
    assert parse_env_options(["A=1", "B=x=y", "EMPTY="]) == {"A": "1", "B": "x=y", "EMPTY": ""}
    for bad in (["NOEQUALS"], ["=v"]):
        with pytest.raises(ConfigError, match="-e/--env: expected KEY=VALUE"):
            parse_env_options(bad)


def test_env_applies_to_stdio_servers_given_with_s() -> None:
    config = Config(
        servers={"cfg": ServerSpec(name="cfg", transport="stdio", command="c", env={"A": "own", "B": "b"})}
    )
    specs = select_servers(
        config,
        ["cfg", "python -m srv", "https://h/mcp"],
        sse=False,
        headers={},
        default=demo_server_spec(),
        env={"A": "cli"},
    )
    assert [spec.env for spec in specs] == [{"A": "cli", "B": "b"}, {"A": "cli"}, {}]
    assert config.servers["cfg"].env == {"A": "own", "B": "b"}
    with pytest.raises(ConfigError, match="no -s was given"):
        select_servers(config, [], sse=False, headers={}, default=demo_server_spec(), env={"A": "1"})
    with pytest.raises(ConfigError, match="none of the -s servers is a stdio command"):
        select_servers(
            None, ["https://h/mcp"], sse=False, headers={}, default=demo_server_spec(), env={"A": "1"}
        )


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ("env TOKEN=x npx -y @scope/server-github", "server-github"),
        ("env -u HOME -i A=1 uvx mcp-server-time", "mcp-server-time"),
        ("env -- python -m pkg.server", "pkg.server"),
        ("cmd /c npx -y @modelcontextprotocol/server-memory", "server-memory"),
        ("env", "env"),
    ],
)
def test_wrapped_command_lines_are_named_by_what_they_run(value: str, name: str) -> None:
    assert parse_server_option(value, config=None, sse=False, headers={}).name == name


def test_a_missing_cwd_is_a_config_error(tmp_path: Path) -> None:
    spec = ServerSpec(name="s", transport="stdio", command="x", cwd=str(tmp_path / "gone"))
    with pytest.raises(ConfigError) as info:
        check_startable(spec)
    assert str(info.value) == f'server "s": cwd {tmp_path / "gone"} does not exist'
    check_startable(dataclasses.replace(spec, cwd=str(tmp_path)))
    with pytest.raises(ConfigError, match="is not a directory"):
        check_startable(dataclasses.replace(spec, cwd=str(write(tmp_path, "f", "x"))))


def test_the_demo_servers_own_knobs_reach_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stdio server inherits only a few variables: the demo's handbook says to set
    EXPLORER_DEMO_CHANGE_SECONDS before starting, which did nothing for the built-in demo."""
    from explorer.config.options import demo_server_spec

    monkeypatch.setenv("EXPLORER_DEMO_TICK_SECONDS", "0.3")
    monkeypatch.setenv("UNRELATED_TOKEN", "abcdef")
    assert demo_server_spec().env == {"EXPLORER_DEMO_TICK_SECONDS": "0.3"}
