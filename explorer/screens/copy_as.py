"""`y`: copy the URI, the JSON-RPC request or the headless command line for what is on screen.

The forms arrive already made safe for a clipboard (`explorer.model.copy_as`: control characters in a
URI percent-encoded, server strings in a command line ANSI-C quoted, secrets masked); `notes` says, per
form, what was changed, so nobody is surprised by a `%1B` in the copied URI.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from explorer.model.copy_as import jsonrpc_read, modern_version, read_command, uri_for_clipboard
from explorer.sanitize import sanitize_line
from explorer.widgets.key_bar import KeyBar
from explorer.widgets.lists import VimOptionList
from explorer.widgets.server_labels import middle_cut

if TYPE_CHECKING:
    from explorer.screens.main import MainScreen


class CopyAsDialog(ModalScreen[str | None]):
    """Choose a form; dismisses with the text to copy (or None)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="copy_as.cancel"),
        Binding("question_mark,f1", "app.toggle_help", "Help", id="app.help"),  # the app's: a dialog drops it
    ]
    HELP = """
## Copy as
`enter` copies the highlighted form to the clipboard: the URI, the JSON-RPC request, or the
`mcp-url-explorer` command line that reproduces it (secrets masked as `***`). Control characters a
server put in a URI are percent-encoded, never copied raw: pasted into a terminal they would act.
"""
    DEFAULT_CSS = """
    CopyAsDialog { align: center middle; }
    CopyAsDialog > Vertical {
        width: 100; max-width: 95%; height: auto; border: thick $accent; background: $surface; padding: 0 1;
    }
    CopyAsDialog #copy-title { text-style: bold; padding-bottom: 1; }
    CopyAsDialog OptionList { height: auto; max-height: 12; }
    """

    def __init__(
        self, title: str, forms: list[tuple[str, str]], *, notes: Mapping[str, str] | None = None
    ) -> None:
        super().__init__()
        self.title_text = title
        self.forms = forms
        self.notes = dict(notes or {})  # form label -> what was changed to make it safe

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content("Copy " + sanitize_line(self.title_text, 200) + " as"), id="copy-title")
            yield VimOptionList(*(self._option(label, text) for label, text in self.forms))
        yield KeyBar()  # this dialog's keys, not the screen's below it

    def _option(self, label: str, text: str) -> Option:
        parts: list[str | tuple[str, str]] = [
            (f"{label:<18}", "bold"),
            (sanitize_line(text, 300), "$text-muted"),
        ]
        note = self.notes.get(label)
        if note:
            parts += ["\n" + " " * 18, (sanitize_line(note, 200), "$text-warning")]
        return Option(Content.assemble(*parts))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.forms[event.option_index][1])

    def action_cancel(self) -> None:
        self.dismiss(None)


def copy_resource_as(screen: MainScreen, target: tuple[str, str] | None) -> None:
    """Offer the forms of reading `target` (server, uri) and copy the chosen one (the main screen's `y`)."""
    if target is None:
        screen.notify("Highlight or read a resource first.", severity="warning", markup=False)
        return
    server, uri = target
    status = screen.catalogue.servers.get(server)
    if status is None:  # removed while its resource was still highlighted or shown
        screen.notify(
            f"{middle_cut(server, 40)} was removed: c copies the URI; connect it again for the other forms.",
            severity="warning",
            markup=False,
        )
        return
    spec = status.spec
    config = screen.config
    source = config.source if config is not None else None
    in_config = config is not None and server in config.servers
    clip = uri_for_clipboard(uri)
    command = read_command(spec, uri, protocol=screen.protocol, config_path=source, in_config=in_config)
    request = jsonrpc_read(uri, modern_version=modern_version(status.identity))
    forms = [("URI", clip.text), ("JSON-RPC request", request), ("Command line", command)]
    # The command line carries the exact URI in a $'...' word (escapes, no raw control character); only a
    # URI no argument can hold (a NUL) is percent-encoded there as in the URI form.
    escaped = clip.changed and clip.text not in command
    command_notice = " (control or invisible characters as escapes)" if escaped else clip.notice()
    notes = {"URI": clip.notice().strip(" ()"), "Command line": command_notice.strip(" ()")}

    def copy(text: str | None) -> None:
        if text is not None:
            screen.app.copy_to_clipboard(text)
            notice = clip.notice() if text == clip.text else command_notice if text == command else ""
            screen.notify("Copied: " + sanitize_line(text, 120) + notice, markup=False)

    dialog = CopyAsDialog(uri, forms, notes={key: value for key, value in notes.items() if value})
    screen.app.push_screen(dialog, copy)
