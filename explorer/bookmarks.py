"""Bookmarks: URIs the user marked, per server, kept between runs.

The file is `data_dir()/bookmarks.json`: `{"version": 1, "servers": {"<server>": ["<uri>", ...]}}`, most
recent first. A server is known by its name (the config's or the one derived from `-s`), so the same
server opened the same way finds its bookmarks again. A failed write is reported, never raised.

Two explorers may run at once on one file, so a save never writes this run's copy over the file: under
`storage.update_lock` it reads the file again, applies to it only the changes made here since the last
save (adds and removals, each kept until it is written), and writes that atomically. A bookmark removed
here stays removed when the other explorer, which still showed it, saves. The copy shown here is read
again once the file changed (the other explorer saved), so the other's bookmarks appear here too.

A save drops nothing the user put in the file: there is no cap on the number of bookmarks, and a server's
entry this version cannot read (not a list of URIs, or items in the list that are not strings) is written
back as it was; a lone URI string is read as one bookmark. A bookmark added for a server whose entry cannot
be read is not saved (`problem` says why, naming the file) until that entry is fixed.

A file that is there but cannot be read (not JSON, not an object, `servers` not an object, an unknown
`version`) is never written
over: the bookmarks of this run are not saved, `save` returns False, and `problem` says why (the caller
shows it with its "could not save"). Fixing or removing the file makes the next save work again (it writes
the changes kept since). Moving the file
aside and starting afresh was the other way: it loses nothing either, but the user would see their
bookmarks gone with no word at the moment it happens. A file of a newer version is read as far as it
matches this version's shape, and not saved over either (an older explorer would drop what it does not
know). Top-level keys this version does not know are kept when the file is rewritten.

A save may run in a thread (the screen saves off the UI thread: the lock may make it wait) while the user
toggles more bookmarks: `toggle` and the save's start and end take a short lock on this object's state,
the save writes the changes as they were when it started, and a change made meanwhile is kept for the next
save. Saves of one object run one at a time.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from explorer import paths
from explorer.sanitize import sanitize_line
from explorer.storage import (
    file_signature,
    read_json_file,
    update_lock,
    version_problem,
    write_json_atomically,
)

_VERSION = 1
_MISSING = object()

_Changes = dict[tuple[str, str], bool]  # (server, uri) -> added (True) or removed (False), oldest first


def _uris(value: object) -> list[str]:
    """The bookmarks one server's entry in the file holds (none for an entry of a shape unknown here)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return list(dict.fromkeys(u for u in value if isinstance(u, str)))
    return []


def _apply(servers: dict[str, Any], changes: _Changes) -> _Changes:
    """Make `changes` in the file's `servers` object, touching only the entries they are about; returns
    the adds that could not be made (their server's entry is of a shape unknown here: it stays as it is)."""
    left: _Changes = {}
    for (server, uri), added in changes.items():
        value = servers.get(server, _MISSING)
        items: list[Any]
        if value is _MISSING:
            items = []
        elif isinstance(value, str):
            items = [value]
        elif isinstance(value, list):
            items = list(value)
        else:
            if added:
                left[(server, uri)] = added
            continue  # a removal: nothing this version reads is there to remove
        items = [item for item in items if item != uri]
        if added:
            items.insert(0, uri)
        if items:
            servers[server] = items
        else:
            servers.pop(server, None)
    return left


