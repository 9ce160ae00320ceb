"""The preview pane: shows what a `resources/read` returned, classified by `explorer.model.contents`.

Why a widget of its own: contents are untrusted and can be huge. Everything shown here goes through
`sanitize` and reaches the screen as `Content`/`Segment` objects, never as markup. Long texts are drawn by
`TextView` (`explorer.widgets.text_view`: only the visible rows are rendered, highlighting runs in a
thread), binary contents by `HexView` (`explorer.widgets.hex_view`: a dump as wide as the pane) and PNGs
by `ImageView` (`explorer.widgets.image_view`); all are re-exported here. The widget
never does I/O: "load all" is a message for the screen, which re-reads the resource.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static, TabbedContent, TabPane

from explorer.model.contents import TEXT_KINDS, human_size
from explorer.model.contents import Content as ReadContent
from explorer.model.contents.changes import Update
from explorer.model.contents.markdown_cost import markdown_blocks
from explorer.sanitize import sanitize, sanitize_line
from explorer.widgets.content_list import MoreContents
from explorer.widgets.hex_view import HexView
from explorer.widgets.image_view import ImageView
from explorer.widgets.key_display import shown_key
from explorer.widgets.server_labels import middle_cut
from explorer.widgets.swap_watch import SwapWatch
from explorer.widgets.text_view import HIGHLIGHT_LIMIT as HIGHLIGHT_LIMIT
from explorer.widgets.text_view import MIN_WRAP_WIDTH as MIN_WRAP_WIDTH
from explorer.widgets.text_view import TAB_SIZE as TAB_SIZE
from explorer.widgets.text_view import LineSpans as LineSpans
from explorer.widgets.text_view import TextView, highlight_lines

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_core import StateCore
    from markdown_it.token import Token
    from textual.widgets import Markdown

__all__ = ["ContentPreview", "HexView", "ImageView", "TextView", "error_title", "highlight_lines"]

MARKDOWN_RENDER_LIMIT = 20_000
"""Textual's Markdown widget builds a widget per block (about 3 s for 10 KB of lists): beyond this many
characters markdown is shown as highlighted source instead."""
MARKDOWN_BLOCK_LIMIT = 600
"""Blocks (`markdown_blocks`: paragraphs, headings, list items counted thrice, table cells) beyond which
markdown is shown as highlighted source too: 4,900 list items under the character limit froze the app
for 20 s, a table row of 3,000 cells cost seconds a key. Measured on a busy 2-core machine: 25 list items
174 ms, 25 paragraphs 68 ms, 100 table cells 236 ms. 600 keeps rendered what a server's documentation
usually is (the reference servers' READMEs score 44 to 517, every page of the demo under 60) at up to
about a second once, where a bound of 40 showed half the demo's handbook as source
(`benchmarks/bench_markdown.py`: 0.96 s at 600 blocks against 0.11 s as source, linear past it)."""
TAB_LIMIT = 20
"""Contents of one read shown as tabs of their own; the rest are listed in one last tab (`MoreContents`)."""
HEX_DUMP_LIMIT = 4096
"""Bytes of a binary content shown in the hex dump."""


class _MarkdownBody(VerticalScroll):
    """Rendered markdown in its own scroll area; links are never opened (see ContentPreview)."""

    DEFAULT_CSS = """
    _MarkdownBody {
        height: 1fr;
        background: $surface;
        scrollbar-gutter: stable;
        &:focus { background-tint: $foreground 4%; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "scroll_down", "Down", show=False, id="preview.markdown_down"),
        Binding("k", "scroll_up", "Up", show=False, id="preview.markdown_up"),
    ]

    def __init__(self, source: str) -> None:
        super().__init__()
        self._source = source

    def compose(self) -> ComposeResult:
        from textual.widgets import Markdown  # markdown-it: 20 ms of imports, not before a first markdown

        yield Markdown(self._source, open_links=False, parser_factory=safe_markdown_parser)


def safe_markdown_parser() -> MarkdownIt:
    """Textual's own parser ("gfm-like") with a last step that sanitizes everything parsing made.

    Why: sanitizing the source is not enough, parsing makes new characters. An entity (`&#x202e;`) is
    decoded, and an autolink's or a bare URL's text has its percent escapes decoded (`<http://x/%1B]52;...>`
    showed a raw ESC: an OSC 52 that set the terminal's clipboard). So every string of every token, its
    children's too, is sanitized after all of markdown-it's rules have run, whatever block draws it.

    Links of every scheme are links: markdown-it refuses `file:`, `data:`, `javascript:` and `vbscript:`
    targets (`validateLink`, against XSS in HTML) and left such a link as its source text, where `file://`
    is the scheme MCP servers use most. Nothing here is HTML and no link is ever opened: a link is its
    text, styled, and a click only tells where it points (`ContentPreview.on_markdown_link_clicked`); an
    image is its alt text after a picture sign, the same (its source is never fetched nor decoded).
    """
    from markdown_it import MarkdownIt

    parser = MarkdownIt("gfm-like")
    parser.validateLink = _any_link  # type: ignore[method-assign]
    parser.core.ruler.push("explorer_sanitize", _sanitize_parsed)
    return parser


def _any_link(url: str) -> bool:
    """Every link target is kept (see `safe_markdown_parser`)."""
    return True


def _sanitize_parsed(state: StateCore) -> None:
    _sanitize_tokens(state.tokens)


def _sanitize_tokens(tokens: list[Token]) -> None:
    """Text and code as `sanitize` shows a text; info strings and attributes (link targets, image sources
    and alt texts) as single lines. Clean ASCII, nearly everything, costs one C-level check a string."""
    for token in tokens:
        if token.content:
            token.content = sanitize(token.content, limit=None)
        if token.info:
            token.info = sanitize_line(token.info, limit=None)
        attrs = token.attrs
        for name, value in attrs.items():
            if isinstance(value, str) and value:
                attrs[name] = sanitize_line(value, limit=None)
        if token.children:
            _sanitize_tokens(token.children)


def _label(text: str) -> Static:
    """A Static showing `text` as plain text (never parsed as markup)."""
    return Static(Content(text))


class _ContentView(Vertical):
    """One content item: an info line, notices, and the body drawn for its kind."""

    DEFAULT_CSS = """
    _ContentView {
        height: 1fr;
        & > .preview-info { height: auto; padding: 0 1; color: $text-muted; background: $panel; }
        & > .preview-notice { height: auto; padding: 0 1; color: $text-warning; background: $warning-muted; }
        & > .preview-problem { height: auto; padding: 0 1; color: $text-error; }
        & > .preview-problem.-note { color: $text-muted; }
        & > .preview-note { height: auto; padding: 0 1; color: $text-muted; }
        & > .preview-empty { height: auto; padding: 1 2; color: $text-muted; }
        & > .preview-invalid { height: auto; padding: 1 2; color: $text-error; }
    }
    """

    def __init__(self, content: ReadContent, *, show_uri: bool, load_key: str) -> None:
        super().__init__()
        self.content = content
        self._show_uri = show_uri
        self._load_key = load_key
        self.markdown_too_big: Literal["characters", "blocks"] | None = None
        if content.kind == "markdown":
            text = content.text or ""
            if content.truncated or len(text) > MARKDOWN_RENDER_LIMIT:
                self.markdown_too_big = "characters"
            elif markdown_blocks(text, stop_at=MARKDOWN_BLOCK_LIMIT) > MARKDOWN_BLOCK_LIMIT:
                self.markdown_too_big = "blocks"

    @property
    def renders_markdown(self) -> bool:
        """True when this content is markdown small enough for Textual's Markdown widget."""
        return self.content.kind == "markdown" and self.markdown_too_big is None

    def toggle_source(self) -> None:
        """Rendered markdown <-> its source (raw HTML and link targets are only visible in the source)."""
        if not self.renders_markdown:
            return
        rendered = self.query_one(_MarkdownBody)
        sources = self.query(TextView)
        if not sources:
            source = TextView(sanitize(self.content.text or "", limit=None), language="markdown")
            had_focus = rendered.has_focus_within
            rendered.display = False
            self.mount(source, after=rendered)
            if had_focus:
                source.focus()
            return
        source = sources.first()
        showing_source = bool(source.display)
        now_shown, now_hidden = (rendered, source) if showing_source else (source, rendered)
        had_focus = now_hidden.has_focus_within
        now_shown.display = True
        now_hidden.display = False
        if had_focus:
            now_shown.focus()

    def info(self) -> Content:
        c = self.content
        parts: list[str] = []
        if self._show_uri and c.uri:
            parts.append(sanitize_line(c.uri, 300))
        parts.append(sanitize_line(c.mime_type, 100) if c.mime_type else "no mime type")
        if c.kind not in ("empty", "invalid"):
            parts.append(human_size(c.size))
        kind = c.kind if c.kind != "code" else f"code: {c.language}"
        parts.append(kind)
        if c.image is not None:
            dims = f"{c.image.width}×{c.image.height}" if c.image.width is not None else "size unknown"
            parts.append(" ".join(p for p in (c.image.format, dims, c.image.detail) if p))
        return Content("  ·  ".join(parts))

    def compose(self) -> ComposeResult:
        c = self.content
        yield Static(self.info(), classes="preview-info")
        if c.truncated and c.kind in TEXT_KINDS:
            shown = shown_of(c.shown_size, c.size)
            notice = f"Showing the first {shown}. Press {self._load_key} to load all."
            yield Static(Content(notice), classes="preview-notice")
        elif c.kind in ("binary", "image") and c.size > min(len(c.data or b""), HEX_DUMP_LIMIT):
            # The dump's count of the rest would be of the bytes decoded (a capped read), not the content.
            shown = shown_of(min(len(c.data or b""), HEX_DUMP_LIMIT), c.size)
            yield Static(Content(f"Showing the first {shown} as a hex dump."), classes="preview-notice")
        if c.problem and c.kind != "invalid":
            # A note on how it was read (a charset, JSON shown as sent) is muted; a real problem is not.
            classes = "preview-problem -note" if c.informational else "preview-problem"
            yield Static(Content(sanitize(c.problem, limit=1000)), classes=classes)
        if self.markdown_too_big is not None:
            what = "this long" if self.markdown_too_big == "characters" else "with this many blocks"
            note = f"Shown as source: rendering markdown {what} would be slow."
            yield Static(Content(note), classes="preview-note")
        yield from self._body()

    def _body(self) -> ComposeResult:
        c = self.content
        if c.kind == "empty":
            yield _label("(empty)").add_class("preview-empty")
        elif c.kind == "invalid":
            yield _label(sanitize(c.problem or "invalid content", limit=2000)).add_class("preview-invalid")
        elif c.kind in ("binary", "image"):
            if c.image is not None and c.image.format == "PNG" and c.data and not c.truncated:
                yield ImageView(c.data)
            yield HexView((c.data or b"")[:HEX_DUMP_LIMIT], limit=HEX_DUMP_LIMIT, classes="hex")
        elif c.kind == "markdown" and self.renders_markdown:
            yield _MarkdownBody(sanitize(c.text or "", limit=None))
        else:
            text = sanitize(c.display_text or "", limit=None)
            language = "json" if c.kind == "json" else c.language
            if c.kind == "markdown":
                language = "markdown"
            code = c.kind in ("code", "json")
            yield TextView(text, language=language, wrap=not code, line_numbers=code)


def shown_of(shown: int, size: int) -> str:
    """`1.0 MB of 2.0 MB`, or exact bytes when the rounded sizes would read the same (a text cut by two
    bytes read "the first 1.0 MB of 1.0 MB"): `1,048,574 of 1,048,576 bytes`."""
    if shown != size and human_size(shown) == human_size(size):
        return f"{shown:,} of {size:,} bytes"
    return f"{human_size(shown)} of {human_size(size)}"


State = Literal["empty", "loading", "contents", "error"]

_ERROR_TITLES = {
    -32002: "Not found",
    -32601: "The server does not support reading resources",
    -32603: "The server failed (internal error)",
    -32600: "Invalid request",
    -32700: "The server could not parse the request",
}
_LOCAL_TITLES = {-32001: "Timed out", -32000: "The connection closed"}
"""Titles of the codes the SDK gives its own failures: a server that answers -32000 or -32001 itself
(many do, for errors of their own) gets `Server error (-32000)`, see `server_answered`."""
_NOT_FOUND_WORDS = ("not found", "unknown resource", "no such", "does not exist", "doesn't exist")


def server_answered(code: int | None, message: str) -> bool:
    """Whether a fault's message is a JSON-RPC error the server answered with: the connection writes
    `the server answered error N: ...` for those alone (never for its own closed connection or timeout)."""
    return code is not None and f"the server answered error {code}: " in message


def error_title(code: int | None, message: str, local: bool | None = None) -> str:
    """A short, clear headline for a read error: `Not found (-32002)`, `Timed out`, `Read failed (42)`.

    -32602 (invalid params) is what current servers answer for an unknown URI: it reads "Not found" when
    the message says so, else "Invalid parameters". A timeout is guessed from the words only when there
    is no code: with one, the words are the server's (`Upstream API timed out`), not a timeout of ours.
    `local`: the fault's own word on whether this side made the code (`ServerFault.local`); without it the
    message tells, which a URI or a stderr line quoted in it could mislead.
    """
    lowered = message.lower()
    not_found = any(words in lowered for words in _NOT_FOUND_WORDS)
    title = _ERROR_TITLES.get(code) if code is not None else None
    if code in _LOCAL_TITLES:
        ours = not server_answered(code, message) if local is None else local
        title = _LOCAL_TITLES[code] if ours else "Server error"
    if code == -32602:
        title = "Not found" if not_found else "Invalid parameters"
    if title is None:
        if code is None and ("timed out" in lowered or "timeout" in lowered):
            title = "Timed out"
        elif not_found:
            title = "Not found"
        else:
            title = "Read failed"
    return f"{title} ({code})" if code is not None else title


@dataclass(frozen=True)
class ViewState:
    """What the user made of a shown read (`ContentPreview.view_state`)."""

    tabs: list[str]
    scrolls: list[tuple[float, float]]
    focus: int | None


class ContentPreview(Vertical):
    """Shows the contents of a read resource: text, markdown, JSON, code, binary, image, or an error."""

    HELP = """
## Preview

What the server returned for the resource you opened.

- **Text** is shown as sent (control characters, bidi overrides and invisible characters appear as
  visible escapes such as `\\x1b`).
- **Markdown** is rendered; links are never opened, a click only shows where it points.
  Long documents are shown as highlighted source.
- **JSON** is pretty-printed and highlighted; **code** is highlighted by its type or file extension.
- **Binary** and **images** show their type, size (and image format and dimensions) and a hex dump.
- Several contents appear as tabs; past 20, the rest are listed in a last tab ("+N more"), where
  **enter** shows the chosen one.
- Content over the size cap is cut: press **a** to read it again in full.

Keys: arrows, `j`/`k`, page up/down, home/end scroll; **w** toggles soft wrap; **s** shows the
source of rendered markdown (raw HTML, which is not rendered, and link targets show there).
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "load_all", "Load all", id="preview.load_all"),
        # Shown in the key bar while the focus is in the preview, each only where it acts (`check_action`).
        Binding("w", "toggle_wrap", "Wrap", id="preview.wrap"),
        Binding("s", "toggle_source", "Source", id="preview.source"),
    ]

    DEFAULT_CSS = """
    ContentPreview {
        height: 1fr;
        & > #preview-title { height: auto; max-height: 3; padding: 0 1; background: $panel; color: $text; }
        & > #preview-body { height: 1fr; }
        & .preview-message { height: auto; padding: 1 2; color: $text-muted; }
        & .preview-error { height: auto; padding: 1 2; color: $text-error; }
        & .preview-error-detail { height: auto; padding: 0 2; color: $text; }
        & TabbedContent { height: 1fr; }
        & TabbedContent > ContentSwitcher { height: 1fr; }
        & TabPane { height: 1fr; padding: 0; }
    }
    """

    class LoadAllRequested(Message):
        """The user asked to read `uri` again without a size cap; the screen does the reading."""

        def __init__(self, preview: ContentPreview, uri: str) -> None:
            super().__init__()
            self.preview = preview
            self.uri = uri

        @property
        def control(self) -> ContentPreview:
            return self.preview

    class LinkClicked(Message):
        """A link in rendered markdown was clicked; it was not opened. `href` is raw (sanitize to show)."""

        def __init__(self, preview: ContentPreview, href: str) -> None:
            super().__init__()
            self.preview = preview
            self.href = href

        @property
        def control(self) -> ContentPreview:
            return self.preview

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.uri: str | None = None
        self.server: str | None = None
        self.contents: list[ReadContent] = []
        self.state: State = "empty"
        self.error: tuple[str, int | None] | None = None
        self.update_info: Update | None = None  # the last re-read after a change, if the shown one is one
        self._swap = SwapWatch()

    def compose(self) -> ComposeResult:
        yield Static(Content(""), id="preview-title")
        with Vertical(id="preview-body"):
            yield Static(Content(self._nothing_shown()), classes="preview-message")

    # --- public API ---------------------------------------------------------------------------------------

    def show_contents(
        self,
        uri: str,
        contents: Sequence[ReadContent],
        *,
        server: str | None = None,
        update: Update | None = None,
    ) -> AwaitComplete:
        """Show the classified contents of a read of `uri` (several contents become tabs).

        `update`, for a re-read after the server said the resource changed, puts when and which version in
        the title and the diff of the text in a "Changes" tab.
        """
        self._set(uri, server, "contents", update=update)
        self.update_info = update
        self.contents = list(contents)
        load_key = self._load_key()
        widgets: list[Widget]
        if not contents:
            widgets = [_label("(the server returned no contents)").add_class("preview-message")]
        elif len(contents) == 1:
            single = contents[0]
            widgets = [
                _ContentView(single, show_uri=bool(single.uri) and single.uri != uri, load_key=load_key)
            ]
        else:
            tabs = TabbedContent()
            for number, content in enumerate(contents[:TAB_LIMIT], 1):
                tabs.compose_add_child(
                    TabPane(
                        self._tab_title(number, content),
                        _ContentView(content, show_uri=True, load_key=load_key),
                    )
                )
            if len(contents) > TAB_LIMIT:
                rest = contents[TAB_LIMIT:]

                def make_view(content: ReadContent) -> Widget:
                    return _ContentView(content, show_uri=True, load_key=load_key)

                more = MoreContents(rest, TAB_LIMIT + 1, make_view)
                tabs.compose_add_child(TabPane(Content(f"+{len(rest):,} more"), more, id="more-contents"))
            widgets = [tabs]
        if update is not None and update.diff:
            changes = TabbedContent()
            changes.compose_add_child(TabPane(Content("Now"), *widgets))
            diff = TextView(sanitize(update.diff, limit=None), language="diff", wrap=False, classes="changes")
            changes.compose_add_child(TabPane(Content(f"Changes ({update.summary})"), diff))
            widgets = [changes]
        self.refresh_bindings()
        return self._replace_body(widgets)

    @property
    def shown(self) -> bool:
        """False from a change of state until its widgets are all mounted (`SwapWatch`)."""
        return self._swap.shown

    def show_loading(self, uri: str, *, server: str | None = None) -> AwaitComplete:
        """Show that `uri` is being read."""
        self._set(uri, server, "loading")
        return self._replace_body(
            [_label(f"Reading {sanitize_line(uri, 300)} …").add_class("preview-message")]
        )

    def show_error(
        self,
        uri: str,
        message: str,
        code: int | None = None,
        *,
        server: str | None = None,
        local: bool | None = None,
    ) -> AwaitComplete:
        """Show a read error in the pane: a headline from the code (`Not found (-32002)`) and the message."""
        self._set(uri, server, "error")
        self.error = (message, code)
        return self._replace_body(
            [
                _label(error_title(code, message, local)).add_class("preview-error"),
                _label(sanitize(message, limit=4000)).add_class("preview-error-detail"),
            ]
        )

    def clear(self) -> AwaitComplete:
        """Show nothing."""
        self._set(None, None, "empty")
        return self._replace_body([_label(self._nothing_shown()).add_class("preview-message")])

    # --- actions ------------------------------------------------------------------------------------------

    @property
    def can_load_all(self) -> bool:
        return self.state == "contents" and any(c.truncated and c.kind in TEXT_KINDS for c in self.contents)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "load_all":
            return self.can_load_all
        if action == "toggle_wrap":
            return self.state == "contents" and bool(self._text_views())
        if action == "toggle_source":
            return self.state == "contents" and any(v.renders_markdown for v in self.query(_ContentView))
        return True

    def view_state(self) -> ViewState:
        """Which tabs are open, where each scrollable part is scrolled, and which part has the focus: what
        a re-read of the same resource (a followed one changed) keeps, instead of starting over."""
        focused = self.app.focused
        parts = [widget for widget in self.query("*") if widget.focusable]
        return ViewState(
            tabs=[tabs.active for tabs in self.query(TabbedContent)],
            scrolls=[(view.scroll_x, view.scroll_y) for view in self.query(TextView)],
            focus=parts.index(focused) if focused in parts else None,
        )

    def restore_view_state(self, state: ViewState) -> None:
        """`view_state` laid back on what is shown now, part by part as far as the parts still match."""
        for tabs, active in zip(self.query(TabbedContent), state.tabs, strict=False):
            if active and tabs.query(f"#{active}"):
                _activate(tabs, active)
        for view, (x, y) in zip(self.query(TextView), state.scrolls, strict=False):
            view.scroll_to(x, y, animate=False, immediate=True)
        parts = [widget for widget in self.query("*") if widget.focusable]
        if state.focus is not None and state.focus < len(parts):
            parts[state.focus].focus()

    def focus_contents(self) -> None:
        """Focus the first focusable part of what is shown (a text view, a tab), if any."""
        for widget in self.query("*"):
            if widget.focusable:
                widget.focus()
                return

    def action_toggle_source(self) -> None:
        """Switch rendered markdown to its (highlighted, sanitized) source and back."""
        for view in self.query(_ContentView):
            view.toggle_source()
        self.refresh_bindings()  # the key bar's `s` says what it does now (`binding_description`)

    def binding_description(self, action: str) -> str | None:
        """The key bar's word for `s` while the source is shown: it goes back to the rendered markdown."""
        if action == "toggle_source" and any(
            view.renders_markdown and any(source.display for source in view.query(TextView))
            for view in self.query(_ContentView)
        ):
            return "Rendered"
        return None

    def action_load_all(self) -> None:
        """Ask the screen to read the resource again without a cap."""
        if self.can_load_all and self.uri is not None:
            self.post_message(self.LoadAllRequested(self, self.uri))

    def _text_views(self) -> list[TextView]:
        """The text views shown (hex dumps apart). Not `query(TextView).exclude(".hex")`: when no
        `TextView` is there, Textual's `exclude` drops the type too, and every other widget came back
        (`w` on rendered markdown then took a `Static` for a text view and stopped the app)."""
        return [view for view in self.query(TextView) if not view.has_class("hex")]

    def action_toggle_wrap(self) -> None:
        views = self._text_views()
        if views:
            wrap = not views[0].wrap
            for view in views:
                view.set_wrap(wrap)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """List the contents past the tabs when their tab is first opened (not when the read arrives)."""
        for more in event.pane.query(MoreContents):
            more.fill()

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        self.post_message(self.LinkClicked(self, event.href))
        self.notify(f"Link not opened: {sanitize_line(event.href, 300)}", markup=False, timeout=6)

    # --- internals ----------------------------------------------------------------------------------------

    def _set(
        self, uri: str | None, server: str | None, state: State, *, update: Update | None = None
    ) -> None:
        self.uri = uri
        self.server = server
        self.state = state
        self.error = None
        if state != "contents":
            self.contents = []
            self.update_info = None
        title = Content("")
        if uri is not None:
            title = Content.styled(sanitize_line(uri, 500), "bold")
            if server:
                title = title + Content.styled(f"  ·  {middle_cut(server, 80)}", "$text-muted")
            if update is not None:
                title = title + Content.styled(f"  ·  {update.headline()}", "$text-warning")
        self.query_one("#preview-title", Static).update(title)
        self.refresh_bindings()

    def _replace_body(self, widgets: list[Widget]) -> AwaitComplete:
        body = self.query_one("#preview-body", Vertical)
        removed = body.remove_children()
        mounted = body.mount_all(widgets)
        self._swap.started(self, mounted)
        return AwaitComplete(removed, mounted)

    def _nothing_shown(self) -> str:
        """The empty preview says how to fill it: a resource is read on Enter only (auto-preview is off
        by default), and a newcomer on a resource would otherwise take "nothing" for the server's answer."""
        read = shown_key(self.app, "tree.select", "enter")
        auto = shown_key(self.app, "main.auto_preview", "v")
        return f"Nothing to preview: {read} reads the highlighted resource ({auto}: as the cursor moves)."

    def _load_key(self) -> str:
        """The key shown in the "load all" notice: the default, or what the app's keymap made of it."""
        return shown_key(self.app, "preview.load_all", "a")

    @staticmethod
    def _tab_title(number: int, content: ReadContent) -> Content:
        name = content.uri.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1] if content.uri else ""
        label = sanitize_line(name, 40) or f"#{number}"
        return Content(f"{number}. {label}")


def _activate(tabs: TabbedContent, pane: str, tries: int = 3) -> None:
    """Open the tab of `pane`: a new TabbedContent mounts its tabs a refresh after its panes, and until
    then setting `active` raises (it did, from a callback: the app stopped)."""
    try:
        tabs.active = pane
    except ValueError:
        if tries > 1 and tabs.is_attached:
            tabs.call_after_refresh(_activate, tabs, pane, tries - 1)
