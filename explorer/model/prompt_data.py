"""Prompt data as a server sent it, turned into records that can always be shown.

`prompts/list` items and `prompts/get` results arrive as raw JSON, and a broken or hostile server sends
anything: `arguments` that is a string, an embedded `resource` that is a list, a role nobody defined,
content of a type that does not exist, fields missing or of the wrong type. The CLI and the TUI both
read prompt data through this module only, so they agree on what each odd shape means, and neither
can fail on one: every oddity becomes a record with a `problem` sentence, shown where the data would be.

Strings stay raw here (the callers sanitize them); nothing in this module raises on any input.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from explorer.model.contents.binary import Base64Error, base64_size
from explorer.model.contents.classify import utf8_size

__all__ = [
    "KNOWN_ROLES",
    "Block",
    "EmbeddedResource",
    "PromptArgument",
    "PromptInfo",
    "PromptMessage",
    "PromptResult",
    "TextHead",
    "decoded_size",
    "parse_prompt",
    "parse_prompt_result",
    "text_head",
]

KNOWN_ROLES = ("user", "assistant")

BlockKind = Literal["text", "image", "audio", "resource", "resource_link", "unknown", "invalid"]


def _text(value: object) -> str | None:
    """A non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def _kind_of(value: object) -> str:
    """A JSON type in words, for problem sentences."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return "a value of an unknown type"


# ------------------------------------------------------------------------------------------ listing


@dataclass(frozen=True, slots=True)
class PromptArgument:
    """One declared argument of a prompt."""

    name: str
    required: bool = False
    title: str | None = None
    description: str | None = None


@dataclass(frozen=True)
class PromptInfo:
    """One `prompts/list` item: what it declares, and what was wrong with it (`problems`)."""

    name: str
    title: str | None = None
    description: str | None = None
    arguments: tuple[PromptArgument, ...] = ()
    problems: tuple[str, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def required(self) -> list[str]:
        return [a.name for a in self.arguments if a.required]


def parse_prompt(raw: object) -> PromptInfo | None:
    """A listed prompt, or None when the item has no usable name (it cannot be asked for)."""
    if not isinstance(raw, Mapping):
        return None
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        return None
    problems: list[str] = []
    arguments: list[PromptArgument] = []
    declared = raw.get("arguments")
    if declared is not None and not isinstance(declared, list):
        problems.append(f"its 'arguments' is {_kind_of(declared)}, not a list: ignored")
        declared = []
    seen: set[str] = set()
    for number, argument in enumerate(declared or [], 1):
        if not isinstance(argument, Mapping):
            problems.append(f"argument {number} is {_kind_of(argument)}, not an object: ignored")
            continue
        arg_name = argument.get("name")
        if not isinstance(arg_name, str) or not arg_name:
            problems.append(f"argument {number} has no name: ignored")
            continue
        if arg_name in seen:
            problems.append(f"argument {arg_name!r} is declared twice: the first one counts")
            continue
        seen.add(arg_name)
        required = argument.get("required")
        if required is not None and not isinstance(required, bool):
            problems.append(f"argument {arg_name!r} has a 'required' that is {_kind_of(required)}: optional")
        arguments.append(
            PromptArgument(
                arg_name,
                required is True,
                title=_text(argument.get("title")),
                description=_text(argument.get("description")),
            )
        )
    for key in ("title", "description"):
        value = raw.get(key)
        if value is not None and not isinstance(value, str):
            problems.append(f"its {key!r} is {_kind_of(value)}, not a string: ignored")
    return PromptInfo(
        name,
        title=_text(raw.get("title")),
        description=_text(raw.get("description")),
        arguments=tuple(arguments),
        problems=tuple(problems),
        raw=raw,
    )


# ------------------------------------------------------------------------------------------- result


@dataclass(frozen=True)
class EmbeddedResource:
    """The `resource` of an embedded-resource block, as an object (`item` is what a read would hold)."""

    uri: str | None
    mime_type: str | None
    text: str | None
    blob: str | None
    item: Mapping[str, Any]


@dataclass(frozen=True)
class Block:
    """One content block of a message. `problem` says what was wrong; the block is still shown."""

    kind: BlockKind
    type_name: str | None = None  # the `type` as sent (for an unknown one)
    text: str | None = None
    mime_type: str | None = None
    data: str | None = None  # base64 of an image or audio block
    uri: str | None = None  # a resource link's URI, or an embedded resource's
    name: str | None = None
    description: str | None = None
    resource: EmbeddedResource | None = None
    problem: str | None = None
    raw: object = None


@dataclass(frozen=True)
class PromptMessage:
    """One message: its role (`None` when missing) and content blocks."""

    role: str | None
    blocks: tuple[Block, ...]
    problem: str | None = None

    @property
    def known_role(self) -> bool:
        return self.role in KNOWN_ROLES


@dataclass(frozen=True)
class PromptResult:
    """A `prompts/get` result: description, messages, and what was wrong with the result as a whole."""

    description: str | None
    messages: tuple[PromptMessage, ...]
    problems: tuple[str, ...] = ()

    @property
    def resource_uris(self) -> list[str]:
        """URIs of embedded resources and resource links, in order (to open them in the tree)."""
        return [
            b.uri
            for m in self.messages
            for b in m.blocks
            if b.uri and b.kind in ("resource", "resource_link")
        ]


def parse_prompt_result(raw: object) -> PromptResult:
    """Every message of a `prompts/get` result; never raises."""
    if not isinstance(raw, Mapping):
        return PromptResult(None, (), (f"the result is {_kind_of(raw)}, not an object",))
    problems: list[str] = []
    messages = raw.get("messages")
    if not isinstance(messages, list):
        problems.append(f"its 'messages' is {_kind_of(messages)}, not a list")
        messages = []
    description = raw.get("description")
    if description is not None and not isinstance(description, str):
        problems.append(f"its 'description' is {_kind_of(description)}, not a string: ignored")
    parsed = tuple(_message(message) for message in messages)
    return PromptResult(_text(description), parsed, tuple(problems))


def _message(raw: object) -> PromptMessage:
    if not isinstance(raw, Mapping):
        return PromptMessage(None, (), f"it is {_kind_of(raw)}, not an object")
    role = raw.get("role")
    problem = None
    if not isinstance(role, str) or not role:
        if role is None:
            problem = "it has no role"
        elif role == "":
            problem = "its role is empty"
        else:
            problem = f"its role is {_kind_of(role)}, not a string"
        role = None
    elif role not in KNOWN_ROLES:
        problem = f"unknown role (MCP defines {' and '.join(KNOWN_ROLES)})"
    content = raw.get("content")
    if content is None:
        return PromptMessage(
            role, (Block("invalid", problem="a message without content", raw=None),), problem
        )
    items = content if isinstance(content, list) else [content]
    return PromptMessage(role, tuple(_block(item) for item in items), problem)


def _block(raw: object) -> Block:
    if not isinstance(raw, Mapping):
        return Block("invalid", problem=f"a content block that is {_kind_of(raw)}, not an object", raw=raw)
    kind = raw.get("type")
    if kind == "text":
        text = raw.get("text")
        if not isinstance(text, str):
            return Block("invalid", "text", problem=f"a text block whose text is {_kind_of(text)}", raw=raw)
        return Block("text", "text", text=text, raw=raw)
    if kind in ("image", "audio"):
        data = raw.get("data")
        mime = _text(raw.get("mimeType"))
        if not isinstance(data, str):
            return Block("invalid", kind, mime_type=mime, problem=f"{kind} without data", raw=raw)
        return Block(kind, kind, mime_type=mime, data=data, raw=raw)
    if kind == "resource":
        return _embedded(raw)
    if kind == "resource_link":
        uri = _text(raw.get("uri"))
        if uri is None:
            return Block("invalid", kind, problem="a resource link without a URI", raw=raw)
        return Block(
            "resource_link",
            kind,
            uri=uri,
            name=_text(raw.get("name")),
            mime_type=_text(raw.get("mimeType")),
            description=_text(raw.get("description")),
            raw=raw,
        )
    shown = kind if isinstance(kind, str) else None
    what = f"a content block of unknown type {shown}" if shown else "a content block without a type"
    return Block("unknown", shown, problem=what, raw=raw)


def _embedded(raw: Mapping[str, Any]) -> Block:
    resource = raw.get("resource")
    if not isinstance(resource, Mapping):
        # A string is most likely the text the server meant to embed: shown, as text.
        return Block(
            "invalid",
            "resource",
            text=resource if isinstance(resource, str) else None,
            problem=f"an embedded resource whose 'resource' is {_kind_of(resource)}, not an object",
            raw=raw,
        )
    uri = _text(resource.get("uri"))
    text = resource.get("text")
    blob = resource.get("blob")
    embedded = EmbeddedResource(
        uri=uri,
        mime_type=_text(resource.get("mimeType")),
        text=text if isinstance(text, str) else None,
        blob=blob if isinstance(blob, str) else None,
        item=resource,
    )
    problem: str | None = None
    if uri is None:
        problem = "an embedded resource without a URI"
    elif embedded.text is None and embedded.blob is None:
        problem = "an embedded resource with neither text nor blob"
    return Block(
        "resource",
        "resource",
        uri=uri,
        resource=embedded,
        mime_type=embedded.mime_type,
        problem=problem,
        raw=raw,
    )


def decoded_size(data: str) -> int | None:
    """Bytes in a base64 string, or None when it is not base64 (read as every view reads it:
    `base64_size`, lenient about whitespace and padding)."""
    try:
        return base64_size(data)
    except Base64Error:
        return None


@dataclass(frozen=True, slots=True)
class TextHead:
    """The start of a text, shown in place of all of it; `shown_bytes` of `size` (UTF-8 bytes)."""

    text: str
    shown_bytes: int
    size: int

    @property
    def cut(self) -> bool:
        return self.shown_bytes < self.size


def text_head(text: str, *, chars: int, lines: int, size: int | None = None) -> TextHead:
    """The first `lines` lines of `text`, at most `chars` characters of it, with its size in bytes.

    A prompt result lays out every line it shows at once (Textual's Static wraps the whole text): a
    text of 50,000 short lines took seconds to appear. Only the start is ever scanned, so a 20 MB text
    costs its size count (free for ASCII). `size` is the whole's size when `text` is already a cut of
    it (a capped embedded resource).
    """
    end = min(len(text), max(0, chars))
    newline = -1
    for _ in range(max(0, lines)):
        newline = text.find("\n", newline + 1, end)
        if newline < 0:
            break
    else:
        end = min(end, newline + 1)
    whole = utf8_size(text) if size is None else size
    if end >= len(text):
        return TextHead(text, whole if size is None else utf8_size(text), whole)
    head = text[:end]
    return TextHead(head, utf8_size(head), whole)
