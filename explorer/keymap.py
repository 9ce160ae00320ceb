"""The `[keymap]` table of the config file: binding id -> keys, checked before it reaches Textual.

Every binding in the explorer has an `id` (`Binding("slash", "filter", id="tree.filter")`). The config
can give an id other keys::

    [keymap]
    "tree.filter" = "slash,ctrl+f"

The value is what Textual's `App.set_keymap` takes: keys separated by commas, each key an optional chain
of modifiers (`ctrl`, `shift`, `alt`, `meta`, `super`, `hyper`) joined by `+` to one key, which is a
single character (`x`, `/`) or a lower-case key name (`f1`, `pageup`, `slash`, `question_mark`). A comma
or plus key is written by name (`comma`, `plus`). Keys replace the binding's defaults; they do not add to
them.

`validate_keymap` keeps the usable entries (normalized: single punctuation characters become their key
names, as Textual names the keys it reports) and returns one warning per entry it dropped. The App then
calls `self.set_keymap(keymap)` and shows the warnings.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Collection, Iterable, Mapping

from textual.binding import Binding
from textual.dom import DOMNode
from textual.keys import KEY_NAME_REPLACEMENTS

__all__ = [
    "MODIFIERS",
    "KeyStringError",
    "binding_ids",
    "binding_owners",
    "explorer_bindings",
    "normalize_keys",
    "validate_keymap",
]

MODIFIERS = ("ctrl", "shift", "alt", "meta", "super", "hyper")
"""The modifier names Textual uses in key strings."""

_KEY_NAME = re.compile(r"[a-z0-9_]+")
_MAX_IDS_SHOWN = 3


class KeyStringError(ValueError):
    """A key string that cannot be bound; the message says why (a clause, not a sentence)."""


def validate_keymap(
    keymap: Mapping[str, str], known_ids: Collection[str]
) -> tuple[dict[str, str], list[str]]:
    """Split a `[keymap]` table into the entries Textual can use and one warning per dropped entry.

    An entry is dropped when its id is not in `known_ids` or its key string is malformed (empty, an
    empty key between commas, whitespace inside a key, an unknown or repeated modifier, a key name that
    is not lower case). The kept values are normalized key strings for `App.set_keymap`.
    Two ids given the same key are kept (Textual reports the clash) but warned about.
    """
    usable: dict[str, str] = {}
    warnings: list[str] = []
    owner: dict[str, str] = {}
    for binding_id, keys in keymap.items():
        if binding_id not in known_ids:
            warnings.append(
                f"keymap: {binding_id!r} is not a binding id{_suggestion(binding_id, known_ids)}."
            )
            continue
        try:
            normalized = normalize_keys(keys)
        except KeyStringError as error:
            warnings.append(f"keymap: {binding_id!r} = {keys!r} is not usable: {error}.")
            continue
        usable[binding_id] = normalized
        for key in normalized.split(","):
            if key in owner and owner[key] != binding_id:
                warnings.append(f"keymap: key {key!r} is given to both {owner[key]!r} and {binding_id!r}.")
            owner.setdefault(key, binding_id)
    return usable, warnings


def normalize_keys(keys: str) -> str:
    """Check a comma-separated key string and return it in the form Textual matches key events against.

    Raises `KeyStringError` (a `ValueError` whose message is the reason) when the string is malformed.
    """
    if not keys.strip():
        raise KeyStringError("no keys given")
    return ",".join(_normalize_key(key.strip()) for key in keys.split(","))


def _normalize_key(key: str) -> str:
    if not key:
        raise KeyStringError('one of the comma-separated keys is empty (write a comma key as "comma")')
    if any(character.isspace() for character in key):
        raise KeyStringError(f'{key!r} has whitespace inside it (write "ctrl+f", not "ctrl + f")')
    if not key.isprintable():
        raise KeyStringError(f"{key!r} holds a control character")
    *modifiers, name = key.split("+")
    if not name or any(not modifier for modifier in modifiers):
        raise KeyStringError(f'{key!r} has an empty part between "+" signs (write a plus key as "plus")')
    for modifier in modifiers:
        if modifier not in MODIFIERS:
            raise KeyStringError(f"{modifier!r} in {key!r} is not a modifier (use {', '.join(MODIFIERS)})")
    if len(set(modifiers)) != len(modifiers):
        raise KeyStringError(f"{key!r} repeats a modifier")
    if len(name) == 1:
        name = _character_key(name)
    elif not _KEY_NAME.fullmatch(name):
        raise KeyStringError(f"{name!r} is not a lower-case key name such as f1 or pageup")
    return "+".join([*modifiers, name])


def _character_key(character: str) -> str:
    """The name Textual gives a key that types `character` (letters and digits are their own names)."""
    if character.isalnum():
        return character
    try:
        name = unicodedata.name(character).lower().replace("-", "_").replace(" ", "_")
    except ValueError:
        return character
    return KEY_NAME_REPLACEMENTS.get(name, name)


def _suggestion(binding_id: str, known_ids: Collection[str]) -> str:
    close = difflib.get_close_matches(binding_id, list(known_ids), n=_MAX_IDS_SHOWN)
    if close:
        return " (did you mean " + " or ".join(repr(candidate) for candidate in close) + "?)"
    return ""


_UI_PACKAGES = ("explorer.screens", "explorer.widgets")


def binding_owners() -> list[type[DOMNode]]:
    """Every class of the explorer's UI that declares bindings: found, not listed by hand.

    Imports every module of the screens and widgets packages, then walks the subclasses of `DOMNode`
    defined in the `explorer` package, so a new screen's bindings can be remapped the day it is added.
    """
    import importlib
    import pkgutil

    for package_name in _UI_PACKAGES:
        package = importlib.import_module(package_name)
        for module in pkgutil.walk_packages(package.__path__, package_name + "."):
            importlib.import_module(module.name)
    importlib.import_module("explorer.app")
    found: list[type[DOMNode]] = []
    pending: list[type[DOMNode]] = [DOMNode]
    seen: set[type[DOMNode]] = set()
    while pending:
        cls = pending.pop()
        for sub in cls.__subclasses__():
            if sub in seen:
                continue
            seen.add(sub)
            pending.append(sub)
            if sub.__module__.startswith("explorer.") and "BINDINGS" in sub.__dict__:
                found.append(sub)
    return sorted(found, key=lambda cls: (cls.__module__, cls.__qualname__))


def explorer_bindings() -> list[tuple[str, str, str]]:
    """`(binding id, default keys, description)` of every explorer binding, sorted by id (for docs)."""
    keys: dict[str, list[str]] = {}
    descriptions: dict[str, str] = {}
    for owner in binding_owners():
        for binding in Binding.make_bindings(owner.__dict__.get("BINDINGS", ())):
            if binding.id:
                keys.setdefault(binding.id, [])
                if binding.key not in keys[binding.id]:
                    keys[binding.id].append(binding.key)
                descriptions.setdefault(binding.id, binding.description)
    return [(ident, ",".join(keys[ident]), descriptions[ident]) for ident in sorted(keys)]


def binding_ids(node_types: Iterable[type[DOMNode]]) -> set[str]:
    """Every binding id declared in the `BINDINGS` of these classes and the classes they inherit from."""
    ids: set[str] = set()
    for node_type in node_types:
        for cls in node_type.__mro__:
            declared = cls.__dict__.get("BINDINGS", ())
            for binding in Binding.make_bindings(declared):
                if binding.id:
                    ids.add(binding.id)
    return ids
