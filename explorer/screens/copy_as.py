"""`y`: copy the URI, the JSON-RPC request or the headless command line for what is on screen."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from explorer.sanitize import sanitize_line


class CopyAsDialog(ModalScreen[str | None]):
    """Choose a form; dismisses with the text to copy (or None)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="copy_as.cancel")]
    HELP = """
## Copy as
`enter` copies the highlighted form to the clipboard: the URI, the JSON-RPC request, or the
`mcp-url-explorer` command line that reproduces it (secrets masked as `***`).
"""
    DEFAULT_CSS = """
    CopyAsDialog { align: center middle; }
    CopyAsDialog > Vertical {
        width: 100; max-width: 95%; height: auto; border: thick $accent; background: $surface; padding: 0 1;
    }
    CopyAsDialog #copy-title { text-style: bold; padding-bottom: 1; }
    CopyAsDialog OptionList { height: auto; max-height: 12; }
    """

    def __init__(self, title: str, forms: list[tuple[str, str]]) -> None:
        super().__init__()
        self.title_text = title
        self.forms = forms

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content("Copy " + sanitize_line(self.title_text, 200) + " as"), id="copy-title")
            yield OptionList(
                *(
                    Option(
                        Content.assemble((f"{label:<18}", "bold"), (sanitize_line(text, 300), "$text-muted"))
                    )
                    for label, text in self.forms
                )
            )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.forms[event.option_index][1])

    def action_cancel(self) -> None:
        self.dismiss(None)
