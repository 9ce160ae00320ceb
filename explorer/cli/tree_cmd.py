"""`tree`: every resource and template of every server, paginated to the end within the bounds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from explorer.cli.output import EXIT_FAILED, EXIT_INCOMPLETE, EXIT_OK, emit_json, error, out, safe_line
from explorer.cli.runner import Outcome
from explorer.config import ListingBounds
from explorer.connection.discovery import Listing, list_server
from explorer.connection.session import ServerConnection
from explorer.model.entries import ResourceEntry, TemplateEntry
from explorer.model.uri_tree import UriNode, UriTree

RESOURCE_FIELDS = ("title", "description", "mimeType", "size", "annotations")
TEMPLATE_FIELDS = ("title", "description", "mimeType", "annotations")


@dataclass
class Catalogue:
    """All servers' listings, filtered by prefix, merged into one tree."""

    outcomes: list[Outcome[Listing]]
    resources: list[ResourceEntry]
    templates: list[TemplateEntry]
    tree: UriTree


def lister(bounds: ListingBounds) -> Any:
    async def job(conn: ServerConnection) -> Listing:
        return await list_server(conn, bounds)

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
    """One line per failed or incomplete server on stderr."""
    for o in outcomes:
        if o.fault is not None:
            error(o.error_line())
        elif o.value is not None and o.value.error is not None:
            error(f"server {o.name}: {o.value.error} (kept {o.value.summary()})")
        elif o.value is not None and not o.value.complete:
            error(f"server {o.name}: {o.value.summary()}")


def server_json(o: Outcome[Listing]) -> dict[str, Any]:
    listing = o.value
    error_text = o.fault.message if o.fault is not None else listing.error if listing is not None else None
    data: dict[str, Any] = {
        "name": o.name,
        "ok": error_text is None,
        "protocolVersion": o.identity.protocol_version if o.identity is not None else None,
        "complete": listing.complete if listing is not None else False,
        "error": error_text,
        "resources": len(listing.resources) if listing is not None else 0,
        "templates": len(listing.templates) if listing is not None else 0,
        "pages": listing.pages if listing is not None else 0,
    }
    if o.identity is not None:
        data["serverInfo"] = {"name": o.identity.name, "version": o.identity.version}
    if listing is not None:
        data["stoppedBy"] = listing.stopped_by
        data["skipped"] = listing.skipped
        data["duplicates"] = listing.duplicates
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
    for child in tree.children(tree.root):
        _print_node(tree, child, 0, depth, several)
    for pattern in tree.patterns(tree.root):
        out(_pattern_line(pattern, 0, several))


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


def _print_node(tree: UriTree, node: UriNode, level: int, depth: int | None, several: bool) -> None:
    end = tree.chain_end(node)
    label = node.segment if end is node else _chain_label(node, end)
    indent = "  " * level
    count = end.resource_count + end.template_count
    has_children = bool(tree.children(end)) or bool(tree.patterns(end))
    parts = [indent + safe_line(label or "(empty)", limit=300)]
    if end.resources:
        entry = next(iter(end.resources.values()))
        parts.append(f"  {safe_line(entry.name, 120)}")
        mime = entry.mime_type
        if mime:
            parts.append(f"  [{safe_line(mime, 60)}]")
        if several:
            parts.append("  <" + ", ".join(safe_line(s, 60) for s in sorted(end.resources)) + ">")
    if has_children:
        parts.append(f"  ({count})")
    out("".join(parts))
    if depth is not None and level + 1 >= depth:
        return
    for child in tree.children(end):
        _print_node(tree, child, level + 1, depth, several)
    for pattern in tree.patterns(end):
        out(_pattern_line(pattern, level + 1, several))


def _chain_label(start: UriNode, end: UriNode) -> str:
    """`a/b/c` for a collapsed single-child chain (display only; the model keeps real segments)."""
    segments: list[str] = []
    node: UriNode | None = end
    while node is not None and node is not start:
        segments.append(node.segment)
        node = node.parent
    segments.append(start.segment)
    segments.reverse()
    label = segments[0]
    for segment in segments[1:]:
        joiner = "" if label.endswith((":", "://")) or segment.startswith(("?", "#")) else "/"
        label += joiner + segment
    return label


def _pattern_line(pattern: Any, level: int, several: bool) -> str:
    entries = list(pattern.templates.values())
    entry = entries[0]
    line = "  " * level + safe_line(pattern.label, 300) + "  [template]  " + safe_line(entry.name, 120)
    if several:
        line += "  <" + ", ".join(safe_line(s, 60) for s in sorted(pattern.templates)) + ">"
    return line
