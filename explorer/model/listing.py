"""The records of a bounded listing: pages as they arrive, and where each list of a server stands.

Plain data in the model because the catalogue, the CLI and the TUI all read them; the connection layer's
discovery fills them. A server has up to four lists (resource templates, resources, prompts, tools), each
listed only when the server declares the capability, each with its own cursor, counts and end state, so a
bound that stops one list is reported for that list and never hides another.

A listing may be by prefix (SEP-1269: `prefix` sent in `resources/list` and `resources/templates/list`,
and always applied on the client too), and may be stopped early by the user (`INTERRUPTED`), which keeps
what arrived and marks it incomplete as a bound does. `ListingProgress` is what a progress line (the CLI
on a terminal, the TUI's server bar) shows while a listing runs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal, Protocol

from explorer.model.entries import PromptEntry, ResourceEntry, TemplateEntry, ToolEntry
from explorer.model.sharded import ShardedSet
from explorer.model.uri_segments import template_literal_prefix, template_placed_text

Kind = Literal["templates", "resources", "prompts", "tools"]
# The order lists are asked in: the small lists first, so a huge resource listing that runs into the time
# or bytes bound never costs the templates (which describe huge collections), prompts or tools.
KINDS: tuple[Kind, ...] = ("templates", "prompts", "tools", "resources")
METHODS: dict[Kind, str] = {
    "resources": "resources/list",
    "templates": "resources/templates/list",
    "prompts": "prompts/list",
    "tools": "tools/list",
}
ITEMS_KEYS: dict[Kind, str] = {
    "resources": "resources",
    "templates": "resourceTemplates",
    "prompts": "prompts",
    "tools": "tools",
}


INTERRUPTED = "interrupted"  # `stopped_by` when the user stopped the listing (a key, Ctrl+C)


def bound_name(bound: str) -> str:
    """`max_items` -> `max-items`: the bound as its command-line flag spells it, close to its config key
    (`max_items`); the time bound is `list-timeout (max_seconds)`, its flag and its config key, which
    differ ("the max-seconds bound" named neither, and the TUI has only the config key)."""
    return "list-timeout (max_seconds)" if bound == "max_seconds" else bound.replace("_", "-")


def stopped_text(bound: str) -> str:
    """`stopped at the max-items bound`, or `stopped early by the user`: why a list is incomplete."""
    if bound == INTERRUPTED:
        return "stopped early by the user"
    return f"stopped at the {bound_name(bound)} bound"


def resource_in_prefix(uri: str, prefix: str | None) -> bool:
    """The `--prefix` rule for resources: the URI starts with P."""
    return prefix is None or uri.startswith(prefix)


def template_in_prefix(uri_template: str, prefix: str | None) -> bool:
    """The `--prefix` rule for templates: the text starts with P, or its literal part (before the first
    `{`) is a prefix of P, so it can expand to URIs under P. The literal part is compared as expansions
    write it (``t://a b/{x}`` is under ``t://a%20b/``, `uri_segments.template_placed_text`)."""
    if prefix is None:
        return True
    placed = template_placed_text(uri_template)
    if placed.startswith(prefix):
        return True
    return "{" in uri_template and prefix.startswith(template_literal_prefix(uri_template))


@dataclass(frozen=True, slots=True)
class Page:
    """One page as it arrived, already split into good entries and a count of skipped ones."""

    server: str
    kind: Kind
    number: int
    resources: tuple[ResourceEntry, ...] = ()
    templates: tuple[TemplateEntry, ...] = ()
    skipped: int = 0
    duplicates: int = 0
    prompts: tuple[PromptEntry, ...] = ()
    tools: tuple[ToolEntry, ...] = ()

    @property
    def size(self) -> int:
        return len(self.resources) + len(self.templates) + len(self.prompts) + len(self.tools)


@dataclass(slots=True)
class KindState:
    """Where one list stands: resumable from `cursor` when not done.

    `wanted` is False for a list the caller did not ask for or the server does not offer (then `done`);
    `supported` is False when a server that offers resources answered -32601 to the templates list (older
    servers): that means "no templates", not a failure. `resume_skip` counts the items of the page at
    `cursor` that were already taken when the item bound cut that page, so "continue" asks for the same page
    again and takes the rest.
    """

    wanted: bool = True
    offered: bool = True
    supported: bool = True
    cursor: str | None = None
    started: bool = False
    done: bool = False
    seen_cursors: set[str] = field(default_factory=set)
    seen_keys: ShardedSet[str] = field(default_factory=ShardedSet)  # 10^6 in one set grows in 25-120 ms steps
    pages: int = 0
    items: int = 0
    skipped: int = 0
    duplicates: int = 0
    stopped_by: str | None = None
    error: str | None = None
    resume_skip: int = 0

    @property
    def complete(self) -> bool:
        return self.done and self.error is None


def _states() -> dict[Kind, KindState]:
    """Until a listing is planned against a server's capabilities: resources and templates only."""
    return {
        kind: KindState() if kind in ("resources", "templates") else KindState(wanted=False, done=True)
        for kind in KINDS
    }


@dataclass(slots=True)
class Listing:
    """The outcome of listing one server, also the state a "continue" resumes from."""

    server: str
    # Left out of repr(): a million entries would make a repr of hundreds of megabytes (asyncio writes the
    # repr of a task's result in some messages).
    resources: list[ResourceEntry] = field(default_factory=list, repr=False)
    templates: list[TemplateEntry] = field(default_factory=list, repr=False)
    prompts: list[PromptEntry] = field(default_factory=list, repr=False)
    tools: list[ToolEntry] = field(default_factory=list, repr=False)
    state: dict[Kind, KindState] = field(default_factory=_states, repr=False)
    pages: int = 0
    skipped: int = 0
    duplicates: int = 0
    bytes: int = 0
    elapsed: float = 0.0
    stopped_by: str | None = None  # the first bound that stopped a list ("max_items", ...), None otherwise
    error: str | None = None  # the first list's failure (every failure is in `state[kind].error`)
    error_code: int | None = None
    error_local: bool = False  # `error_code` was made here (a timeout, a closed connection), not the server's
    skip_reasons: list[str] = field(default_factory=list)
    prefix: str | None = None  # listed by this prefix (SEP-1269); a "continue" keeps it
    prefix_sent: bool = False  # the server was asked with `prefix` (and did not reject it)
    filtered_out: int = 0  # items outside the prefix, dropped here (the server ignored `prefix`)
    active: Kind | None = None  # the list being asked for now (None when no listing runs)
    started_at: float | None = None  # time.monotonic() when the running listing began

    @property
    def templates_supported(self) -> bool:
        return self.state["templates"].supported

    @property
    def complete(self) -> bool:
        return self.error is None and self.stopped_by is None and all(s.done for s in self.state.values())

    def offers(self, kind: Kind) -> bool:
        """The server declared this list (templates follow `resources`)."""
        return self.state[kind].offered

    def count(self, kind: Kind) -> int:
        return len(self.entries(kind))

    def entries(
        self, kind: Kind
    ) -> list[ResourceEntry] | list[TemplateEntry] | list[PromptEntry] | list[ToolEntry]:
        if kind == "resources":
            return self.resources
        if kind == "templates":
            return self.templates
        if kind == "prompts":
            return self.prompts
        return self.tools

    def incomplete_kinds(self) -> list[Kind]:
        """Lists that a bound stopped, or that failed, in listing order."""
        return [kind for kind, s in self.state.items() if s.wanted and s.offered and not s.complete]

    def offer_summary(self) -> str:
        """`12 resources · 2 templates · 3 prompts · 5 tools`, or `no resources · 5 tools`: what it offers."""
        parts: list[str] = []
        resources = self.state["resources"]
        if not resources.offered:
            parts.append("no resources")
        elif resources.wanted:
            parts.append(plural(len(self.resources), "resource"))
            if self.state["templates"].wanted:
                parts.append(plural(len(self.templates), "template"))
        for kind, noun in _SMALL_LISTS:
            state = self.state[kind]
            if state.wanted and state.offered:
                parts.append(plural(self.count(kind), noun))
        return " · ".join(parts)

    def summary(self) -> str:
        """One line for status bars and stderr: what was listed and why it is not complete."""
        text = f"{self.offer_summary()} in {plural(self.pages, 'page')}"
        if self.skipped:
            text += f", {self.skipped} malformed items skipped"
        if self.duplicates:
            text += f", {self.duplicates} duplicates"
        if self.error is not None:
            return f"{text}; failed: {self.error}"
        if self.stopped_by is not None:
            stopped = [kind for kind, s in self.state.items() if s.stopped_by is not None]
            which = f" ({', '.join(stopped)})" if stopped else ""
            return f"{text}; incomplete{which}: {stopped_text(self.stopped_by)}"
        return text if self.complete else f"{text}; incomplete"

    def progress(self, bounds: BoundsView | None = None, now: float | None = None) -> ListingProgress:
        """Where the running (or last) listing stands, for a progress line."""
        kind = self.active
        state = self.state[kind] if kind is not None else None
        seconds = self.elapsed
        if self.started_at is not None:
            seconds += (time.monotonic() if now is None else now) - self.started_at
        return ListingProgress(
            server=self.server,
            kind=kind,
            pages=self.pages,
            items=sum(len(self.entries(k)) for k in KINDS),
            kind_pages=state.pages if state is not None else 0,
            kind_items=state.items if state is not None else 0,
            bytes=self.bytes,
            seconds=seconds,
            bound=bound_text(bounds) if bounds is not None else "",
            running=self.started_at is not None,
        )


class BoundsView(Protocol):
    """What a progress line needs of the bounds (`explorer.config.ListingBounds` has these)."""

    @property
    def max_items(self) -> int: ...

    @property
    def max_pages(self) -> int: ...

    @property
    def max_seconds(self) -> float: ...

    @property
    def max_bytes(self) -> int: ...


def bound_text(bounds: BoundsView) -> str:
    """`100,000 items or 1,000 pages per list, 64 MB or 60 s per server`: where a listing will stop."""
    megabytes = bounds.max_bytes / 2**20
    size = f"{megabytes:,.0f} MB" if megabytes >= 1 else plural(bounds.max_bytes, "byte")
    return (
        f"{plural(bounds.max_items, 'item')} or {plural(bounds.max_pages, 'page')} per list, "
        f"{size} or {bounds.max_seconds:g} s per server"
    )


@dataclass(frozen=True, slots=True)
class ListingProgress:
    """A listing in numbers: pages and items so far (all lists, and the one being asked), rate, bound."""

    server: str
    kind: Kind | None
    pages: int
    items: int
    kind_pages: int
    kind_items: int
    bytes: int
    seconds: float
    bound: str
    running: bool

    @property
    def rate(self) -> float:
        """Items per second since the listing began."""
        return self.items / self.seconds if self.seconds > 0 else 0.0

    def text(self) -> str:
        """`demo: resources, 37 pages · 37,000 items · 41,200/s · stops at 100,000 items or ...`."""
        where = plural(self.pages, "page")
        if self.kind is not None:
            where = f"{self.kind}, {plural(self.kind_pages, 'page')}"
        text = f"{self.server}: {where} · {plural(self.items, 'item')} · {self.rate:,.0f}/s"
        return f"{text} · stops at {self.bound}" if self.bound else text


_SMALL_LISTS: tuple[tuple[Kind, str], ...] = (("prompts", "prompt"), ("tools", "tool"))


def plural(count: int, noun: str) -> str:
    """`1 page`, `2 pages`, `1,000 items`."""
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def prefix_notes(listing: Listing) -> list[str]:
    """What to say about how a server took `prefix`: rejected, or ignored (nothing when it honoured it).
    The CLI's `tree --prefix` and the TUI's listing on demand say it alike."""
    asked = listing.state["resources"].started or listing.state["templates"].started
    if asked and not listing.prefix_sent:
        return [
            "it does not take the prefix parameter (SEP-1269; it answered -32602): everything was listed "
            "and what is under the prefix kept here"
        ]
    if listing.prefix_sent and listing.filtered_out:
        return [
            f"it ignored the prefix parameter (SEP-1269): {plural(listing.filtered_out, 'item')} outside the "
            f"prefix {'was' if listing.filtered_out == 1 else 'were'} dropped here"
        ]
    return []
