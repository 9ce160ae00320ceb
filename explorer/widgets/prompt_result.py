"""PromptResultView: what `prompts/get` returned, message by message, or why it failed.

Each message shows its role, then its content: text (sanitized), an image (format, dimensions, size,
and the picture itself for a PNG), audio (format, size), an embedded resource (its URI, which `enter`
or `t` opens in the tree, and its contents as the preview would classify them), or a resource link
(its URI, also openable). Nothing here is parsed as markup: every server string reaches the screen
as `Content`. Opening a resource is a message (`OpenResource`) for the screen to act on.
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

from explorer.model.contents import TEXT_KINDS, classify_item, hex_dump, human_size
from explorer.model.contents import Content as ReadContent
from explorer.sanitize import sanitize, sanitize_line
from explorer.widgets.preview import ImageView

__all__ = ["PromptResultView", "ResourceLink", "describe_error"]

TEXT_LIMIT = 50_000
"""Characters of one text block shown (the rest is counted, not drawn)."""
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


def describe_error(code: int | None) -> str:
    """A headline for a failed prompt: `Prompt failed: invalid parameters (-32602)`."""
    if code is None:
        return "Prompt failed"
    name = _ERROR_NAMES.get(code, "server error")
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


class PromptResultView(VerticalScroll):
    """Messages of a prompt result by role, or an error; empty until something is shown."""

    HELP = """
## Prompt result
The messages the server returned, by role. Text is shown as sent (control characters appear as visible
escapes); images show their format, dimensions and size (PNGs are drawn); audio its format and size;
embedded resources their URI and contents. Focus a resource URI (`tab`) and press `enter`, or press `t`
anywhere, to open it in the tree.
"""
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
                    Content(f"Getting {sanitize_line(name, 100)} from {sanitize_line(server, 60)} …"),
                    "pr-muted",
                )
            ],
        )

    def show_error(self, server: str, name: str, message: str, code: int | None, data: Any = None) -> None:
        """A failed get: a headline naming the code, the server's message, and its data if any."""
        widgets: list[Widget] = [
            _static(Content(describe_error(code)), "pr-error"),
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
        """Every message of a `prompts/get` result (raw JSON)."""
        widgets: list[Widget] = []
        uris: list[str] = []
        title = f"{sanitize_line(name, 100)} · {sanitize_line(server, 60)}"
        description = result.get("description")
        if isinstance(description, str) and description:
            title += f"\n{sanitize(description, limit=1000)}"
        widgets.append(_static(Content(title), "pr-title"))
        messages = result.get("messages")
        items = messages if isinstance(messages, list) else []
        if not items:
            widgets.append(_static(Content("(no messages)"), "pr-muted"))
        for number, message in enumerate(items, 1):
            widgets.append(self._message(number, message, uris))
        self.resource_uris = uris
        self._replace("result", widgets)

    def clear(self) -> None:
        self._replace("empty", [_static(Content(""), "pr-muted")])

    @property
    def text(self) -> str:
        """Everything shown, as plain text (for tests and copying)."""
        return "\n".join(str(w.render()) for w in self.query(Static))

    # --- rendering ----------------------------------------------------------------------------------------

    def _replace(self, state: str, widgets: list[Widget]) -> None:
        self.state = state
        if state != "result":
            self.resource_uris = []
        if state != "error":
            self.error = None
        self.remove_children()
        self.mount_all(widgets)
        self.scroll_home(animate=False)

    def _message(self, number: int, message: object, uris: list[str]) -> Widget:
        box = Vertical(classes="pr-message")
        if not isinstance(message, Mapping):
            box.compose_add_child(_static(Content(f"message {number} is not an object"), "pr-error-detail"))
            return box
        role = message.get("role")
        role_text = sanitize_line(role, 40) if isinstance(role, str) else "(no role)"
        role_widget = _static(Content(f"{number}. {role_text}"), "pr-role")
        role_widget.set_class(role == "assistant", "-assistant")
        box.compose_add_child(role_widget)
        content = message.get("content")
        blocks = content if isinstance(content, list) else [content]
        for block in blocks:
            for widget in self._block(block, uris):
                box.compose_add_child(widget)
        return box

    def _block(self, block: object, uris: list[str]) -> list[Widget]:
        if not isinstance(block, Mapping):
            return [_static(Content("a content block that is not an object"), "pr-error-detail")]
        kind = block.get("type")
        if kind == "text":
            text = block.get("text")
            if not isinstance(text, str):
                return [_static(Content("a text block without text"), "pr-error-detail")]
            return [_static(Content(sanitize(text, limit=TEXT_LIMIT)), "pr-text")]
        if kind in ("image", "audio"):
            return self._media(str(kind), block)
        if kind == "resource":
            resource = block.get("resource")
            if not isinstance(resource, Mapping):
                return [_static(Content("an embedded resource without a resource object"), "pr-error-detail")]
            uri = resource.get("uri")
            widgets: list[Widget] = []
            if isinstance(uri, str) and uri:
                uris.append(uri)
                widgets.append(ResourceLink(uri, "embedded resource  "))
            widgets += self._contents(classify_item(resource))
            return widgets
        if kind == "resource_link":
            uri = block.get("uri")
            if not isinstance(uri, str) or not uri:
                return [_static(Content("a resource link without a URI"), "pr-error-detail")]
            uris.append(uri)
            details = [
                sanitize_line(block[key], 200)
                for key in ("name", "mimeType", "description")
                if isinstance(block.get(key), str) and block[key]
            ]
            widgets = [ResourceLink(uri, "resource link  ")]
            if details:
                widgets.append(_static(Content("  ·  ".join(details)), "pr-info"))
            return widgets
        shown = sanitize_line(kind, 40) if isinstance(kind, str) else "(none)"
        return [_static(Content(f"a content block of unknown type {shown}"), "pr-muted")]

    def _media(self, kind: str, block: Mapping[str, Any]) -> list[Widget]:
        data = block.get("data")
        mime = block.get("mimeType")
        item: dict[str, Any] = {"uri": "", "blob": data if isinstance(data, str) else None}
        if isinstance(mime, str):
            item["mimeType"] = mime
        if not isinstance(data, str):
            return [_static(Content(f"{kind} without data"), "pr-error-detail")]
        content = classify_item(item)
        parts = [kind, sanitize_line(mime, 80) if isinstance(mime, str) and mime else "no mime type"]
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
        elif content.kind == "empty":
            widgets.append(_static(Content("(empty)"), "pr-muted"))
        elif content.kind in TEXT_KINDS:
            text = content.display_text or ""
            shown = sanitize(text, limit=TEXT_LIMIT)
            if content.truncated:
                shown += f"\n… showing {human_size(content.shown_size)} of {human_size(content.size)}"
            widgets.append(_static(Content(shown), "pr-text"))
        else:
            if (
                content.image is not None
                and content.image.format == "PNG"
                and content.data
                and not content.truncated
            ):
                widgets.append(ImageView(content.data))
            widgets.append(_static(Content(hex_dump(content.data or b"", limit=256)), "pr-text"))
        return widgets
