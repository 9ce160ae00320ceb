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
then `os.replace`), so a crash never leaves half a file. Bad entries are dropped, good ones kept; but a
file that is there and cannot be read (not valid JSON, not an object, an unknown `version`) is read as
empty and never written over: `save` returns False and `problem` says why, until the file is fixed or
removed (as `explorer.bookmarks`, which says why this rather than moving the file aside). A file of a newer
version is read as far as its shape is this version's, and not saved over (what this version does not
know would be dropped). Top-level keys this version does not know are kept when the file is rewritten.
Nothing here raises on I/O errors: history is a convenience and never breaks a form.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeAlias

from explorer import paths
from explorer.storage import read_json_file, version_problem, write_json_atomically

__all__ = ["HISTORY_LIMIT", "History", "HistoryKind", "HistoryValue", "HistoryValues", "values_as_text"]

HISTORY_LIMIT = 20
HistoryKind: TypeAlias = Literal["template", "prompt"]
HistoryValue: TypeAlias = str | list[str]
HistoryValues: TypeAlias = dict[str, HistoryValue]
_KINDS: tuple[HistoryKind, ...] = ("template", "prompt")
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
    """Remembered form values; `load` once, `entries` to read, `remember` to add (and save)."""

    def __init__(self, path: Path | None = None, *, limit: int = HISTORY_LIMIT) -> None:
        self._path = path
        self.limit = limit
        self._data: dict[str, Any] = {"version": _VERSION}
        self._store: dict[HistoryKind, dict[str, dict[str, list[HistoryValues]]]] = {k: {} for k in _KINDS}
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
        try:
            read = read_json_file(history.path)
        except OSError as error:  # the folder of the default path could not be made
            history.problem = f"the history file could not be read ({error})"
            return history
        raw = read.data
        if read.problem is not None:
            history.problem = f"{read.problem}; history is not saved over it until it is fixed or removed"
            return history
        if read.missing:
            return history
        if not isinstance(raw, dict):
            history.problem = (
                f"{history.path} is not a history file (not a JSON object); "
                "history is not saved over it until it is fixed or removed"
            )
            return history
        history.problem = version_problem(history.path, raw, _VERSION, "form values")
        history._data = {k: v for k, v in raw.items() if k not in _KINDS}
        history._data["version"] = _VERSION
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
                        history._store[kind].setdefault(server, {})[key] = cleaned[: history.limit]
        return history

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
        keys = self._store[kind].setdefault(server, {})
        old = [e for e in keys.get(key, []) if e != entry]
        keys[key] = [entry, *old][: self.limit]
        return self.save() if save else True

    def forget(self, kind: HistoryKind, server: str, key: str) -> None:
        """Drop every entry of one template or prompt (not saved until the next `save`)."""
        self._store[kind].get(server, {}).pop(key, None)

    def to_json(self) -> dict[str, Any]:
        data = dict(self._data)
        for kind in _KINDS:
            data[kind] = {server: dict(keys) for server, keys in self._store[kind].items() if keys}
        return data

    def save(self) -> bool:
        """Write the file atomically; False (and the old file untouched) when that fails, or when the file
        must not be written over (`problem`)."""
        if self.problem is not None:
            return False
        try:
            path = self.path
        except OSError:
            return False
        return write_json_atomically(path, self.to_json())


def values_as_text(values: Mapping[str, HistoryValue], names: Sequence[str]) -> str:
    """One line describing a value set, in field order: `region=eu-west  service=checkout`."""
    parts: list[str] = []
    for name in names:
        value = values.get(name)
        if value:
            parts.append(f"{name}={value if isinstance(value, str) else ','.join(value)}")
    return "  ".join(parts)
