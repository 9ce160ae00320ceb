"""One server at a glance: identity, era, transport, capabilities, instructions, counts, listing health,
and its tools (name, description, input schema; shown read-only, never called).

Opened by selecting the server's row in the server bar (or `i`, or the palette). The facts come from the
same builder as the CLI's `servers` command, so both answer alike. Everything here came from a server:
it is sanitized and shown as plain Content, never markup.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from explorer.config import redact
from explorer.model.catalogue import ServerStatus
from explorer.model.entries import ToolEntry
from explorer.model.overview import instructions_text, overview_facts
from explorer.model.tool_info import schema_text, tool_arguments
from explorer.sanitize import sanitize, sanitize_line

SCHEMA_CAP = 100_000


class ServerOverview(ModalScreen[None]):
    """A server's overview and tools; `escape` closes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="overview.close"),
        Binding("c", "copy", "Copy", id="overview.copy"),
    ]
    HELP = """
## Server overview
What the server said about itself (name, version, protocol era, transport, declared capabilities and
instructions), what the explorer listed (counts, pages, malformed items, bounds) and its tools. Tools are
shown with their input schema; the explorer never calls them. `c` copies the overview, `escape` closes.
"""
    DEFAULT_CSS = """
    ServerOverview { align: center middle; }
    ServerOverview > Vertical {
        width: 120; max-width: 96%; height: 90%;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    ServerOverview #overview-title { text-style: bold; padding: 0 0 1 0; }
    ServerOverview #overview-facts { height: auto; max-height: 50%; }
    ServerOverview #overview-tools { height: 1fr; }
    ServerOverview #tool-list { width: 40%; height: 1fr; }
    ServerOverview #tool-detail { width: 1fr; height: 1fr; padding: 0 1; }
    """

    def __init__(self, status: ServerStatus) -> None:
        super().__init__()
        self.status = status
        listing = status.listing
        self.tools: list[ToolEntry] = list(listing.tools) if listing is not None else []

    def report(self) -> str:
        """The overview as plain text, secrets of the config masked (what `c` copies)."""
        status = self.status
        lines = [f"Server: {status.name}", f"Spec: {status.spec.describe()}"]
        for fact in overview_facts(status.identity, status.listing, error=status.error):
            lines.append(f"{fact.label}: {fact.value}")
        instructions = instructions_text(status.identity)
        if instructions:
            lines += ["", "Instructions:", instructions]
        return redact("\n".join(lines), status.spec)

    def compose(self) -> ComposeResult:
        status = self.status
        with Vertical():
            title = f"Server {sanitize_line(status.name, 80)} · {sanitize_line(status.progress_text(), 200)}"
            yield Static(Content(title), id="overview-title")
            with VerticalScroll(id="overview-facts"):
                yield Static(Content(sanitize(self.report(), limit=None)), id="overview-text")
            with Horizontal(id="overview-tools"):
                yield OptionList(*self._tool_options(), id="tool-list")
                with VerticalScroll(id="tool-detail"):
                    yield Static(Content(self._no_tool_text()), id="tool-text")

    def _tool_options(self) -> list[Option]:
        return [
            Option(Content(sanitize_line(tool.name, 80)), id=str(index))
            for index, tool in enumerate(self.tools)
        ]

    def _no_tool_text(self) -> str:
        listing = self.status.listing
        if listing is None or not listing.offers("tools"):
            return "This server offers no tools."
        if not self.tools:
            return "The server listed no tools."
        return f"{len(self.tools):,} tools: highlight one to see what it takes (shown, never called)."

    def on_mount(self) -> None:
        tools = self.query_one("#tool-list", OptionList)
        if self.tools:
            tools.highlighted = 0
            tools.focus()

    @on(OptionList.OptionHighlighted, "#tool-list")
    def _tool_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is None:
            return
        tool = self.tools[int(event.option.id)]
        self.query_one("#tool-text", Static).update(Content(tool_text(tool)))

    def action_close(self) -> None:
        self.dismiss(None)

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.report())
        self.notify("Server overview copied.", markup=False)


def tool_text(tool: ToolEntry) -> str:
    """A tool as text for the detail pane: name, title, arguments, description and schema, sanitized."""
    lines = [sanitize_line(tool.name, 200)]
    if tool.title and tool.title != tool.name:
        lines.append(sanitize_line(tool.title, 200))
    arguments = tool_arguments(tool)
    lines.append(
        "Arguments: " + (", ".join(sanitize_line(a, 80) for a in arguments) or "none") + " (* required)"
    )
    description = tool.raw.get("description")
    if isinstance(description, str) and description:
        lines += ["", sanitize(description, limit=20_000)]
    lines += ["", "Input schema:", sanitize(schema_text(tool), limit=SCHEMA_CAP)]
    return "\n".join(lines)
