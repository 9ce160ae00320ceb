"""The URI prefix tree: every server's resources and templates merged into one trie of URI segments.

Why a trie of exact segments: the UI browses by prefix, the same URI from two servers must be one node,
and pages arrive incrementally while the user browses, so each insert must cost O(depth), never O(n).

Segmenting is `explorer.model.uri_segments` (`segment_uri`, inverse `join_segments`, exact round trip
for every string); the nodes are `explorer.model.uri_nodes`. Both are re-exported here, the tree's API.

Templates are pattern nodes: ``docs://help/{id}`` is a `PatternNode` labelled ``{id}`` under the node
``docs://help``, i.e. under the last complete segment of its literal prefix (the text before ``{``), as
its expansions write it: ``t://a b/{x}`` (RFC 6570 pct-encodes a literal space) sits under ``t://a%20b``
beside the URIs it produces, labelled ``{x}``, and prefix queries compare that text
(`uri_segments.template_literal_prefix`).

`UriTree` API (all prefixes are exact wire text; percent-encoding is never decoded here):

- ``add_resources(entries) -> int`` / ``add_templates(entries) -> int``: insert one page (any servers);
  returns how many new (server, uri) / (server, template) pairs were stored. A pair seen again replaces
  the stored entry and is not counted twice.
- ``remove_server(server)`` / ``replace_server(server, resources, templates)``: drop or atomically
  refresh one server's listing via a per-server index (other servers' nodes are never scanned).
- ``node_for(prefix) -> UriNode | None``: the node whose segments are ``segment_uri(prefix)``.
- ``nearest(prefix_or_uri) -> UriNode``: deepest existing node along those segments (root if none).
- ``resources_under(prefix)`` / ``templates_under(prefix)``: entries whose URI / template text
  string-starts with ``prefix``; ``templates_for(prefix)`` adds templates whose literal prefix is a prefix
  of ``prefix``; ``count_under(prefix) -> Counts`` (distinct URIs, distinct templates).
- ``children(node)`` concrete children in natural order (`g2` before `g10`, `explorer.model.natural`);
  ``patterns(node)`` pattern children in natural order of their labels;
  ``chain_end(node)`` / ``chain_label(node)`` for collapsing single-child chains into one row.
- ``servers(node)`` servers of the node's own resources and pattern children; ``subtree_servers(node)``
  servers with anything (a resource or a template) at or below the node; ``server_counts(server)``.
- ``pattern_for(uri_template) -> PatternNode | None``: the pattern node of a template text.
- ``version`` grows on every mutation.
- ``UriNode.entries`` the node's own resources (one per server, by server name), without a mapping view;
  ``UriNode.first_entry`` the first one listed. (Rendering, text and JSON, is the CLI's: `explorer.cli`.)

Order: children are shown in natural order, computed when first asked for and cached per node (new
children are merged into the cache: inserted one by one when few, else merged by bisection). Prefix
queries search that same order (`uri_nodes.starting_with`): the segments starting with ``d1`` do not all
sit together in it (``d10`` comes after ``d2``), but their keys do for each length of the digit run, so a
query costs O(depth + runs * log n + k), with no second index to build or keep.

Subtree servers are one int bitmask per inner node (servers numbered on first sight; a node's own
resources are not in its mask, they are read from the node). Inserting a pair ORs its bit into the
ancestors and stops at the first one that has it already, so a page costs about one check per entry.
Removing or refreshing a server clears its bit up the ancestors of that server's old nodes (a walk stops at
a node cleared by an earlier walk), then sets it again from its remaining nodes: only that server's nodes
and their ancestors are visited, never other servers' nodes. A mask maps to a cached frozenset.

Sequences handed out (``children``) are never mutated afterwards: a change builds a new list, so a UI may
hold one while pages keep arriving. Removed nodes keep their ``parent`` link (their ``prefix`` still
works); use ``UriTree.attached(node)`` or ``nearest(node.prefix)`` to re-anchor a cursor.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Iterator, Sequence

from explorer.model.entries import ResourceEntry, TemplateEntry
from explorer.model.uri_nodes import (
    Children,
    Counts,
    NodeKids,
    PatternNode,
    UriNode,
    child_order_key,
    natural_sorted,
    sorted_entries,
    sorted_patterns,
    starting_with,
)
from explorer.model.uri_segments import SEPARATOR, TAILS, join_segments, segment_uri, template_place

__all__ = [
    "Counts",
    "PatternNode",
    "UriNode",
    "UriTree",
    "child_order_key",
    "join_segments",
    "natural_sorted",
    "segment_uri",
]


_PRUNE_CHECK_MASK = 1023  # `resource_nodes` looks whether the node it walks was pruned every 1,024 nodes


class UriTree:
    """Resources and templates of several servers merged by URI prefix; see the module docstring."""

    def __init__(self, *, keep_order: bool = True) -> None:
        """`keep_order`: every node's children are kept in natural order page by page, so a view opens a
        node, and a filter walks the tree, without sorting (a wide node: `explorer.model.natural_order`,
        1 to 6 us per child while listing, in order to random); off for a run that reads the order once
        at the end (the CLI)."""
        self.root = UriNode("", None)
        self._keep_order = keep_order
        self.version = 0
        # Per-server index: exactly the nodes holding that server's entry (no duplicates), so removing a
        # server touches only its own nodes. A list of references costs 8 bytes per entry.
        self._res_index: dict[str, list[UriNode]] = {}
        self._tpl_index: dict[str, list[PatternNode]] = {}
        # Server -> bit for the subtree masks (never reused; a server listed again keeps its bit).
        self._bits: dict[str, int] = {}
        self._bit_names: list[str] = []
        self._mask_sets: dict[int, frozenset[str]] = {0: frozenset()}
        self._feeding: dict[NodeKids, None] = {}  # nodes with new children, their order fed after the page

    # ----------------------------------------------------------------------------------- mutation

    def add_resources(self, entries: Iterable[ResourceEntry]) -> int:
        """Insert resources of any servers; returns how many (server, uri) pairs were new."""
        added = 0
        touched = False
        index = self._res_index
        # Pages list siblings together: while a URI is `head + leaf` under the previous parent, skip
        # segmenting and walking, and add the new-URI counts to the ancestors once per run of siblings.
        head = ""
        parent: UriNode | None = None
        run_parent: UriNode | None = None
        run_new = 0
        bit_server: str | None = None
        bit = 0
        nodes: list[UriNode] = []
        children: Children = {}
        kids: NodeKids | None = None
        new_child = self._new_child
        try:
            for entry in entries:
                touched = True
                uri = entry.uri
                server = entry.server
                if parent is not None and uri.startswith(head):
                    leaf = uri[len(head) :]
                    if "/" in leaf or "?" in leaf or "#" in leaf:
                        parent = None
                else:
                    parent = None
                if parent is not None:
                    node = children.get(leaf)
                    if node is None:
                        assert kids is not None
                        node = new_child(parent, kids, leaf)
                        children = kids.children  # sharded past `SHARD_FROM` (keep_order): a new object
                else:
                    segments = segment_uri(uri)
                    node = self._ensure(segments)
                    parent = node.parent
                    last = segments[-1] if segments else ""
                    head = uri[: len(uri) - len(last)]  # ends with "/" unless one of these holds:
                    if parent is None or last.startswith(TAILS) or parent._glues_children():
                        parent = None
                    else:
                        kids = parent._kids
                        assert kids is not None
                        children = kids.children
                res = node._res
                if res is None:
                    node._res = entry
                    if node.parent is not run_parent:
                        self._count_up(run_parent, run_new)
                        run_parent, run_new = node.parent, 0
                    run_new += 1
                elif isinstance(res, ResourceEntry):
                    if res.server == server:
                        node._res = entry
                        continue
                    node._res = {res.server: res, server: entry}
                else:
                    if server in res:
                        res[server] = entry
                        continue
                    res[server] = entry
                added += 1
                if server != bit_server:
                    bit_server, bit = server, self._bit(server)
                    found = index.get(server)
                    nodes = index[server] = [] if found is None else found
                up = node.parent
                if up is not None and not up._kids.mask & bit:  # type: ignore[union-attr]
                    self._mark_up(up, bit)
                nodes.append(node)
        finally:  # even if the iterable fails midway, counts, order and version stay right
            self._count_up(run_parent, run_new)
            self._feed_orders()
            if touched:
                self.version += 1
        return added

    def _bit(self, server: str) -> int:
        bit = self._bits.get(server)
        if bit is None:
            bit = self._bits[server] = 1 << len(self._bit_names)
            self._bit_names.append(server)
        return bit

    @staticmethod
    def _mark_up(node: UriNode | None, bit: int) -> None:
        """Set `bit` in `node`'s mask and its ancestors', up to the first one that has it already."""
        while node is not None:
            kids = node._kids
            assert kids is not None
            if kids.mask & bit:
                return
            kids.mask |= bit
            node = node.parent

    @staticmethod
    def _clear_up(node: UriNode | None, bit: int) -> None:
        """Clear `bit` from `node` up; stops at a node without it (cleared by an earlier walk)."""
        while node is not None:
            kids = node._kids
            if kids is None or not kids.mask & bit:
                return
            kids.mask &= ~bit
            node = node.parent

    def _clear_server_bit(self, server: str) -> None:
        """Clear one server's bit everywhere, walking up from its nodes only (before they are dropped)."""
        bit = self._bits.get(server)
        if bit is None:
            return
        clear = self._clear_up
        for node in self._res_index.get(server, ()):
            up = node.parent
            # Siblings share a parent: after the first one, the check fails here without a call.
            if up is not None and up._kids.mask & bit:  # type: ignore[union-attr]
                clear(up, bit)
        for pattern in self._tpl_index.get(server, ()):
            clear(pattern.parent, bit)

    def _mark_server_bit(self, server: str) -> None:
        """Set one server's bit above each of its nodes (after `_clear_server_bit` and the changes)."""
        bit = self._bits.get(server)
        if bit is None:
            return
        mark = self._mark_up
        for node in self._res_index.get(server, ()):
            up = node.parent
            if up is not None and not up._kids.mask & bit:  # type: ignore[union-attr]
                mark(up, bit)
        for pattern in self._tpl_index.get(server, ()):
            mark(pattern.parent, bit)

    @staticmethod
    def _count_up(node: UriNode | None, new: int) -> None:
        """Add `new` distinct URIs below `node` to it and every ancestor."""
        if not new:
            return
        while node is not None:
            node._kids.below_res += new  # type: ignore[union-attr]
            node = node.parent

    def add_templates(self, entries: Iterable[TemplateEntry]) -> int:
        """Insert templates of any servers; returns how many (server, template text) pairs were new."""
        added = 0
        touched = False
        try:
            for entry in entries:
                touched = True
                server = entry.server
                segments, label = template_place(entry.uri_template)
                parent = self._ensure(segments)
                kids = parent._kids
                if kids is None:
                    kids = parent._kids = NodeKids()
                if kids.patterns is None:
                    kids.patterns = {}
                text = entry.uri_template
                pattern = kids.patterns.get(text)
                if pattern is None:
                    pattern = kids.patterns[text] = PatternNode(label, parent, text)
                    ancestor: UriNode | None = parent
                    while ancestor is not None:
                        ancestor._kids.below_tpl += 1  # type: ignore[union-attr]
                        ancestor = ancestor.parent
                is_new = server not in pattern._tpl
                pattern._tpl[server] = entry
                if is_new:
                    added += 1
                    self._mark_up(parent, self._bit(server))
                    self._tpl_index.setdefault(server, []).append(pattern)
        finally:
            self._feed_orders()
            if touched:
                self.version += 1
        return added

    def remove_server(self, server: str) -> None:
        """Drop everything one server listed; nodes left empty are pruned."""
        self._clear_server_bit(server)
        nodes = self._res_index.pop(server, None)
        patterns = self._tpl_index.pop(server, None)
        for node in nodes or ():
            self._drop_resource(node, server)
        for pattern in patterns or ():
            self._drop_template(pattern, server)
        if nodes or patterns:
            self.version += 1

    def replace_server(
        self, server: str, resources: Iterable[ResourceEntry], templates: Iterable[TemplateEntry]
    ) -> None:
        """Replace one server's whole listing (a refresh) in one step; unchanged URIs keep their nodes."""
        new_res: dict[str, ResourceEntry] = {}
        for entry in resources:
            if entry.server != server:
                raise ValueError(f"entry of server {entry.server!r} in a refresh of {server!r}")
            new_res[entry.uri] = entry
        new_tpl: dict[str, TemplateEntry] = {}
        for template in templates:
            if template.server != server:
                raise ValueError(f"template of server {template.server!r} in a refresh of {server!r}")
            new_tpl[template.uri_template] = template
        version = self.version
        self._clear_server_bit(server)  # set again from what stays, once the listing is replaced
        kept: list[UriNode] = []
        dropped: list[UriNode] = []
        for node in self._res_index.pop(server, ()):
            uri = node.resources[server].uri
            (kept if uri in new_res else dropped).append(node)
        if kept:
            self._res_index[server] = kept
        kept_tpl: list[PatternNode] = []
        dropped_tpl: list[PatternNode] = []
        for pattern in self._tpl_index.pop(server, ()):
            (kept_tpl if pattern.uri_template in new_tpl else dropped_tpl).append(pattern)
        if kept_tpl:
            self._tpl_index[server] = kept_tpl
        # Insert first, then drop: a node that stays populated is never pruned and re-created.
        self.add_resources(new_res.values())
        self.add_templates(new_tpl.values())
        for node in dropped:
            self._drop_resource(node, server)
        for pattern in dropped_tpl:
            self._drop_template(pattern, server)
        self._mark_server_bit(server)
        self.version = version + 1

    def _ensure(self, segments: Iterable[str]) -> UriNode:
        node = self.root
        for segment in segments:
            kids = node._kids
            if kids is None:
                kids = node._kids = NodeKids()
            child = kids.children.get(segment)
            node = self._new_child(node, kids, segment) if child is None else child
        return node

    def _new_child(self, parent: UriNode, kids: NodeKids, segment: str) -> UriNode:
        child = UriNode(segment, parent)
        kids.add_child(child, self._keep_order)
        if self._keep_order:
            self._feeding[kids] = None
        return child

    def _feed_orders(self) -> None:
        """After a page: the nodes that got children bring their order up to date (`NodeKids.feed_order`)."""
        feeding = self._feeding
        while feeding:
            feeding.popitem()[0].feed_order()

    def _drop_resource(self, node: UriNode, server: str) -> None:
        res = node._res
        if isinstance(res, dict):
            res.pop(server, None)
            if len(res) == 1:
                node._res = next(iter(res.values()))
            return
        if res is None or res.server != server:
            return
        node._res = None
        ancestor = node.parent
        while ancestor is not None:
            ancestor._kids.below_res -= 1  # type: ignore[union-attr]
            ancestor = ancestor.parent
        self._prune(node)

    def _drop_template(self, pattern: PatternNode, server: str) -> None:
        if pattern._tpl.pop(server, None) is None or pattern._tpl:
            return
        parent = pattern.parent
        kids = parent._kids
        assert kids is not None and kids.patterns is not None
        del kids.patterns[pattern.uri_template]
        if not kids.patterns:
            kids.patterns = None
        ancestor: UriNode | None = parent
        while ancestor is not None:
            ancestor._kids.below_tpl -= 1  # type: ignore[union-attr]
            ancestor = ancestor.parent
        self._prune(parent)

    def _prune(self, node: UriNode) -> None:
        """Detach empty nodes bottom-up; the `NodeKids` go once there are no children or patterns."""
        while True:
            kids = node._kids
            if kids is not None and not kids.children and not kids.patterns:
                node._kids = kids = None
            parent = node.parent
            if parent is None or node._res is not None or kids is not None:
                return
            parent_kids = parent._kids
            assert parent_kids is not None
            parent_kids.drop_child(node)
            node = parent

    # ------------------------------------------------------------------------------------- lookup

    def node_for(self, prefix: str) -> UriNode | None:
        """The node whose segments are exactly `segment_uri(prefix)`, if it exists."""
        node: UriNode | None = self.root
        for segment in segment_uri(prefix):
            assert node is not None
            node = node.child(segment)
            if node is None:
                return None
        return node

    def nearest(self, prefix_or_uri: str) -> UriNode:
        """Deepest existing node reached by whole segments of the string (root if none matches)."""
        node = self.root
        for segment in segment_uri(prefix_or_uri):
            child = node.child(segment)
            if child is None:
                break
            node = child
        return node

    def attached(self, node: UriNode) -> bool:
        """Whether a node (maybe held by the UI across mutations) is still part of this tree."""
        while node.parent is not None:
            if node.parent.child(node.segment) is not node:
                return False
            node = node.parent
        return node is self.root

    def children(self, node: UriNode) -> Sequence[UriNode]:
        """Concrete children sorted by segment (cached; a new list after changes, never mutated)."""
        return () if node._kids is None else node._kids.sorted_children()

    def children_starting_with(self, node: UriNode, text: str) -> Sequence[UriNode]:
        """Children whose segment string-starts with `text`, in natural order; O(log n + k) (a text with
        digits: the matches are sorted, as natural order does not keep them together)."""
        return () if node._kids is None else starting_with(node._kids.sorted_children(), text)

    def patterns(self, node: UriNode) -> Sequence[PatternNode]:
        """Pattern (template) children sorted by label."""
        return sorted_patterns(node)

    def chain_end(self, node: UriNode) -> UriNode:
        """Follow nodes with exactly one child and nothing of their own, so a chain renders as one row."""
        while node._res is None:
            kids = node._kids
            if kids is None or kids.patterns or len(kids.children) != 1:
                break
            node = next(iter(kids.children.values()))
        return node

    def chain_label(self, node: UriNode) -> str:
        """Exact text from `node`'s segment to its chain end, e.g. ``src/explorer/model``."""
        end = self.chain_end(node)
        if end is node:
            return node.segment
        return end.prefix[len(node.prefix) - len(node.segment) :]

    def servers(self, node: UriNode | PatternNode) -> frozenset[str]:
        """Servers of the node's own resources and of its pattern children (not the whole subtree)."""
        if isinstance(node, PatternNode):
            return frozenset(node._tpl)
        found = set(node.resources)
        for pattern in sorted_patterns(node):
            found.update(pattern._tpl)
        return frozenset(found)

    def subtree_servers(self, node: UriNode | PatternNode) -> frozenset[str]:
        """Servers with a resource or template at or below `node` (a pattern: its own servers). O(1)."""
        if isinstance(node, PatternNode):
            return frozenset(node._tpl)
        kids = node._kids
        mask = 0 if kids is None else kids.mask
        res = node._res
        if res is not None:
            bits = self._bits
            if isinstance(res, ResourceEntry):
                mask |= bits[res.server]
            else:
                for server in res:
                    mask |= bits[server]
        found = self._mask_sets.get(mask)
        if found is None:
            names = self._bit_names
            found = frozenset(names[i] for i in range(mask.bit_length()) if mask >> i & 1)
            if len(self._mask_sets) >= 4096:  # many servers: keep the cache bounded
                self._mask_sets = {0: frozenset()}
            self._mask_sets[mask] = found
        return found

    def pattern_for(self, uri_template: str) -> PatternNode | None:
        """The pattern node of a template text, if some server lists it. O(depth)."""
        segments, _ = template_place(uri_template)
        node: UriNode | None = self.root
        for segment in segments:
            assert node is not None
            node = node.child(segment)
            if node is None:
                return None
        assert node is not None
        return node.pattern_of(uri_template)

    def server_counts(self, server: str) -> Counts:
        """How many URIs and templates one server currently lists."""
        return Counts(len(self._res_index.get(server, ())), len(self._tpl_index.get(server, ())))

    def known_servers(self) -> frozenset[str]:
        return frozenset(self._res_index) | frozenset(self._tpl_index)

    # ------------------------------------------------------------------------------- prefix ranges

    def _descend(self, prefix: str, *, wholes: bool = True) -> tuple[list[UriNode], list[UriNode]]:
        """Nodes whose prefix is a proper string prefix of `prefix` (visited, at most a few per level),
        and nodes whose prefix starts with `prefix` (whole subtrees match; not looked for when `wholes` is
        False: they may be 10^6 children); nothing else is looked at."""
        if not prefix:
            return [], [self.root]
        visited: list[UriNode] = []
        whole: list[UriNode] = []
        stack: list[tuple[UriNode, int]] = [(self.root, 0)]
        while stack:
            node, length = stack.pop()
            visited.append(node)
            kids = node._kids
            if kids is None or not kids.children:
                continue
            rest = prefix[length:]
            tails_only = False
            glued = node._glues_children()
            if glued:
                offset, wanted = length, rest
            elif rest[0] == "/":
                offset, wanted = length + 1, rest[1:]
            elif rest[0] in TAILS:
                offset, wanted = length, rest  # only ?/# children (leaves) can match
                tails_only = True
            else:
                continue
            # A child to descend into ends where `wanted` goes on past it with a separator. Only the first
            # separator can qualify, as segments hold none (tails are leaves), but for the first segment
            # below the root or a scheme, which starts with its "/" (`segment_uri`: ``file:///etc``); a
            # scheme child of the root ("x:" or "x://") may be followed by anything.
            cuts: set[int] = set()
            separator = SEPARATOR.search(wanted, 1 if glued and wanted.startswith("/") else 0)
            if separator is not None and not tails_only:
                cuts.add(separator.start())
            if node.parent is None:
                colon = wanted.find(":")
                if colon >= 0:
                    cuts.add(colon + 1)
                    if wanted.startswith("//", colon + 1):
                        cuts.add(colon + 3)
            # Below a plain node a ?/# child is glued on (no "/"), so it only matches a ?/# prefix.
            if not wholes or (offset != length and wanted.startswith(TAILS)):
                matched: Sequence[UriNode] = ()
            else:
                matched = starting_with(kids.sorted_children(), wanted)  # in display order
                if offset != length and not wanted:
                    matched = [child for child in matched if not child.segment.startswith(TAILS)]
            whole.extend(matched)
            for cut in cuts:
                if cut < len(wanted):
                    inner = kids.children.get(wanted[:cut])  # ends before a separator, so never a ?/# leaf
                    if inner is not None:
                        stack.append((inner, offset + cut))
        return visited, whole

    def nodes_leading_to(self, prefix: str) -> list[UriNode]:
        """Nodes whose text is a proper string prefix of `prefix` (a few per level): where every template
        that can expand to URIs under `prefix` hangs (`s:` as well as `s://` at the top)."""
        return self._descend(prefix, wholes=False)[0] if prefix else []

    def resources_under(self, prefix: str) -> Iterator[ResourceEntry]:
        """Every entry (each server) whose URI starts with `prefix`, in tree order."""
        _, whole = self._descend(prefix)
        for top in whole:
            for node in self._resource_nodes(top):
                yield from sorted_entries(node)

    def resource_nodes(self, pruned: Container[UriNode] = frozenset()) -> Iterator[UriNode]:
        """Every node that holds a resource, in tree order (a scan that needs the node of an entry it
        matched gets it here instead of looking its URI up again), except below the nodes in `pruned`,
        which may grow while the walk goes on (a filter's matched subtrees, found meanwhile). Safe in
        another thread while pages are merged: it reads the order as of the last page
        (`children_as_ordered`) and changes nothing. Lazy: a node's children are taken one at a time, so
        the first nodes come at once even below a node of 10^6 children."""
        stack: list[tuple[UriNode | None, Iterator[UriNode]]] = [(None, iter((self.root,)))]
        while stack:
            parent, walking = stack.pop()
            if parent is not None and parent in pruned:
                continue
            seen = 0
            for node in walking:
                kids = node._kids
                if kids is None:  # a leaf (most nodes): it holds a resource, but for one met in the middle
                    # of a change in another thread (its `entries` are then empty): no test of its own
                    yield node
                    seen += 1
                    if not seen & _PRUNE_CHECK_MASK and parent is not None and parent in pruned:
                        break  # pruned meanwhile (the caller's other work runs while this one waits)
                    continue
                if node._res is not None:
                    yield node
                if kids.below_res and node not in pruned:
                    stack.append((parent, walking))  # the rest of them after this node's subtree
                    stack.append((node, iter(kids.children_as_ordered())))
                    break

    @staticmethod
    def _resource_nodes(top: UriNode) -> Iterator[UriNode]:
        stack = [top]
        while stack:
            node = stack.pop()
            if node._res is not None:
                yield node
            kids = node._kids
            if kids is not None and kids.below_res:
                stack.extend(reversed(kids.sorted_children()))

    def children_as_ordered(self, node: UriNode) -> Sequence[UriNode]:
        """`children` for a reader in another thread (a filter scan) while pages are merged: the order as
        of the last page, changing no cache (`NodeKids.children_as_ordered`)."""
        return () if node._kids is None else node._kids.children_as_ordered()

    def templates_under(self, prefix: str) -> Iterator[TemplateEntry]:
        """Every template entry whose text starts with `prefix`, its literal prefix written as expansions
        write it (`PatternNode.placed_text`: ``t://a b/{x}`` is under ``t://a%20b/``, where it sits)."""
        return self._templates(prefix, literal_match=False)

    def templates_for(self, prefix: str) -> Iterator[TemplateEntry]:
        """Templates whose text starts with `prefix` or whose literal prefix is a prefix of it (CLI rule),
        both as expansions write them (see `templates_under`)."""
        return self._templates(prefix, literal_match=True)

    def _templates(self, prefix: str, literal_match: bool) -> Iterator[TemplateEntry]:
        visited, whole = self._descend(prefix)
        for node in visited:
            for pattern in sorted_patterns(node):
                text = pattern.placed_text
                if text.startswith(prefix) or (literal_match and prefix.startswith(pattern.literal_prefix)):
                    yield from (pattern._tpl[server] for server in sorted(pattern._tpl))
        for top in whole:
            for pattern in self._patterns_in(top):
                yield from (pattern._tpl[server] for server in sorted(pattern._tpl))

    def _patterns_in(self, top: UriNode) -> Iterator[PatternNode]:
        stack = [top]
        while stack:
            node = stack.pop()
            kids = node._kids
            if kids is None or not kids.below_tpl:
                continue
            yield from sorted_patterns(node)
            stack.extend(reversed(kids.sorted_children()))

    def count_under(self, prefix: str) -> Counts:
        """Counts of what `resources_under`/`templates_under` yield, from the stored subtree counts: cost is
        O(depth) plus one per sibling whose segment starts with the same text (`d1` also takes `d10`)."""
        visited, whole = self._descend(prefix)
        resources = sum(node.resource_count for node in whole)
        templates = sum(node.template_count for node in whole)
        for node in visited:
            kids = node._kids
            if kids is not None and kids.patterns:
                templates += sum(1 for p in kids.patterns.values() if p.placed_text.startswith(prefix))
        return Counts(resources, templates)
