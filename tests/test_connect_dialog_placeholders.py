"""The connect dialog connects a server as a restart reads it back once saved: `${env:NAME}` expanded to
connect, kept as typed in config.toml; `~` starting a word of the command line is the home folder.

Before, a header `Authorization: Bearer ${env:TOKEN}` typed in the dialog reached the server as those
words, while the same server saved and read back sent the token; and `~/notes` reached a stdio server as
`~/notes`, a folder no shell would have given it.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest
from textual.widgets import Checkbox, Input, TextArea

from explorer.app import ExplorerApp
from explorer.config import ConfigError, load_config, redact
from explorer.config.checks import url_problem
from explorer.config.read_back import as_read_back
from explorer.config.removal import deletable, forget_server
from explorer.config.variables import HostContext
from explorer.config.writer import save_server, saved_table
from explorer.screens.connect_dialog import spec_from_fields
from tests.app_helpers import SIZE, demo_spec, main_screen, wait_for, wait_settled
from tests.helpers.tiny_server import tiny_server
from tests.test_connect_dialog import dialog_status, open_dialog

CONFIG = Path("/nowhere/config.toml")


def context(**env: str) -> HostContext:
    return HostContext(home=Path("/home/ada"), cwd=Path("/work"), platform="linux", env=env)


def test_a_header_placeholder_is_expanded_to_connect_and_kept_to_save() -> None:
    typed = spec_from_fields(
        "https://mcp.example.test/mcp", "Authorization: Bearer ${env:TOKEN}", "", "default"
    )
    connected, warnings = as_read_back(typed, CONFIG, context=context(TOKEN="s3cret-value"))
    assert connected.headers == {"Authorization": "Bearer s3cret-value"} and warnings == []
    assert connected.origin is None  # not an entry of the file until it is saved
    assert saved_table(typed)["headers"] == {"Authorization": "Bearer ${env:TOKEN}"}


def test_env_values_and_arguments_take_placeholders_too() -> None:
    typed = spec_from_fields("server --root ${userHome}/notes", "", "KEY=${API_KEY:-none}", "default")
    connected, _ = as_read_back(typed, CONFIG, context=context())
    assert connected.args == ("--root", "/home/ada/notes") and connected.env == {"KEY": "none"}


def test_an_unset_variable_is_a_warning_saying_which_without_the_files_name() -> None:
    typed = spec_from_fields("https://mcp.example.test/mcp", "X-Key: ${env:NOPE}", "", "default")
    connected, warnings = as_read_back(typed, CONFIG, context=context())
    assert connected.headers == {"X-Key": ""}
    assert warnings == ["${env:NOPE} is not set in the environment; the server gets an empty string there"]


@pytest.mark.parametrize(
    ("headers", "said"),
    [
        ("X-File: ${file}", "${file} only has a value inside the editor"),
        ("X-Odd: ${nope:thing}", '${nope:thing} has an unknown variable kind "nope"'),
    ],
)
def test_a_placeholder_the_loader_refuses_is_said_before_anything_connects(headers: str, said: str) -> None:
    typed = spec_from_fields("https://mcp.example.test/mcp", headers, "", "default")
    with pytest.raises(ConfigError) as caught:
        as_read_back(typed, CONFIG, context=context())
    assert str(caught.value) == said


def test_a_tilde_starting_a_word_is_the_home_folder_and_nowhere_else() -> None:
    spec = spec_from_fields("server ~/notes --name=~x a~b ~", "", "", "default")
    home = os.path.expanduser("~")
    assert spec.args == (f"{home}/notes", "--name=~x", "a~b", home)


ECHO_ENV = """
import os
def answer(method, params):
    if method == "resources/list":
        value = os.environ.get("GREETING", "unset") + "/" + sys.argv[1].replace("/", "_")
        return {"resources": [{"uri": "echo://" + value, "name": "echo"}]}
    return None
