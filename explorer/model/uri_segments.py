"""The URI segment grammar: how the prefix tree, the filter and the CLI cut URI text into segments.

One home for it, so the tree, the `/` filter and `tree --prefix` agree on what a segment is.
``scheme://authority/p/a/t/h?query`` -> ``["scheme://", "authority", "p", "a", "t", "h", "?query"]``;
opaque ``urn:isbn:1`` -> ``["urn:", "isbn:1"]``; no valid scheme -> split at ``/`` only. Empty segments
are kept (``//``, trailing ``/``); the query (or a fragment) is one final segment. `join_segments` is the
exact inverse for every string.

One node per distinct prefix: an empty first segment (right after the scheme or at the start: the empty
authority of ``file:///etc/hosts``, what comes before the first ``/`` of ``/abs/path``) would add no text
to its parent's, a second node with the same prefix (`tree --json` showed two ``file://`` nodes). It is
glued to the next segment instead: ``file:///etc/hosts`` -> ``["file://", "/etc", "hosts"]``,
``file:///`` -> ``["file://", "/"]``, ``/abs/path`` -> ``["/abs", "path"]``; ``file://h/b`` keeps
``["file://", "h", "b"]``, so ``file:///a`` and ``file://h/b`` share the one ``file://`` node. Only that
first segment starts with ``/``; a segment past it never holds one (but the last of a path cut at
`MAX_PATH_SEGMENTS`).

A path is cut into at most `MAX_PATH_SEGMENTS` segments: the last one holds the rest, slashes and all. A
node per segment is what makes the tree, and a hostile server's URIs 5,000 segments deep made 5,000 nodes
each (1,500 of them: 2.7 GB and 42 s for `tree`, the JSON output quadratic in the depth). Below the cap
nothing changes; past it, a URI's deeper part is one node, found by prefix like any other.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from explorer.model.templates.percent import URI_CHARS, encode_keeping

__all__ = [
    "MAX_PATH_SEGMENTS",
    "SCHEME",
    "SEPARATOR",
    "TAILS",
    "is_scheme_segment",
    "join_segments",
    "segment_uri",
    "starts_with_scheme",
    "template_literal_prefix",
    "template_place",
    "template_placed_text",
]

SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
"""A URI scheme and its colon (RFC 3986: a letter, then letters, digits, `+`, `.`, `-`)."""
_SCHEME_SEGMENT = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:(?://)?")
TAILS = ("?", "#")
"""What starts a query or fragment segment: glued to the segment before it, without a "/"."""
SEPARATOR = re.compile(r"[/?#]")
"""Where a segment ends inside a path (except the last of a path cut at `MAX_PATH_SEGMENTS`)."""
MAX_PATH_SEGMENTS = 64
"""Path segments a URI is cut into at most (real ones are seldom a fifth as deep)."""


def starts_with_scheme(text: str) -> bool:
    """Whether `text` begins with a scheme and its colon (what makes a filter a URI prefix query)."""
    return SCHEME.match(text) is not None


def segment_uri(uri: str) -> list[str]:
    """Split a URI into tree segments; `join_segments` restores the exact input for any string."""
    match = SCHEME.match(uri)
    if match is None:
        segments: list[str] = []
        start = 0
    else:
        start = match.end()
        if uri.startswith("//", start):
            start += 2
        segments = [uri[:start]]
    cut = len(uri)
    query = uri.find("?", start)
    if query >= 0:
        cut = query
    fragment = uri.find("#", start, cut)
    if fragment >= 0:
        cut = fragment
    if cut > start:
        if uri.startswith("/", start):  # `file:///etc`: no node for the empty authority (see above)
            path = uri[start + 1 : cut].split("/", MAX_PATH_SEGMENTS - 1)
            path[0] = "/" + path[0]
        else:
            path = uri[start:cut].split("/", MAX_PATH_SEGMENTS - 1)
        segments.extend(path)
    if cut < len(uri):
        segments.append(uri[cut:])
    return segments


def is_scheme_segment(segment: str) -> bool:
    """A whole first segment that is a scheme (`demo://`, `urn:`): what glues the next segment to it."""
    return _SCHEME_SEGMENT.fullmatch(segment) is not None


def join_segments(segments: Sequence[str]) -> str:
    """Inverse of `segment_uri`: "/" between segments, except after the root or a scheme and before ?/#."""
    parts: list[str] = []
    for index, segment in enumerate(segments):
        glued = index == 0 or segment.startswith(TAILS) or (index == 1 and is_scheme_segment(segments[0]))
        if not glued:
            parts.append("/")
        parts.append(segment)
    return "".join(parts)


def _literal(text: str) -> str:
    brace = text.find("{")
    return text if brace < 0 else text[:brace]


def _written(literal: str) -> str:
    """Template literal text as every expansion writes it (`Literal.encoded`, RFC 6570 3.1)."""
    return literal if URI_CHARS.issuperset(literal) else encode_keeping(literal)


def template_literal_prefix(text: str) -> str:
    """A template's text before its first `{`, as every URI it expands to begins: literal characters a
    URI cannot hold are pct-encoded there (``t://a b/{x}`` expands to ``t://a%20b/...``). Where the
    template sits in the tree and what a URI prefix is compared with; the server's own text is shown."""
    return _written(_literal(text))


def template_placed_text(text: str) -> str:
    """The template's text with its literal prefix as expansions write it (`template_literal_prefix`),
    the rest as written: what `tree --prefix` and the tree's prefix queries compare a prefix with. The
    same object when nothing needs encoding (most templates)."""
    literal = _literal(text)
    written = _written(literal)
    return text if written is literal else written + text[len(literal) :]


def template_place(text: str) -> tuple[list[str], str]:
    """Parent segments and label of a template: cut at the last complete segment of its literal prefix.

    The parent segments are written as expansions write them (``t://a b/{x}`` goes under ``t://a%20b``,
    beside the URIs it produces); the label is the server's text from there on (``{x}``). A cut at a
    segment boundary never splits a pct-triplet, so the segments encoded one by one are the segments
    of the encoded literal."""
    literal = _literal(text)
    segments = segment_uri(literal)
    if not segments:
        return segments, text
    if len(literal) < len(text) and len(segments) == 1 and is_scheme_segment(segments[0]):
        return segments, text[len(literal) :]  # `demo://{+path}`: the scheme itself is complete
    last = segments.pop()  # followed by `{` (or the end), so possibly incomplete: part of the label
    return [_written(segment) for segment in segments], text[len(literal) - len(last) :]
