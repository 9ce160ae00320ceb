"""`tree`: every resource and template of every server, paginated to the end within the bounds.

The tree is built while the servers list (each page merged as it arrives), so a listing stopped early
(Ctrl+C: the first stops the listings and prints what arrived, marked incomplete, and abandons the
connections still being made, each server said to be interrupted while connecting; a second one exits
at once) still has its tree. With `--prefix P` every server is asked with SEP-1269's `prefix` and what comes
back is filtered here as well. Progress goes to stderr (`explorer.cli.progress`); the output is written by
`explorer.cli.tree_render`, streamed.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio

from explorer.cli.ctrl_c import finish_output_on_ctrl_c, say_interrupted
from explorer.cli.output import (
    EXIT_FAILED,
    EXIT_INCOMPLETE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    error,
    note,
    out,
    safe_line,
    stopped_at_bound,
)
from explorer.cli.runner import Interrupt, Outcome, run_on_servers
from explorer.config import ListingBounds, ServerSpec
from explorer.connection.discovery import ListingStop, PageCallback, list_server
from explorer.connection.session import ServerConnection
from explorer.model.entries import ResourceEntry, TemplateEntry
from explorer.model.heap import after_ingest_briefly, collector_paused
from explorer.model.listing import (
    INTERRUPTED,
    KINDS,
    Kind,
    Listing,
    Page,
    prefix_notes,
    resource_in_prefix,
    template_in_prefix,
)
from explorer.model.overview import list_health, offered_flags
from explorer.model.uri_tree import UriTree

URI_KINDS: tuple[Kind, ...] = ("templates", "resources")
COUNTED: tuple[Kind, ...] = ("resources", "templates", "prompts", "tools")
RESOURCE_FIELDS = ("title", "description", "mimeType", "size", "annotations")
TEMPLATE_FIELDS = ("title", "description", "mimeType", "annotations")


@dataclass
class Catalogue:
    """All servers' listings, filtered by prefix, merged into one tree."""

    outcomes: list[Outcome[Listing]]
    resources: list[ResourceEntry]
    templates: list[TemplateEntry]
    tree: UriTree


def lister(
    bounds: ListingBounds,
    kinds: Sequence[Kind] = URI_KINDS,
    *,
    prefix: str | None = None,
    on_page: PageCallback | None = None,
    stop: ListingStop | None = None,
    listings: dict[str, Listing] | None = None,
) -> Any:
    """The job that lists `kinds` (resources and templates, by default) within the bounds.

    `listings` receives each server's Listing as it begins (for a progress line to read).
    """

    async def job(conn: ServerConnection) -> Listing:
        listing = Listing(server=conn.name, prefix=prefix)
        if listings is not None:
            listings[conn.name] = listing
        return await list_server(conn, bounds, on_page, listing=listing, kinds=kinds, stop=stop)

    return job


def keep_resource(entry: ResourceEntry, prefix: str | None) -> bool:
    return resource_in_prefix(entry.uri, prefix)


def keep_template(entry: TemplateEntry, prefix: str | None) -> bool:
    """The --prefix rule: the template text starts with P, or its literal part is a prefix of P."""
    return template_in_prefix(entry.uri_template, prefix)


@dataclass
class TreeRun:
    """A `tree` run: the outcomes, the tree merged page by page, and whether the user stopped it."""

    prefix: str | None
    tree: UriTree = field(
        default_factory=lambda: UriTree(keep_order=False)
    )  # the order is read once, at the end
    outcomes: list[Outcome[Listing]] = field(default_factory=list)
    interrupted: bool = False  # Ctrl+C stopped the listings: what arrived is printed, marked incomplete
    aborted: bool = False  # a second Ctrl+C: nothing is printed

    def add_page(self, page: Page) -> None:
        prefix = self.prefix
        resources = page.resources
        if prefix is not None:
            resources = tuple(r for r in resources if r.uri.startswith(prefix))
        self.tree.add_resources(resources)
        self.tree.add_templates(t for t in page.templates if keep_template(t, prefix))
        after_ingest_briefly()

    def resources(self) -> Iterator[ResourceEntry]:
        """Every server's resources under the prefix, in listing order (not copied: there may be millions)."""
        for o in self.outcomes:
            if o.value is not None:
                yield from (r for r in o.value.resources if keep_resource(r, self.prefix))

    def templates(self) -> Iterator[TemplateEntry]:
        for o in self.outcomes:
            if o.value is not None:
                yield from (t for t in o.value.templates if keep_template(t, self.prefix))


