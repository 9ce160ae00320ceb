"""One server at a glance, and its voice: overview, tools, its log entries and progress, its stderr.

Tabs:
- Overview: identity, era, transport, declared capabilities, instructions, counts and listing health. The
  facts come from the same builder as the CLI's `servers` command, so both answer alike.
- Tools: each tool with its description and input schema, read-only (the explorer never calls tools).
- Log: the server's `notifications/message` entries (level, logger, data) and progress notifications, as
  they arrive; the level it sends is chosen here (`logging/setLevel` in the handshake era, per request in
  the modern era). An entry shows at most `LOG_LINE_CHARS` characters, and one cut says so and its
  size first ("(cut, 10.0 MB) zzz…"); progress is labelled with the request whose token it carries, or
  said to be unsolicited when the explorer never issued its token.
- Stderr: the end of a stdio server's stderr log for this run.

Opened by selecting the server's row in the server bar (or `i`, or the palette). Everything here came from
a server: it is sanitized and shown as plain Content or plain log lines, never markup. While open it
follows the server (`status_changed`, called by the main screen's listener): the title, the overview, the
tools and the stderr show the server failing, reconnecting, listing and done, as the server bar does.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Log, OptionList, Select, Static, TabbedContent, TabPane
from textual.widgets.option_list import Option

from explorer.config import redact
from explorer.connection.live import LogEntry, Progress
from explorer.deferred import Deferred
from explorer.model.catalogue import ServerStatus
from explorer.model.entries import ToolEntry
from explorer.model.overview import instructions_text, overview_facts
from explorer.model.sizes import human_size
from explorer.model.tool_info import schema_text, tool_arguments
from explorer.sanitize import sanitize, sanitize_line
from explorer.widgets.key_bar import KeyBar
from explorer.widgets.lists import VimOptionList
from explorer.widgets.server_labels import middle_cut

if TYPE_CHECKING:
    from explorer.connection.supervisor import Supervisor

SCHEMA_CAP = 100_000
STDERR_TAIL_BYTES = 64 * 1024
LOG_LINE_CHARS = 2_000  # of one log entry or progress line
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
FOLLOW_SECONDS = 0.25  # a listing changes the status with every page: shown again at most this often


class ServerOverview(ModalScreen[None]):
    """A server's overview, tools, log and stderr; `escape` closes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="overview.close"),
        Binding("c", "copy", "Copy", id="overview.copy"),
        Binding("question_mark,f1", "app.toggle_help", "Help", id="app.help"),  # the app's: a dialog drops it
    ]
    HELP = """
## Server
What the server said about itself (name, version, protocol era, transport, declared capabilities and
instructions), what the explorer listed (counts, pages, malformed items, bounds), its tools (with their
input schemas; the explorer never calls them), its log entries and progress, and its stderr.
On the Log tab choose the level of entries the server sends. `c` copies the overview, `escape` closes.
"""
    DEFAULT_CSS = """
    ServerOverview { align: center middle; }
    ServerOverview > Vertical {
        width: 120; max-width: 96%; height: 90%;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    ServerOverview #overview-title { text-style: bold; padding: 0 0 1 0; }
    ServerOverview TabbedContent { height: 1fr; }
    ServerOverview TabbedContent > ContentSwitcher { height: 1fr; }
    ServerOverview TabPane { height: 1fr; padding: 0; }
    ServerOverview #tool-list { width: 40%; height: 1fr; }
    ServerOverview #tool-detail { width: 1fr; height: 1fr; padding: 0 1; }
    ServerOverview #log-controls { height: auto; }
    ServerOverview #log-level { width: 24; }
    ServerOverview #log-note { width: 1fr; padding: 1 1 0 1; color: $text-muted; }
    ServerOverview #voice { height: 1fr; }
    """

    def __init__(self, status: ServerStatus, supervisor: Supervisor | None = None) -> None:
        super().__init__()
        self.status = status
        self.supervisor = supervisor
        listing = status.listing
        self.tools: list[ToolEntry] = list(listing.tools) if listing is not None else []
        self._pending_voice: list[LogEntry | Progress] = []  # written when the Log tab is mounted
        self._follow_timer: Timer | None = None  # set while changes wait (see `status_changed`)
        self._follow_due = False

    def report(self) -> str:
        """The overview as plain text, secrets of the config masked (what `c` copies)."""
        status = self.status
        server, *facts = overview_facts(status.identity, status.listing, error=status.error, name=status.name)
        lines = [f"{server.label}: {server.value}", f"Spec: {status.spec.describe()}"]
        lines += [f"{fact.label}: {fact.value}" for fact in facts]
        unfollowed = self.supervisor.unfollowed_updates(status.name) if self.supervisor is not None else 0
        if unfollowed:
            lines.append(f"Updates for resources not followed: {unfollowed:,} (counted, not read)")
        instructions = instructions_text(status.identity)
        if instructions:
            lines += ["", "Instructions:", instructions]
        return redact("\n".join(lines), status.spec)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(self._title()), id="overview-title")
            with TabbedContent(id="server-tabs"):
                with TabPane("Overview", id="tab-overview"), VerticalScroll(id="overview-facts"):
                    yield Static(Content(sanitize(self.report(), limit=None)), id="overview-text")
                with TabPane("Tools", id="tab-tools"), Horizontal(id="overview-tools"):
                    yield VimOptionList(*self._tool_options(), id="tool-list")
                    with VerticalScroll(id="tool-detail"):
                        yield Static(Content(self._no_tool_text()), id="tool-text")
                with TabPane("Log", id="tab-log"):
                    with Horizontal(id="log-controls"):
                        level = self._level()
                        yield Select(
                            [(name, name) for name in LOG_LEVELS],
                            value=level if level in LOG_LEVELS else "info",
                            allow_blank=False,
                            id="log-level",
                        )
                        yield Static(Content(self._log_note()), id="log-note")
                    yield Log(id="voice", max_lines=5_000, highlight=False)
                with TabPane("Stderr", id="tab-stderr"), VerticalScroll():
                    yield Static(Content(self._stderr_text()), id="stderr-text")
        yield KeyBar()  # this dialog's keys, not the screen's below it

    def _title(self) -> str:
        status = self.status
        return f"Server {middle_cut(status.name, 80)} · {sanitize_line(status.progress_text(), 200)}"

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

    def _level(self) -> str | None:
        conn = self.supervisor.connection(self.status.name) if self.supervisor is not None else None
        return conn.log_level if conn is not None else None

    def _log_note(self) -> str:
        identity = self.status.identity
        if identity is None:
            return "Not connected."
        if identity.era == "modern":
            return "Modern era: the server sends entries about the explorer's own requests, at this level."
        if not identity.offers("logging"):
            return "This server does not declare logging; entries it sends anyway still appear."
        return "Entries at or above this level (logging/setLevel)."

    def _stderr_text(self) -> str:
        conn = self.supervisor.connection(self.status.name) if self.supervisor is not None else None
        if self.status.spec.transport != "stdio":
            return "An HTTP server has no stderr the explorer can see."
        tail = conn.stderr_tail(STDERR_TAIL_BYTES) if conn is not None else self.status.stderr_tail
        return sanitize(redact(tail, self.status.spec), limit=None) if tail.strip() else "(nothing on stderr)"

    def on_mount(self) -> None:
        if self.supervisor is not None:
            self._pending_voice.extend(self.supervisor.voice(self.status.name))
        self.call_after_refresh(self._settle)

    def _settle(self) -> None:
        """Once the tabs are mounted: the first tool highlighted, the voice so far written."""
        for tools in self.query("#tool-list").results(OptionList):
            if self.tools and tools.highlighted is None:
                tools.highlighted = 0
        self._flush_voice()

    @on(TabbedContent.TabActivated)
    def _tab_activated(self) -> None:
        self.call_after_refresh(self._settle)  # a tab's widgets exist once it was shown

    def status_changed(self) -> None:
        """The server's status changed (it failed, reconnects, lists, is done): show it. The first change
        shows at once; while a listing's pages come, the next at most every `FOLLOW_SECONDS`."""
        if self._follow_timer is not None:
            self._follow_due = True
            return
        self._show_status()
        self._follow_timer = self.set_timer(FOLLOW_SECONDS, self._follow_again)

    def _follow_again(self) -> None:
        self._follow_timer = None
        if self._follow_due:
            self._follow_due = False
            self.status_changed()

    def _show_status(self) -> None:
        """Every part that tells the server's status, from its status now; a part that reads the same is
        left alone (an update asks for a new layout)."""
        if self.supervisor is not None:
            # The catalogue's own record: a server removed and added again has a new one.
            self.status = self.supervisor.catalogue.servers.get(self.status.name, self.status)
        listing = self.status.listing
        tools = list(listing.tools) if listing is not None else []
        if len(tools) != len(self.tools) or any(a is not b for a, b in zip(tools, self.tools, strict=True)):
            self.tools = tools
            for tool_list in self.query("#tool-list").results(OptionList):
                tool_list.clear_options()
                tool_list.add_options(self._tool_options())
            self._update_text("#tool-text", self._no_tool_text())
            self.call_after_refresh(self._settle)
        self._update_text("#overview-title", self._title())
        self._update_text("#overview-text", sanitize(self.report(), limit=None))
        self._update_text("#log-note", self._log_note())
        self._update_text("#stderr-text", self._stderr_text())

    def _update_text(self, selector: str, text: str) -> None:
        for shown in self.query(selector).results(Static):
            if str(shown.content) != text:
                shown.update(Content(text))

    def add_voice(self, news: LogEntry | Progress) -> None:
        """One log entry or progress notification, as one sanitized line (data JSON-encoded)."""
        self._pending_voice.append(news)
        self._flush_voice()

    def _flush_voice(self) -> None:
        for log in self.query("#voice").results(Log):
            for news in self._pending_voice:
                log.write_line(voice_line(news, self.status))
            self._pending_voice.clear()

    @on(OptionList.OptionHighlighted, "#tool-list")
    def _tool_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is None:
            return
        tool = self.tools[int(event.option.id)]
        self.query_one("#tool-text", Static).update(Content(tool_text(tool)))

    @on(Select.Changed, "#log-level")
    def _level_changed(self, event: Select.Changed) -> None:
        if self.supervisor is None or not isinstance(event.value, str) or event.value == self._level():
            return
        supervisor, name, level = self.supervisor, self.status.name, event.value

        async def change() -> None:
            problem = await supervisor.set_log_level(name, level)
            if problem is not None:
                self.notify(sanitize_line(problem, 300), severity="warning", markup=False)

        self.run_worker(Deferred(change), group="log-level", exclusive=True, exit_on_error=False)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.report())
        self.notify("Server overview copied.", markup=False)


