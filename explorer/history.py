"""Filled values remembered per (server, template) and per (server, prompt), offered the next time.

Why: filling `metrics://{region}/{service}/latest` twice with the same region should not mean typing
it twice. Each submit of a template or prompt form stores its values here; the form offers them again
(as suggestions for an empty field, or as whole sets with a key).

The file is `paths.history_file()`, one JSON object::

    {"version": 1,
     "template": {"<server>": {"<uri template>": [{"region": "eu-west"}, ...]}},
     "prompt":   {"<server>": {"<prompt name>": [{"chapter": "pagination"}, ...]}}}

Lists are most recent first, without duplicates, at most `limit` (20) entries per key. Values are a
string or a list of strings (explode variables). Writing is atomic (a temporary file in the same folder,
then `os.replace`), so a crash never leaves half a file. A save reads the file again (under
`storage.update_lock`) and makes in it only the changes of this `History` not saved yet, so two explorers
(or two saves in threads) that each read the file before the other wrote keep each other's values, as
`explorer.bookmarks` does. Bad entries are dropped, good ones kept; but a file that is there and cannot be
read (not valid JSON, not an object, an unknown `version`) is read as empty and never written over: `save`
returns False and `problem` says why, until the file is fixed or removed (as `explorer.bookmarks`, which
says why this rather than moving the file aside). A file of a newer
version is read as far as its shape is this version's, and not saved over (what this version does not
know would be dropped). Top-level keys this version does not know are kept when the file is rewritten.
Nothing here raises on I/O errors: history is a convenience and never breaks a form.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeAlias

from explorer import paths
from explorer.storage import read_json_file, update_lock, version_problem, write_json_atomically

__all__ = ["HISTORY_LIMIT", "History", "HistoryKind", "HistoryValue", "HistoryValues", "values_as_text"]

HISTORY_LIMIT = 20
HistoryKind: TypeAlias = Literal["template", "prompt"]
HistoryValue: TypeAlias = str | list[str]
HistoryValues: TypeAlias = dict[str, HistoryValue]
_KINDS: tuple[HistoryKind, ...] = ("template", "prompt")
_Store: TypeAlias = dict[HistoryKind, dict[str, dict[str, list[HistoryValues]]]]
_Change: TypeAlias = tuple[HistoryKind, str, str, HistoryValues | None]  # None: forget the key
_VERSION = 1


def _clean_value(value: object) -> HistoryValue | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(value)
    return None


def _clean_entry(entry: object) -> HistoryValues | None:
    """A stored value set with only well-formed items; None when nothing usable is left."""
    if not isinstance(entry, dict):
        return None
    clean: HistoryValues = {}
    for key, value in entry.items():
        item = _clean_value(value)
        if isinstance(key, str) and item is not None:
            clean[key] = item
    return clean or None


def _meaningful(values: Mapping[str, object]) -> HistoryValues:
    """Drop empty strings and empty lists: an unfilled field is not worth remembering."""
    kept: HistoryValues = {}
    for key, value in values.items():
        item = _clean_value(value)
        if item:
            kept[key] = item
    return kept


class History:
    """Remembered form values; `load`, `entries` to read, `remember` to add (and save: merged into the
    file as it is then, so two explorers' saves keep each other's values)."""

    def __init__(self, path: Path | None = None, *, limit: int = HISTORY_LIMIT) -> None:
        self._path = path
        self.limit = limit
        self._data: dict[str, Any] = {"version": _VERSION}
        self._store: _Store = {k: {} for k in _KINDS}
        self._changes: list[_Change] = []  # made here and not written yet, oldest first
        self.problem: str | None = None  # why the file is not saved over (None: it is)

    @property
    def path(self) -> Path:
        """The file (by default `paths.history_file()`, resolved when first needed)."""
        if self._path is None:
            self._path = paths.history_file()
        return self._path

    @classmethod
    def load(cls, path: Path | None = None, *, limit: int = HISTORY_LIMIT) -> History:
        """Read the file; a missing, unreadable or corrupt file gives an empty history (and for the last
        two, a `problem`: it is not saved over)."""
        history = cls(path, limit=limit)
        history._read_again()
        return history

    def _read(self) -> tuple[dict[str, Any], _Store, str | None]:
        """The file's top-level keys but the kinds, its well-formed value sets, and why it must not be
        written over (None: it may be)."""
        data: dict[str, Any] = {"version": _VERSION}
        store: _Store = {k: {} for k in _KINDS}
        try:
            read = read_json_file(self.path)
        except OSError as error:  # the folder of the default path could not be made
            return data, store, f"the history file could not be read ({error})"
        raw = read.data
        if read.problem is not None:
            return data, store, f"{read.problem}; history is not saved over it until it is fixed or removed"
        if read.missing:
            return data, store, None
        if not isinstance(raw, dict):
            return (
                data,
                store,
                (
                    f"{self.path} is not a history file (not a JSON object); "
                    "history is not saved over it until it is fixed or removed"
                ),
            )
        data = {k: v for k, v in raw.items() if k not in _KINDS}
        data["version"] = _VERSION
        for kind in _KINDS:
            servers = raw.get(kind)
            if not isinstance(servers, dict):
                continue
            for server, keys in servers.items():
                if not isinstance(server, str) or not isinstance(keys, dict):
                    continue
                for key, entries in keys.items():
                    if not isinstance(key, str) or not isinstance(entries, list):
                        continue
                    cleaned = [e for e in map(_clean_entry, entries) if e is not None]
                    if cleaned:
                        store[kind].setdefault(server, {})[key] = cleaned[: self.limit]
        return data, store, version_problem(self.path, raw, _VERSION, "form values")

    def _read_again(self) -> None:
        """The file as it is now, with this run's unsaved changes made in it."""
        self._data, self._store, self.problem = self._read()
        for change in self._changes:
            self._make(change)

    def _make(self, change: _Change) -> None:
        kind, server, key, entry = change
        keys = self._store[kind].setdefault(server, {})
        if entry is None:
            keys.pop(key, None)
        else:
            keys[key] = [entry, *(e for e in keys.get(key, []) if e != entry)][: self.limit]
        if not keys:
            del self._store[kind][server]

    def entries(self, kind: HistoryKind, server: str, key: str) -> list[HistoryValues]:
        """Remembered value sets for one template or prompt of one server, most recent first."""
        return [dict(e) for e in self._store[kind].get(server, {}).get(key, [])]

    def field_values(self, kind: HistoryKind, server: str, key: str, name: str) -> list[HistoryValue]:
        """The distinct values one field had, most recent first (for suggestions)."""
        seen: list[HistoryValue] = []
        for entry in self._store[kind].get(server, {}).get(key, []):
            value = entry.get(name)
            if value and value not in seen:
                seen.append(value)
        return seen

    def remember(
        self, kind: HistoryKind, server: str, key: str, values: Mapping[str, object], *, save: bool = True
    ) -> bool:
        """Put `values` first for (server, key); an equal older entry moves up. Saves unless told not to.

        Returns False when there was nothing to remember or the file could not be written.
        """
        entry = _meaningful(values)
        if not entry:
            return False
        change: _Change = (kind, server, key, entry)
        self._changes.append(change)
        self._make(change)
        return self.save() if save else True

    def forget(self, kind: HistoryKind, server: str, key: str) -> None:
        """Drop every entry of one template or prompt (not saved until the next `save`)."""
        change: _Change = (kind, server, key, None)
        self._changes.append(change)
        self._make(change)

    def to_json(self) -> dict[str, Any]:
        data = dict(self._data)
        for kind in _KINDS:
            data[kind] = {server: dict(keys) for server, keys in self._store[kind].items() if keys}
        return data

    def save(self) -> bool:
        """Make this run's changes in the file as it is now (another explorer may have saved since it was
        read) and write it atomically; False (and the old file untouched) when that fails, or when the file
        must not be written over (`problem`). Unsaved changes are kept for the next save."""
        try:
            path = self.path
        except OSError:
            return False
        with update_lock(path) as busy:
            if busy is not None:
                self.problem = f"{busy}; these values are kept and saved with the next ones"
                return False
            self._read_again()
            if self.problem is not None or not write_json_atomically(path, self.to_json()):
                return False
            self._changes.clear()
        return True


def values_as_text(values: Mapping[str, HistoryValue], names: Sequence[str]) -> str:
    """One line describing a value set, in field order: `region=eu-west  service=checkout`."""
    parts: list[str] = []
    for name in names:
        value = values.get(name)
        if value:
            parts.append(f"{name}={value if isinstance(value, str) else ','.join(value)}")
    return "  ".join(parts)
