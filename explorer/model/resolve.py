"""Why does this URI resolve, or not? The one answer the go-to box and `match` share.

A URI resolves when a server lists it; otherwise every template of every server that produces it
is listed, most specific first, with its values; otherwise the nearest existing prefix is named so
the user sees where the path stops existing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from explorer.model.templates import MatchReport, TemplateMatch, diagnose, match_all
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


def resolve_uri(tree: UriTree, uri: str, *, near_miss_limit: int = 5) -> Resolution:
    """Resolve `uri` against everything in the tree (all servers)."""
    node = tree.node_for(uri)
    listed_by = tuple(sorted(node.resources)) if node is not None else ()
    templates = list(tree.templates_under(""))
    matches = match_all(templates, uri)
    near: list[tuple[str, str, MatchReport]] = []
    if not matches:
        # Templates whose literal prefix fits: explain why they do not produce this URI.
        for entry in templates:
            if uri.startswith(entry.literal_prefix):
                report = diagnose(entry.uri_template, uri)
                if report.problems:
                    near.append((entry.server, entry.uri_template, report))
            if len(near) >= near_miss_limit:
                break
    return Resolution(uri, listed_by, node if listed_by else None, matches, tree.nearest(uri), near)
