"""The `[keymap]` table of the config file: binding id -> keys, checked before it reaches Textual.

Every binding in the explorer has an `id` (`Binding("slash", "filter", id="tree.filter")`). The config
can give an id other keys::

    [keymap]
    "tree.filter" = "slash,ctrl+f"

The value is what Textual's `App.set_keymap` takes: keys separated by commas, each key an optional chain
of modifiers (`ctrl`, `shift`, `alt`, `meta`, `super`, `hyper`) joined by `+` to one key, which is a
single character (`x`, `/`) or a lower-case name of a key Textual reports (`f1`, `pageup`, `escape`,
`slash`, `question_mark`; `KEY_NAMES`). A comma or plus key is written by name (`comma`, `plus`). A name
Textual never reports (`esc`, `del`, `ctrl+G`) would leave the binding with a key that never comes: it is
refused, with the right name when it is a common alias. Keys replace the binding's defaults; they do not
add to them.

`validate_keymap` keeps the usable entries (normalized: single punctuation characters become their key
names, as Textual names the keys it reports) and returns one warning per entry it dropped (naming every
bad key of it), and one per key that an entry takes from another binding active with it
(`binding_scopes`). An entry with a key that Textual takes before any screen (`held_keys`: `ctrl+q`,
quit; `ctrl+p`, the palette) is dropped too, since its binding would never run. The App then calls
`self.set_keymap(keymap)` and shows the warnings.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Collection, Iterable, Mapping
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from textual.binding import Binding
from textual.dom import DOMNode
from textual.keys import (
    KEY_ALIASES,
    KEY_DISPLAY_ALIASES,
    KEY_NAME_REPLACEMENTS,
    KEY_TO_UNICODE_NAME,
    REPLACED_KEYS,
    Keys,
)

if TYPE_CHECKING:
    from textual.app import App

__all__ = [
    "KEY_NAMES",
    "MODIFIERS",
    "KeyStringError",
    "binding_ids",
    "binding_owners",
    "binding_scopes",
    "explorer_bindings",
    "held_keys",
    "normalize_keys",
    "validate_keymap",
]

MODIFIERS = ("ctrl", "shift", "alt", "meta", "super", "hyper")
"""The modifier names Textual uses in key strings."""

_KEY_NAME = re.compile(r"[a-z0-9_]+")
_MAX_IDS_SHOWN = 3

# Names the kitty keyboard protocol adds (textual/_keyboard_protocol.py `FUNCTIONAL_KEYS`, Textual 8.2.8;
# a private module, so copied here): keys a terminal speaking that protocol reports by these names.
_KITTY_NAMES = (  # noqa: SIM905 (a list of 41 names, one a line, would be longer than the module's logic)
    "caps_lock scroll_lock num_lock print_screen pause menu decimal divide multiply subtract add equal "
    "separator kp_begin media_play media_pause media_play_pause media_reverse media_stop "
    "media_fast_forward media_rewind media_track_next media_track_previous media_record lower_volume "
    "raise_volume mute_volume left_shift left_control left_alt left_super left_hyper left_meta "
    "right_shift right_control right_alt right_super right_hyper right_meta iso_level3_shift "
    "iso_level5_shift"
).split()
_NEVER_REPORTED = frozenset({"return"})  # a `Keys` member, but a terminal's Return key comes as `enter`


def _named_keys() -> frozenset[str]:
    names: set[str] = {f"f{number}" for number in range(1, 36)}
    names.update(_KITTY_NAMES)
    names.update(KEY_NAME_REPLACEMENTS.values())
    keys = [member.value for member in Keys]
    keys += [*KEY_ALIASES, *(alias for aliases in KEY_ALIASES.values() for alias in aliases)]
    for key in keys:
        name = key.rpartition("+")[2]
        if len(name) > 1 and _KEY_NAME.fullmatch(name):
            names.add(name)
    return frozenset(names - _NEVER_REPORTED)


KEY_NAMES: frozenset[str] = _named_keys()
"""The multi-character key names Textual reports (or matches a binding by): its `Keys`, the names of
function keys and of the kitty protocol's keys, and its aliases. The names of printable characters
(`question_mark`, `euro_sign`) are accepted too (`_is_character_name`) but not listed here."""

# Names people write for keys that Textual names otherwise: the display names of its key bar (`esc`,
# `del`, `pgup`) and the usual aliases.
_ALIASES: dict[str, str] = {
    **{
        shown: key
        for key, shown in KEY_DISPLAY_ALIASES.items()
        if _KEY_NAME.fullmatch(shown) and shown != key
    },
    "esc": "escape",
    "return": "enter",
    "del": "delete",
    "ins": "insert",
    "bs": "backspace",
    "bksp": "backspace",
    "pgup": "pageup",
    "pgdn": "pagedown",
    "pgdown": "pagedown",
    "page_up": "pageup",
    "page_down": "pagedown",
    "spacebar": "space",
    "arrowup": "up",
    "arrowdown": "down",
    "arrowleft": "left",
    "arrowright": "right",
    "question": "question_mark",
    "dot": "full_stop",
    "period": "full_stop",
    "dash": "minus",
    "hyphen": "minus",
}


class KeyStringError(ValueError):
    """A key string that cannot be bound; the message says why (a clause, not a sentence)."""


def validate_keymap(
    keymap: Mapping[str, str],
    known_ids: Collection[str],
    scopes: Iterable[Mapping[str, Collection[str]]] = (),
    held: Mapping[str, str] | None = None,
) -> tuple[dict[str, str], list[str]]:
    """Split a `[keymap]` table into the entries Textual can use and one warning per dropped entry.

    An entry is dropped when its id is not in `known_ids` or its key string is malformed (empty, an
    empty key between commas, whitespace inside a key, an unknown or repeated modifier, a key name that
    is not lower case or that Textual never reports). The kept values are normalized key strings for
    `App.set_keymap`; a dropped entry's binding keeps its default keys.
    Two ids given the same key are kept (Textual reports the clash) but warned about, and so is a key
    given to one id that another binding of one of `scopes` (binding id -> default keys, the bindings
    active at the same time: `binding_scopes`) has by default, unless the keymap gives that one other keys.
    An entry with a key of `held` (key -> what Textual does with it: `held_keys`) is dropped too: Textual
    runs that before any screen's binding, so the binding would never fire.
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
        taken = [key for key in normalized.split(",") if key in (held or {})]
        if taken:
            holders = "; ".join(f"{key!r} is Textual's key for {(held or {})[key]}" for key in taken)
            warnings.append(
                f"keymap: {binding_id!r} = {keys!r} is not usable: {holders}, taken before any screen's "
                f"binding, so {binding_id} would never run; it keeps its default keys."
            )
            continue
        usable[binding_id] = normalized
        for key in normalized.split(","):
            if key in owner and owner[key] != binding_id:
                warnings.append(f"keymap: key {key!r} is given to both {owner[key]!r} and {binding_id!r}.")
            owner.setdefault(key, binding_id)
    warnings.extend(_taken_defaults(usable, scopes))
    return usable, warnings