async def list_for_tree(
    specs: Sequence[ServerSpec],
    bounds: ListingBounds,
    *,
    prefix: str | None,
    protocol: str,
    timeout: float,
    progress: bool,
) -> TreeRun:
    """List every server into one tree, with progress on stderr and Ctrl+C stopping the listings."""
    from explorer.cli.progress import ProgressLine

    run = TreeRun(prefix)
    interrupt = Interrupt()
    listings: dict[str, Listing] = {}
    job = lister(
        bounds, KINDS, prefix=prefix, on_page=run.add_page, stop=interrupt.listings, listings=listings
    )
    line = ProgressLine(listings, bounds, sys.stderr, in_place=sys.stderr.isatty()) if progress else None
    async with anyio.create_task_group() as group:
        if line is not None:
            group.start_soon(line.run)
        group.start_soon(_stop_on_interrupt, interrupt, run, group.cancel_scope.cancel)
        run.outcomes = await run_on_servers(
            specs, job, protocol=protocol, timeout=timeout, interrupt=interrupt
        )
        group.cancel_scope.cancel()
    finish_output_on_ctrl_c(interrupted=interrupt.requested)
    if line is not None:
        line.clear()
    run.interrupted = interrupt.requested
    for outcome in run.outcomes:
        if outcome.value is None:  # the connection failed: nothing of this server is shown
            run.tree.remove_server(outcome.name)
        elif prefix is not None:
            outcome.notes.extend(prefix_notes(outcome.value))
    return run


async def _stop_on_interrupt(stop: Interrupt, run: TreeRun, cancel_all: Callable[[], None]) -> None:
    """The first Ctrl+C stops the listings and the connects (what arrived is printed); a second one gives
    up at once."""
    if sys.platform == "win32":  # pragma: no cover - no signal receiver there: Ctrl+C ends the run
        return
    with anyio.open_signal_receiver(signal.SIGINT) as signals:
        async for _ in signals:
            if stop.requested:
                run.aborted = True
                cancel_all()
                return
            say_interrupted(
                "interrupted: stopping the listings and connections; what arrived is printed "
                "(Ctrl+C again to quit)"
            )
            stop.stop()


def build_catalogue(outcomes: list[Outcome[Listing]], prefix: str | None) -> Catalogue:
    """All listings merged into one tree at once (`match`: no output, so nothing to stream)."""
    resources: list[ResourceEntry] = []
    templates: list[TemplateEntry] = []
    for outcome in outcomes:
        listing = outcome.value
        if listing is None:
            continue
        resources.extend(r for r in listing.resources if keep_resource(r, prefix))
        templates.extend(t for t in listing.templates if keep_template(t, prefix))
    tree = UriTree(keep_order=False)  # read once: a sort then costs less than keeping the order per page
    tree.add_resources(resources)
    tree.add_templates(templates)
    return Catalogue(outcomes, resources, templates, tree)


def exit_code(outcomes: Sequence[Outcome[Listing]], *, interrupted: bool = False) -> int:
    if interrupted:
        return EXIT_INTERRUPTED
    if any(o.fault is not None or (o.value is not None and o.value.error is not None) for o in outcomes):
        return EXIT_FAILED
    if any(o.value is not None and not o.value.complete for o in outcomes):
        return EXIT_INCOMPLETE
    return EXIT_OK


def report_errors(outcomes: Sequence[Outcome[Listing]]) -> None:
    """One line per failed or incomplete server on stderr; notes on fallbacks and junk the server sent."""
    for o in outcomes:
        if o.interrupted:  # the user stopped it, as a listing stopped early: not the server's failure
            stopped_at_bound(o.name, o.fault.message if o.fault is not None else "interrupted")
        elif o.fault is not None:
            error(o.error_line())
        elif o.value is not None and o.value.error is not None:
            kept = o.value.offer_summary()
            error(f"server {o.name}: {o.value.error} (kept what was listed before: {kept})")
        elif o.value is not None and not o.value.complete:
            stopped_at_bound(o.name, o.value.summary())
        for text in o.notes:
            note(f"note: server {o.name}: {text}")
        if o.fault is None and o.problems is not None:
            note(f"warning: server {o.name} {o.problems}")


