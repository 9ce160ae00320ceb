"""What a server said about itself when the explorer connected: name, era, capabilities, instructions.

A plain record in the model (not the connection layer) because the catalogue, the CLI's JSON and the
TUI's overview all read it. The capability predicates are the one place that decides what the explorer
may ask a server: a server that does not declare `resources` is never sent `resources/list`, and so on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Era = Literal["handshake", "modern"]
ProtocolMode = Literal["auto", "legacy", "2026-07-28"]  # what the user asks for (`--protocol`)
Feature = Literal["resources", "prompts", "tools", "completions", "logging"]
FEATURES: tuple[Feature, ...] = ("resources", "prompts", "tools", "completions", "logging")


@dataclass(frozen=True, slots=True)
class ServerIdentity:
    """Identity and declared capabilities, as the handshake (or `server/discover`) gave them."""

    name: str | None
    version: str | None
    protocol_version: str
    era: Era
    capabilities: dict[str, Any]
    instructions: str | None
    transport: str = "stdio"  # the transport that answered ("stdio", "http", "sse")

    def has(self, capability: str) -> bool:
        """The server declared `capability` (any value, even `{}`, counts; an explicit null does not)."""
        return self.capabilities.get(capability) is not None

    def offers(self, feature: Feature) -> bool:
        return self.has(feature)

    def _flag(self, capability: str, flag: str) -> bool:
        value = self.capabilities.get(capability)
        return isinstance(value, dict) and value.get(flag) is True

    @property
    def can_subscribe(self) -> bool:
        """Resource subscriptions: `resources/subscribe` (handshake era) or `listen` (modern era)."""
        return self._flag("resources", "subscribe")

    @property
    def announces_resource_changes(self) -> bool:
        return self._flag("resources", "listChanged")

    @property
    def announces_prompt_changes(self) -> bool:
        return self._flag("prompts", "listChanged")

    @property
    def announces_tool_changes(self) -> bool:
        return self._flag("tools", "listChanged")

    def offered(self) -> list[str]:
        """The features the server declared, in a fixed order (for status lines and JSON)."""
        return [feature for feature in FEATURES if self.offers(feature)]


def parse_protocol_mode(text: str | None) -> ProtocolMode:
    """The `--protocol` value as a mode; anything unknown is `auto` (click has validated it already)."""
    if text == "legacy":
        return "legacy"
    if text == "2026-07-28":
        return "2026-07-28"
    return "auto"
