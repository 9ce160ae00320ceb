"""What a server lists, as plain frozen records the core and the UI share.

`raw` gives the item exactly as the server sent it (the wire JSON object), so JSON output and the
detail pane show every field, including ones this version of the SDK does not know.

A listing may hold a million resources, so `ResourceEntry` keeps what is read all the time (`uri`, `name`,
`mimeType`) as attributes and the rest compactly: an item with nothing else keeps only the order of its
keys (one tuple shared by all such entries), any other item is kept as its compact JSON bytes and decoded
when `raw` is asked for. That costs about a third of a dict per entry, and the values round-trip exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import permutations
from typing import Any, NamedTuple

import orjson

_PLAIN_KEYS = ("uri", "name", "mimeType")
# Every key order of an item with only plain keys (uri and name always, mimeType maybe): the item is
# then rebuilt from the attributes. The tuples are shared, so such an entry keeps 8 bytes for it.
_SHAPES: dict[tuple[str, ...], tuple[str, ...]] = {
    order: order for size in (2, 3) for order in permutations(_PLAIN_KEYS[:size])
}
_MIME_CACHE: dict[str, str] = {}  # a million entries share a handful of MIME type strings
_MIME_CACHE_LIMIT = 4096


def _shared_mime(value: str) -> str:
    found = _MIME_CACHE.get(value)
    if found is not None:
        return found
    if len(_MIME_CACHE) < _MIME_CACHE_LIMIT:
        _MIME_CACHE[value] = value
    return value


class _ResourceFields(NamedTuple):
    server: str
    uri: str
    name: str
    mime_type: str | None
    rest: tuple[str, ...] | bytes | dict[str, Any]  # key order, JSON bytes, or the dict (not JSON)


class ResourceEntry(_ResourceFields):
    """One resource as listed by one server; compares and hashes by (server, uri, name), never `raw`.

    A tuple underneath (immutable, and made in one step: a million are made per listing); `rest` is the
    compact form of the item's other fields (see the module docstring), read through `raw` and `get`.
    """

    __slots__ = ()

    def __new__(cls, server: str, uri: str, name: str, raw: dict[str, Any] | None = None) -> ResourceEntry:
        item = raw if raw is not None else {}
        mime = item.get("mimeType")
        shared = _shared_mime(mime) if isinstance(mime, str) else None
        entry: ResourceEntry = _make(cls, (server, uri, name, shared, _compact(item, uri, name)))
        return entry

    @classmethod
    def listed(cls, server: str, item: dict[str, Any]) -> ResourceEntry:
        """An entry from a checked wire item (`uri` and `name` strings, `mimeType` absent or a string)."""
        uri = item["uri"]
        name = item["name"]
        mime = item.get("mimeType")
        shape = _SHAPES.get(tuple(item))
        rest = shape if shape is not None else _compact(item, uri, name)
        return plain_entry(server, uri, name, _shared_mime(mime) if mime is not None else None, rest)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ResourceEntry):
            return NotImplemented
        return self[:3] == other[:3]

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, ResourceEntry):
            return NotImplemented
        return self[:3] != other[:3]

    def __hash__(self) -> int:
        return hash(self[:3])

    def __repr__(self) -> str:
        return f"ResourceEntry(server={self.server!r}, uri={self.uri!r}, name={self.name!r})"

    def __getnewargs__(self) -> tuple[Any, ...]:  # copies and pickles go through `__new__`
        return (self.server, self.uri, self.name, self.raw)

    @property
    def raw(self) -> dict[str, Any]:
        """The item as the server sent it (a new dict on each call, except for items that are not JSON)."""
        rest = self.rest
        if isinstance(rest, tuple):
            values = {"uri": self.uri, "name": self.name, "mimeType": self.mime_type}
            return {key: values[key] for key in rest}
        if isinstance(rest, bytes):
            decoded: dict[str, Any] = orjson.loads(rest)
            return decoded
        return rest

    @property
    def has_extra(self) -> bool:
        """Whether the item has fields besides `uri`, `name` and `mimeType` (cheap: nothing is decoded)."""
        return not isinstance(self.rest, tuple)

    def get(self, key: str) -> Any:
        """One field of the item (None when absent); plain items answer without decoding anything."""
        rest = self.rest
        if isinstance(rest, tuple):
            if key not in rest:
                return None
            return self.uri if key == "uri" else self.name if key == "name" else self.mime_type
        return self.raw.get(key)

    @property
    def title(self) -> str | None:
        rest = self.rest
        if isinstance(rest, tuple):  # a plain item has no title
            return None
        if isinstance(rest, bytes) and b'"title"' not in rest:  # compact JSON writes a key as it is
            return None
        value = self.raw.get("title")
        return value if isinstance(value, str) else None


_make: Any = tuple.__new__


def plain_entry(
    server: str,
    uri: str,
    name: str,
    mime_type: str | None,
    rest: tuple[str, ...] | bytes | dict[str, Any],
) -> ResourceEntry:
    """An entry from parts already checked and compacted: `rest` is a key order from `plain_shape`, or
    what `_compact` made (the listing's hot path: a million calls)."""
    entry: ResourceEntry = _make(ResourceEntry, (server, uri, name, mime_type, rest))
    return entry


def plain_shape(item: dict[str, Any]) -> tuple[str, ...] | None:
    """The shared key order of an item whose keys are only `uri`, `name` and maybe `mimeType`, else None.

    With such a shape, `plain_entry` needs only the values checked (strings; `mimeType` may be null)."""
    return _SHAPES.get(tuple(item))


def shared_mime(value: str) -> str:
    """The one string object kept for this MIME type (a million entries share a handful)."""
    return _MIME_CACHE.get(value) or _shared_mime(value)


def _compact(item: dict[str, Any], uri: str, name: str) -> tuple[str, ...] | bytes | dict[str, Any]:
    """The smallest exact form of an item: its key order, its JSON bytes, or itself (not plain JSON)."""
    shape = _SHAPES.get(tuple(item))
    if (
        (shape is not None or not item)
        and item.get("uri", uri) == uri
        and item.get("name", name) == name
        and isinstance(item.get("mimeType", ""), str)
    ):
        return shape if shape is not None else ()
    try:
        encoded = orjson.dumps(item)
    except (TypeError, orjson.JSONEncodeError):  # big integers, lone surrogates, non-JSON test values
        return item
    # orjson hands back its (4 KiB) working buffer: a copy of the exact size is what is worth keeping.
    return bytes(memoryview(encoded))


@dataclass(frozen=True, slots=True)
class TemplateEntry:
    """One resource template as listed by one server."""

    server: str
    uri_template: str
    name: str
    raw: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def literal_prefix(self) -> str:
        """The text before the first `{` as every expansion writes it (``a b/{x}`` -> ``a%20b/``): where
        the template sits in the URI tree, and what a URI is compared with."""
        # Here, not at the top: the templates package imports this module.
        from explorer.model.uri_segments import template_literal_prefix

        return template_literal_prefix(self.uri_template)


@dataclass(frozen=True, slots=True)
class PromptEntry:
    """One prompt as listed by one server (arguments stay in `raw`, parsed where they are shown)."""

    server: str
    name: str
    raw: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class ToolEntry:
    """One tool as listed by one server: shown (name, description, input schema), never called."""

    server: str
    name: str
    raw: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def title(self) -> str | None:
        value = self.raw.get("title")
        if not isinstance(value, str):
            annotations = self.raw.get("annotations")
            value = annotations.get("title") if isinstance(annotations, dict) else None
        return value if isinstance(value, str) else None
