"""Why does this URI resolve, or not? The one answer the go-to box and `match` share.

A URI resolves when a server lists it; otherwise every template of every server that produces it
is listed, most specific first, with its values (and the other readings of the URI as alternatives);
otherwise the nearest existing prefix is named so the user sees where the path stops existing, and
templates whose literal prefix fits say why they do not produce it (a template too large to use says so).

Resolving is split in two so a UI can keep its thread free: `snapshot` copies what is needed out of
the tree (cheap, on the thread that owns the tree), `resolve` does the matching on that copy and touches
nothing shared (any thread). `resolve_uri` does both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from explorer.model.entries import TemplateEntry
from explorer.model.templates import MatchReport, TemplateMatch, diagnose, match_all, too_large
from explorer.model.uri_tree import UriNode, UriTree


@dataclass(frozen=True)
class Resolution:
    uri: str
    listed_by: tuple[str, ...]
    node: UriNode | None
    matches: list[TemplateMatch]
    nearest: UriNode
    near_misses: list[tuple[str, str, MatchReport]] = field(
        default_factory=list
    )  # (server, template, report)

    @property
    def resolves(self) -> bool:
        return bool(self.listed_by or self.matches)


@dataclass(frozen=True)
class ResolveRequest:
    """What resolving `uri` needs from the tree, copied out of it (see the module docstring)."""

    uri: str
    listed_by: tuple[str, ...]
    node: UriNode | None
    nearest: UriNode
    templates: tuple[TemplateEntry, ...]


def snapshot(tree: UriTree, uri: str) -> ResolveRequest:
    """Copy what resolving `uri` needs out of `tree`; no matching happens here."""
    node = tree.node_for(uri)
    listed_by = tuple(sorted(node.resources)) if node is not None else ()
    return ResolveRequest(
        uri, listed_by, node if listed_by else None, tree.nearest(uri), tuple(tree.templates_under(""))
    )


def resolve(
    request: ResolveRequest, *, near_miss_limit: int = 5, stop: Callable[[], bool] | None = None
) -> Resolution:
    """Match the request's URI against its templates; safe on a worker thread.

    `stop` (asked between templates) ends the work early when the answer is no longer wanted; the
    Resolution returned then is partial and should be dropped.
    """
    uri = request.uri
    matches = match_all(request.templates, uri, stop=stop)
    near: list[tuple[str, str, MatchReport]] = []
    if not matches:
        # Templates whose literal prefix fits: explain why they do not produce this URI.
        for entry in request.templates:
            if stop is not None and stop():
                break
            if uri.startswith(entry.literal_prefix):
                report = diagnose(entry.uri_template, uri)
                if report.problems:
                    near.append((entry.server, entry.uri_template, report))
            if len(near) >= near_miss_limit:
                break
    return Resolution(uri, request.listed_by, request.node, matches, request.nearest, near)


def resolve_uri(tree: UriTree, uri: str, *, near_miss_limit: int = 5) -> Resolution:
    """Resolve `uri` against everything in the tree (all servers)."""
    return resolve(snapshot(tree, uri), near_miss_limit=near_miss_limit)


def too_large_for(templates: Iterable[TemplateEntry], uri: str) -> list[tuple[TemplateEntry, str]]:
    """Templates whose literal prefix fits `uri` but that are too large to use, each with why."""
    found: list[tuple[TemplateEntry, str]] = []
    for entry in templates:
        if uri.startswith(entry.literal_prefix):
            error = too_large(entry.uri_template)
            if error is not None:
                found.append((entry, error.detail))
    return found
