"""What makes a listed item usable: the checks every page's items pass, and entries made from them.

Why a module of its own: discovery decides *when* to ask and how far to go; these rules decide what one
item is worth, and they are the same for every transport and both eras. One malformed item costs that
item only (the reason is kept for the listing's health); a wrong optional field is a problem, an unknown
one is kept.
"""

from __future__ import annotations

from typing import Any

from explorer.model.entries import PromptEntry, TemplateEntry, ToolEntry
from explorer.model.listing import Kind, Page

__all__ = ["ITEM_KEYS", "item_problem", "page_of"]

ITEM_KEYS: dict[Kind, str] = {
    "resources": "uri",
    "templates": "uriTemplate",
    "prompts": "name",
    "tools": "name",
}
"""The field that names an item of each list (duplicates are found by it)."""


def page_of(server: str, kind: Kind, number: int, items: list[Any], skipped: int, duplicates: int) -> Page:
    """A page of checked templates, prompts or tools as entries (resources have a fast path of their own)."""
    if kind == "templates":
        templates = tuple(TemplateEntry(server, i["uriTemplate"], i["name"], i) for i in items)
        return Page(server, kind, number, templates=templates, skipped=skipped, duplicates=duplicates)
    if kind == "prompts":
        prompts = tuple(PromptEntry(server, i["name"], i) for i in items)
        return Page(server, kind, number, prompts=prompts, skipped=skipped, duplicates=duplicates)
    tools = tuple(ToolEntry(server, i["name"], i) for i in items)
    return Page(server, kind, number, tools=tools, skipped=skipped, duplicates=duplicates)


_OPTIONAL_STRINGS: dict[Kind, tuple[str, ...]] = {
    "resources": ("title", "description", "mimeType"),
    "templates": ("title", "description", "mimeType"),
    # Prompts and tools keep odd fields: what reads them says what is wrong (a prompt's arguments, say).
    "prompts": (),
    "tools": (),
}


def item_problem(kind: Kind, item: object) -> str | None:
    """Why an item cannot be used, or None."""
    if not isinstance(item, dict):
        return f"not an object ({type(item).__name__})"
    key = ITEM_KEYS[kind]
    if not isinstance(item.get(key), str):
        return f"'{key}' missing or not a string"
    if key != "name" and not item[key]:
        return f"'{key}' is empty"  # a URI of nothing: no place in the tree, nothing to read
    if key != "name" and not isinstance(item.get("name"), str):
        return "'name' missing or not a string"
    for optional in _OPTIONAL_STRINGS[kind]:
        value = item.get(optional)
        if value is not None and not isinstance(value, str):
            return f"'{optional}' is not a string"
    if kind == "resources":
        size = item.get("size")
        if size is not None and (not isinstance(size, int) or isinstance(size, bool)):
            return "'size' is not an integer"
    annotations = item.get("annotations")
    if annotations is not None and not isinstance(annotations, dict):
        return "'annotations' is not an object"
    return None
