"""Connecting a server while the explorer runs: by URL or command line, with headers, env and auth flow.

Why a dialog that stays open: the user wants to see the attempt, not just start it. After `Connect` it
follows the new server's status (connecting, the login waiting in the browser with its URL, connected
with what it offers, or the error) until closed; a failed attempt can be corrected and tried again under
a new name. `Save to config.toml` appends the server to the explorer's own config (`config/writer.py`)
once it has connected: a failed attempt, corrected and tried again, is saved once, as the attempt that
worked. The dialog still open is what saves it; closed before the server connects, it says it did not.

Everything typed is the user's; what is shown back (the server's error, its name) goes through the
sanitizer into plain Content, never markup, with the new server's secrets masked.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Button, Checkbox, Input, Label, Select, Static, TextArea

from explorer.config import ConfigError, OAuthSettings, ServerSpec, parse_header, parse_server_option, redact
from explorer.config.options import parse_env_options
from explorer.config.read_back import as_read_back
from explorer.sanitize import sanitize_line
from explorer.screens.tiny_terminal import mark_tiny
from explorer.screens.type_ahead import expect_typing
from explorer.widgets.key_bar import KeyBar
from explorer.widgets.server_labels import middle_cut

if TYPE_CHECKING:
    from explorer.screens.main import MainScreen

COPY_LABEL = "Copy login URL"  # what the button copies: the URL of an OAuth login waiting for the user
FLOWS = [("run's default", "default"), ("browser", "browser"), ("print the URL", "print"), ("fetch", "fetch")]


def spec_from_fields(target: str, headers: str, env: str, flow: str) -> ServerSpec:
    """The server the dialog's fields describe; ConfigError (one sentence) when they do not."""
    header_values = dict(
        parse_header(line, option="Headers") for line in headers.splitlines() if line.strip()
    )
    env_values = parse_env_options([line.strip() for line in env.splitlines() if line.strip()], option="Env")
    if target.strip().lower().startswith(("http://", "https://")) and "${" in _host_part(target.strip()):
        raise ConfigError(
            "the URL's host cannot be a placeholder here: write it out (one may stand in the path or query)"
        )
    spec = parse_server_option(
        target, config=None, sse=False, headers=header_values, option="The URL or command line"
    )
    if spec.transport == "stdio":
        if header_values:
            raise ConfigError("headers are for an http(s) URL; a command line takes env values")
        # No shell runs the line: `~` starting a word is made the home folder here (quoted or not).
        args = tuple(os.path.expanduser(arg) if arg.startswith("~") else arg for arg in spec.args)
        return replace(spec, args=args, env={**spec.env, **env_values})
    if env_values:
        raise ConfigError("env values are for a command line; an http(s) URL takes headers")
    if flow in ("browser", "print", "fetch"):
        spec = replace(spec, oauth=OAuthSettings(flow=flow))
    return spec


def _host_part(url: str) -> str:
    """What follows `scheme://` up to the path, query or fragment: user, password, host and port."""
    rest = url.partition("://")[2]
    for end in "/?#":
        rest = rest.partition(end)[0]
    return rest


class SaveCheckbox(Checkbox):
    """A checkbox whose box is blank when unchecked (`▐ ▌`, `▐X▌` when checked).

    Why: Textual's shows `X` in both states and only colour tells them apart, which a monochrome
    terminal, `NO_COLOR` or a colour-blind eye does not.
    """

    def render(self) -> Content:
        self.BUTTON_INNER = "X" if self.value else " "  # read by the button's rendering just below
        return super().render()