def _taken_defaults(usable: Mapping[str, str], scopes: Iterable[Mapping[str, Collection[str]]]) -> list[str]:
    """One warning per key of the keymap that is another binding's default where both are active."""
    taken: dict[tuple[str, str], list[str]] = {}
    for scope in scopes:
        for binding_id, keys in usable.items():
            if binding_id not in scope:
                continue
            for key in keys.split(","):
                for other, defaults in scope.items():
                    if other == binding_id or other in usable or key not in defaults:
                        continue
                    losers = taken.setdefault((binding_id, key), [])
                    if other not in losers:
                        losers.append(other)
    warnings: list[str] = []
    for (binding_id, key), others in taken.items():
        if len(others) == 1:
            whose = f"{others[0]}'s default"
        else:
            shown = others if len(others) <= _MAX_IDS_SHOWN else [*others[:2], "others"]
            whose = "the default of " + ", ".join(shown[:-1]) + " and " + shown[-1]
        warnings.append(
            f"keymap: key {key!r} is given to {binding_id} and is {whose}: the key runs only one of "
            f"them; give {binding_id} another key, or {others[0]} other keys in [keymap]."
        )
    return warnings


def normalize_keys(keys: str) -> str:
    """Check a comma-separated key string and return it in the form Textual matches key events against.

    Raises `KeyStringError` (a `ValueError` whose message is the reason) when the string is malformed:
    every bad key is named in it, joined by "; ", so one warning says all that is to fix.
    """
    if not keys.strip():
        raise KeyStringError("no keys given")
    normalized: list[str] = []
    problems: list[str] = []
    for key in keys.split(","):
        try:
            normalized.append(_normalize_key(key.strip()))
        except KeyStringError as error:
            if str(error) not in problems:  # `x,,,y`: the empty key once
                problems.append(str(error))
    if problems:
        raise KeyStringError("; ".join(problems))
    return ",".join(normalized)


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
        if modifiers and name.isupper():
            # Textual reports a letter typed with a modifier in lower case (`ctrl+g`): `ctrl+G` never comes.
            raise KeyStringError(
                f"{key!r} never comes: Textual names a letter with a modifier in lower case "
                f"(write {'+'.join([*modifiers, name.lower()])!r})"
            )
        name = _character_key(name)
    elif not _KEY_NAME.fullmatch(name):
        better = _known_spelling(name)
        hint = f" (write {'+'.join([*modifiers, better])!r})" if better else ""
        raise KeyStringError(f"{name!r} is not a lower-case key name such as f1 or pageup{hint}")
    elif name not in KEY_NAMES and not _is_character_name(name):
        better = _known_spelling(name)
        if better:
            raise KeyStringError(
                f"{name!r} is not a key name Textual reports (write {'+'.join([*modifiers, better])!r})"
            )
        close = difflib.get_close_matches(name, sorted(KEY_NAMES), n=_MAX_IDS_SHOWN)
        guess = "did you mean " + " or ".join(repr(c) for c in close) + "? " if close else ""
        raise KeyStringError(
            f"{name!r} is not a key name Textual reports ({guess}key names are single characters, f1 to "
            "f24, or names such as escape, enter, tab, space, delete, pageup, up)"
        )
    return "+".join([*modifiers, name])


