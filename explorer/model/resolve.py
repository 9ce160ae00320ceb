"""Why does this URI resolve, or not? The one answer the go-to box and `match` share.

A URI resolves when a server lists it; otherwise every template of every server that produces it
is listed, most specific first, with its values (and the other readings of the URI as alternatives);
otherwise the nearest existing prefix is named so the user sees where the path stops existing, and
templates whose literal prefix fits say why they do not produce it (a template too large to use says so).

Matching is linear in the URI, so a URI of 100,000 characters against 5,000 templates it could match
took minutes. A URI longer than `LONG_URI_CHARS` is therefore matched against the most specific of the
templates whose literal prefix it starts with, as many as `LONG_URI_WORK` allows, and the answer counts
the others (`Resolution.unchecked`) so the user is told what was not checked; shorter URIs are matched
against every template, as before.

Resolving is split in two so a UI can keep its thread free: `snapshot` copies what is needed out of
the tree (cheap, on the thread that owns the tree), `resolve` does the matching on that copy and touches
nothing shared (any thread). `resolve_uri` does both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

from explorer.model.entries import TemplateEntry
from explorer.model.templates import MatchReport, TemplateMatch, diagnose, match_all, too_large
from explorer.model.templates.percent import normalize_pct
from explorer.model.uri_tree import UriNode, UriTree

LONG_URI_CHARS: Final = 8192
"""A URI longer than this is matched against a bounded number of templates (`checked_templates`)."""
LONG_URI_WORK: Final = 2_000_000
"""For such a URI, its length times the number of templates matched stays below this (at least one
template is matched): about half a second of matching, since matching is linear in the URI."""


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
    unchecked: int = 0
    """Templates the URI's literal prefix fits that were not matched: the URI is too long (see the
    module docstring). "No match" then means "none of the templates checked"."""

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
    request: ResolveRequest,
    *,
    near_miss_limit: int = 5,
    stop: Callable[[], bool] | None = None,
    long_uri_work: int | None = LONG_URI_WORK,
) -> Resolution:
    """Match the request's URI against its templates; safe on a worker thread.

    `stop` (asked between templates) ends the work early when the answer is no longer wanted; the
    Resolution returned then is partial and should be dropped. `long_uri_work` bounds the matching of
    a long URI (`checked_templates`; None: every template, however long it takes).
    """
    uri = request.uri
    templates, unchecked = checked_templates(request.templates, uri, long_uri_work)
    matches = match_all(templates, uri, stop=stop)
    near: list[tuple[str, str, MatchReport]] = []
    if not matches:
        # Templates whose literal prefix fits: explain why they do not produce this URI.
        for entry in templates:
            if stop is not None and stop():
                break
            if uri.startswith(entry.literal_prefix):
                report = diagnose(entry.uri_template, uri)
                if report.problems:
                    near.append((entry.server, entry.uri_template, report))
            if len(near) >= near_miss_limit:
                break
    return Resolution(uri, request.listed_by, request.node, matches, request.nearest, near, unchecked)


def checked_templates(
    templates: Sequence[TemplateEntry], uri: str, work: int | None = LONG_URI_WORK
) -> tuple[Sequence[TemplateEntry], int]:
    """The templates to match `uri` against, and how many that could produce it are left out.

    Every template for a URI up to `LONG_URI_CHARS` (or when `work` is None). For a longer one, of the
    templates whose literal prefix it starts with (no other can produce it), the most specific (longest
    literal prefix) `work // len(uri)` ones, in the order given (which `match_all` ranks ties by).
    """
    if work is None or len(uri) <= LONG_URI_CHARS:
        return templates, 0
    normalized = normalize_pct(uri)
    fitting = [
        (position, entry)
        for position, entry in enumerate(templates)
        if normalized.startswith(normalize_pct(entry.literal_prefix))
    ]
    allowed = max(1, work // len(normalized))
    left_out = max(0, len(fitting) - allowed)
    if left_out:
        fitting.sort(key=lambda item: (-len(item[1].literal_prefix), item[0]))
        del fitting[allowed:]
        fitting.sort(key=lambda item: item[0])
    return [entry for _, entry in fitting], left_out


def resolve_uri(
    tree: UriTree, uri: str, *, near_miss_limit: int = 5, long_uri_work: int | None = None
) -> Resolution:
    """Resolve `uri` against everything in the tree (all servers).

    Every template by default, however long the URI: a caller that bounds the work (`long_uri_work`)
    must say `Resolution.unchecked` to the user.
    """
    return resolve(snapshot(tree, uri), near_miss_limit=near_miss_limit, long_uri_work=long_uri_work)


def too_large_for(templates: Iterable[TemplateEntry], uri: str) -> list[tuple[TemplateEntry, str]]:
    """Templates whose literal prefix fits `uri` but that are too large to use, each with why."""
    found: list[tuple[TemplateEntry, str]] = []
    for entry in templates:
        if uri.startswith(entry.literal_prefix):
            error = too_large(entry.uri_template)
            if error is not None:
                found.append((entry, error.detail))
    return found