class ConnectDialog(ModalScreen[None]):
    """Add a server by URL or command line and watch it connect."""

    AUTO_FOCUS = ""  # none: `on_mount` focuses the first field
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="connect.close"),
        Binding("ctrl+s", "connect", "Connect", id="connect.submit"),
        # The app's, which a dialog drops; `?` is typed into a field, `f1` helps there.
        Binding("question_mark,f1", "app.toggle_help", "Help", id="app.help"),
    ]
    HELP = """
## Connect a server
An `http(s)://` URL (Streamable HTTP) or a command line (a stdio server). Headers (`Name: value`, one
per line) go to a URL, env values (`KEY=VALUE`, one per line) to a command. No shell runs the command
line: `~` at the start of a word is your home folder, and `$NAME` stays as typed; write `${env:NAME}`
for a variable of the explorer's environment, as in a config file (in a header, an env value, a word
of the command line, or a URL's path or query): it is expanded to connect and saved as written, so a
token stays out of config.toml, and masked wherever the server is shown. An OAuth login that waits
for you shows here with its URL (`Copy login URL` copies it; a command line never logs in, so the
button is not shown for one). `ctrl+s` connects, `escape` closes.
"""
    # The attempt's status and the buttons are docked to the bottom of the box: on a short terminal the
    # fields scroll above them (with the focus) and what the attempt says stays in sight. Under the box,
    # the dialog's own key bar; on a short terminal the buttons lose their borders (one row each, not
    # three), which pays for the bar's row: at 80x24 every field and the title are in sight at once. On
    # a thin one (40 columns) the buttons give up their 16-cell minimum width, so all three fit. On a
    # tiny one (12 rows) the status and the buttons scroll with the rest: the box scrolls to the focused
    # widget as though the docked rows were not there, and left some fields under them.
    DEFAULT_CSS = """
    ConnectDialog { align: center middle; }
    ConnectDialog > Vertical {
        width: 100; max-width: 95%; height: auto; max-height: 95%; overflow-y: auto;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    ConnectDialog #connect-title { text-style: bold; padding-bottom: 1; }
    ConnectDialog TextArea { height: 4; }
    ConnectDialog #connect-bottom { dock: bottom; height: auto; }
    ConnectDialog #connect-status { padding-top: 1; height: auto; max-height: 8; }
    ConnectDialog #connect-buttons { height: auto; padding-top: 1; }
    ConnectDialog Button { margin-right: 2; }
    ConnectDialog.-short > Vertical { max-height: 100%; }
    ConnectDialog.-short #connect-title { padding-bottom: 0; }
    ConnectDialog.-short TextArea { height: 3; }
    ConnectDialog.-short #connect-status { padding-top: 0; max-height: 4; }
    ConnectDialog.-short #connect-buttons { padding-top: 0; }
    ConnectDialog.-short Button { border: none !important; }
    ConnectDialog.-tiny #connect-bottom { dock: none; }
    ConnectDialog.-thin Button { min-width: 0; margin-right: 1; }
    ConnectDialog.-thin Checkbox { max-width: 100%; }
    """

    def __init__(self, screen: MainScreen) -> None:
        super().__init__()
        self.main = screen
        self.server: str | None = None
        self._saved = ""  # what became of "Save to config.toml", said with the status
        self._to_save: ServerSpec | None = None  # saved once the attempt connects
        self._timer: Timer | None = None
        expect_typing(self)  # keys typed after `n`, before the field has the focus, go there

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content("Connect a server"), id="connect-title")
            yield Input(
                placeholder="https://host/mcp, or a command line such as: npx -y some-server", id="target"
            )
            yield Label("Headers (Name: value, one per line; for a URL)")
            yield TextArea(id="headers")
            yield Label("Env (KEY=VALUE, one per line; for a command line)")
            yield TextArea(id="env")
            yield Label("OAuth login, when the server asks for one")
            yield Select(FLOWS, value="default", allow_blank=False, id="flow")
            yield SaveCheckbox("Save to the explorer's config.toml", id="save")
            with Vertical(id="connect-bottom"):
                yield Static(Content(""), id="connect-status")
                with Horizontal(id="connect-buttons"):
                    yield Button("Connect", id="connect", variant="primary")
                    yield Button(COPY_LABEL, id="copy-url")
                    yield Button("Close", id="close")
        yield KeyBar()  # this dialog's keys, not the screen's below it

    def on_mount(self) -> None:
        # Without a scroll (nor Textual's auto focus, which scrolls): the field is at the top, and a
        # scroll now would use the layout before the terminal's size classes (`mark_tiny`).
        self.query_one("#target", Input).focus(scroll_visible=False)

    def on_resize(self, event: events.Resize) -> None:
        mark_tiny(self, event.size)
        # 40 columns hold the three buttons only with the shorter label (the box's scroll bar takes two)
        self.query_one("#copy-url", Button).label = "Copy login" if self.has_class("-thin") else COPY_LABEL

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "target":
            self._show_copy_button()

    def _show_copy_button(self) -> None:
        """The button copies an OAuth login's URL: none is ever waiting for a command line (a stdio server
        never logs in), so there it is not shown; it was "Copy URL" there, as though it copied the line."""
        target = self.query_one("#target", Input).value.strip()
        command_line = bool(target) and not target.lower().startswith(("http://", "https://"))
        status = self.main.catalogue.servers.get(self.server or "")
        waiting = status is not None and status.login is not None  # an earlier URL's login: still copyable
        self.query_one("#copy-url", Button).display = waiting or not command_line

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_connect()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "connect":
            self.action_connect()
        elif event.button.id == "copy-url":
            self.copy_login_url()
        else:
            self.action_close()

    def _say(self, text: str) -> None:
        self.query_one("#connect-status", Static).update(Content(text + self._saved))

    def action_connect(self) -> None:
        target = self.query_one("#target", Input).value.strip()
        flow = str(self.query_one("#flow", Select).value)
        from explorer import paths

        try:
            typed = spec_from_fields(
                target, self.query_one("#headers", TextArea).text, self.query_one("#env", TextArea).text, flow
            )
            # Connected as a restart would read it once saved: placeholders expanded (`read_back.py`).
            spec, warnings = as_read_back(typed, paths.config_file())
        except ConfigError as exc:
            self._say(sanitize_line(str(exc), 400))
            return
        for warning in warnings:
            self.notify(sanitize_line(warning, 400), severity="warning", timeout=10, markup=False)
        self.server = self.main.add_servers([spec])[0]
        self._saved = ""
        self._to_save = None
        if self.query_one("#save", Checkbox).value:
            self._to_save = replace(typed, name=self.server)
            self._saved = " (to be saved to config.toml once connected)"
        self._say(f"{middle_cut(self.server, 60)}: connecting…")
        if self._timer is None:
            self._timer = self.set_interval(0.25, self.show_attempt)

    def _save(self, spec: ServerSpec) -> str:
        from explorer import paths
        from explorer.config.writer import save_server

        try:
            save_server(paths.config_file(), spec)
        except ConfigError as exc:
            return " (not saved: " + sanitize_line(redact(str(exc), spec), 300) + ")"
        return " (saved to config.toml)"

    def show_attempt(self) -> None:
        """The new server's state, as its row in the server bar says it, with the whole error or URL."""
        status = self.main.catalogue.servers.get(self.server or "")
        if status is None:
            return
        self._show_copy_button()
        name = middle_cut(status.name, 60)
        if status.state == "failed":
            if self._to_save is not None:
                self._to_save, self._saved = None, " (not saved: it did not connect)"
            error = redact(status.error or "failed", status.spec)
            self._say(f"{name}: failed: {sanitize_line(error, 1000)}")
        elif status.login is not None:
            self._say(f"{name}: {status.progress_text()} {sanitize_line(status.login.url, 2000)}")
        elif status.state == "connecting":
            self._say(f"{name}: connecting…")
        else:
            if self._to_save is not None:
                spec, self._to_save = self._to_save, None
                self._saved = self._save(spec)
            self._say(f"{name}: connected: {status.progress_text()}")

    def copy_login_url(self) -> None:
        status = self.main.catalogue.servers.get(self.server or "")
        if status is None or status.login is None:
            self.notify("No login is waiting.", markup=False)
            return
        self.app.copy_to_clipboard(status.login.url)
        self.notify("Login URL copied.", markup=False)

    def action_close(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        if self._to_save is not None:
            self.show_attempt()  # connected since the last look: saved now
        if self._to_save is not None:
            self.notify(
                f"{middle_cut(self._to_save.name, 60)} not saved to config.toml: not connected yet.",
                markup=False,
            )
        self.dismiss(None)
