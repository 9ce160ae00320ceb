"""Entries as the tests build them: one resource or template, with the fields a server would list.

The model tests (tree, filter, rows, catalogue, resolve, widget) all need a quick way to make a
`ResourceEntry` or a `TemplateEntry`; these are that way, shared, so a change to the entries' shape is
made once.
"""

from __future__ import annotations

from explorer.model.entries import ResourceEntry, TemplateEntry

__all__ = ["last_segment", "res", "tpl"]


def last_segment(uri: str) -> str:
    """What comes after the URI's last `/` (the name a file-like resource usually has)."""
    return uri.rsplit("/", 1)[-1]


def res(server: str, uri: str, name: str = "", *, listed: bool = False, **fields: object) -> ResourceEntry:
    """A resource of `server`; its name defaults to the URI's last segment (the whole URI if that is empty).

    With `listed=True` or any `fields` (title, mimeType, size, ...), the entry also keeps the item as a
    server lists it: `uri`, `name` and the fields, in that order.
    """
    name = name or last_segment(uri) or uri
    if not listed and not fields:
        return ResourceEntry(server, uri, name)
    return ResourceEntry(server, uri, name, {"uri": uri, "name": name, **fields})


def tpl(server: str, text: str, name: str = "", *, listed: bool = False) -> TemplateEntry:
    """A resource template of `server`; its name defaults to the template text.

    With `listed=True` the entry keeps the item as a server lists it (`{"uriTemplate": text}`).
    """
    return TemplateEntry(server, text, name or text, {"uriTemplate": text} if listed else {})
