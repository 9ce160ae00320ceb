"""The palette's "Disconnect and remove" drops a server for the session and says which file brings it
back; "Delete from config.toml", offered only for a server of the explorer's own config.toml, also deletes
its entry there for good (that entry alone, the rest of the file as it was). A server of another file
(Claude Desktop's, a `-c` file) is never deleted from it. A failure to write loses nothing."""

from __future__ import annotations

import errno
import json
import os
import shlex
import stat
import sys
from pathlib import Path

import pytest
from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.widgets import OptionList

from explorer import paths
from explorer.app import ExplorerApp
from explorer.cli.settings import Settings
from explorer.config import ServerSpec
from explorer.config.removal import forget_server
from explorer.config.writer import remove_server, save_server
from tests.app_helpers import SIZE, main_screen, wait_for, wait_settled
from tests.helpers.tiny_server import tiny_server

LISTS = """
def answer(method, params):
    if method == "resources/list":
        return {"resources": [{"uri": "tiny://one", "name": "one"}]}
    return {"resourceTemplates": []}
"""


def own_config_text(script: Path) -> str:
    """A config.toml as a user keeps it: comments, two servers, an env table, settings after them."""
    command = json.dumps(sys.executable)
    return f"""# my explorer config
theme = "explorer-dark"

[servers.alpha]  # the one to remove
command = {command}
args = [
  {json.dumps(str(script))},  # the script
]

[servers.alpha.env]
ALPHA_MODE = "fast"

# beta stays
[servers.beta]
command = {command}
args = [{json.dumps(str(script))}]

[keymap]
"main.filter" = "slash,ctrl+f"
"""


def without_alpha(script: Path) -> str:
    command = json.dumps(sys.executable)
    return f"""# my explorer config
theme = "explorer-dark"

# beta stays
[servers.beta]
command = {command}
args = [{json.dumps(str(script))}]

[keymap]
"main.filter" = "slash,ctrl+f"
"""


async def remove_in_palette(app: ExplorerApp, pilot: Pilot[int], label: str, name: str) -> list[str]:
    """Pick "LABEL: NAME" in the palette; the notices shown once the server is gone."""
    screen = main_screen(app)
    before = len(app._notifications)
    label = f"{label}: {name}"
    await pilot.press("ctrl+p")
    await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
    await pilot.press(*label)
    await wait_for(pilot, lambda: palette_text(app).startswith(label))
    await pilot.press("enter")
    await wait_for(pilot, lambda: name not in screen.catalogue.servers)
    await wait_for(pilot, lambda: len(app._notifications) > before)
    return [notification.message for notification in list(app._notifications)[before:]]


