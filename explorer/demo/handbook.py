"""The `docs://` documents: the handbook, the glossary, the FAQ and the inbox notes, read from package data.

The handbook's chapters are listed, in order, in `data/docs/handbook.toml`; each chapter's Markdown is
`data/docs/handbook/<slug>.md`. Chapters are split into sections by their `## ` headings, which
`docs://handbook/{chapter}{#section}` addresses by slug.
"""

from __future__ import annotations

import re
from functools import cache
from typing import NamedTuple

from explorer.demo import datafiles


class Chapter(NamedTuple):
    slug: str
    title: str
    description: str
    text: str


@cache
def chapters() -> tuple[Chapter, ...]:
    """Every chapter, in reading order."""
    listed = datafiles.toml("docs/handbook.toml")["chapter"]
    return tuple(
        Chapter(c["slug"], c["title"], c["description"], datafiles.text(f"docs/handbook/{c['slug']}.md"))
        for c in listed
    )


def glossary() -> str:
    return datafiles.text("docs/glossary.txt")


def faq() -> str:
    return datafiles.text("docs/faq.md")


def inbox_readme() -> str:
    return datafiles.text("docs/inbox/README.md")


@cache
def inbox_subjects() -> tuple[tuple[str, str], ...]:
    """(slug, title) of the inbox notes, used in turn."""
    return tuple((s["slug"], s["title"]) for s in datafiles.toml("docs/inbox/subjects.toml")["subject"])


_HEADING = re.compile(r"^## +(.+?)\s*$", re.MULTILINE)


def slugify(text: str) -> str:
    """`"Things that go wrong"` -> `"things-that-go-wrong"`."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


@cache
def chapter_map() -> dict[str, Chapter]:
    return {chapter.slug: chapter for chapter in chapters()}


@cache
def sections(slug: str) -> dict[str, str]:
    """A chapter's sections by slug, each with its own heading, in document order."""
    chapter = chapter_map().get(slug)
    if chapter is None:
        return {}
    text = chapter.text
    found = list(_HEADING.finditer(text))
    out: dict[str, str] = {}
    for index, m in enumerate(found):
        end = found[index + 1].start() if index + 1 < len(found) else len(text)
        out[slugify(m.group(1))] = text[m.start() : end].rstrip() + "\n"
    return out


def table_of_contents() -> str:
    lines = ["# The handbook", "", "A short guide to MCP resources and to the explorer.", ""]
    for number, chapter in enumerate(chapters(), start=1):
        lines.append(f"{number}. [{chapter.title}](docs://handbook/{chapter.slug}): {chapter.description}")
        for section, text in sections(chapter.slug).items():
            heading = text.splitlines()[0].removeprefix("## ")
            lines.append(f"   - [{heading}](docs://handbook/{chapter.slug}#{section})")
    lines.append("")
    return "\n".join(lines)


def inbox_note(index: int, arrived: str) -> tuple[str, str, str]:
    """The `index`-th inbox note (1-based): (slug, title, markdown), from `data/docs/inbox/note.md`."""
    subjects = inbox_subjects()
    slug, title = subjects[(index - 1) % len(subjects)]
    name = f"{index:04d}-{slug}"
    body = datafiles.text("docs/inbox/note.md").format(title=title, index=index, arrived=arrived, name=name)
    return name, title, body
