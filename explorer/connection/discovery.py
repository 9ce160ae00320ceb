"""Bounded, streamed listing of a server's resources and templates (design.md, "Listing rules").

Pages are delivered to a callback as they arrive so a UI can show the first page at once. The
listing never trusts the server: cursors are opaque and sent back exactly (an empty string is a
real cursor), a cursor seen twice is a loop, and items, pages, wall time and metadata bytes are
bounded. One malformed item costs that item only; a malformed page stops that server visibly.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio

from explorer.config import ListingBounds, redact
from explorer.connection.errors import METHOD_NOT_FOUND, ServerFault
from explorer.connection.session import ServerConnection
from explorer.model.entries import ResourceEntry, TemplateEntry

Kind = Literal["resources", "templates"]
_METHOD: dict[Kind, str] = {"resources": "resources/list", "templates": "resources/templates/list"}
_ITEMS_KEY: dict[Kind, str] = {"resources": "resources", "templates": "resourceTemplates"}


@dataclass(frozen=True, slots=True)
class Page:
    """One page as it arrived, already split into good entries and a count of skipped ones."""

    server: str
    kind: Kind
    number: int
    resources: tuple[ResourceEntry, ...] = ()
    templates: tuple[TemplateEntry, ...] = ()
    skipped: int = 0
    duplicates: int = 0


@dataclass(slots=True)
class KindState:
    """Where one list (resources or templates) stands: resumable from `cursor` when not done."""

    cursor: str | None = None
    started: bool = False
    done: bool = False
    seen_cursors: set[str] = field(default_factory=set)
    seen_keys: set[str] = field(default_factory=set)
    pages: int = 0
    items: int = 0


@dataclass(slots=True)
class Listing:
    """The outcome of listing one server, also the state a "continue" resumes from."""

    server: str
    resources: list[ResourceEntry] = field(default_factory=list)
    templates: list[TemplateEntry] = field(default_factory=list)
    state: dict[Kind, KindState] = field(
        default_factory=lambda: {"resources": KindState(), "templates": KindState()}
    )
    pages: int = 0
    skipped: int = 0
    duplicates: int = 0
    bytes: int = 0
    elapsed: float = 0.0
    stopped_by: str | None = None  # the bound that stopped it ("max_items", ...), None otherwise
    error: str | None = None
    error_code: int | None = None
    skip_reasons: list[str] = field(default_factory=list)
    templates_supported: bool = True

    @property
    def complete(self) -> bool:
        return self.error is None and self.stopped_by is None and all(s.done for s in self.state.values())

    def summary(self) -> str:
        """One line for status bars and stderr: counts and why it is not complete."""
        text = f"{len(self.resources)} resources, {len(self.templates)} templates in {self.pages} pages"
        if self.skipped:
            text += f", {self.skipped} malformed items skipped"
        if self.duplicates:
            text += f", {self.duplicates} duplicates"
        if self.error is not None:
            return f"{text}; failed: {self.error}"
        if self.stopped_by is not None:
            return f"{text}; incomplete: stopped at the {self.stopped_by.replace('_', '-')} bound"
        return text if self.complete else f"{text}; incomplete"


PageCallback = Callable[[Page], Awaitable[None] | None]


class _Budget:
    """Counts pages, items, bytes and time against the bounds across both lists."""

    def __init__(self, bounds: ListingBounds) -> None:
        self.bounds = bounds
        self.started = time.monotonic()
        self.pages = 0
        self.items = 0
        self.bytes = 0

    def exhausted(self) -> str | None:
        if self.items >= self.bounds.max_items:
            return "max_items"
        if self.pages >= self.bounds.max_pages:
            return "max_pages"
        if self.bytes >= self.bounds.max_bytes:
            return "max_bytes"
        if time.monotonic() - self.started >= self.bounds.max_seconds:
            return "max_seconds"
        return None

    def remaining_seconds(self) -> float:
        return max(0.0, self.bounds.max_seconds - (time.monotonic() - self.started))


async def list_server(
    conn: ServerConnection,
    bounds: ListingBounds,
    on_page: PageCallback | None = None,
    *,
    listing: Listing | None = None,
) -> Listing:
    """List resources, then templates, to the end or to a bound; resumes `listing` when given.

    Never raises for a server's fault: the error lands in `Listing.error` and what was listed
    before it stays in the result.
    """
    result = listing if listing is not None else Listing(server=conn.name)
    result.stopped_by = None
    budget = _Budget(bounds)
    start = time.monotonic()
    try:
        for kind in ("resources", "templates"):
            stopped = await _list_kind(conn, kind, result, budget, on_page)
            if stopped:
                break
    except ServerFault as fault:
        result.error = redact(fault.message, conn.spec)  # a cursor may echo a token, too
        result.error_code = fault.code
    result.elapsed += time.monotonic() - start
    return result


async def _list_kind(
    conn: ServerConnection, kind: Kind, result: Listing, budget: _Budget, on_page: PageCallback | None
) -> bool:
    """Follow one list's cursors; True when a bound stopped it."""
    state = result.state[kind]
    while not state.done:
        bound = budget.exhausted()
        if bound is not None:
            result.stopped_by = bound
            return True
        params: dict[str, Any] | None = {"cursor": state.cursor} if state.cursor is not None else None
        try:
            # The wall-time bound also covers a server that answers each page just before the timeout.
            with anyio.move_on_after(budget.remaining_seconds()) as scope:
                raw = await conn.request(_METHOD[kind], params, action=f"listing {kind}")
            if scope.cancelled_caught:
                result.stopped_by = "max_seconds"
                return True
        except ServerFault as fault:
            if kind == "templates" and fault.code == METHOD_NOT_FOUND:
                # Older servers do not implement resources/templates/list: that means "no templates".
                result.templates_supported = False
                state.done = True
                return False
            raise
        state.started = True
        page = _parse_page(conn.name, kind, raw, state, result, state.pages + 1)
        size = len(json.dumps(raw, ensure_ascii=False, default=str))
        budget.pages += 1
        budget.items += len(page.resources) + len(page.templates)
        budget.bytes += size
        state.pages += 1
        state.items += len(page.resources) + len(page.templates)
        result.pages += 1
        result.bytes += size
        result.skipped += page.skipped
        result.duplicates += page.duplicates
        result.resources.extend(page.resources)
        result.templates.extend(page.templates)
        if on_page is not None:
            awaited = on_page(page)
            if awaited is not None:
                await awaited
        next_cursor = raw.get("nextCursor")
        if next_cursor is None:
            state.done = True
            state.cursor = None
        elif not isinstance(next_cursor, str):
            kind_name = type(next_cursor).__name__
            raise ServerFault(
                f"listing {kind}: the server sent a nextCursor that is not a string ({kind_name})"
            )
        elif next_cursor in state.seen_cursors:
            raise ServerFault(
                f"listing {kind}: the server repeated cursor {next_cursor!r} after page {state.pages} "
                "(a pagination loop); stopped"
            )
        else:
            state.seen_cursors.add(next_cursor)
            state.cursor = next_cursor
    return False


