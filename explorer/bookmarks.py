"""Bookmarks: URIs the user marked, per server, kept between runs.

The file is `data_dir()/bookmarks.json`: `{"version": 1, "servers": {"<server>": ["<uri>", ...]}}`, most
recent first. A server is known by its name (the config's or the one derived from `-s`), so the same
server opened the same way finds its bookmarks again. A broken file is read as empty; a failed write is
reported, never raised.
"""

from __future__ import annotations

from pathlib import Path

from explorer import paths
from explorer.storage import read_json, write_json_atomically

BOOKMARKS_PER_SERVER = 200


class Bookmarks:
    """The bookmarks of every server, loaded once and saved on each change."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else paths.data_dir() / "bookmarks.json"
        self.servers: dict[str, list[str]] = {}
        data = read_json(self.path)
        servers = data.get("servers") if isinstance(data, dict) else None
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
        return write_json_atomically(self.path, {"version": 1, "servers": self.servers})
