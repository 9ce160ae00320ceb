"""Bookmarks: URIs the user marked, per server, kept between runs.

The file is `data_dir()/bookmarks.json`: `{"version": 1, "servers": {"<server>": ["<uri>", ...]}}`, most
recent first. A server is known by its name (the config's or the one derived from `-s`), so the same
server opened the same way finds its bookmarks again. A failed write is reported, never raised.

A file that is there but cannot be read (not JSON, not an object, an unknown `version`) is never written
over: the bookmarks of this run are not saved, `save` returns False, and `problem` says why (the caller
shows it with its "could not save"). Fixing or removing the file makes saving work again. Moving the file
aside and starting afresh was the other way: it loses nothing either, but the user would see their
bookmarks gone with no word at the moment it happens. A file of a newer version is read as far as it
matches this version's shape, and not saved over either (an older explorer would drop what it does not
know). Top-level keys this version does not know are kept when the file is rewritten.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from explorer import paths
from explorer.storage import read_json_file, version_problem, write_json_atomically

BOOKMARKS_PER_SERVER = 200
_VERSION = 1


class Bookmarks:
    """The bookmarks of every server, loaded once and saved on each change."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else paths.data_dir() / "bookmarks.json"
        self.servers: dict[str, list[str]] = {}
        self._extra: dict[str, Any] = {}  # top-level keys of the file this version does not know
        self.problem: str | None = None  # why the file is not saved over (None: it is)
        read = read_json_file(self.path)
        data = read.data
        if read.problem is not None:
            self.problem = f"{read.problem}; bookmarks are not saved over it until it is fixed or removed"
            return
        if read.missing:
            return
        if not isinstance(data, dict):
            self.problem = (
                f"{self.path} is not a bookmarks file (not a JSON object); "
                "bookmarks are not saved over it until it is fixed or removed"
            )
            return
        self.problem = version_problem(self.path, data, _VERSION, "bookmarks")
        self._extra = {k: v for k, v in data.items() if k not in ("version", "servers")}
        servers = data.get("servers")
        if isinstance(servers, dict):
            for server, uris in servers.items():
                if isinstance(server, str) and isinstance(uris, list):
                    self.servers[server] = [u for u in uris if isinstance(u, str)][:BOOKMARKS_PER_SERVER]

    def has(self, server: str, uri: str) -> bool:
        return uri in self.servers.get(server, [])

    def toggle(self, server: str, uri: str) -> bool:
        """Add or remove one bookmark; returns whether it is bookmarked now."""
        uris = self.servers.setdefault(server, [])
        if uri in uris:
            uris.remove(uri)
            marked = False
        else:
            uris.insert(0, uri)
            del uris[BOOKMARKS_PER_SERVER:]
            marked = True
        if not uris:
            del self.servers[server]
        return marked

    def all(self) -> list[tuple[str, str]]:
        """(server, uri) of every bookmark, server by server."""
        return [(server, uri) for server, uris in self.servers.items() for uri in uris]

    def save(self) -> bool:
        """Write the file; False when it failed, or when the file must not be written over (`problem`)."""
        if self.problem is not None:
            return False
        return write_json_atomically(self.path, {**self._extra, "version": _VERSION, "servers": self.servers})
