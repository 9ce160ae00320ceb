"""Every character a server's values can hold is written to config.toml so that TOML reads it back exactly.

JSON's escapes wrote a character above U+FFFF (an emoji) as a surrogate pair, `"\\ud83d\\ude00"`, which TOML
refuses: saving such a server from the connect dialog crashed the app, and with any server in config.toml
the palette's provider raised for it, so ctrl+p showed "No matches found". A lone surrogate, which no
TOML file can hold, is refused with a ConfigError naming the field.
"""

from __future__ import annotations

import re
import shlex
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from textual.widgets import Checkbox, Input, TextArea

from explorer import paths
from explorer.app import ExplorerApp
from explorer.config import ConfigError, ServerSpec
from explorer.config.loaders import load_config
from explorer.config.removal import deletable, forget_server
from explorer.config.variables import HostContext
from explorer.config.writer import save_server, server_toml
from tests.app_helpers import SIZE, demo_spec, main_screen, wait_for, wait_settled
from tests.test_config_leftovers_remove import remove_in_palette
from tests.test_connect_dialog import dialog_status, open_dialog

# Any character but a surrogate: astral ones (emoji), control characters, quotes and backslashes included.
TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
SOME_TEXT = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=12)
EMOJI = "\U0001f600"


@given(
    name=SOME_TEXT,
    command=SOME_TEXT,
    args=st.lists(TEXT, max_size=4),
    env=st.dictionaries(TEXT, TEXT, max_size=3),
    cwd=SOME_TEXT,
)
@settings(max_examples=200, deadline=None)
def test_a_command_line_reads_back_exactly(
    name: str, command: str, args: list[str], env: dict[str, str], cwd: str
) -> None:
    spec = ServerSpec(name=name, transport="stdio", command=command, args=tuple(args), env=env, cwd=cwd)
    table = tomllib.loads(server_toml(spec))["servers"][name]
    assert table["command"] == command
    assert table.get("args", []) == args
    assert table.get("env", {}) == env
    assert table["cwd"] == cwd


@given(name=SOME_TEXT, url=SOME_TEXT, headers=st.dictionaries(TEXT, TEXT, max_size=3))
@settings(max_examples=200, deadline=None)
def test_a_url_and_its_headers_read_back_exactly(name: str, url: str, headers: dict[str, str]) -> None:
    spec = ServerSpec(name=name, transport="http", url=url, headers=headers)
    table = tomllib.loads(server_toml(spec))["servers"][name]
    assert table["url"] == url
    assert table.get("headers", {}) == headers


def test_the_file_stays_ascii_and_an_emoji_is_one_toml_escape() -> None:
    text = server_toml(ServerSpec(name="e", transport="stdio", command="run", args=(EMOJI, "\x00\x7f\t")))
    assert text.isascii()
    assert 'args = ["\\U0001F600", "\\u0000\\u007F\\t"]' in text


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        (ServerSpec(name="s", transport="stdio", command="run", args=("ok", "bad\udcff")), "arguments"),
        (ServerSpec(name="s", transport="stdio", command="run\ud800"), "command"),
        (ServerSpec(name="s", transport="stdio", command="run", env={"K": "\udc80"}), "env values"),
        (
            ServerSpec(name="s", transport="http", url="https://h/mcp", headers={"A": "\ud83d"}),
            "header values",
        ),
        (ServerSpec(name="s", transport="http", url="https://h/\ude00"), "url"),
    ],
)
def test_a_lone_surrogate_is_a_config_error_naming_the_field(
    tmp_path: Path, spec: ServerSpec, field: str
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[servers.other]\ncommand = "true"\n', encoding="utf-8")
    with pytest.raises(
        ConfigError,
        match=f"lone surrogate \\(U\\+D[0-9A-F]{{3}}\\) in the server's {field} is not a character",
    ):
        server_toml(spec)
    with pytest.raises(
        ConfigError, match=f"^{re.escape(str(config))}: a lone surrogate .* can hold; not changed$"
    ):
        save_server(config, spec)
    assert config.read_text(encoding="utf-8") == '[servers.other]\ncommand = "true"\n'  # not changed
    assert not deletable(spec, config)  # what the palette asks of every server: no exception
    assert forget_server(spec, config, delete=True).message == "Removed s."


def test_an_emoji_argument_is_saved_and_loads_back(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('# mine\n[servers.other]\ncommand = "true"\n', encoding="utf-8")
    spec = ServerSpec(name=f"smile {EMOJI}", transport="stdio", command="run", args=(f"--label={EMOJI}",))
    save_server(config, spec)
    loaded = load_config(config, context=HostContext(home=tmp_path, cwd=tmp_path, platform=sys.platform))
    assert list(loaded.servers) == ["other", f"smile {EMOJI}"]
    assert loaded.servers[f"smile {EMOJI}"].args == (f"--label={EMOJI}",)
    assert config.read_text(encoding="utf-8").startswith('# mine\n[servers.other]\ncommand = "true"\n')


def test_a_server_with_an_emoji_is_forgotten_and_deleted_without_raising(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[servers.other]\ncommand = "true"\n', encoding="utf-8")
    spec = ServerSpec(name="emoji", transport="stdio", command="python3", args=(EMOJI,))
    assert not deletable(spec, config)
    assert forget_server(spec, config).message == "Removed emoji."
    save_server(config, spec)
    assert deletable(spec, config)
    notice = forget_server(spec, config, delete=True)
    assert (notice.message, notice.failed) == (f"Removed emoji, and deleted it from {config}.", False)
    assert config.read_text(encoding="utf-8") == '[servers.other]\ncommand = "true"\n'


@pytest.mark.slow
@pytest.mark.anyio
async def test_the_palette_deletes_a_saved_server_with_an_emoji_from_config_toml() -> None:
    own = paths.config_file()
    own.parent.mkdir(parents=True, exist_ok=True)
    spec = ServerSpec(
        name="emoji", transport="stdio", command=sys.executable, args=demo_spec().args, env={"LABEL": EMOJI}
    )
    saved = f'[servers.emoji]\ncommand = "{sys.executable}"\nargs = ["-m", "explorer", "demo-server"]\n'
    own.write_text('[servers.other]\ncommand = "true"\n\n' + saved + 'env = { LABEL = "\\U0001F600" }\n')
    app = ExplorerApp([demo_spec("first"), spec], remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_settled(pilot, app)
        notices = await remove_in_palette(app, pilot, "Delete from config.toml", "emoji")
        assert notices == [f"Removed emoji, and deleted it from {own}."]
        assert list(main_screen(app).catalogue.servers) == ["first"]
    assert own.read_text() == '[servers.other]\ncommand = "true"\n'


@pytest.mark.slow
@pytest.mark.anyio
async def test_the_connect_dialog_saves_a_command_line_with_an_emoji() -> None:
    app = ExplorerApp([demo_spec("first")], remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_settled(pilot, app)
        dialog = await open_dialog(pilot, app)
        dialog.query_one("#target", Input).value = shlex.join(
            [sys.executable, "-m", "explorer", "demo-server"]
        )
        dialog.query_one("#env", TextArea).text = f"LABEL={EMOJI}"
        dialog.query_one("#save", Checkbox).value = True
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "resources" in dialog_status(app), timeout=30)
        assert "connected:" in dialog_status(app) and "(saved to config.toml)" in dialog_status(app)
        added = list(main_screen(app).catalogue.servers)[1]
        await pilot.press("escape")
    saved = tomllib.loads(paths.config_file().read_text(encoding="utf-8"))
    assert saved["servers"][added]["env"] == {"LABEL": EMOJI}
