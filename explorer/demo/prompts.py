"""The demo's prompts: required and optional arguments, embedded resources and an image.

The prompts and the values of their optional arguments are defined in `data/prompts.toml`; the
messages are built here.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any, NamedTuple

import mcp.types as types
from mcp import MCPError
from mcp.types import INVALID_PARAMS

from explorer.demo import datafiles, handbook, metrics, png, project
from explorer.demo.catalogue import catalogue
from explorer.demo.contents import make_contents


def _load() -> dict[str, Any]:
    return datafiles.toml("prompts.toml")


PROMPTS: tuple[types.Prompt, ...] = tuple(types.Prompt.model_validate(p) for p in _load()["prompts"])


class Choice(NamedTuple):
    """The values an optional prompt argument accepts, in completion order, and its default."""

    values: tuple[str, ...]
    default: str


CHOICES: dict[tuple[str, str], Choice] = {
    (prompt, argument): Choice(tuple(spec["values"]), spec["default"])
    for prompt, arguments in _load()["choices"].items()
    for argument, spec in arguments.items()
}


def _bad(message: str) -> MCPError:
    return MCPError(code=INVALID_PARAMS, message=message)


def _choice(args: Mapping[str, str], prompt: str, name: str) -> str:
    allowed, default = CHOICES[(prompt, name)]
    value = args.get(name) or default
    if value not in allowed:
        raise _bad(f"invalid value for {name!r}: {value!r} (expected one of: {', '.join(allowed)})")
    return value


def _user(content: types.ContentBlock) -> types.PromptMessage:
    return types.PromptMessage(role="user", content=content)


def _text(text: str) -> types.TextContent:
    return types.TextContent(type="text", text=text)


def _summarize(args: Mapping[str, str]) -> types.GetPromptResult:
    slug = args["chapter"]
    chapter = handbook.chapter_map().get(slug)
    if chapter is None:
        raise _bad(f"unknown chapter: {slug!r}")
    audience = _choice(args, "summarize-chapter", "audience")
    length = _choice(args, "summarize-chapter", "length")
    size = {"short": "three bullet points", "medium": "one paragraph", "long": "one paragraph per section"}[
        length
    ]
    uri = f"docs://handbook/{slug}"
    resource = types.TextResourceContents(uri=uri, mime_type="text/markdown", text=chapter.text)
    return types.GetPromptResult(
        description=f"Summary of “{chapter.title}” for a {audience} reader",
        messages=[
            _user(
                _text(
                    f"Summarize the handbook chapter “{chapter.title}” below in {size}, "
                    f"for a {audience} reader. Keep the code identifiers exact "
                    "and mention one thing the reader should try."
                )
            ),
            _user(types.EmbeddedResource(type="resource", resource=resource)),
        ],
    )


def _review(args: Mapping[str, str]) -> types.GetPromptResult:
    path = args["path"].removeprefix(f"file:///{project.ROOT}/").lstrip("/")
    uri = f"file:///{project.ROOT}/{path}"
    entry = catalogue().by_uri.get(uri)
    if entry is None or entry.reader is None or entry.mime_type == "inode/directory":
        raise _bad(f"no such file in the project: {path!r}")
    focus = _choice(args, "review-file", "focus")
    contents = make_contents(uri, entry.mime_type, entry.reader())
    return types.GetPromptResult(
        description=f"Review of {path} ({focus})",
        messages=[
            _user(
                _text(
                    f"Please review `{path}` from the Tidewater project with a focus on {focus}. "
                    "List concrete issues first, most important first, then suggest one improvement."
                )
            ),
            _user(types.EmbeddedResource(type="resource", resource=contents)),
        ],
    )


def _incident(args: Mapping[str, str]) -> types.GetPromptResult:
    region, service = args["region"], args["service"]
    if region not in metrics.REGION_SERVICES:
        raise _bad(f"unknown region: {region!r}")
    if service not in metrics.REGION_SERVICES[region]:
        raise _bad(f"service {service!r} does not run in {region}")
    window = _choice(args, "incident-review", "window")
    if window == "7d":
        labels = list(metrics.DAYS[-7:])
        series = {
            m: [round(sum(metrics.hourly(region, service, m, d)) / 24, 2) for d in labels]
            for m in metrics.METRICS
        }
    else:
        hours = {"1h": 1, "6h": 6, "24h": 24}[window]
        labels = [f"{h:02d}:00" for h in range(24 - hours, 24)]
        series = {
            m: list(metrics.hourly(region, service, m, metrics.DAYS[-1])[24 - hours :])
            for m in metrics.METRICS
        }
    header = "| time | " + " | ".join(f"{m} ({metrics.METRICS[m][1]})" for m in metrics.METRICS) + " |"
    rule = "|" + "---|" * (len(metrics.METRICS) + 1)
    rows = [
        f"| {label} | " + " | ".join(str(series[m][i]) for m in metrics.METRICS) + " |"
        for i, label in enumerate(labels)
    ]
    table = "\n".join([header, rule, *rows])
    status = metrics.latest(region, service)["status"]
    return types.GetPromptResult(
        description=f"Incident review for {service} in {region}, last {window}",
        messages=[
            _user(
                _text(
                    f"You are on call for **{service}** in **{region}** (current status: {status}). "
                    f"Here are its metrics for the last {window}:\n\n{table}\n\n"
                    "What stands out? Name the most likely cause and the next thing to check. "
                    f"More detail is in metrics://{region}/{service}/latest."
                )
            ),
            types.PromptMessage(
                role="assistant",
                content=_text(
                    "I'll start with the error rate and p99 latency, then compare with request volume."
                ),
            ),
        ],
    )


def _logo(args: Mapping[str, str]) -> types.GetPromptResult:
    style = _choice(args, "describe-logo", "style")
    ask = {
        "alt-text": "Write alt text for this logo: one sentence, under 125 characters.",
        "poetic": "Describe this logo in a four-line poem.",
        "technical": "Describe this logo's composition, palette and geometry precisely.",
    }[style]
    image = types.ImageContent(
        type="image", data=base64.b64encode(png.logo_png(64)).decode("ascii"), mime_type="image/png"
    )
    return types.GetPromptResult(
        description=f"Describe the Tidewater logo ({style})",
        messages=[_user(_text(ask)), _user(image)],
    )


_BUILDERS = {
    "summarize-chapter": _summarize,
    "review-file": _review,
    "incident-review": _incident,
    "describe-logo": _logo,
}


def get_prompt(name: str, arguments: Mapping[str, str] | None) -> types.GetPromptResult:
    """Build a prompt's messages; MCPError(-32602) for an unknown prompt or a missing/invalid argument."""
    prompt = next((p for p in PROMPTS if p.name == name), None)
    if prompt is None:
        raise _bad(f"unknown prompt: {name!r}")
    args = dict(arguments or {})
    missing = [a.name for a in prompt.arguments or () if a.required and not args.get(a.name)]
    if missing:
        raise _bad(f"missing required argument(s) for {name!r}: {', '.join(missing)}")
    known = {a.name for a in prompt.arguments or ()}
    unknown = sorted(set(args) - known)
    if unknown:
        raise _bad(f"unknown argument(s) for {name!r}: {', '.join(unknown)}")
    return _BUILDERS[name](args)


# The prompt list changes while the server runs: "triage-inbox" appears with the first inbox note, so a
# client sees a real prompts/list_changed (announced on the connection or the listen stream).
TRIAGE_INBOX = types.Prompt(
    name="triage-inbox",
    title="Triage the inbox",
    description="Sort the notes that arrived in docs://inbox/ while the server was running (appears with "
    "the first note).",
)


def live_prompts(inbox_notes: int) -> tuple[types.Prompt, ...]:
    """The prompts listed now: the fixed ones, and the inbox prompt once a note has arrived."""
    return (*PROMPTS, TRIAGE_INBOX) if inbox_notes else PROMPTS


def triage_inbox(notes: list[tuple[str, str]]) -> types.GetPromptResult:
    """The inbox prompt: one message listing the notes (uri, title), newest last."""
    lines = [f"- {title} ({uri})" for uri, title in notes] or ["- (the inbox is empty)"]
    text = "Sort these inbox notes by urgency and say which need an answer today:\n" + "\n".join(lines)
    message = types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
    return types.GetPromptResult(description="Triage the inbox", messages=[message])