def _known_spelling(name: str) -> str | None:
    """The key name Textual uses for a common other spelling of it (`esc`, `Del`, `page-up`), if any."""
    folded = name.lower().replace("-", "_")
    folded = _ALIASES.get(folded, folded)
    if folded != name and (folded in KEY_NAMES or _is_character_name(folded)):
        return folded
    return None


def _is_character_name(name: str) -> bool:
    """Whether `name` is the key name Textual gives a printable character (`question_mark`, `euro_sign`)."""
    unicode_name = KEY_TO_UNICODE_NAME.get(REPLACED_KEYS.get(name, name)) or REPLACED_KEYS.get(name, name)
    try:
        character = unicodedata.lookup(unicode_name.replace("_", " ").upper())
    except KeyError:
        return False
    return len(character) == 1 and character.isprintable() and _character_key(character) == name


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


def binding_scopes(owners: Iterable[type[DOMNode]]) -> list[dict[str, tuple[str, ...]]]:
    """The groups of bindings active at the same time, each as binding id -> default keys.

    One group per class of `owners` (a screen or a widget, with what it inherits) joined with the app's
    bindings, which are active on every screen: a key of a screen or of its focused widget comes before
    the app's, so a key given to one binding silences another of its group that has it by default.
    """
    from textual.app import App

    classes = list(owners)
    app_keys: dict[str, tuple[str, ...]] = {}
    for owner in classes:
        if issubclass(owner, App):
            _add_defaults(app_keys, owner)
    scopes: list[dict[str, tuple[str, ...]]] = []
    for owner in classes:
        scope = dict(app_keys)
        if not issubclass(owner, App):
            _add_defaults(scope, owner)
        scopes.append(scope)
    return scopes


def _add_defaults(keys: dict[str, tuple[str, ...]], node_type: type[DOMNode]) -> None:
    for cls in node_type.__mro__:
        for binding in Binding.make_bindings(cls.__dict__.get("BINDINGS", ())):
            if binding.id and binding.key not in keys.get(binding.id, ()):
                keys[binding.id] = (*keys.get(binding.id, ()), binding.key)


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


def held_keys(app_type: type[App[Any]]) -> dict[str, str]:
    """The keys Textual takes at app level before any screen's binding, each with what it does there.

    Textual checks priority bindings from the app down before the focused widget's and the screen's, so
    a key of one (`ctrl+q`, quit, in `App.BINDINGS`) or of the command palette (`ctrl+p`, added as a
    priority binding when `ENABLE_COMMAND_PALETTE`) given to an explorer binding never reaches it.
    Priority bindings with an id are left out (the keymap can move them). Not `ctrl+c`: Textual binds it
    at app level without priority (a hint on how to quit) and a screen's binding comes first.
    """
    held: dict[str, str] = {}
    for cls in reversed(app_type.__mro__):
        for binding in Binding.make_bindings(cls.__dict__.get("BINDINGS", ())):
            if binding.priority and not binding.id:
                with suppress(KeyStringError):
                    held[_normalize_key(binding.key)] = (binding.description or binding.action).lower()
    if app_type.ENABLE_COMMAND_PALETTE:
        with suppress(KeyStringError):
            held[_normalize_key(app_type.COMMAND_PALETTE_BINDING)] = "the command palette"
    return held
