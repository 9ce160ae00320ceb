"""PromptResultView: what `prompts/get` returned, message by message, or why it failed.

Each message shows its role, then its content: text (sanitized), an image (format, dimensions, size,
and the picture itself for a PNG), audio (format, size), an embedded resource (its URI, which `enter`
or `t` opens in the tree, and its contents as the preview would classify them), or a resource link
(its URI, also openable). The result is read by `explorer.model.prompt_data`, as the CLI reads it: a
malformed part (an embedded resource that is a string, an unknown role or content type) is shown with
what is wrong with it. A long text shows its start (`TEXT_LINES` lines, `TEXT_LIMIT` characters) and a
line saying how much of how much that is, as the preview does for a capped read; a binary content its
first `HEX_LIMIT` bytes the same way. Nothing here is parsed as markup: every server string reaches
the screen as `Content`. Opening a resource is a message (`OpenResource`) for the screen to act on.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from explorer.model.contents import TEXT_KINDS, classify_item, human_size
from explorer.model.contents import Content as ReadContent
from explorer.model.prompt_data import Block, PromptMessage, TextHead, parse_prompt_result, text_head
from explorer.sanitize import sanitize, sanitize_line
from explorer.widgets.hex_view import HexDumpBlock
from explorer.widgets.preview import ImageView, server_answered, shown_of
from explorer.widgets.server_labels import middle_cut
from explorer.widgets.swap_watch import SwapWatch

__all__ = ["PromptResultView", "ResourceLink", "describe_error"]

TEXT_LIMIT = 20_000
"""Characters of one text shown: its start, and a line saying how much of how much that is."""
TEXT_LINES = 400
"""Lines of one text shown. A text is one Static, which lays out every line it holds whenever it is laid
out: an embedded resource of 20 MB of short lines showed 50,000 of them and took 10 to 17 s to appear."""
HEX_LIMIT = 256
"""Bytes of a binary content shown in its hex dump."""
MESSAGE_PAGE = 50
"""Messages mounted at once: the first page when a result is shown, another each time the user asks
for more. Mounting all of 10,000 messages froze the app for 20 s and more, and every key after."""
_ERROR_NAMES = {
    -32602: "invalid parameters",
    -32601: "method not found",
    -32603: "internal error",
    -32600: "invalid request",
    -32002: "not found",
    -32001: "timeout",
    -32000: "connection closed",
    0: "error code 0 (no standard meaning)",
}
_LOCAL_CODES = (-32001, -32000)
"""The codes the SDK gives its own failures: named so only when the SDK made them, not the server."""


def describe_error(code: int | None, message: str = "", local: bool | None = None) -> str:
    """A headline for a failed prompt: `Prompt failed: invalid parameters (-32602)`; a server's own
    -32000 is `server error`, not `connection closed` (`message` tells which)."""
    if code is None:
        return "Prompt failed"
    name = _ERROR_NAMES.get(code, "server error")
    ours = not server_answered(code, message) if local is None else local
    if code in _LOCAL_CODES and not ours:
        name = "server error"
    return f"Prompt failed: {name} ({code})"


def _static(content: Content, classes: str) -> Static:
    return Static(content, classes=classes)


class ResourceLink(Static, can_focus=True):
    """A resource URI in a prompt result; `enter` (or a click) asks to open it in the tree."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open in tree", id="prompt_result.open_resource"),
    ]
    DEFAULT_CSS = """
    ResourceLink { height: auto; color: $text-accent; text-style: underline; padding: 0 1; }
    ResourceLink:focus { background: $accent 30%; }
    """

    def __init__(self, uri: str, label: str) -> None:
        super().__init__(Content.assemble((label, "bold"), sanitize_line(uri, 1000)))
        self.uri = uri

    def action_open(self) -> None:
        self.post_message(PromptResultView.OpenResource(self.uri))

    def on_click(self) -> None:
        self.action_open()


class ShowMoreMessages(Static, can_focus=True):
    """The line after the messages shown so far: `enter` (or a click, or `m` in the view) shows more."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "show_more", "More messages", id="prompt_result.more_enter"),
    ]
    DEFAULT_CSS = """
    ShowMoreMessages { height: auto; color: $text-accent; margin-top: 1; padding: 0 1; }
    ShowMoreMessages:focus { background: $accent 30%; }
    """

    def __init__(self, remaining: int) -> None:
        page = min(remaining, MESSAGE_PAGE)
        super().__init__(
            Content(f"+{remaining:,} more messages. Press enter here or m to show the next {page:,}.")
        )

    def action_show_more(self) -> None:
        view = next((a for a in self.ancestors if isinstance(a, PromptResultView)), None)
        if view is not None:
            view.action_show_more()

    def on_click(self) -> None:
        self.action_show_more()


class PromptResultView(VerticalScroll):
    """Messages of a prompt result by role, or an error; empty until something is shown."""

    HELP = """