class Bookmarks:
    """The bookmarks of every server: read from the file, and this run's changes merged into it on save."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else paths.data_dir() / "bookmarks.json"
        self.problem: str | None = None  # why the last save did not write (or the file must not be)
        self._changes: _Changes = {}  # made here and not written yet
        self._servers: dict[str, list[str]] = {}
        self._seen: tuple[int, int, int] | None = None  # the file as last read or written here
        self._state = threading.Lock()  # `_changes` and `_servers`, between `toggle` and a save's thread
        self._saving = threading.Lock()  # one save at a time
        self._read_again()

    @property
    def servers(self) -> dict[str, list[str]]:
        """Each server's bookmarks, most recent first; read again when the file changed since."""
        self.refresh()
        return self._servers

    def refresh(self) -> None:
        """Read the file again when it changed since, unless a save is running: that save shows the file
        as it wrote it when it ends, and a read meanwhile could show the file from before it with its
        changes already forgotten."""
        if file_signature(self.path) != self._seen and self._saving.acquire(blocking=False):
            try:
                self._read_again()
            finally:
                self._saving.release()

    def _read(self) -> tuple[dict[str, Any] | None, str | None]:
        """The file's object (None when nothing in it can be read) and why it must not be written over."""
        read = read_json_file(self.path)
        if read.problem is not None:
            return None, f"{read.problem}; bookmarks are not saved over it until it is fixed or removed"
        if read.missing:
            return {}, None
        data = read.data
        if not isinstance(data, dict) or not isinstance(data.get("servers", {}), dict):
            what = "not a JSON object" if not isinstance(data, dict) else "its servers are not a JSON object"
            return None, (
                f"{self.path} is not a bookmarks file ({what}); "
                "bookmarks are not saved over it until it is fixed or removed"
            )
        return data, version_problem(self.path, data, _VERSION, "bookmarks")

    def _merge(self, document: dict[str, Any] | None, changes: _Changes) -> tuple[dict[str, Any], _Changes]:
        """The file's `servers` with `changes` made, and the adds that could not be; what is shown from
        now on is that with every change not written yet made too (one made while a save ran included)."""
        servers = dict(document.get("servers", {})) if document is not None else {}
        left = _apply(servers, changes)
        with self._state:
            newer = {key: added for key, added in self._changes.items() if changes.get(key) != added}
            shown_servers = dict(servers)
            unsaved = {**left, **newer}
            for server, uri in _apply(shown_servers, unsaved):  # not saved (`problem` says why): marked here
                shown_servers.setdefault(server, [])
                if uri not in (shown_uris := _uris(shown_servers[server])):
                    shown_servers[server] = [uri, *shown_uris]
            self._servers = {name: uris for name, value in shown_servers.items() if (uris := _uris(value))}
        return servers, left

    def _read_again(self) -> None:
        self._seen = file_signature(self.path)
        document, self.problem = self._read()
        with self._state:
            changes = dict(self._changes)
        self._merge(document, changes)

    def has(self, server: str, uri: str) -> bool:
        return uri in self.servers.get(server, [])

    def toggle(self, server: str, uri: str) -> bool:
        """Add or remove one bookmark (remembered as a change until saved); returns whether it is marked."""
        self.refresh()
        with self._state:  # `_servers` as of now: a save's end may have just put a new one in its place
            shown = self._servers
            uris = shown.setdefault(server, [])
            marked = uri not in uris
            self._changes.pop((server, uri), None)  # the latest change of a bookmark is the one that counts
            self._changes[(server, uri)] = marked
            if marked:
                uris.insert(0, uri)
            else:
                uris.remove(uri)
            if not uris:
                del shown[server]
        return marked

    @property
    def unsaved(self) -> bool:
        """Whether changes made here are not in the file yet (a save failed, or one is still running)."""
        with self._state:
            return bool(self._changes)

    def all(self) -> list[tuple[str, str]]:
        """(server, uri) of every bookmark, server by server."""
        return [(server, uri) for server, uris in self.servers.items() for uri in uris]

    def save(self, *, wait: float | None = None) -> bool:
        """Merge this run's changes into the file as it is now and write it; False when that failed, or
        when the file (or a server's entry in it) must not be written over (`problem`)."""
        return self.save_saying(wait=wait)[0]

    def save_saying(self, *, wait: float | None = None) -> tuple[bool, str | None]:
        """`save`, with why it did not write (None when it did, or when the write itself failed): from
        this save, where `problem` may be changed meanwhile by a read on another thread. May run in a
        thread; waits up to `wait` seconds (`storage.LOCK_WAIT`) for another process's save."""
        with self._saving, update_lock(self.path, wait=wait) as busy:
            if busy is not None:
                self.problem = busy  # the changes are kept for the next save
                return False, self.problem
            self._seen = file_signature(self.path)
            document, problem = self._read()
            self.problem = problem
            with self._state:
                changes = dict(self._changes)
            servers, left = self._merge(document, changes)
            if document is None or problem is not None:
                return False, problem
            if not write_json_atomically(self.path, {**document, "version": _VERSION, "servers": servers}):
                return False, None
            self._seen = file_signature(self.path)
            with self._state:  # written: forget them, unless changed again while this save ran
                for key, added in changes.items():
                    if key not in left and self._changes.get(key) == added:
                        del self._changes[key]
        if left:
            names = ", ".join(repr(sanitize_line(server, 60)) for server in dict.fromkeys(s for s, _ in left))
            self.problem = (
                f"in {self.path}, the bookmarks of {names} are not a list of URIs: that entry is kept as it "
                "is, and this bookmark is saved once it is fixed"
            )
            return False, self.problem
        return True, None
