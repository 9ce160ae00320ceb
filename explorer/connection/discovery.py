"""Bounded, streamed listing of what a server offers: templates, prompts, tools and resources.

Pages are delivered to a callback as they arrive so a UI can show the first page at once. Only the lists a
server declares are asked for (no `resources/list` to a tools-only server). The listing never trusts the
server: cursors are opaque and sent back exactly (an empty string is a real cursor), a cursor seen twice is a
loop, and items and pages are bounded per list while wall time and metadata bytes are bounded per server.
The item bound is exact: a page that would go past it is cut, and "continue" asks for that page again and
takes the rest. One malformed item costs that item only; a malformed page or an error stops that list
visibly, and the other lists are still asked (unless the connection itself is gone).
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

import anyio

from explorer.config import ListingBounds, ServerSpec, redact
from explorer.connection.errors import CONNECTION_CLOSED, METHOD_NOT_FOUND, REQUEST_TIMEOUT, ServerFault
from explorer.model.entries import PromptEntry, ResourceEntry, TemplateEntry, ToolEntry
from explorer.model.identity import ServerIdentity
from explorer.model.listing import ITEMS_KEYS, KINDS, METHODS, Kind, KindState, Listing, Page

PageCallback = Callable[[Page], Awaitable[None] | None]
_SHARED_BOUNDS = ("max_seconds", "max_bytes")  # a server's budget, not one list's
_KEYS: dict[Kind, str] = {"resources": "uri", "templates": "uriTemplate", "prompts": "name", "tools": "name"}
_MAX_SKIP_REASONS = 20


class PageFault(ServerFault):
    """A page the server did answer, but wrongly (no list, a bad or looping cursor): other lists may work."""


class Lister(Protocol):
    """What listing needs of a connection (a `ServerConnection`, or a scripted fake in tests)."""

    @property
    def name(self) -> str: ...

    @property
    def spec(self) -> ServerSpec: ...

    @property
    def identity(self) -> ServerIdentity | None: ...

    async def request(self, method: str, params: Any, *, action: str) -> dict[str, Any]: ...


class _Budget:
    """Items and pages per list, bytes and wall time for the whole server, against the bounds."""

    def __init__(self, bounds: ListingBounds) -> None:
        self.bounds = bounds
        self.started = time.monotonic()
        self.pages: dict[Kind, int] = dict.fromkeys(KINDS, 0)
        self.items: dict[Kind, int] = dict.fromkeys(KINDS, 0)
        self.bytes = 0

    def exhausted(self, kind: Kind) -> str | None:
        if self.items[kind] >= self.bounds.max_items:
            return "max_items"
        if self.pages[kind] >= self.bounds.max_pages:
            return "max_pages"
        if self.bytes >= self.bounds.max_bytes:
            return "max_bytes"
        if time.monotonic() - self.started >= self.bounds.max_seconds:
            return "max_seconds"
        return None

    def room(self, kind: Kind) -> int:
        return max(0, self.bounds.max_items - self.items[kind])

    def remaining_seconds(self) -> float:
        return max(0.0, self.bounds.max_seconds - (time.monotonic() - self.started))


def plan(listing: Listing, identity: ServerIdentity | None, kinds: Sequence[Kind]) -> None:
    """Decide which lists to ask for: the ones wanted that the server declares.

    Without an identity (a scripted connection) resources and templates are assumed, nothing else.
    A list that has started keeps its plan: "continue" resumes exactly what was begun.
    """
    for kind, state in listing.state.items():
        if state.started:
            continue
        if identity is None:
            offered = kind in ("resources", "templates")
        else:
            offered = identity.offers("resources" if kind == "templates" else kind)
        state.wanted = kind in kinds
        state.offered = offered
        state.done = not (state.wanted and offered)


async def list_server(
    conn: Lister,
    bounds: ListingBounds,
    on_page: PageCallback | None = None,
    *,
    listing: Listing | None = None,
    kinds: Sequence[Kind] = KINDS,
) -> Listing:
    """List what the server offers, to the end or to a bound; resumes `listing` when given.

    Never raises for a server's fault: the error lands in the list's state (and `Listing.error`), and what
    was listed before it stays in the result.
    """
    result = listing if listing is not None else Listing(server=conn.name)
    plan(result, conn.identity, kinds)
    result.stopped_by = None
    result.error = result.error_code = None
    budget = _Budget(bounds)
    start = time.monotonic()
    for kind in KINDS:
        state = result.state[kind]
        if state.done:
            continue
        state.stopped_by = state.error = None
        try:
            shared_bound = await _list_kind(conn, kind, result, budget, on_page)
        except ServerFault as fault:
            state.error = redact(fault.message, conn.spec)  # a cursor may echo a token, too
            if result.error_code is None:
                result.error_code = fault.code
            if not isinstance(fault, PageFault) and fault.code in (None, CONNECTION_CLOSED, REQUEST_TIMEOUT):
                break  # the connection is gone or the server stalls: asking for more would only wait
            continue
        if shared_bound is not None:
            for later in KINDS[KINDS.index(kind) + 1 :]:
                if not result.state[later].done:
                    result.state[later].stopped_by = shared_bound
            break
    errors = [state.error for state in result.state.values() if state.error is not None]
    result.error = "; ".join(errors) if errors else None  # every failed list, in the order they were asked
    result.elapsed += time.monotonic() - start
    return result


def _stop(result: Listing, state: KindState, bound: str) -> None:
    state.stopped_by = bound
    if result.stopped_by is None:
        result.stopped_by = bound


async def _list_kind(
    conn: Lister, kind: Kind, result: Listing, budget: _Budget, on_page: PageCallback | None
) -> str | None:
    """Follow one list's cursors; returns the shared bound (time, bytes) that stopped it, if one did."""
    state = result.state[kind]
    while not state.done:
        bound = budget.exhausted(kind)
        if bound is not None:
            _stop(result, state, bound)
            return bound if bound in _SHARED_BOUNDS else None
        params: dict[str, Any] | None = {"cursor": state.cursor} if state.cursor is not None else None
        try:
            # The wall-time bound also covers a server that answers each page just before the timeout.
            with anyio.move_on_after(budget.remaining_seconds()) as scope:
                raw = await conn.request(METHODS[kind], params, action=f"listing {kind}")
            if scope.cancelled_caught:
                _stop(result, state, "max_seconds")
                return "max_seconds"
        except ServerFault as fault:
            if kind == "templates" and fault.code == METHOD_NOT_FOUND:
                # Older servers do not implement resources/templates/list: that means "no templates".
                state.supported = False
                state.done = True
                return None
            raise
        state.started = True
        size = len(json.dumps(raw, ensure_ascii=False, default=str))
        budget.bytes += size
        result.bytes += size
        page, consumed, cut = _parse_page(
            conn.name, kind, raw, state, result, room=budget.room(kind), skip=state.resume_skip
        )
        budget.pages[kind] += 1
        budget.items[kind] += page.size
        state.pages += 1
        state.items += page.size
        state.skipped += page.skipped
        state.duplicates += page.duplicates
        result.pages += 1
        result.skipped += page.skipped
        result.duplicates += page.duplicates
        result.resources.extend(page.resources)
        result.templates.extend(page.templates)
        result.prompts.extend(page.prompts)
        result.tools.extend(page.tools)
        if on_page is not None:
            awaited = on_page(page)
            if awaited is not None:
                await awaited
        if cut:
            # The item bound fell inside this page: "continue" asks for the same page and takes the rest.
            state.resume_skip = consumed
            _stop(result, state, "max_items")
            return None
        state.resume_skip = 0
        _follow_cursor(kind, raw.get("nextCursor"), state)
    return None


