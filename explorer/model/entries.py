"""What a server lists, as plain frozen records the core and the UI share.

`raw` keeps the item exactly as the server sent it (the wire JSON object), so JSON output and the
detail pane show every field, including ones this version of the SDK does not know.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class ResourceEntry:
    """One resource as listed by one server."""

    server: str
    uri: str
    name: str
    raw: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def mime_type(self) -> str | None:
        value = self.raw.get("mimeType")
        return value if isinstance(value, str) else None


@dataclass(frozen=True, slots=True)
class TemplateEntry:
    """One resource template as listed by one server."""

    server: str
    uri_template: str
    name: str
    raw: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def literal_prefix(self) -> str:
        """The text before the first `{`: where the template sits in the URI tree."""
        brace = self.uri_template.find("{")
        return self.uri_template if brace < 0 else self.uri_template[:brace]


@dataclass(frozen=True, slots=True)
class PromptEntry:
    """One prompt as listed by one server (arguments stay in `raw`, parsed where they are shown)."""

    server: str
    name: str
    raw: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class ToolEntry:
    """One tool as listed by one server: shown (name, description, input schema), never called."""

    server: str
    name: str
    raw: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def title(self) -> str | None:
        value = self.raw.get("title")
        if not isinstance(value, str):
            annotations = self.raw.get("annotations")
            value = annotations.get("title") if isinstance(annotations, dict) else None
        return value if isinstance(value, str) else None
