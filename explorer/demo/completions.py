"""`completion/complete`: suggestions for template and prompt arguments, narrowed by earlier choices."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache

import mcp.types as types

from explorer.demo import handbook, metrics, project, prompts
from explorer.demo.catalogue import catalogue
from explorer.demo.templates import (
    T_CHAPTER,
    T_LATEST,
    T_PATH,
    T_REPORT,
    T_ROLLUP,
    T_SEARCH,
    T_SECTION,
    T_STATION,
)

MAX_VALUES = 100
LIMITS = ("5", "10", "20", "50")
SEARCH_HINTS = (
    "cursor",
    "completion",
    "station",
    "template",
    "subscription",
    "pagination",
    "nodal",
    "prompt",
)


def _completion(candidates: Iterable[str], typed: str) -> types.Completion:
    """Candidates that start with what was typed (case-insensitive), in order, at most 100."""
    prefix = typed.lower()
    seen: dict[str, None] = {}
    for candidate in candidates:
        if candidate.lower().startswith(prefix):
            seen.setdefault(candidate, None)
    values = list(seen)
    return types.Completion(values=values[:MAX_VALUES], total=len(values), has_more=len(values) > MAX_VALUES)


def _segmentwise(paths: Iterable[str], typed: str) -> list[str]:
    """Complete one "/"-separated segment at a time, like a shell: "src/ti" -> "src/tidewater/"."""
    out: list[str] = []
    for path in paths:
        if not path.lower().startswith(typed.lower()):
            continue
        cut = path.find("/", len(typed))
        out.append(path if cut < 0 else path[: cut + 1])
    return out


@cache
def _file_paths() -> tuple[str, ...]:
    """Every file and folder of the tree, relative to `file:///`, sorted."""
    cat = catalogue()
    paths = {e.uri[len("file:///") :] for e in cat.entries if e.uri.startswith("file:///")}
    paths |= {d[len("file:///") :] for d in cat.directories}
    paths.discard("")
    return tuple(sorted(paths))


@cache
def _project_files() -> tuple[str, ...]:
    """Files of the project, relative to its root (for the review-file prompt)."""
    root = f"{project.ROOT}/"
    return tuple(p[len(root) :] for p in _file_paths() if p.startswith(root) and not p.endswith("/"))


@cache
def _rollup_paths() -> tuple[str, ...]:
    paths: list[str] = []
    for region, services in metrics.REGION_SERVICES.items():
        paths.append(region)
        for service in services:
            paths.append(f"{region}/{service}")
            paths.extend(f"{region}/{service}/{metric}" for metric in metrics.METRICS)
    return tuple(paths)


def _services(context: Mapping[str, str]) -> list[str]:
    region = context.get("region")
    if region in metrics.REGION_SERVICES:
        return list(metrics.REGION_SERVICES[region])
    return metrics.all_services()


def _sections(context: Mapping[str, str]) -> list[str]:
    chapter = context.get("chapter")
    if chapter in handbook.chapter_map():
        return list(handbook.sections(chapter))
    return [s for chapter in handbook.chapters() for s in handbook.sections(chapter.slug)]


def _glossary_terms() -> list[str]:
    terms = [
        line.split()[0].lower()
        for line in handbook.glossary().splitlines()[3:]
        if line and not line[0].isspace()
    ]
    return sorted({*SEARCH_HINTS, *terms})


def _template_candidates(template: str, name: str, typed: str, context: Mapping[str, str]) -> list[str]:
    if template in (T_CHAPTER, T_SECTION):
        if name == "chapter":
            return list(handbook.chapter_map())
        if name == "section":
            return _sections(context)
    elif template == T_SEARCH:
        if name == "q":
            return _glossary_terms()
        if name == "limit":
            return list(LIMITS)
    elif template == T_PATH and name == "path":
        return _segmentwise(_file_paths(), typed)
    elif template == T_STATION and name == "station":
        return list(project.station_names())
    elif template in (T_LATEST, T_REPORT):
        if name == "region":
            return list(metrics.REGIONS)
        if name == "service":
            return _services(context)
        if name == "format":
            return list(metrics.FORMATS)
    elif template == T_ROLLUP and name == "segments":
        return _segmentwise(_rollup_paths(), typed)
    return []


def _prompt_candidates(prompt: str, name: str, typed: str, context: Mapping[str, str]) -> list[str]:
    if (prompt, name) == ("summarize-chapter", "chapter"):
        return list(handbook.chapter_map())
    if (prompt, name) == ("review-file", "path"):
        return _segmentwise(_project_files(), typed)
    if (prompt, name) == ("incident-review", "region"):
        return list(metrics.REGIONS)
    if (prompt, name) == ("incident-review", "service"):
        return _services(context)
    choice = prompts.CHOICES.get((prompt, name))
    return list(choice.values) if choice is not None else []


def complete(
    ref: types.ResourceTemplateReference | types.PromptReference,
    argument: types.CompletionArgument,
    context: Mapping[str, str] | None,
) -> types.Completion:
    """Suggestions for one argument; an empty list (never an error) for anything unknown."""
    ctx = context or {}
    if isinstance(ref, types.ResourceTemplateReference):
        candidates = _template_candidates(ref.uri, argument.name, argument.value, ctx)
    else:
        candidates = _prompt_candidates(ref.name, argument.name, argument.value, ctx)
    return _completion(candidates, argument.value)