def server_json(o: Outcome[Listing]) -> dict[str, Any]:
    """A server in `--json` output: identity, what it offers, counts and the health of each list."""
    listing = o.value
    error_text = o.fault.message if o.fault is not None else listing.error if listing is not None else None
    ident = o.identity
    data: dict[str, Any] = {
        "name": o.name,
        "ok": error_text is None,
        "error": error_text,
        "transport": ident.transport if ident is not None else o.spec.transport,
        "protocolVersion": ident.protocol_version if ident is not None else None,
        "era": ident.era if ident is not None else None,
        "complete": listing.complete if listing is not None else False,
        "offered": offered_flags(ident),
    }
    for kind in COUNTED:
        data[kind] = _count(listing, kind)
    # The same keys for every server (a script reads `s["serverInfo"]` of each): null when never known.
    data["serverInfo"] = {"name": ident.name, "version": ident.version} if ident is not None else None
    data["capabilities"] = ident.capabilities if ident is not None else None
    data["instructions"] = ident.instructions if ident is not None else None
    if listing is not None:
        data["pages"] = listing.pages
        data["stoppedBy"] = listing.stopped_by
        data["skipped"] = listing.skipped
        data["skipReasons"] = list(listing.skip_reasons)
        data["duplicates"] = listing.duplicates
        data["templatesSupported"] = listing.templates_supported
        data["bytes"] = listing.bytes
        data["lists"] = {kind: list_health(listing, kind) for kind in KINDS}
    else:
        data["pages"] = 0
        data.update(unlisted_end(o))  # `complete` stays where it is
        data["skipped"] = data["duplicates"] = data["templatesSupported"] = data["bytes"] = None
        data["skipReasons"] = []
        data["lists"] = None
    if o.notes:
        data["notes"] = list(o.notes)
    if o.problems is not None:
        data["warning"] = f"the server {o.problems}"
    return data


def unlisted_end(o: Outcome[Any]) -> dict[str, Any]:
    """`complete` and `stoppedBy` in `--json` of a server that listed nothing (it never connected, or its
    listing failed): incomplete, stopped by `interrupted` when Ctrl+C came while it was connecting, else
    null. A command that gives these keys gives them for such a server too (`prompts` as `tree`)."""
    return {"complete": False, "stoppedBy": INTERRUPTED if o.interrupted else None}


def _count(listing: Listing | None, kind: Kind) -> int | None:
    """A list's count; null when it was never asked for (`match` lists resources and templates only, a
    server that failed to connect lists nothing): 0 would say the server has none."""
    if listing is None or not listing.state[kind].wanted:
        return None
    return listing.count(kind)


def resource_json(entry: ResourceEntry) -> dict[str, Any]:
    data: dict[str, Any] = {"server": entry.server, "uri": entry.uri, "name": entry.name}
    if entry.has_extra:
        raw = entry.raw
        data.update({k: raw[k] for k in RESOURCE_FIELDS if raw.get(k) is not None})
    elif entry.mime_type is not None:  # the only field of RESOURCE_FIELDS a plain item can have
        data["mimeType"] = entry.mime_type
    return data


def template_json(entry: TemplateEntry) -> dict[str, Any]:
    data: dict[str, Any] = {"server": entry.server, "uriTemplate": entry.uri_template, "name": entry.name}
    data.update({k: entry.raw[k] for k in TEMPLATE_FIELDS if entry.raw.get(k) is not None})
    return data


def print_json(run: TreeRun) -> None:
    from explorer.cli.tree_render import write_document

    with collector_paused():  # writing makes no reference cycles; see explorer.model.heap
        write_document(
            [server_json(o) for o in run.outcomes],
            (resource_json(r) for r in run.resources()),
            (template_json(t) for t in run.templates()),
            run.tree,
        )


def print_text(run: TreeRun, *, depth: int | None) -> None:
    from explorer.cli.tree_render import TextRows, write_rows

    for o in run.outcomes:
        out("# " + status_line(o))
    tree = run.tree
    if tree.root.resource_count == 0 and tree.root.template_count == 0:
        out("(nothing listed)")
        return
    rows = TextRows()
    with collector_paused():  # writing makes no reference cycles; see explorer.model.heap
        write_rows(tree, rows, depth=depth, several=len(run.outcomes) > 1)
        rows.flush()


def status_line(o: Outcome[Listing]) -> str:
    ident = o.identity
    who = ""
    if ident is not None:
        who = " ".join(x for x in (ident.name, ident.version) if x) + f" ({ident.protocol_version})"
    if o.fault is not None:
        state = o.fault.message if o.interrupted else f"failed: {o.fault.message}"
    elif o.value is not None:
        state = o.value.summary()
    else:
        state = "no listing"
    return safe_line(f"{o.name}: {who + '; ' if who else ''}{state}", limit=500)
