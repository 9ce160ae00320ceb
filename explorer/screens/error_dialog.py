"""A failed server's details: code, message, data and the tail of its stderr log.

Scrollable and copyable; everything in it came from a server, so it is sanitized plain text.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from explorer.config import redact
from explorer.model.catalogue import ServerStatus
from explorer.sanitize import sanitize, sanitize_line
from explorer.screens.tiny_terminal import mark_tiny
from explorer.widgets.key_bar import KeyBar


def error_report(status: ServerStatus) -> str:
    """The whole report as plain text (what `copy` puts on the clipboard)."""
    lines = [f"Server: {status.name}", f"Spec: {status.spec.describe()}"]
    if status.identity is not None:
        lines.append(f"Protocol: {status.identity.protocol_version} ({status.identity.era})")
    code = "-" if status.error_code is None else str(status.error_code)
    if status.error_code is not None and status.error_local:  # the SDK's, for a closed connection
        code += " (the explorer's own code, not one the server sent)"
    lines.append(f"Error code: {code}")
    lines.append(f"Message: {status.error or '-'}")
    if status.error_data is not None:
        try:
            lines.append("Data: " + json.dumps(status.error_data, indent=2, ensure_ascii=False, default=str))
        except (TypeError, ValueError):
            lines.append(f"Data: {status.error_data!r}")
    if status.listing is not None:
        lines.append(f"Listing kept: {status.listing.summary()}")
    if status.login is not None:  # a reconnect's login, or the server refused the token later
        lines.append(f"Login: waiting for you; open this URL in a browser: {status.login.url}")
    tail = status.stderr_tail.strip()
    lines.append("")
    lines.append("stderr (last lines):" if tail else "stderr: (nothing captured)")
    if tail:
        lines.append(tail)
    # Tokens from the config (headers, env) never reach the screen or the clipboard.
    return redact("\n".join(lines), status.spec)


class ErrorDialog(ModalScreen[str | None]):
    """Details of a failed server with a reconnect action; dismisses with "reconnect" or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_dialog", "Close", id="error.close"),
        Binding("r", "reconnect", "Reconnect", id="error.reconnect"),
        Binding("c", "copy_report", "Copy", id="error.copy"),
        Binding("question_mark,f1", "app.toggle_help", "Help", id="app.help"),  # the app's: a dialog drops it
    ]
    HELP = """
## Server error
The error code, message and data the server sent, and the end of its stderr log.
`r` reconnects, `c` copies the report, `escape` closes.
"""
    # The report scrolls within a share of the screen's height, so the buttons always fit under it. On a
    # tiny terminal (40x12) the box takes every row and scrolls as one, without the blank rows, and the
    # buttons give up their 16-cell minimum width: each is in sight when `tab` reaches it.
    DEFAULT_CSS = """
    ErrorDialog { align: center middle; }
    ErrorDialog > Vertical {
        width: 110; max-width: 95%; height: auto; max-height: 85%;
        border: thick $error; background: $surface; padding: 0 1;
    }
    ErrorDialog #error-title { text-style: bold; color: $error; padding: 0 0 1 0; }
    ErrorDialog VerticalScroll { height: auto; max-height: 45vh; }
    ErrorDialog Horizontal { height: auto; align-horizontal: right; padding-top: 1; }
    ErrorDialog Button { margin-left: 2; }
    ErrorDialog.-short VerticalScroll { max-height: 40vh; }
    ErrorDialog.-tiny > Vertical { max-height: 100%; overflow-y: auto; }
    ErrorDialog.-tiny #error-title { padding: 0; }
    ErrorDialog.-tiny Horizontal { padding-top: 0; }
    ErrorDialog.-thin Button { min-width: 0; margin-left: 1; }
    """

    def __init__(self, status: ServerStatus) -> None:
        super().__init__()
        self.status = status
        self.report = error_report(status)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(f"Server {sanitize_line(self.status.name, 80)} failed"), id="error-title")
            with VerticalScroll():
                yield Static(Content(sanitize(self.report, limit=200_000)), id="error-report")
            with Horizontal():
                yield Button("Copy", id="copy")
                yield Button("Reconnect", id="reconnect", variant="primary")
                yield Button("Close", id="close")
        yield KeyBar()  # this dialog's keys, not the screen's below it

    def on_resize(self, event: events.Resize) -> None:
        mark_tiny(self, event.size)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        actions: dict[str | None, Any] = {
            "copy": self.action_copy_report,
            "reconnect": self.action_reconnect,
            "close": self.action_dismiss_dialog,
        }
        actions[event.button.id]()

    def action_dismiss_dialog(self) -> None:
        self.dismiss(None)

    def action_reconnect(self) -> None:
        self.dismiss("reconnect")

    def action_copy_report(self) -> None:
        # As shown: a server's control characters as escapes, never raw onto the clipboard.
        self.app.copy_to_clipboard(sanitize(self.report, limit=None))
        self.notify("Error report copied.", markup=False)