## Prompt result
The messages the server returned, by role. Text is shown as sent (control characters appear as visible
escapes); images show their format, dimensions and size (PNGs are drawn); audio its format and size;
embedded resources their URI and contents. Focus a resource URI (`tab`) and press `enter`, or press `t`
anywhere, to open it in the tree. A long result shows its first 50 messages: press `m` (or `enter` on
the "+N more messages" line) for the next 50.
"""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("m", "show_more", "More messages", id="prompt_result.show_more"),
    ]
    DEFAULT_CSS = """
    PromptResultView { height: 1fr; padding: 0 1; background: $surface; }
    PromptResultView .pr-title { height: auto; text-style: bold; margin-bottom: 1; }
    PromptResultView .pr-role { height: auto; text-style: bold; color: $text-accent; margin-top: 1; }
    PromptResultView .pr-role.-assistant { color: $text-success; }
    PromptResultView .pr-text { height: auto; padding: 0 1; }
    PromptResultView .pr-info { height: auto; padding: 0 1; color: $text-muted; background: $panel; }
    PromptResultView .pr-error { height: auto; color: $text-error; text-style: bold; }
    PromptResultView .pr-error-detail { height: auto; color: $text-error; padding: 0 1; }
    PromptResultView .pr-message { height: auto; }
    PromptResultView .pr-muted { height: auto; color: $text-muted; }
    PromptResultView .pr-error-detail.-note { color: $text-muted; }
    PromptResultView .pr-hex { padding: 0 1; }
    PromptResultView .pr-shown {
        height: auto; padding: 0 1; color: $text-warning; background: $warning-muted;
    }
    """

    class OpenResource(Message):
        """The user asked to open `uri` in the tree."""

        def __init__(self, uri: str) -> None:
            super().__init__()
            self.uri = uri

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state = "empty"
        self.resource_uris: list[str] = []
        self.error: tuple[str, int | None] | None = None
        self._unshown: list[PromptMessage] = []  # messages of the result not mounted yet, in order
        self._next_number = 1
        self._swap = SwapWatch()

    def compose(self) -> ComposeResult:
        yield _static(
            Content("Choose a prompt and press enter to fill its arguments and get it."), "pr-muted"
        )

    # --- public -------------------------------------------------------------------------------------------

    def show_loading(self, server: str, name: str) -> None:
        self._replace(
            "loading",
            [
                _static(
                    Content(f"Getting {sanitize_line(name, 100)} from {middle_cut(server, 60)} …"),
                    "pr-muted",
                )
            ],
        )

    def show_error(
        self,
        server: str,
        name: str,
        message: str,
        code: int | None,
        data: Any = None,
        *,
        local: bool | None = None,
    ) -> None:
        """A failed get: a headline naming the code, the server's message, and its data if any."""
        widgets: list[Widget] = [
            _static(Content(describe_error(code, message, local)), "pr-error"),
            _static(Content(f"{sanitize_line(server, 60)} · {sanitize_line(name, 100)}"), "pr-muted"),
            _static(Content(sanitize(message, limit=4000)), "pr-error-detail"),
        ]
        if data is not None:
            try:
                shown = json.dumps(data, indent=2, ensure_ascii=False)
            except (TypeError, ValueError):
                shown = repr(data)
            widgets.append(_static(Content("data: " + sanitize(shown, limit=4000)), "pr-error-detail"))
        self.error = (message, code)
        self._replace("error", widgets)

    def show_result(self, server: str, name: str, result: Mapping[str, Any]) -> None:
        """Every message of a `prompts/get` result (raw JSON, read by `parse_prompt_result`)."""
        parsed = parse_prompt_result(result)
        widgets: list[Widget] = []
        title = f"{sanitize_line(name, 100)} · {sanitize_line(server, 60)}"
        if parsed.description:
            title += f"\n{sanitize(parsed.description, limit=1000)}"
        widgets.append(_static(Content(title), "pr-title"))
        for problem in parsed.problems:
            widgets.append(_static(Content(sanitize_line(problem, 300)), "pr-error-detail"))
        if not parsed.messages:
            widgets.append(_static(Content("(no messages)"), "pr-muted"))
        self._unshown = list(parsed.messages)
        self._next_number = 1
        widgets += self._next_page()
        self.resource_uris = parsed.resource_uris
        self._replace("result", widgets)

    @property
    def shown(self) -> bool:
        """False from a change of state until its widgets are all mounted (`SwapWatch`)."""
        return self._swap.shown

    @property
    def unshown(self) -> int:
        """Messages of the result not shown yet (`action_show_more` shows the next page)."""
        return len(self._unshown)

    def action_show_more(self) -> None:
        """Mount the next `MESSAGE_PAGE` messages in place of the "+N more messages" line."""
        if self.state != "result" or not self._unshown:
            return
        old = self.query(ShowMoreMessages)
        had_focus = any(w.has_focus for w in old)
        old.remove()
        page = self._next_page()
        self.mount_all(page)
        if had_focus and isinstance(page[-1], ShowMoreMessages):
            page[-1].focus(scroll_visible=False)  # the next enter shows more still
        elif had_focus:
            self.focus(scroll_visible=False)
        if page:  # the first new message at the top: what the user asked to see
            self.call_after_refresh(page[0].scroll_visible, top=True, animate=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "show_more":
            return self.state == "result" and bool(self._unshown)
        return True

    def _next_page(self) -> list[Widget]:
        """Widgets of the next page of unshown messages, and the "more" line if any are left after it."""
        page, self._unshown = self._unshown[:MESSAGE_PAGE], self._unshown[MESSAGE_PAGE:]
        widgets: list[Widget] = []
        for message in page:
            widgets.append(self._message(self._next_number, message))
            self._next_number += 1
        if self._unshown:
            widgets.append(ShowMoreMessages(len(self._unshown)))
        return widgets

    def clear(self) -> None:
        self._replace("empty", [_static(Content(""), "pr-muted")])

    @property
    def text(self) -> str:
        """Everything shown, as plain text (for tests and copying)."""
        return "\n".join(
            w.text if isinstance(w, HexDumpBlock) else str(w.render())
            for w in self.query("Static, HexDumpBlock")
        )

    # --- rendering ----------------------------------------------------------------------------------------

    def _replace(self, state: str, widgets: list[Widget]) -> None:
        self.state = state
        if state != "result":
            self.resource_uris = []
            self._unshown = []
        if state != "error":
            self.error = None
        self.remove_children()
        mounting = self.mount_all(widgets)
        self.scroll_home(animate=False)
        self._swap.started(self, mounting)

    def _message(self, number: int, message: PromptMessage) -> Widget:
        box = Vertical(classes="pr-message")
        if message.role is None:
            role_text = f"(no role: {sanitize_line(message.problem or '', 80)})"
        elif message.known_role:
            role_text = sanitize_line(message.role, 40)
        else:
            role_text = f"{sanitize_line(message.role, 40)} (unknown role)"
        if message.role is None and not message.blocks:
            box.compose_add_child(
                _static(Content(sanitize_line(message.problem or "", 200)), "pr-error-detail")
            )
            return box
        role_widget = _static(Content(f"{number}. {role_text}"), "pr-role")
        role_widget.set_class(message.role == "assistant", "-assistant")
        box.compose_add_child(role_widget)
        for block in message.blocks:
            for widget in self._block(block):
                box.compose_add_child(widget)
        return box

    def _block(self, block: Block) -> list[Widget]:
        if block.kind == "text":
            return _text(text_head(block.text or "", chars=TEXT_LIMIT, lines=TEXT_LINES))
        if block.kind in ("image", "audio"):
            return self._media(block)
        if block.kind == "resource" and block.resource is not None:
            widgets: list[Widget] = []
            if block.uri:
                widgets.append(ResourceLink(block.uri, "embedded resource  "))
            if block.problem is not None:
                widgets.append(_static(Content(sanitize_line(block.problem, 300)), "pr-error-detail"))
            widgets += self._contents(classify_item(block.resource.item))
            return widgets
        if block.kind == "resource_link" and block.uri:
            details = [sanitize_line(d, 200) for d in (block.name, block.mime_type, block.description) if d]
            widgets = [ResourceLink(block.uri, "resource link  ")]
            if details:
                widgets.append(_static(Content("  ·  ".join(details)), "pr-info"))
            return widgets
        style = "pr-muted" if block.kind == "unknown" else "pr-error-detail"
        widgets = [_static(Content(sanitize_line(block.problem or "unreadable content", 300)), style)]
        if block.text is not None:  # an embedded "resource" sent as a string: shown as the text it is
            widgets += _text(text_head(block.text, chars=TEXT_LIMIT, lines=TEXT_LINES))
        return widgets

    def _media(self, block: Block) -> list[Widget]:
        kind, mime = block.kind, block.mime_type
        item: dict[str, Any] = {"uri": "", "blob": block.data}
        if mime is not None:
            item["mimeType"] = mime
        content = classify_item(item)
        parts = [kind, sanitize_line(mime, 80) if mime else "no mime type"]
        if content.kind == "invalid":
            parts.append(sanitize_line(content.problem or "invalid data", 300))
            return [_static(Content("  ·  ".join(parts)), "pr-error-detail")]
        if content.image is not None:
            image = content.image
            dims = f"{image.width}×{image.height}" if image.width is not None else "size unknown"
            parts.append(" ".join(p for p in (image.format, dims, image.detail) if p))
        parts.append(human_size(content.size))
        widgets: list[Widget] = [_static(Content("  ·  ".join(parts)), "pr-info")]
        if (
            content.image is not None
            and content.image.format == "PNG"
            and content.data
            and not content.truncated
        ):
            widgets.append(ImageView(content.data))
        return widgets

    def _contents(self, content: ReadContent) -> list[Widget]:
        parts = [sanitize_line(content.mime_type, 100) if content.mime_type else "no mime type"]
        if content.kind not in ("empty", "invalid"):
            parts.append(human_size(content.size))
        parts.append(content.kind if content.kind != "code" else f"code: {content.language}")
        widgets: list[Widget] = [_static(Content("  ·  ".join(parts)), "pr-info")]
        if content.kind == "invalid":
            widgets.append(
                _static(
                    Content(sanitize(content.problem or "invalid content", limit=2000)), "pr-error-detail"
                )
            )
            return widgets
        if content.problem:
            # As the preview says it: a note on how it was read is muted, a real problem is not.
            classes = "pr-error-detail -note" if content.informational else "pr-error-detail"
            widgets.append(_static(Content(sanitize(content.problem, limit=1000)), classes))
        if content.kind == "empty":
            widgets.append(_static(Content("(empty)"), "pr-muted"))
        elif content.kind in TEXT_KINDS and content.pretty_json is not None:
            # Pretty-printed, so its bytes are not the resource's: how much is shown is said in lines.
            pretty = content.pretty_json
            head = text_head(pretty, chars=TEXT_LIMIT, lines=TEXT_LINES)
            widgets += _text(head, note=_lines_shown(head.text, pretty) if head.cut else None)
        elif content.kind in TEXT_KINDS:
            held = content.text or ""
            # The classification holds the start of a big text (`truncated`); the sizes are the whole's.
            widgets += _text(text_head(held, chars=TEXT_LIMIT, lines=TEXT_LINES, size=content.size))
        else:
            data = content.data or b""
            if content.image is not None and content.image.format == "PNG" and data and not content.truncated:
                widgets.append(ImageView(data))
            # The dump gets only what it shows: its own count of the rest would be of the bytes decoded
            # (at most a megabyte), not of the content.
            dumped = data[:HEX_LIMIT]
            widgets.append(HexDumpBlock(dumped, limit=HEX_LIMIT, classes="pr-hex"))
            if content.size > len(dumped):
                widgets.append(_shown_note(f"Showing the first {shown_of(len(dumped), content.size)}."))
        return widgets


def _text(head: TextHead, *, note: str | None = None) -> list[Widget]:
    """A text's start as one block, then (when it is not all of it) how much of it that is."""
    shown = sanitize(head.text, limit=None)
    if head.cut and shown.endswith("\n"):
        shown = shown[:-1]  # cut after a whole line: the line break is not a blank line of the text
    widgets: list[Widget] = [_static(Content(shown), "pr-text")]
    if head.cut:
        widgets.append(_shown_note(note or f"Showing the first {shown_of(head.shown_bytes, head.size)}."))
    return widgets


def _lines(text: str) -> int:
    return text.count("\n") + (not text.endswith("\n"))


def _lines_shown(head: str, whole: str) -> str:
    return f"Showing the first {_lines(head):,} of {_lines(whole):,} lines of the pretty-printed JSON."


def _shown_note(text: str) -> Static:
    return _static(Content(text), "pr-shown")
