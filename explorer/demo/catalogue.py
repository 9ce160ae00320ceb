"""The demo's resource catalogue: about 2,600 static entries over three schemes, built once, cheaply.

Entries are light records; contents are produced only when a resource is read. The two resources that
change while the server runs (`metrics://live/clock` and the notes under `docs://inbox/`) are served by
`explorer.demo.live`; the clock's entry here has no reader.

Pages and cursors are `explorer.demo.paging`'s.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache, partial

import mcp.types as types

from explorer.demo import handbook, metrics, png, project
from explorer.demo.paging import PAGE_SIZE
from explorer.demo.templates import TEMPLATES

PROJECT_URI = f"file:///{project.ROOT}/"
STATIONS_URI = f"file:///{project.ROOT}/data/stations/"
CLOCK_URI = "metrics://live/clock"
HANDBOOK_URI = "docs://handbook"
INBOX_PREFIX = "docs://inbox/"
DIRECTORY_MIME = "inode/directory"

Reader = Callable[[], str | bytes]


@dataclass(frozen=True, slots=True)
class Entry:
    """One listed resource. `reader` is None for resources whose contents the live state produces."""

    uri: str
    name: str
    mime_type: str
    reader: Reader | None
    title: str | None = None
    description: str | None = None
    size: int | None = None
    audience: tuple[types.Role, ...] | None = None
    priority: float | None = None
    last_modified: str | None = None

    def to_resource(self) -> types.Resource:
        annotations = None
        if self.audience is not None or self.priority is not None or self.last_modified is not None:
            annotations = types.Annotations(
                audience=list(self.audience) if self.audience is not None else None,
                priority=self.priority,
                last_modified=self.last_modified,
            )
        return types.Resource(
            uri=self.uri,
            name=self.name,
            title=self.title,
            description=self.description,
            mime_type=self.mime_type,
            size=self.size,
            annotations=annotations,
        )


def constant(value: str) -> Reader:
    """A reader that always returns `value`."""
    return lambda: value


def _docs() -> list[Entry]:
    edited = "2026-07-10T08:00:00Z"
    out = [
        Entry(
            HANDBOOK_URI,
            "handbook",
            "text/markdown",
            handbook.table_of_contents,
            title="The handbook: table of contents",
            description="Every chapter and section, with links. Both a resource and a prefix.",
            audience=("user",),
            priority=0.9,
            last_modified=edited,
        )
    ]
    for number, chapter in enumerate(handbook.chapters(), start=1):
        out.append(
            Entry(
                f"docs://handbook/{chapter.slug}",
                chapter.slug,
                "text/markdown",
                constant(chapter.text),
                title=f"{number}. {chapter.title}",
                description=chapter.description,
                size=len(chapter.text.encode()),
                audience=("user", "assistant"),
                priority=0.8 if number <= 2 else 0.5,
                last_modified=edited,
            )
        )
    out += [
        Entry(
            "docs://glossary",
            "glossary",
            "text/plain",
            constant(handbook.glossary()),
            title="Glossary",
            description="Short definitions of the MCP terms used in the handbook, as plain text.",
            size=len(handbook.glossary().encode()),
            audience=("user", "assistant"),
            priority=0.4,
        ),
        Entry(
            "docs://faq",
            "faq",
            "text/markdown",
            constant(handbook.faq()),
            title="Frequently asked questions",
            description="Is the data real? Why so many metrics? Can the inbox go faster?",
            size=len(handbook.faq().encode()),
        ),
        Entry(
            "docs://about",
            "about",
            "application/json",
            about_json,
            title="About this server",
            description="Schemes, resource counts, templates and prompts, as JSON.",
            audience=("assistant",),
            priority=0.3,
        ),
        Entry(
            f"{INBOX_PREFIX}README",
            "README",
            "text/markdown",
            constant(handbook.inbox_readme()),
            title="About the inbox",
            description="Notes appear in this folder while the server runs.",
            size=len(handbook.inbox_readme().encode()),
        ),
    ]
    return out


def _file(path: str) -> str:
    return f"file:///{project.ROOT}/{path}"


def _files() -> list[Entry]:
    out: list[Entry] = [
        Entry(
            PROJECT_URI,
            "tidewater",
            DIRECTORY_MIME,
            partial(directory_listing, PROJECT_URI),
            title="Tidewater (project root)",
            description="A fake but plausible Python project. Reading a directory lists its children.",
            audience=("user",),
            priority=0.8,
        ),
        Entry(
            STATIONS_URI,
            "stations",
            DIRECTORY_MIME,
            partial(directory_listing, STATIONS_URI),
            title="Tide stations (folder)",
            description=f"{project.STATION_COUNT + 1} JSON files: one per station, plus an index.",
        ),
    ]
    files: list[Entry] = []
    for path, f in project.text_files().items():
        name = path.rsplit("/", 1)[-1]
        featured = f.description is not None
        files.append(
            Entry(
                _file(path),
                name,
                f.mime_type,
                constant(f.text),
                title=f"{name} (Tidewater)" if featured else name,
                description=f.description,
                size=len(f.text.encode()),
                priority=f.priority,
                last_modified=project.RELEASED if featured else None,
            )
        )
    harmonics = png.harmonics_bin()
    files += [
        Entry(
            _file("assets/logo.png"),
            "logo.png",
            "image/png",
            partial(png.logo_png, 64),
            title="Tidewater logo (64x64 PNG)",
            description="Drawn in code and encoded with zlib and struct: a sun over two waves.",
            audience=("user",),
            priority=0.6,
            last_modified="2026-05-02T10:15:00Z",
        ),
        Entry(
            _file("assets/icon-16.png"),
            "icon-16.png",
            "image/png",
            partial(png.logo_png, 16),
            title="Tidewater icon (16x16 PNG)",
        ),
        Entry(
            _file("data/harmonics.bin"),
            "harmonics.bin",
            "application/octet-stream",
            lambda: harmonics,
            title="Constituent table (binary TWH1)",
            description="Eight constituents packed as little-endian records; see src/tidewater/io/binary.py.",
            size=len(harmonics),
        ),
        Entry(
            _file("data/stations/index.json"),
            "index.json",
            "application/json",
            project.station_index_json,
            title="Station index",
            description="Every station id, name and region.",
        ),
    ]
    for slug, name in project.station_names().items():
        files.append(
            Entry(
                _file(f"data/stations/{slug}.json"),
                f"{slug}.json",
                "application/json",
                partial(project.station_json, slug),
                title=name,
            )
        )
    files.sort(key=lambda e: e.uri)
    return out + files


def _metrics() -> list[Entry]:
    out = [
        Entry(
            CLOCK_URI,
            "clock",
            "text/plain",
            None,
            title="Live clock",
            description="Changes every few seconds. Subscribe to it to receive resources/updated.",
            audience=("user",),
            priority=1.0,
        )
    ]
    for region, services in metrics.REGION_SERVICES.items():
        for service in services:
            for metric, (title, unit, _, _, _) in metrics.METRICS.items():
                for day in metrics.DAYS:
                    out.append(
                        Entry(
                            f"metrics://{region}/{service}/{metric}/{day}",
                            day,
                            "application/json",
                            partial(metrics.day_snapshot_json, region, service, metric, day),
                            title=f"{service} {title.lower()} on {day} ({region})",
                            description=f"24 hourly samples in {unit}, with a summary and any incidents.",
                            last_modified=f"{day}T23:59:59Z",
                        )
                    )
    return out


@dataclass(frozen=True, slots=True)
class Catalogue:
    entries: tuple[Entry, ...]
    by_uri: dict[str, Entry]
    directories: frozenset[str]  # every folder URI of the file tree, ending with "/"

    def schemes(self) -> list[str]:
        return sorted({e.uri.split("://", 1)[0] for e in self.entries})


@cache
def catalogue() -> Catalogue:
    entries = tuple(_docs() + _files() + _metrics())
    directories: set[str] = {"file:///"}
    for e in entries:
        if e.uri.startswith("file:///"):
            path = e.uri[len("file:///") :]
            parts = path.split("/")
            for depth in range(1, len(parts)):
                directories.add("file:///" + "/".join(parts[:depth]) + "/")
    return Catalogue(entries, {e.uri: e for e in entries}, frozenset(directories))


@lru_cache(maxsize=64)
def entries_under(prefix: str) -> tuple[Entry, ...]:
    """The static entries whose URI starts with `prefix`, in catalogue order (all of them for "")."""
    entries = catalogue().entries
    return entries if not prefix else tuple(e for e in entries if e.uri.startswith(prefix))


def directory_listing(uri: str) -> str:
    """A directory's children, one per line: folders first (with a trailing "/"), then files with sizes."""
    cat = catalogue()
    folders = sorted(
        d[len(uri) :]
        for d in cat.directories
        if d.startswith(uri) and d != uri and d[len(uri) :].count("/") == 1
    )
    files = [
        e for e in cat.entries if e.uri.startswith(uri) and "/" not in e.uri[len(uri) :] and e.uri != uri
    ]
    lines = [f"{uri}", f"{len(folders)} folders, {len(files)} files", ""]
    lines += [f"  {name}" for name in folders]
    for e in files:
        size = f"{e.size:>8,d} B" if e.size is not None else " " * 10
        lines.append(f"  {e.name:<36} {size}  {e.mime_type}")
    return "\n".join(lines) + "\n"


def about_json() -> str:
    cat = catalogue()
    counts: dict[str, int] = {}
    for e in cat.entries:
        scheme = e.uri.split("://", 1)[0]
        counts[scheme] = counts.get(scheme, 0) + 1
    body = {
        "server": "mcp-url-explorer-demo",
        "page_size": PAGE_SIZE,
        "resources": {
            "total": len(cat.entries),
            "by_scheme": counts,
            "plus": "inbox notes that appear over time",
        },
        "templates": [t.uri_template for t in TEMPLATES],
        "live": {"clock": CLOCK_URI, "inbox": INBOX_PREFIX},
    }
    return json.dumps(body, indent=2) + "\n"
