"""Bounded, streamed listing of what a server offers: templates, prompts, tools and resources.

Pages are delivered to a callback as they arrive so a UI can show the first page at once. Only the lists a
server declares are asked for (no `resources/list` to a tools-only server). The listing never trusts the
server: cursors are opaque and sent back exactly (an empty string is a real cursor), a cursor seen twice is a
loop, and items and pages are bounded per list while wall time and metadata bytes are bounded per server.
The item bound is exact: a page that would go past it is cut, and "continue" asks for that page again and
takes the rest. One malformed item costs that item only; a malformed page or an error stops that list
visibly, and the other lists are still asked (unless the connection itself is gone).

Speed, for a million resources: the next page is asked for as soon as a page arrives and its cursor is known
to be followed, so the server prepares it while this side turns the page into entries (still one request
at a time: the server sees the same sequence of requests). A page's size counts against the bytes bound as
the transport measured it on the wire; only a transport that cannot tell (HTTP) has the page measured here.
A listing's state (cursor, counts, entries) is complete before `on_page` hears of a page, so a listing
cancelled or stopped at any moment resumes exactly where it was.

By prefix (SEP-1269, not in any released spec): `resources/list` and `resources/templates/list` carry
`prefix` on every page, and what comes back is filtered here too (a server may ignore the parameter). A
server that answers the first such page -32602 is asked again without it, once, and remembered on the
connection (`prefix_rejected`), so it is not asked with it again. `ListingStop` stops a running listing
early: what arrived is kept and the listing is marked `INTERRUPTED` (incomplete, resumable).
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Awaitable, Callable, Generator, Sequence
from typing import Any, Protocol

import anyio
import anyio.abc
import anyio.lowlevel
import orjson

from explorer.config import ListingBounds, ServerSpec, redact
from explorer.connection.errors import (
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    BoundReached,
    ServerFault,
)
from explorer.model.entries import (
    ResourceEntry,
    plain_entry,
    plain_shape,
    shared_mime,
)
from explorer.model.identity import ServerIdentity
from explorer.model.input_required import describe_unfinished
from explorer.model.listing import (
    INTERRUPTED,
    ITEMS_KEYS,
    KINDS,
    METHODS,
    Kind,
    KindState,
    Listing,
    Page,
    resource_in_prefix,
    template_in_prefix,
)
from explorer.model.page_items import ITEM_KEYS, item_problem, page_of
from explorer.model.sharded import ShardedSet

PageCallback = Callable[[Page], Awaitable[None] | None]
Pace = Callable[[], Awaitable[None] | None]
"""Asked between slices of a page's parse, and between the parts of a finished list's seen URIs as they
are freed (`_forget`): a pause to await (the TUI gives a key its frame), or None. In a parse the pause is
awaited inside its shield, which a stop cannot cut short: it must be short and finite."""
_SHARED_BOUNDS = ("max_seconds", "max_bytes", INTERRUPTED)  # a server's budget, not one list's
_PREFIXED: tuple[Kind, ...] = ("resources", "templates")  # the lists SEP-1269 filters
_MAX_SKIP_REASONS = 20
# Items of a page parsed between two turns of the event loop (`_parsed_in_slices`); why 125, not 250:
# `supervisor.PAGE_SLICE`.
PARSE_SLICE = 125
_FORGET_IN_PARTS_FROM = 65_536  # URIs a finished list saw from which `_forget` frees them a part at a time
# (at once, that many take a millisecond or more)


class PageFault(ServerFault):
    """A page the server did answer, but wrongly (no list, a bad or looping cursor): other lists may work."""


class Lister(Protocol):
    """What listing needs of a connection (a `ServerConnection`, or a scripted fake in tests).

    A connection may also offer `request_sized` (the result and its wire size) and a `prefix_rejected`
    flag; listing uses them when they are there.
    """

    @property
    def name(self) -> str: ...

    @property
    def spec(self) -> ServerSpec: ...

    @property
    def identity(self) -> ServerIdentity | None: ...

    async def request(self, method: str, params: Any, *, action: str) -> dict[str, Any]: ...


class ListingStop:
    """Stops running listings early (a key in the TUI, Ctrl+C in the CLI); what arrived is kept.

    One object may serve several listings (every server of a CLI run); `stop()` is safe to call from a
    signal handler's task or a UI callback on the event loop.
    """

    def __init__(self) -> None:
        self.requested = False
        self._scopes: set[anyio.CancelScope] = set()
        self._held_since: float | None = None
        self._held = 0.0

    def hold(self, waiting: bool) -> None:
        """A login waits for the user (`waiting`), or no longer: the wall-time bound does not run meanwhile.
        A token refused mid-listing makes the SDK log in again inside the request; the listing was then
        blamed on its max-seconds bound, spent in the browser."""
        now = time.monotonic()
        if waiting and self._held_since is None:
            self._held_since = now
        elif not waiting and self._held_since is not None:
            self._held += now - self._held_since
            self._held_since = None

    def held_seconds(self) -> float:
        """Seconds spent waiting for logins so far (one still waiting counts to now)."""
        running = time.monotonic() - self._held_since if self._held_since is not None else 0.0
        return self._held + running

    def stop(self) -> None:
        self.requested = True
        for scope in list(self._scopes):
            scope.cancel()

    def _enter(self, scope: anyio.CancelScope) -> None:
        self._scopes.add(scope)
        if self.requested:
            scope.cancel()

    def _leave(self, scope: anyio.CancelScope) -> None:
        self._scopes.discard(scope)


class _Budget:
    """Items and pages per list, bytes and wall time for the whole server, against the bounds."""

    def __init__(self, bounds: ListingBounds, stop: ListingStop | None = None) -> None:
        self.bounds = bounds
        self.stop = stop  # its holds (a login waiting) do not count against the wall time
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
        if self.elapsed() >= self.bounds.max_seconds:
            return "max_seconds"
        return None

    def elapsed(self) -> float:
        held = self.stop.held_seconds() if self.stop is not None else 0.0
        return time.monotonic() - self.started - held

    def room(self, kind: Kind) -> int:
        return max(0, self.bounds.max_items - self.items[kind])

    def remaining_seconds(self) -> float:
        return max(0.0, self.bounds.max_seconds - self.elapsed())


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
    prefix: str | None = None,
    stop: ListingStop | None = None,
    pace: Pace | None = None,
) -> Listing:
    """List what the server offers, to the end or to a bound; resumes `listing` when given.

    `prefix` lists only what is under it (a resumed listing keeps its own prefix). `stop` stops the
    listing early, keeping what arrived. `pace` is asked between slices of a page's parse (see `Pace`).
    Never raises for a server's fault: the error lands in the list's state (and `Listing.error`), and what
    was listed before it stays in the result.
    """
    if listing is None:
        result = Listing(server=conn.name, prefix=prefix)
    else:
        result = listing
        if prefix is not None and prefix != listing.prefix:
            raise ValueError("a resumed listing keeps the prefix it was begun with")
    plan(result, conn.identity, kinds)
    result.stopped_by = None
    result.error = result.error_code = None
    result.error_local = False
    budget = _Budget(bounds, stop)
    start = time.monotonic()
    result.started_at = start
    try:
        for kind in KINDS:
            state = result.state[kind]
            if state.done:
                continue
            state.stopped_by = state.error = None
            result.active = kind
            try:
                shared_bound = await _list_kind(conn, kind, result, budget, on_page, stop, pace)
            except ServerFault as fault:
                state.error = redact(fault.message, conn.spec)  # a cursor may echo a token, too
                if result.error_code is None:
                    result.error_code = fault.code
                    result.error_local = fault.local
                if not isinstance(fault, PageFault) and (
                    fault.code is None or fault.connection_closed or fault.request_timed_out
                ):
                    # The connection is gone or the server stalls: asking for more would only wait. Not
                    # a server's own error, -32001 or -32000 included: the other lists may still come.
                    break
                continue
            if shared_bound is not None:
                for later in KINDS[KINDS.index(kind) + 1 :]:
                    if not result.state[later].done:
                        result.state[later].stopped_by = shared_bound
                break
    finally:
        result.active = None
        result.started_at = None
        result.elapsed += time.monotonic() - start
    errors = [state.error for state in result.state.values() if state.error is not None]
    result.error = "; ".join(errors) if errors else None  # every failed list, in the order they were asked
    return result


def _stop(result: Listing, state: KindState, bound: str) -> None:
    state.stopped_by = bound
    if result.stopped_by is None:
        result.stopped_by = bound


class _Ask:
    """One page request running as its own task (so the next page is on its way while this one is used)."""

    def __init__(self) -> None:
        self.finished = anyio.Event()
        self.scope = anyio.CancelScope()
        self.answer: tuple[dict[str, Any], int] | None = None
        self.fault: ServerFault | None = None

    async def run(self, conn: Lister, kind: Kind, result: Listing, cursor: str | None, most: int) -> None:
        try:
            with self.scope:
                self.answer = await _ask_page(conn, kind, result, cursor, most)
        except ServerFault as fault:
            self.fault = fault
        finally:
            self.finished.set()


async def _list_kind(
    conn: Lister,
    kind: Kind,
    result: Listing,
    budget: _Budget,
    on_page: PageCallback | None,
    stop: ListingStop | None,
    pace: Pace | None,
) -> str | None:
    """Follow one list's cursors; returns the shared bound (time, bytes, a stop) that stopped it, if one did.

    Raises the ServerFault that ended the list. The requests run as tasks of a task group of this list
    (a page asked ahead and not needed is cancelled with it); a stop cancels the whole scope.
    """
    scope = anyio.CancelScope()
    if stop is not None:
        stop._enter(scope)
    outcome: tuple[str | None, ServerFault | None] | None = None
    try:
        with scope:
            try:
                async with anyio.create_task_group() as group:
                    outcome = await _follow(conn, kind, result, budget, on_page, pace, group)
                    group.cancel_scope.cancel()  # a page asked ahead that is not needed after all
            except BaseExceptionGroup as group_error:
                # anyio wraps even the host's own exception (a failing on_page): hand on the exception.
                inner = group_error.exceptions
                if len(inner) == 1 and isinstance(inner[0], Exception):
                    raise inner[0] from None
                raise
    finally:
        if stop is not None:
            stop._leave(scope)
    if outcome is None:  # the stop cancelled the scope: what arrived is kept, the listing is incomplete
        if result.state[kind].done:  # unless it came after the last page (freeing the seen URIs): whole
            return None  # the stop is remembered, the next list stops at once
        _stop(result, result.state[kind], INTERRUPTED)
        return INTERRUPTED
    bound, fault = outcome
    if fault is not None:
        raise fault
    return bound


async def _follow(
    conn: Lister,
    kind: Kind,
    result: Listing,
    budget: _Budget,
    on_page: PageCallback | None,
    pace: Pace | None,
    group: anyio.abc.TaskGroup,
) -> tuple[str | None, ServerFault | None]:
    """The loop of `_list_kind`: (the bound that stopped the list, the fault that ended it), either None."""
    state = result.state[kind]
    ahead: _Ask | None = None  # the request for the page at `state.cursor`, if already sent
    while not state.done:
        bound = budget.exhausted(kind)
        if bound is not None:
            if ahead is not None:
                ahead.scope.cancel()
            _stop(result, state, bound)
            return (bound if bound in _SHARED_BOUNDS else None), None
        ask = ahead
        ahead = None
        if ask is None:
            ask = _Ask()
            group.start_soon(ask.run, conn, kind, result, state.cursor, budget.bounds.max_bytes)
        # The wall-time bound also covers a server that answers each page just before the timeout. A login
        # waiting meanwhile gives the bound back its time (`ListingStop.hold`): wait again for what is left.
        with anyio.move_on_after(budget.remaining_seconds()):
            await ask.finished.wait()  # a checkpoint even when the page is here: a cancel is taken here
        while not ask.finished.is_set() and budget.remaining_seconds() > 0:
            with anyio.move_on_after(budget.remaining_seconds()):
                await ask.finished.wait()
        if not ask.finished.is_set():
            ask.scope.cancel()
            _stop(result, state, "max_seconds")
            return "max_seconds", None
        if isinstance(ask.fault, BoundReached):  # one answer past a bound alone: refused unread
            state.started = True
            budget.bytes += ask.fault.size
            result.bytes += ask.fault.size
            _stop(result, state, ask.fault.bound)
            return (ask.fault.bound if ask.fault.bound in _SHARED_BOUNDS else None), None
        if ask.fault is not None:
            if kind == "templates" and ask.fault.code == METHOD_NOT_FOUND:
                # Older servers do not implement resources/templates/list: that means "no templates".
                state.supported = False
                state.done = True
                return None, None
            return None, ask.fault
        assert ask.answer is not None
        raw, size = ask.answer
        state.started = True
        budget.bytes += size
        result.bytes += size
        items = raw.get(ITEMS_KEYS[kind])
        next_cursor = raw.get("nextCursor")
        room = budget.room(kind)
        if (
            isinstance(items, list)
            and len(items) - state.resume_skip < room
            and isinstance(next_cursor, str)
            and next_cursor not in state.seen_cursors
            and next_cursor != state.cursor
            and budget.pages[kind] + 1 < budget.bounds.max_pages
            and budget.bytes < budget.bounds.max_bytes
        ):
            # This page cannot reach a bound and its cursor will be followed: ask for the next one now.
            ahead = _Ask()
            group.start_soon(ahead.run, conn, kind, result, next_cursor, budget.bounds.max_bytes)
        try:
            page, consumed, cut = await _parsed_in_slices(
                _parse_page(conn.name, kind, raw, state, result, room=room, skip=state.resume_skip), pace
            )
        except PageFault as bad_page:
            return None, bad_page
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
        fault: PageFault | None = None
        seen: ShardedSet[str] | None = None
        if cut:
            # The item bound fell inside this page: "continue" asks for the same page and takes the rest.
            state.resume_skip = consumed
            _stop(result, state, "max_items")
        else:
            state.resume_skip = 0
            try:
                seen = _follow_cursor(kind, next_cursor, state, conn.spec)
            except PageFault as bad:
                fault = bad
        if on_page is not None:
            awaited = on_page(page)
            if awaited is not None:
                await awaited
        if seen is not None:
            await _forget(seen, pace)
        if fault is not None or cut:
            return None, fault
    return None, None


async def _forget(seen: ShardedSet[str], pace: Pace | None) -> None:
    """Free the URIs a finished list saw a part at a time, `pace` asked between parts: dropping a million
    at once held the TUI's event loop for about 20 ms (a watchdog on the loop caught it at the end of a
    wide listing), a key pressed meanwhile waited for it. Without a pace (the CLI) they go at once."""
    if pace is None or len(seen) < _FORGET_IN_PARTS_FROM:
        return
    for part in seen.parts:
        part.clear()
        pause = pace()
        await (pause if pause is not None else anyio.lowlevel.checkpoint())


async def _ask_page(
    conn: Lister, kind: Kind, result: Listing, cursor: str | None, most: int
) -> tuple[dict[str, Any], int]:
    """One page: with `prefix` when listing by prefix (again without it, once, if the server rejects it)."""
    params: dict[str, Any] = {}
    if cursor is not None:
        params["cursor"] = cursor
    prefix = result.prefix
    with_prefix = prefix is not None and kind in _PREFIXED and not getattr(conn, "prefix_rejected", False)
    if with_prefix:
        params["prefix"] = prefix
    try:
        answer = await _request(conn, kind, params or None, most)
    except ServerFault as fault:
        first_page = result.state[kind].pages == 0 and not result.prefix_sent
        if not (with_prefix and fault.code == INVALID_PARAMS and first_page):
            raise
        # The server does not take SEP-1269's parameter: remember, and filter on this side only.
        _remember_prefix_rejected(conn)
        del params["prefix"]
        return await _request(conn, kind, params or None, most)
    if with_prefix:
        result.prefix_sent = True
    return answer


def _remember_prefix_rejected(conn: Lister) -> None:
    with contextlib.suppress(AttributeError):  # one that cannot remember is asked with it again next time
        conn.prefix_rejected = True  # type: ignore[attr-defined]


async def _request(
    conn: Lister, kind: Kind, params: dict[str, Any] | None, most: int
) -> tuple[dict[str, Any], int]:
    """The result and its size: as the transport measured it on the wire, else measured here. An answer
    over `most` bytes (the bytes bound) is refused unread where the transport can tell (`BoundReached`)."""
    action = f"listing {kind}"
    sized = getattr(conn, "request_sized", None)
    if sized is not None:
        raw, size = await sized(METHODS[kind], params, action=action, most=most)
    else:
        raw, size = await conn.request(METHODS[kind], params, action=action), None
    return raw, size if size is not None else measured_size(raw)


def measured_size(raw: Any) -> int:
    """Bytes of a value as compact JSON (for transports that cannot say what came over the wire)."""
    try:
        return len(orjson.dumps(raw))
    except (TypeError, orjson.JSONEncodeError):  # integers beyond 64 bits, lone surrogates
        return len(json.dumps(raw, ensure_ascii=False, separators=(",", ":"), default=str).encode())


_CURSOR_SHOWN = 80  # characters of a repeated cursor the fault shows


def _follow_cursor(
    kind: Kind, next_cursor: object, state: KindState, spec: ServerSpec
) -> ShardedSet[str] | None:
    """Take the page's `nextCursor`; at the end of the list, the URIs it saw, for the caller to free
    (`_forget`): only a list still going needs them (a million keys are 40 MB), a finished one is never
    resumed."""
    if next_cursor is None:
        state.done = True
        state.cursor = None
        seen, state.seen_keys = state.seen_keys, ShardedSet()
        state.seen_cursors = set()
        return seen
    if not isinstance(next_cursor, str):
        kind_name = type(next_cursor).__name__
        raise PageFault(f"listing {kind}: the server sent a nextCursor that is not a string ({kind_name})")
    if next_cursor in state.seen_cursors:
        masked = redact(next_cursor, spec)  # before the cut: a cut secret would no longer be found
        shown = repr(masked[:_CURSOR_SHOWN])
        if len(masked) > _CURSOR_SHOWN:  # the sentence must end as written, whatever the cursor
            shown += f" [+{len(masked) - _CURSOR_SHOWN:,} chars]"
        raise PageFault(
            f"listing {kind}: the server repeated cursor {shown} after page {state.pages} "
            "(a pagination loop); stopped"
        )
    state.seen_cursors.add(next_cursor)
    state.cursor = next_cursor
    return None


_Parsed = tuple[Page, int, bool]


async def _parsed_in_slices(steps: Generator[None, None, _Parsed], pace: Pace | None) -> _Parsed:
    """Run a page's parse (`_parse_page`) a slice of `PARSE_SLICE` items at a time, the event loop free
    between slices: a page of 1,000 resources is 3-6 ms of parsing, and a key pressed meanwhile in the
    TUI (which runs the listing on its own loop) took its several turns of the loop only after it. `pace`
    may make a turn longer (a frame for the key). Shielded: a page is parsed whole or not at all (its URIs
    go into the list of those seen)."""
    with anyio.CancelScope(shield=True):
        parsed = await _run_steps(steps, pace)
    return parsed


async def _run_steps(steps: Generator[None, None, _Parsed], pace: Pace | None) -> _Parsed:
    while True:
        try:
            next(steps)
        except StopIteration as done:
            parsed: _Parsed = done.value
            return parsed
        pause = pace() if pace is not None else None
        await (pause if pause is not None else anyio.lowlevel.checkpoint())


def _parse_page(
    server: str, kind: Kind, raw: dict[str, Any], state: KindState, result: Listing, *, room: int, skip: int
) -> Generator[None, None, _Parsed]:
    """Split a page into good entries; stop after `room` of them. Returns the page, items consumed, cut?
    A generator that yields between slices of `PARSE_SLICE` items (see `_parsed_in_slices`)."""
    number = state.pages + 1
    items = raw.get(ITEMS_KEYS[kind])
    if not isinstance(items, list):
        unfinished = describe_unfinished(raw)  # "input required": what the server wants, not a bad page
        said = f": {unfinished}" if unfinished is not None else f" has no '{ITEMS_KEYS[kind]}' list"
        raise PageFault(f"listing {kind}: page {number}{said}; the page was dropped")
    if kind == "resources":
        return (yield from _parse_resources(server, items, state, result, number, room=room, skip=skip))
    skipped = 0
    duplicates = 0
    kept: list[Any] = []
    key_field = ITEM_KEYS[kind]
    consumed = skip
    prefix = result.prefix if kind == "templates" else None
    for index in range(skip, len(items)):
        if len(kept) >= room:
            return page_of(server, kind, number, kept, skipped, duplicates), consumed, True
        if index > skip and not (index - skip) % PARSE_SLICE:
            yield
        consumed = index + 1
        item = items[index]
        problem = item_problem(kind, item)
        if problem is not None:
            skipped += 1
            if len(result.skip_reasons) < _MAX_SKIP_REASONS:
                result.skip_reasons.append(f"{kind} page {number} item {index + 1}: {problem}")
            continue
        key = item[key_field]
        if prefix is not None and not template_in_prefix(key, prefix):
            result.filtered_out += 1
            continue
        if key in state.seen_keys:
            duplicates += 1
            continue
        state.seen_keys.add(key)
        kept.append(item)
    return page_of(server, kind, number, kept, skipped, duplicates), consumed, False


def _parse_resources(
    server: str,
    items: list[Any],
    state: KindState,
    result: Listing,
    number: int,
    *,
    room: int,
    skip: int,
) -> Generator[None, None, _Parsed]:
    """`_parse_page` for resources, with a fast path for the common item (a million pass through here):
    an object with only `uri`, `name` and maybe `mimeType`, all strings (a null `mimeType` too). The
    items are taken a slice at a time (a loop per slice: no test per item for the slices)."""
    skipped = 0
    duplicates = 0
    kept: list[ResourceEntry] = []
    seen = state.seen_keys.parts  # `ShardedSet.part`, inline: a million URIs pass through here
    mask = len(seen) - 1
    prefix = result.prefix
    shape_of = plain_shape
    make = plain_entry
    mimes = shared_mime
    consumed = skip
    cut = False
    end = len(items)
    for start in range(skip, end, PARSE_SLICE):
        if len(kept) >= room:  # the bound fell on a slice's end: no pause with no work after it
            cut = True
            break
        if start > skip:
            yield
        for index in range(start, min(start + PARSE_SLICE, end)):
            if len(kept) >= room:
                cut = True
                break
            consumed = index + 1
            item = items[index]
            shape = shape_of(item) if type(item) is dict else None
            if shape is not None:
                uri = item["uri"]
                name = item["name"]
                mime = item.get("mimeType")
                if not (
                    type(uri) is str and uri and type(name) is str and (mime is None or type(mime) is str)
                ):
                    shape = None  # the general way below says what is wrong with it, if anything
            if shape is None:
                problem = item_problem("resources", item)
                if problem is not None:
                    skipped += 1
                    if len(result.skip_reasons) < _MAX_SKIP_REASONS:
                        result.skip_reasons.append(f"resources page {number} item {index + 1}: {problem}")
                    continue
                uri = item["uri"]
            if prefix is not None and not resource_in_prefix(uri, prefix):
                result.filtered_out += 1
                continue
            part = seen[hash(uri) & mask]
            if uri in part:
                duplicates += 1
                continue
            part.add(uri)
            if shape is not None:
                kept.append(make(server, uri, name, None if mime is None else mimes(mime), shape))
            else:
                kept.append(ResourceEntry.listed(server, item))
        if cut:
            break
    page = Page(server, "resources", number, resources=tuple(kept), skipped=skipped, duplicates=duplicates)
    return page, consumed, cut