def _follow_cursor(kind: Kind, next_cursor: object, state: KindState) -> None:
    if next_cursor is None:
        state.done = True
        state.cursor = None
    elif not isinstance(next_cursor, str):
        kind_name = type(next_cursor).__name__
        raise PageFault(f"listing {kind}: the server sent a nextCursor that is not a string ({kind_name})")
    elif next_cursor in state.seen_cursors:
        raise PageFault(
            f"listing {kind}: the server repeated cursor {next_cursor!r} after page {state.pages} "
            "(a pagination loop); stopped"
        )
    else:
        state.seen_cursors.add(next_cursor)
        state.cursor = next_cursor


def _parse_page(
    server: str, kind: Kind, raw: dict[str, Any], state: KindState, result: Listing, *, room: int, skip: int
) -> tuple[Page, int, bool]:
    """Split a page into good entries; stop after `room` of them. Returns the page, items consumed, cut?"""
    number = state.pages + 1
    items = raw.get(ITEMS_KEYS[kind])
    if not isinstance(items, list):
        raise PageFault(
            f"listing {kind}: page {number} has no '{ITEMS_KEYS[kind]}' list; the page was dropped"
        )
    skipped = 0
    duplicates = 0
    kept: list[Any] = []
    key_field = _KEYS[kind]
    consumed = skip
    for index in range(skip, len(items)):
        if len(kept) >= room:
            return _page(server, kind, number, kept, skipped, duplicates), consumed, True
        consumed = index + 1
        item = items[index]
        problem = _item_problem(kind, item)
        if problem is not None:
            skipped += 1
            if len(result.skip_reasons) < _MAX_SKIP_REASONS:
                result.skip_reasons.append(f"{kind} page {number} item {index}: {problem}")
            continue
        key = item[key_field]
        if key in state.seen_keys:
            duplicates += 1
            continue
        state.seen_keys.add(key)
        kept.append(item)
    return _page(server, kind, number, kept, skipped, duplicates), consumed, False