def palette_text(app: ExplorerApp) -> str:
    if not isinstance(app.screen, CommandPalette):
        return ""
    options = app.screen.query_one(OptionList)
    return "\n".join(str(options.get_option_at_index(i).prompt) for i in range(options.option_count))


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_server_of_config_toml_is_deleted_from_it_and_the_rest_of_the_file_stays(
    tmp_path: Path,
) -> None:
    script = Path(shlex.split(tiny_server(tmp_path, LISTS))[1])
    dotfiles = tmp_path / "dotfiles" / "explorer.toml"
    dotfiles.parent.mkdir()
    dotfiles.write_text(own_config_text(script))
    dotfiles.chmod(0o640)
    own = paths.config_file()
    own.parent.mkdir(parents=True, exist_ok=True)
    own.symlink_to(dotfiles)  # the user keeps it in their dotfiles
    prepared = Settings().prepare()
    assert [spec.name for spec in prepared.specs] == ["alpha", "beta"]
    app = ExplorerApp(prepared.specs, config=prepared.config, remember_theme=False, timeout=10.0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_settled(pilot, app)
        notices = await remove_in_palette(app, pilot, "Delete from config.toml", "alpha")
        assert notices == [f"Removed alpha, and deleted it from {own}."]
        assert list(main_screen(app).catalogue.servers) == ["beta"]
    assert dotfiles.read_text() == without_alpha(script)  # that entry alone; comments and order kept
    assert own.is_symlink() and stat.S_IMODE(dotfiles.stat().st_mode) == 0o640
    assert [spec.name for spec in Settings().prepare().specs] == ["beta"]  # not back at next start


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_server_of_another_clients_config_is_removed_for_the_session_only(tmp_path: Path) -> None:
    script = Path(shlex.split(tiny_server(tmp_path, LISTS))[1])
    claude = tmp_path / "Claude" / "claude_desktop_config.json"
    claude.parent.mkdir()
    entry = {"command": sys.executable, "args": [str(script)]}
    claude.write_text(json.dumps({"mcpServers": {"alpha": entry, "beta": entry}}, indent=2))
    own = paths.config_file()
    own.parent.mkdir(parents=True, exist_ok=True)
    own.write_text(own_config_text(script))  # an "alpha" of its own too: not the one shown, not touched
    claude_bytes, own_bytes = claude.read_bytes(), own.read_bytes()
    prepared = Settings(config_path=claude).prepare()
    app = ExplorerApp(prepared.specs, config=prepared.config, remember_theme=False, timeout=10.0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_settled(pilot, app)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"alpha")
        await wait_for(pilot, lambda: "Disconnect and remove: alpha" in palette_text(app))
        assert "Delete from config.toml" not in palette_text(app)  # not a file the explorer edits
        await pilot.press("escape")
        notices = await remove_in_palette(app, pilot, "Disconnect and remove", "alpha")
        assert notices == [
            f"Removed alpha for this session; it will come back from {claude} at next start "
            "(the explorer never edits that file)."
        ]
    assert claude.read_bytes() == claude_bytes and own.read_bytes() == own_bytes


@pytest.mark.slow
@pytest.mark.anyio
async def test_disconnect_and_remove_leaves_config_toml_and_says_it_comes_back(tmp_path: Path) -> None:
    script = Path(shlex.split(tiny_server(tmp_path, LISTS))[1])
    own = paths.config_file()
    own.parent.mkdir(parents=True, exist_ok=True)
    own.write_text(own_config_text(script))
    own_bytes = own.read_bytes()
    prepared = Settings().prepare()
    app = ExplorerApp(prepared.specs, config=prepared.config, remember_theme=False, timeout=10.0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_settled(pilot, app)
        notices = await remove_in_palette(app, pilot, "Disconnect and remove", "alpha")
        assert notices == [
            f"Removed alpha for this session; it will come back from {own} at next start "
            '(the palette\'s "Delete from config.toml" deletes it there).'
        ]
        assert list(main_screen(app).catalogue.servers) == ["beta"]
    assert own.read_bytes() == own_bytes


def spec_of(name: str, *args: str) -> ServerSpec:
    return ServerSpec(name=name, transport="stdio", command=sys.executable, args=args)


def test_a_server_the_connect_dialog_saved_is_found_by_its_saved_table(tmp_path: Path) -> None:
    own = tmp_path / "config.toml"
    own.write_text('# saved servers\n\n[servers.other]\ncommand = "x"\n')
    saved = spec_of("added", "-m", "srv")
    save_server(own, saved)  # what the dialog does once the server connects; the spec has no origin
    notice = forget_server(saved, own, delete=True)
    assert notice.message == f"Removed added, and deleted it from {own}." and not notice.failed
    assert own.read_text() == '# saved servers\n\n[servers.other]\ncommand = "x"\n'


def test_a_server_given_on_the_command_line_leaves_a_same_named_entry_alone(tmp_path: Path) -> None:
    own = tmp_path / "config.toml"
    text = '[servers.added]\ncommand = "something-else"\n'
    own.write_text(text)
    notice = forget_server(spec_of("added", "-m", "srv"), own, delete=True)
    assert notice.message == "Removed added." and own.read_text() == text


def loaded(own: Path, name: str) -> ServerSpec:
    prepared = Settings(config_path=own).prepare()
    return next(spec for spec in prepared.specs if spec.name == name)


def test_a_failed_write_says_why_and_leaves_the_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    own = paths.config_file()
    own.parent.mkdir(parents=True, exist_ok=True)
    script = tmp_path / "srv.py"
    text = own_config_text(script)
    own.write_text(text)
    spec = loaded(own, "alpha")

    def read_only(*args: object) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr("explorer.config.writer.os.replace", read_only)
    notice = forget_server(spec, own, delete=True)
    assert notice.failed
    assert notice.message == (
        f"Removed alpha for this session only: {own}: cannot write the file (Read-only file system); "
        "not changed. The entry is still in that file."
    )
    assert own.read_text() == text
    assert sorted(p.name for p in own.parent.iterdir()) == ["config.toml"]  # no temporary file left


def test_servers_declared_inline_are_not_cut_and_the_notice_says_so(tmp_path: Path) -> None:
    own = paths.config_file()
    own.parent.mkdir(parents=True, exist_ok=True)
    text = f"servers = {{ alpha = {{ command = {json.dumps(sys.executable)} }} }}\n"
    own.write_text(text)
    notice = forget_server(loaded(own, "alpha"), own, delete=True)
    assert notice.failed and "declares servers inline" in notice.message and "by hand" in notice.message
    assert own.read_text() == text


@pytest.mark.parametrize(
    ("text", "left"),
    [
        (  # pairs of a [servers] table, a dotted key, a BOM and CRLF line ends
            '\ufeff[servers]\r\nalpha = { command = "a" }\r\nbeta = { command = "b" }\r\n',
            '\ufeff[servers]\r\nbeta = { command = "b" }\r\n',
        ),
        ('servers.alpha.command = "a"\nservers.beta.command = "b"\n', 'servers.beta.command = "b"\n'),
        (  # a multi-line string that looks like a header, and the oauth table
            '[servers.beta]\ncommand = "b"\nargs = ["""\n[servers.alpha]\n"""]\n\n'
            '[servers."alpha"]\nurl = "https://h/mcp"\n\n[servers.alpha.oauth]\nflow = "print"\n',
            '[servers.beta]\ncommand = "b"\nargs = ["""\n[servers.alpha]\n"""]\n',
        ),
    ],
)
def test_only_that_entry_is_cut_whatever_form_it_has(tmp_path: Path, text: str, left: str) -> None:
    own = tmp_path / "config.toml"
    own.write_bytes(text.encode())
    assert remove_server(own, "alpha")
    assert own.read_bytes().decode() == left