def _parse_page(
    server: str, kind: Kind, raw: dict[str, Any], state: KindState, result: Listing, number: int
) -> Page:
    items = raw.get(_ITEMS_KEY[kind])
    if not isinstance(items, list):
        raise ServerFault(
            f"listing {kind}: page {number} has no '{_ITEMS_KEY[kind]}' list; the page was dropped"
        )
    skipped = 0
    duplicates = 0
    resources: list[ResourceEntry] = []
    templates: list[TemplateEntry] = []
    for index, item in enumerate(items):
        problem = _item_problem(kind, item)
        if problem is not None:
            skipped += 1
            if len(result.skip_reasons) < 20:
                result.skip_reasons.append(f"{kind} page {number} item {index}: {problem}")
            continue
        key = item["uri"] if kind == "resources" else item["uriTemplate"]
        if key in state.seen_keys:
            duplicates += 1
            continue
        state.seen_keys.add(key)
        if kind == "resources":
            resources.append(ResourceEntry(server, key, item["name"], item))
        else:
            templates.append(TemplateEntry(server, key, item["name"], item))
    return Page(server, kind, number, tuple(resources), tuple(templates), skipped, duplicates)


_OPTIONAL_STRINGS = ("title", "description", "mimeType")


def _item_problem(kind: Kind, item: object) -> str | None:
    """Why an item cannot be used, or None. Cheap on purpose: a million items pass through here."""
    if not isinstance(item, dict):
        return f"not an object ({type(item).__name__})"
    key = "uri" if kind == "resources" else "uriTemplate"
    if not isinstance(item.get(key), str):
        return f"'{key}' missing or not a string"
    if not isinstance(item.get("name"), str):
        return "'name' missing or not a string"
    for optional in _OPTIONAL_STRINGS:
        value = item.get(optional)
        if value is not None and not isinstance(value, str):
            return f"'{optional}' is not a string"
    size = item.get("size")
    if size is not None and (not isinstance(size, int) or isinstance(size, bool)):
        return "'size' is not an integer"
    annotations = item.get("annotations")
    if annotations is not None and not isinstance(annotations, dict):
        return "'annotations' is not an object"
    return None