def _page(server: str, kind: Kind, number: int, items: list[Any], skipped: int, duplicates: int) -> Page:
    if kind == "resources":
        resources = tuple(ResourceEntry(server, i["uri"], i["name"], i) for i in items)
        return Page(server, kind, number, resources=resources, skipped=skipped, duplicates=duplicates)
    if kind == "templates":
        templates = tuple(TemplateEntry(server, i["uriTemplate"], i["name"], i) for i in items)
        return Page(server, kind, number, templates=templates, skipped=skipped, duplicates=duplicates)
    if kind == "prompts":
        prompts = tuple(PromptEntry(server, i["name"], i) for i in items)
        return Page(server, kind, number, prompts=prompts, skipped=skipped, duplicates=duplicates)
    tools = tuple(ToolEntry(server, i["name"], i) for i in items)
    return Page(server, kind, number, tools=tools, skipped=skipped, duplicates=duplicates)


_OPTIONAL_STRINGS: dict[Kind, tuple[str, ...]] = {
    "resources": ("title", "description", "mimeType"),
    "templates": ("title", "description", "mimeType"),
    # Prompts and tools keep odd fields: what reads them says what is wrong (a prompt's arguments, say).
    "prompts": (),
    "tools": (),
}


def _item_problem(kind: Kind, item: object) -> str | None:
    """Why an item cannot be used, or None. Cheap on purpose: a million items pass through here."""
    if not isinstance(item, dict):
        return f"not an object ({type(item).__name__})"
    key = _KEYS[kind]
    if not isinstance(item.get(key), str):
        return f"'{key}' missing or not a string"
    if key != "name" and not isinstance(item.get("name"), str):
        return "'name' missing or not a string"
    for optional in _OPTIONAL_STRINGS[kind]:
        value = item.get(optional)
        if value is not None and not isinstance(value, str):
            return f"'{optional}' is not a string"
    if kind == "resources":
        size = item.get("size")
        if size is not None and (not isinstance(size, int) or isinstance(size, bool)):
            return "'size' is not an integer"
    annotations = item.get("annotations")
    if annotations is not None and not isinstance(annotations, dict):
        return "'annotations' is not an object"
    return None
