"""A server at a glance: who it is, what it declares, what it offers, and how its listing went.

One builder for the facts, so the TUI's overview screen, the CLI's `servers` command and `tree --json`
give one answer. Values are raw server strings: callers sanitize text output and JSON escapes its own.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from explorer.model.identity import ServerIdentity
from explorer.model.listing import KINDS, Kind, Listing, plural, stopped_text

INSTRUCTIONS_CAP = 20_000  # characters shown on screen; JSON carries the whole text


@dataclass(frozen=True)
class Fact:
    """One labelled line of an overview (`Protocol: 2025-11-25 (handshake era)`)."""

    label: str
    value: str


def offered_flags(identity: ServerIdentity | None) -> dict[str, bool]:
    """What the server declared, as the JSON output's `offered` object."""
    if identity is None:
        return {}
    return {
        "resources": identity.offers("resources"),
        "prompts": identity.offers("prompts"),
        "tools": identity.offers("tools"),
        "completions": identity.offers("completions"),
        "logging": identity.offers("logging"),
        "subscribe": identity.can_subscribe,
        "listChanged": identity.announces_resource_changes,
    }


def list_health(listing: Listing, kind: Kind) -> dict[str, Any]:
    """One list's health for JSON: offered, complete, pages, items, skipped, duplicates, bound, error."""
    state = listing.state[kind]
    asked = state.wanted and state.offered
    return {
        "offered": state.offered,
        "asked": asked,
        "supported": state.supported,
        "complete": state.complete if asked else None,
        "items": listing.count(kind) if asked else None,  # 0 would say the list is empty
        "pages": state.pages,
        "skipped": state.skipped,
        "duplicates": state.duplicates,
        "stoppedBy": state.stopped_by,
        "error": state.error,
    }


def list_line(listing: Listing, kind: Kind) -> str:
    """`3 pages, 250 items, 4 skipped; stopped at the item bound`, or `not offered`."""
    state = listing.state[kind]
    if not state.offered:
        return "not offered"
    if not state.wanted:
        return "not listed"
    if not state.supported:
        return "not supported by the server (it answered -32601)"
    parts = [f"{listing.count(kind):,} in {plural(state.pages, 'page')}"]
    if state.skipped:
        parts.append(f"{state.skipped:,} malformed skipped")
    if state.duplicates:
        parts.append(f"{state.duplicates:,} duplicates")
    text = ", ".join(parts)
    if state.error is not None:
        return f"{text}; failed: {state.error}"
    if state.stopped_by is not None:
        return f"{text}; {stopped_text(state.stopped_by)}"
    return text if state.done else f"{text}; not finished"


def overview_facts(
    identity: ServerIdentity | None,
    listing: Listing | None,
    *,
    error: str | None = None,
    name: str | None = None,
) -> list[Fact]:
    """The overview as labelled lines, in the order people read them.

    `Server` is what the server calls itself (its `serverInfo`). With `name`, the explorer's name for it
    (the config's key), that line leads with the name and is there even before the server answered: one
    `Server:` line, not one for each name (`Server: files (serverInfo: fsres 1)`).
    """
    facts: list[Fact] = []
    if name is not None and identity is None:
        facts.append(Fact("Server", name))
    if identity is not None:
        who = " ".join(x for x in (identity.name, identity.version) if x) or "(no name given)"
        facts.append(Fact("Server", who if name is None else f"{name} (serverInfo: {who})"))
        facts.append(
            Fact("Protocol", f"{identity.protocol_version} ({identity.era} era) over {identity.transport}")
        )
        offered = identity.offered()
        facts.append(Fact("Offers", ", ".join(offered) if offered else "nothing it declares"))
        facts.append(Fact("Capabilities", json.dumps(identity.capabilities, sort_keys=True)))
    if error is not None:
        facts.append(Fact("Error", error))
    if listing is not None:
        for kind in KINDS:
            facts.append(Fact(kind.capitalize(), list_line(listing, kind)))
        if listing.skip_reasons:
            facts.append(Fact("Skipped", "; ".join(listing.skip_reasons)))
        facts.append(
            Fact(
                "Listing",
                f"{plural(listing.pages, 'page')}, {plural(listing.bytes, 'byte')}, {listing.elapsed:.2f} s",
            )
        )
    return facts


def instructions_text(identity: ServerIdentity | None, cap: int | None = INSTRUCTIONS_CAP) -> str | None:
    """The server's instructions, capped for the screen (`cap=None`: all of it)."""
    if identity is None or not identity.instructions:
        return None
    text = identity.instructions
    if cap is not None and len(text) > cap:
        return text[:cap] + f"\n… [{len(text) - cap:,} more characters]"
    return text
