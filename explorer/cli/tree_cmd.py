"""`tree`: every resource and template of every server, paginated to the end within the bounds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from explorer.cli.output import EXIT_FAILED, EXIT_INCOMPLETE, EXIT_OK, emit_json, error, note, out, safe_line
from explorer.cli.runner import Outcome
from explorer.config import ListingBounds
from explorer.connection.discovery import list_server
from explorer.connection.session import ServerConnection
from explorer.model.entries import ResourceEntry, TemplateEntry
from explorer.model.listing import KINDS, Kind, Listing
from explorer.model.overview import list_health, offered_flags
from explorer.model.templates import too_large
from explorer.model.uri_tree import PatternNode, UriNode, UriTree

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


def lister(bounds: ListingBounds, kinds: Sequence[Kind] = URI_KINDS) -> Any:
    """The job that lists `kinds` (resources and templates, by default) within the bounds."""

    async def job(conn: ServerConnection) -> Listing:
        return await list_server(conn, bounds, kinds=kinds)

    return job


def keep_resource(entry: ResourceEntry, prefix: str | None) -> bool:
    return prefix is None or entry.uri.startswith(prefix)


def keep_template(entry: TemplateEntry, prefix: str | None) -> bool:
    """The --prefix rule: the template text starts with P, or its literal part is a prefix of P."""
    if prefix is None:
        return True
    return entry.uri_template.startswith(prefix) or prefix.startswith(entry.literal_prefix)


def build_catalogue(outcomes: list[Outcome[Listing]], prefix: str | None) -> Catalogue:
    resources: list[ResourceEntry] = []
    templates: list[TemplateEntry] = []
    for outcome in outcomes:
        listing = outcome.value
        if listing is None:
            continue
        resources.extend(r for r in listing.resources if keep_resource(r, prefix))
        templates.extend(t for t in listing.templates if keep_template(t, prefix))
    tree = UriTree()
    tree.add_resources(resources)
    tree.add_templates(templates)
    return Catalogue(outcomes, resources, templates, tree)


def exit_code(outcomes: Sequence[Outcome[Listing]]) -> int:
    if any(o.fault is not None or (o.value is not None and o.value.error is not None) for o in outcomes):
        return EXIT_FAILED
    if any(o.value is not None and not o.value.complete for o in outcomes):
        return EXIT_INCOMPLETE
    return EXIT_OK


def report_errors(outcomes: Sequence[Outcome[Listing]]) -> None:
    """One line per failed or incomplete server on stderr; notes on fallbacks and junk the server sent."""
    for o in outcomes:
        if o.fault is not None:
            error(o.error_line())
        elif o.value is not None and o.value.error is not None:
            kept = o.value.offer_summary()
            error(f"server {o.name}: {o.value.error} (kept what was listed before: {kept})")
        elif o.value is not None and not o.value.complete:
            error(f"server {o.name}: {o.value.summary()}")
        for text in o.notes:
            note(f"note: server {o.name}: {text}")
        if o.fault is None and o.problems is not None:
            note(f"warning: server {o.name} {o.problems}; ignored them")


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
        data[kind] = listing.count(kind) if listing is not None else 0
    if ident is not None:
        data["serverInfo"] = {"name": ident.name, "version": ident.version}
        data["capabilities"] = ident.capabilities
        data["instructions"] = ident.instructions
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
    if o.notes:
        data["notes"] = list(o.notes)
    if o.problems is not None:
        data["warning"] = f"the server {o.problems}; ignored them"
    return data


def resource_json(entry: ResourceEntry) -> dict[str, Any]:
    data: dict[str, Any] = {"server": entry.server, "uri": entry.uri, "name": entry.name}
    data.update({k: entry.raw[k] for k in RESOURCE_FIELDS if entry.raw.get(k) is not None})
    return data


def template_json(entry: TemplateEntry) -> dict[str, Any]:
    data: dict[str, Any] = {"server": entry.server, "uriTemplate": entry.uri_template, "name": entry.name}
    data.update({k: entry.raw[k] for k in TEMPLATE_FIELDS if entry.raw.get(k) is not None})
    return data


def print_json(catalogue: Catalogue) -> None:
    emit_json(
        {
            "servers": [server_json(o) for o in catalogue.outcomes],
            "resources": [resource_json(r) for r in catalogue.resources],
            "templates": [template_json(t) for t in catalogue.templates],
            "tree": catalogue.tree.to_json(),
        }
    )


def print_text(catalogue: Catalogue, *, depth: int | None) -> None:
    several = len(catalogue.outcomes) > 1
    for o in catalogue.outcomes:
        out("# " + status_line(o))
    tree = catalogue.tree
    if tree.root.resource_count == 0 and tree.root.template_count == 0:
        out("(nothing listed)")
        return
    for row in tree.iter_depth_first(collapse=True):
        if depth is not None and row.depth >= depth:
            continue
        indent = "  " * row.depth
        if isinstance(row.node, PatternNode):
            out(indent + _pattern_line(row.node, several))
        else:
            out(indent + _node_line(tree, row.node, row.label, several))


def status_line(o: Outcome[Listing]) -> str:
    ident = o.identity
    who = ""
    if ident is not None:
        who = " ".join(x for x in (ident.name, ident.version) if x) + f" ({ident.protocol_version})"
    if o.fault is not None:
        state = f"failed: {o.fault.message}"
    elif o.value is not None:
        state = o.value.summary()
    else:
        state = "no listing"
    return safe_line(f"{o.name}: {who + '; ' if who else ''}{state}", limit=500)


def _node_line(tree: UriTree, node: UriNode, label: str, several: bool) -> str:
    """`label  name-or-title  [mime]  <servers>  (count below)`; only what adds information."""
    parts = [safe_line(label, 300) if label else "/"]
    if node.resources:
        entry = next(iter(node.resources.values()))
        title = entry.raw.get("title")
        shown = title if isinstance(title, str) and title else entry.name
        if shown and shown != label:
            parts.append(safe_line(shown, 120))
        if entry.mime_type:
            parts.append(f"[{safe_line(entry.mime_type, 60)}]")
        if several:
            parts.append("<" + ", ".join(safe_line(s, 60) for s in sorted(node.resources)) + ">")
    if node.child_count or node.pattern_count:
        parts.append(f"({node.resource_count + node.template_count - (1 if node.resources else 0)})")
    return "  ".join(parts)


def _pattern_line(pattern: PatternNode, several: bool) -> str:
    entry = next(iter(pattern.templates.values()))
    line = safe_line(pattern.label, 300) + "  [template]  " + safe_line(entry.name, 120)
    unusable = too_large(entry.uri_template)
    if unusable is not None:
        line += f"  [too large to use: {unusable.detail}]"
    if several:
        line += "  <" + ", ".join(safe_line(s, 60) for s in sorted(pattern.templates)) + ">"
    return line