"""


@pytest.mark.anyio
@pytest.mark.slow
async def test_the_dialog_connects_the_expanded_server_and_saves_the_typed_one(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EXPLORER_TEST_GREETING", "hello")
    monkeypatch.setenv("HOME", "/home/ada")
    script = tiny_server(tmp_path, ECHO_ENV)
    app = ExplorerApp([demo_spec("first")], remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_settled(pilot, app)
        dialog = await open_dialog(pilot, app)
        dialog.query_one("#target", Input).value = script + " ~/notes"
        dialog.query_one("#env", TextArea).text = "GREETING=${env:EXPLORER_TEST_GREETING}"
        dialog.query_one("#save", Checkbox).value = True
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "connected:" in dialog_status(app), timeout=30)
        await pilot.press("escape")
        await wait_settled(pilot, app)
        uris = {entry.uri for entry in main_screen(app).catalogue.tree.resources_under("echo://")}
        assert uris == {"echo://hello/_home_ada_notes"}
    saved = tomllib.loads((isolated_home / "config" / "config.toml").read_text(encoding="utf-8"))
    (table,) = saved["servers"].values()
    assert table["env"] == {"GREETING": "${env:EXPLORER_TEST_GREETING}"}
    assert table["args"][-1] == "/home/ada/notes"


def test_a_token_the_environment_puts_in_the_arguments_is_masked_where_the_server_is_shown() -> None:
    typed = spec_from_fields("server --token ${env:TOKEN} --home ${userHome}", "", "", "default")
    connected, _ = as_read_back(typed, CONFIG, context=context(TOKEN="s3cret-value"))
    assert connected.args == ("--token", "s3cret-value", "--home", "/home/ada")
    shown = connected.describe()
    assert "s3cret-value" not in shown and "***" in shown and "/home/ada" in shown
    assert "s3cret-value" not in redact("the server said: s3cret-value", connected)


def test_the_environment_in_a_urls_query_is_masked_and_its_host_is_not(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[servers.remote]\nurl = "https://${env:MCP_HOST}/mcp?key=${env:MCP_KEY}"\n')
    config = load_config(path, context=context(MCP_HOST="mcp.example.test", MCP_KEY="k3y-value"))
    shown = config.servers["remote"].describe()
    assert "mcp.example.test" in shown and "k3y-value" not in shown


def test_a_password_cut_by_a_slash_is_not_quoted_back_in_the_urls_problem() -> None:
    problem = url_problem("https://ada:hunter2secret/xyz@mcp.example.test/mcp")
    assert problem is not None and "hunter2secret" not in problem
    assert "port is not a number" in problem and "%2F" in problem


def test_a_placeholder_for_the_urls_host_is_refused_saying_where_one_may_stand() -> None:
    with pytest.raises(ConfigError) as caught:
        spec_from_fields("https://${env:HOST}/mcp", "", "", "default")
    assert "host cannot be a placeholder" in str(caught.value)


def test_an_input_placeholder_says_only_a_config_file_defines_one() -> None:
    typed = spec_from_fields("https://mcp.example.test/mcp", "X-Key: ${input:key}", "", "default")
    with pytest.raises(ConfigError) as caught:
        as_read_back(typed, CONFIG, context=context())
    assert str(caught.value) == "${input:key} asks for an input; only a config file defines one"


def test_a_server_saved_with_placeholders_is_found_in_the_file_and_deleted_from_it(tmp_path: Path) -> None:
    """Before, the entry (placeholders) never equalled the server connected (expanded): the palette did
    not offer to delete it, and removing it said nothing of the file that brings it back."""
    config = tmp_path / "config.toml"
    typed = spec_from_fields("server --token ${env:TOKEN}", "", "KEY=${env:TOKEN}", "default")
    connected, _ = as_read_back(typed, config, context=context(TOKEN="s3cret-value"))
    save_server(config, typed)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TOKEN", "s3cret-value")  # as the explorer that saved it runs
        assert deletable(connected, config)
        said = forget_server(connected, config, delete=True)
    assert not said.failed and "deleted it from" in said.message
    assert (
        "servers" not in tomllib.loads(config.read_text()) or not tomllib.loads(config.read_text())["servers"]
    )