def voice_line(news: LogEntry | Progress, status: ServerStatus) -> str:
    """`10:11:12 warning demo.resources  {"message": ...}`, `10:11:12 info big  (cut, 10.0 MB) zzz…`,
    `10:11:12 progress 3/5 (resources/read metrics://rollup) Rolled up eu-west`, or
    `10:11:12 unsolicited progress (token 7) 1/2`."""
    clock = time.strftime("%H:%M:%S", time.localtime(news.at))
    if isinstance(news, LogEntry):
        logger = f" {news.logger}" if news.logger else ""
        head = f"{clock} {news.level}{logger}  "
        if not news.cut:
            return sanitize_line(redact(head + news.text, status.spec), limit=LOG_LINE_CHARS)
        # The size first, where it shows without scrolling; masked before the cut, so no secret is split.
        text = redact(f"{head}(cut, {human_size(news.size)}) {news.text}", status.spec)
        return f"{sanitize_line(text[:LOG_LINE_CHARS], limit=LOG_LINE_CHARS)}…"
    total = f"/{news.total:g}" if news.total is not None else ""
    message = f" {news.message}" if news.message else ""
    if news.request is not None:
        text = f"{clock} progress {news.progress:g}{total} ({news.request}){message}"
    else:
        text = f"{clock} unsolicited progress (token {news.token}) {news.progress:g}{total}{message}"
    return sanitize_line(redact(text, status.spec), limit=LOG_LINE_CHARS)


def tool_text(tool: ToolEntry) -> str:
    """A tool as text for the detail pane: name, title, arguments, description and schema, sanitized."""
    lines = [sanitize_line(tool.name, 200)]
    if tool.title and tool.title != tool.name:
        lines.append(sanitize_line(tool.title, 200))
    shown = ", ".join(sanitize_line(a, 80) for a in tool_arguments(tool)) or "none"
    lines.append(f"Arguments: {shown} (* required)")
    description = tool.raw.get("description")
    if isinstance(description, str) and description:
        lines += ["", sanitize(description, limit=20_000)]
    lines += ["", "Input schema:", sanitize(schema_text(tool), limit=SCHEMA_CAP)]
    return "\n".join(lines)
