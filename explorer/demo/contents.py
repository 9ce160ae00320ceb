"""Reading: a URI becomes text or blob contents, from the catalogue, the live state or a template."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from functools import cache

import mcp.types as types

from explorer.demo import handbook, metrics, project
from explorer.demo.catalogue import CLOCK_URI, DIRECTORY_MIME, catalogue, directory_listing
from explorer.demo.live import Live
from explorer.demo.templates import T_LATEST, T_PATH, T_REPORT, T_ROLLUP, T_SEARCH, T_SECTION, T_STATION
from explorer.demo.uritemplate_match import Values, match

Contents = types.TextResourceContents | types.BlobResourceContents


def make_contents(uri: str, mime_type: str, data: str | bytes) -> Contents:
    if isinstance(data, bytes):
        return types.BlobResourceContents(
            uri=uri, mime_type=mime_type, blob=base64.b64encode(data).decode("ascii")
        )
    return types.TextResourceContents(uri=uri, mime_type=mime_type, text=data)


def _json(value: object) -> str:
    return json.dumps(value, indent=2) + "\n"


def _one(values: Values, name: str) -> str | None:
    value = values.get(name)
    return value if isinstance(value, str) else None


def _section(uri: str, values: Values) -> Contents | None:
    chapter = _one(values, "chapter")
    if chapter is None or chapter not in handbook.chapter_map():
        return None
    section = _one(values, "section")
    if section is None:
        return make_contents(uri, "text/markdown", handbook.chapter_map()[chapter].text)
    text = handbook.sections(chapter).get(section)
    return None if text is None else make_contents(uri, "text/markdown", text)


def _latest(uri: str, values: Values) -> Contents | None:
    region, service = _one(values, "region"), _one(values, "service")
    if region is None or service is None or not metrics.is_series(region, service):
        return None
    return make_contents(uri, "application/json", _json(metrics.latest(region, service)))


def _report(uri: str, values: Values) -> Contents | None:
    region, service = _one(values, "region"), _one(values, "service")
    fmt = _one(values, "format") or "md"
    if (
        region is None
        or service is None
        or not metrics.is_series(region, service)
        or fmt not in metrics.FORMATS
    ):
        return None
    mime, text = metrics.report(region, service, fmt)
    return make_contents(uri, mime, text)


def _rollup(uri: str, values: Values) -> Contents | None:
    segments = values.get("segments", [])
    if not isinstance(segments, list):
        return None
    body = metrics.rollup(segments)
    return None if body is None else make_contents(uri, "application/json", _json(body))


def _station(uri: str, values: Values) -> Contents | None:
    station = _one(values, "station")
    if station is None or station not in project.station_names():
        return None
    return make_contents(uri, "application/json", project.station_json(station))


def _path(uri: str, values: Values) -> Contents | None:
    folder = uri if uri.endswith("/") else uri + "/"
    if folder in catalogue().directories:
        return make_contents(uri, DIRECTORY_MIME, directory_listing(folder))
    return None


def _search(uri: str, values: Values) -> Contents | None:
    query = (_one(values, "q") or "").strip()
    try:
        limit = max(1, min(50, int(_one(values, "limit") or "10")))
    except ValueError:
        limit = 10
    return make_contents(uri, "text/markdown", search_markdown(query, limit))


# Tried in order after an exact lookup fails; a resolver returns None to let the next one try.
RESOLVERS: tuple[tuple[str, Callable[[str, Values], Contents | None]], ...] = (
    (T_SECTION, _section),
    (T_SEARCH, _search),
    (T_LATEST, _latest),
    (T_REPORT, _report),
    (T_ROLLUP, _rollup),
    (T_STATION, _station),
    (T_PATH, _path),
)


def read(uri: str, live: Live) -> list[Contents] | None:
    """The contents of `uri`, or None if this server has nothing there."""
    if uri == CLOCK_URI:
        return [make_contents(uri, "text/plain", live.clock_text())]
    entry = catalogue().by_uri.get(uri) or live.inbox_entry(uri)
    if entry is not None and entry.reader is not None:
        return [make_contents(uri, entry.mime_type, entry.reader())]
    for template, resolve in RESOLVERS:
        values = match(template, uri)
        if values is not None and (found := resolve(uri, values)) is not None:
            return [found]
    return None


@cache
def _corpus() -> tuple[tuple[str, str, str], ...]:
    """(uri, title, text) for everything searchable: the handbook and the Tidewater text files."""
    docs = [(f"docs://handbook/{c.slug}", c.title, c.text) for c in handbook.chapters()]
    docs += [("docs://glossary", "Glossary", handbook.glossary()), ("docs://faq", "FAQ", handbook.faq())]
    files = [
        (f"file:///{project.ROOT}/{path}", path, f.text) for path, f in project.text_files().items() if f.text
    ]
    return tuple(docs + files)


def search_markdown(query: str, limit: int) -> str:
    if not query:
        return (
            "# Search\n\n"
            "Give a query with `q`, for example `docs://search?q=cursor&limit=5`.\n\n"
            "The search covers the handbook, the glossary, the FAQ and the Tidewater source tree.\n"
        )
    pattern = re.compile(re.escape(query), re.IGNORECASE)
    hits: list[tuple[int, str, str, str]] = []
    for uri, title, text in _corpus():
        count = len(pattern.findall(text)) + 5 * len(pattern.findall(title))
        if count:
            line = next((ln.strip() for ln in text.splitlines() if pattern.search(ln)), title)
            snippet = line if len(line) <= 100 else line[:97] + "..."
            hits.append((count, uri, title, snippet))
    hits.sort(key=lambda h: (-h[0], h[1]))
    lines = [f'# Search: "{query}"', ""]
    if not hits:
        lines.append("No results. Try a shorter word, such as `cursor`, `station` or `template`.")
        return "\n".join(lines) + "\n"
    shown = hits[:limit]
    lines.append(f"{len(hits)} results, showing {len(shown)}.")
    lines.append("")
    for number, (count, uri, title, snippet) in enumerate(shown, start=1):
        lines.append(f"{number}. **[{title}]({uri})**, {count} hit{'s' if count > 1 else ''}")
        lines.append(f"   > {snippet}")
    return "\n".join(lines) + "\n"
