"""`read URI`: resources/read on the server that lists the URI, else on one whose template matches.

`--json` prints `{"server", "uri", "ok": true, "result": {the server's result, as sent}, "servers":
[SERVER]}`, or on failure `{"server", "uri", "ok": false, "error": ERROR, "servers": [SERVER]}`, with
ERROR `{"code", "message", "data", "origin"}` (`explorer.cli.output.error_json`) and SERVER `{"name",
"ok", "error": ERROR | null}` as in `prompt`: `ok` false when the server could not be asked (it failed
to connect, or to list its resources and templates). Only a server that declares `resources` is asked.
Ctrl+C stops the read (`explorer.cli.ctrl_c`): the error says so (code null, origin "explorer"), exit 130.

With several servers, each that could not be asked is a `warning:` line, which does not change the exit
code when another server read the URI (as in `prompt`); when nothing that answered lists or matches the
URI, the error names the servers that could not be asked (one of them may list it): it said that no
server lists it, and nothing at all when another server read it.

With several servers, each is connected once (`Sessions`): it lists, and once every listing is over the
read is made on the connection that listed the URI (a new one started a stdio server twice, and a stateful
server may know a resource only in the session that listed it); every connection closes once the read is
over. When no server could connect, none is connected again (a hung one cost its timeout twice): the
error names them. `--watch` follows on a connection of its own, made after the listings closed.

Without `--json` the contents go to stdout and what is said about them to stderr: `note: ` for how a
content was read (a declared charset), `warning: ` for a problem (bytes not in their charset, a charset
that is none), as the TUI mutes the one and colours the other; neither changes the exit code. `--json`
carries the server's result alone, no notes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import anyio

from explorer.cli.ctrl_c import stopping_on_ctrl_c
from explorer.cli.output import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    emit_json,
    error,
    error_json,
    note,
    out,
    safe,
    safe_line,
)
from explorer.cli.runner import Interrupt, Job, Outcome, run_on_servers
from explorer.cli.tree_cmd import lister
from explorer.config import ListingBounds, ServerSpec
from explorer.connection.errors import ServerFault
from explorer.connection.session import ServerConnection
from explorer.model.contents.binary import Base64Error, base64_size, decode_prefix, is_canonical_base64
from explorer.model.contents.charsets import Decoded, declared_charset, decode_text
from explorer.model.contents.classify import blob_family, shape_problem
from explorer.model.contents.record import TEXT_KINDS
from explorer.model.entries import TemplateEntry
from explorer.model.listing import Listing
from explorer.model.resolve import too_large_for
from explorer.model.templates import match_all

TEXT_LIMIT = None  # headless output prints the whole text; the TUI caps what it shows


@dataclass(frozen=True)
class Watch:
    """`read --watch`: stop after `count` new versions or `duration` seconds (None: until Ctrl-C)."""

    count: int | None = None
    duration: float | None = None


@dataclass
class Choice:
    """Which servers may answer, best first, and what their listings said (none for a lone server, which
    is not listed). `unresolved`: nothing lists or matches the URI, `candidates` is the fallback alone;
    `unreachable`: why that fallback cannot be asked either (no server connected at all)."""

    candidates: list[ServerSpec]
    outcomes: list[Outcome[Listing]] = field(default_factory=list)
    unresolved: bool = False
    unreachable: ServerFault | None = None

    @property
    def unasked(self) -> list[tuple[str, ServerFault]]:
        """The servers that could not be asked whether they list the URI, and why."""
        return [(o.name, f) for o in self.outcomes for f in [listing_fault(o)] if f is not None]

    @property
    def templates(self) -> list[TemplateEntry]:
        """Every listed template, to match the URI against (what a failed listing got is used too)."""
        return [t for o in self.outcomes if o.value is not None for t in o.value.templates]


def choose(specs: Sequence[ServerSpec], uri: str, outcomes: list[Outcome[Listing]]) -> Choice:
    """Those that list `uri`, then those with a matching template, in the order of `specs`; when none
    does, one fallback: a server that connected and offers resources, else one that connected, else the
    first (a tools-only server is not asked first). Several are tried in turn when one fails."""
    if len(specs) == 1 and not outcomes:  # a lone server is asked without listing it
        return Choice([specs[0]])
    names = [
        o.spec.name for o in outcomes if o.value is not None and any(r.uri == uri for r in o.value.resources)
    ]
    choice = Choice([], outcomes)
    names += [m.entry.server for m in match_all(choice.templates, uri) if m.entry.server not in names]
    by_name = {s.name: s for s in specs}
    choice.candidates = [by_name[name] for name in dict.fromkeys(names) if name in by_name]
    if not choice.candidates:
        live = [o.spec for o in outcomes if offers_resources(o)]
        live += [o.spec for o in outcomes if o.fault is None and o.spec not in live]
        choice.candidates, choice.unresolved = (live or list(specs))[:1], True
        if not live:  # none connected: a new connection would only fail again (a hung one, after a timeout)
            choice.unreachable = next((o.fault for o in outcomes if o.spec is choice.candidates[0]), None)
    return choice


def warn_unasked(choice: Choice, uri: str) -> None:
    """The servers that could not be asked, and the templates too large to try: one of them may be the
    one that has the URI, so never silent."""
    for name, failure in choice.unasked:
        note(f"warning: server {name}: could not list its resources and templates ({failure.message})")
    if choice.unresolved:
        for entry, why in too_large_for(choice.templates, uri):
            note(
                f"warning: server {entry.server}: template {safe_line(entry.uri_template, 80)} not tried: "
                f"too large to use ({why})"
            )


def shown_uri(uri: str) -> str:
    """The URI as messages name it: quoted when it is empty or holds a space (`reading : ...` hid it), else
    as is (`reading docs://x: ...`, as the connection's own messages and the TUI say it)."""
    if uri and not any(c.isspace() for c in uri):
        return uri
    return f"'{uri}'"


def listing_fault(outcome: Outcome[Listing]) -> ServerFault | None:
    """Why a server could not be asked whether it lists or matches the URI: it failed to connect, or its
    listing failed (what it listed before may still be used); None when it answered."""
    if outcome.fault is not None:
        return outcome.fault
    listing = outcome.value
    if listing is not None and listing.error is not None:
        return ServerFault(listing.error, listing.error_code, local=listing.error_local)
    return None


def server_entry(name: str, fault: ServerFault | None) -> dict[str, Any]:
    """A server in `--json` output, as `prompt` gives it: `ok` false (with why) when it could not be asked."""
    return {"name": name, "ok": fault is None, "error": error_json(fault)}


def server_entries(
    outcomes: Sequence[Outcome[Listing]], spec: ServerSpec, fault: ServerFault | None
) -> list[dict[str, Any]]:
    """`servers` in `read --json` and `read --watch --json`: each server as the listing found it; a lone
    server (not listed) as its own connection found it, `fault` being why it could not connect."""
    return [server_entry(o.name, listing_fault(o)) for o in outcomes] or [server_entry(spec.name, fault)]


def offers_resources(outcome: Outcome[Listing]) -> bool:
    """The server connected and did not say it has no resources (an identity unknown counts as yes)."""
    return outcome.fault is None and (outcome.identity is None or outcome.identity.has("resources"))


def no_resources(server: str) -> str:
    """Why a server is not asked for a resource: it said it has none."""
    return f"server {server} offers no resources (it declares no resources capability)"


def fault_line(server: str, fault: ServerFault) -> str:
    """`server X: what failed`, or the no-resources sentence, which names the server itself."""
    if fault.message.startswith(no_resources(server)):
        return fault.message
    return f"server {server}: {fault.message}"


def unresolved_why(unasked: Sequence[str], *, answered: bool) -> str:
    """Why no server was chosen for a URI: nothing lists or matches it, or only nothing of the servers
    that answered does, the others (named) not asked (one of them may list it)."""
    if not unasked:
        return "no server lists this URI and no template matches it"
    names = ", ".join(unasked)
    if not answered:
        return f"no server could be asked whether it lists this URI: {names} could not list theirs"
    return (
        f"no server that answered lists this URI and no template of theirs matches it; "
        f"{names} could not be asked"
    )


def blob_summary(content: dict[str, Any]) -> str:
    mime = content.get("mimeType") or "application/octet-stream"
    blob = content.get("blob")
    if not isinstance(blob, str):
        return f"[blob: {safe_line(mime, 80)}, no data]"
    try:
        size = base64_size(blob)  # read as the TUI reads it: whitespace and missing padding are fine
    except Base64Error as problem:
        why = safe_line(str(problem), 120)
        return f"[blob: {safe_line(mime, 80)}, {len(blob):,} characters of INVALID base64: {why}]"
    lax = "" if is_canonical_base64(blob) else " (not canonical base64: whitespace or missing padding)"
    return f"[blob: {safe_line(mime, 80)}, {size:,} bytes{lax}]"


def print_contents(result: dict[str, Any], asked: str | None = None) -> None:
    """The contents as text; what the server sent that is no content, and a lone content that is another
    URI than the one `asked` for, are said on stderr (the text alone would pass for the answer)."""
    listed = result.get("contents", [])
    if not isinstance(listed, list):
        note(f"warning: the server's contents are {type(listed).__name__}, not a list: nothing to show")
        listed = []
    contents = [c for c in listed if isinstance(c, dict)]
    if len(contents) < len(listed):
        skipped = len(listed) - len(contents)
        note(f"warning: {skipped:,} of the {len(listed):,} contents are not objects; left out")
    if not contents:
        note("(the server returned no contents)")
    several = len(contents) > 1
    if asked is not None and len(contents) == 1:
        other = contents[0].get("uri")
        if isinstance(other, str) and other and other != asked:
            note(f"warning: the content says it is {safe_line(other, 500)}, not the URI read")
    for content in contents:
        if several:
            mime = content.get("mimeType")
            out(
                f"--- {safe_line(content.get('uri', ''), 500)}"
                + (f" ({safe_line(mime, 80)})" if mime else "")
            )
        problem = shape_problem(content)  # the sentence the TUI shows for the same item
        if problem is not None:
            out(f"[{problem}]")
        elif isinstance(content.get("text"), str):
            out(safe(content["text"], limit=TEXT_LIMIT))
        else:
            decoded = declared_text(content)
            out(blob_summary(content) if decoded.text is None else safe(decoded.text, limit=TEXT_LIMIT))
            if decoded.note is not None:
                # As the TUI mutes an informational note and colours a problem: `note:` or `warning:`.
                prefix = "note" if decoded.informational else "warning"
                note(f"{prefix}: {safe_line(content.get('uri', ''), 500)}: {decoded.note}")


def declared_text(content: dict[str, Any]) -> Decoded:
    """The text of a blob whose MIME type declares a text in a charset, decoded as the TUI decodes it
    (`explorer.model.contents.charsets`), with its note (informational when it only says how it was
    read); no text and why not when its bytes are not in that charset; neither when it declares none:
    its summary is printed, as for any other blob."""
    mime = content.get("mimeType")
    uri = content.get("uri")
    blob = content.get("blob")
    if not isinstance(mime, str) or declared_charset(mime) is None or not isinstance(blob, str):
        return Decoded(None)
    family = blob_family(uri if isinstance(uri, str) else "", mime)
    if family is None or family[0] not in TEXT_KINDS:
        return Decoded(None)
    try:
        data, _size = decode_prefix(blob, None)
    except Base64Error:
        return Decoded(None)  # the summary says why
    decoded = decode_text(data, mime)
    if decoded.text is None:
        return Decoded(None, f"{decoded.note}: printed as a blob")
    if decoded.note is None:  # UTF-8 declared: the TUI says nothing, `read` says how it printed bytes
        return Decoded(decoded.text, f"decoded from the declared charset {declared_charset(mime)}", True)
    return decoded


def read_job(spec: ServerSpec, uri: str) -> Job[dict[str, Any]]:
    """resources/read of `uri` on a connection to `spec`; a server that declares no resources is not
    asked (its answer would be "method not found")."""

    async def job(conn: ServerConnection) -> dict[str, Any]:
        if conn.identity is not None and not conn.identity.has("resources"):
            raise ServerFault(no_resources(spec.name), local=True)
        return await conn.read_resource(uri)

    return job


def said_as_shown(outcome: Outcome[dict[str, Any]], uri: str) -> Outcome[dict[str, Any]]:
    """The read's fault naming the URI as messages show it (`shown_uri`): the connection names it bare."""
    fault = outcome.fault
    said = f"reading {uri}: "  # the connection's words (`ServerConnection.read_resource`)
    if fault is not None and shown_uri(uri) != uri and fault.message.startswith(said):
        message = f"reading {shown_uri(uri)}: {fault.message[len(said) :]}"
        outcome.fault = ServerFault(message, fault.code, fault.data, local=fault.local)
    return outcome


async def read_on(
    spec: ServerSpec, uri: str, *, protocol: str, timeout: float, interrupt: Interrupt | None = None
) -> Outcome[dict[str, Any]]:
    """resources/read on a connection of its own to `spec` (a lone server, which is not listed first)."""
    job = read_job(spec, uri)
    [outcome] = await run_on_servers([spec], job, protocol=protocol, timeout=timeout, interrupt=interrupt)
    return said_as_shown(outcome, uri)


Reader = Callable[[ServerSpec], Awaitable[Outcome[dict[str, Any]]]]


class Sessions:
    """Every server's connection, kept open from its listing to the read, which is made on the connection
    that listed the URI: a new one started a stdio server a second time, and a stateful server may not
    know in a new session what it listed in the first. Each server's job lists, waits for its turn, and
    reads when its turn comes; the others close once the read is over (`release`)."""

    def __init__(
        self, specs: Sequence[ServerSpec], uri: str, *, protocol: str, timeout: float, interrupt: Interrupt
    ) -> None:
        self.specs = list(specs)
        self.uri = uri
        self.protocol, self.timeout, self.interrupt = protocol, timeout, interrupt
        self.listings: list[Outcome[Listing] | None] = [None] * len(specs)
        self.listed = anyio.Event()  # every server's listing is over: done, failed, or never connected
        self._go = [anyio.Event() for _ in specs]
        self._reads = [False] * len(specs)
        self._runs: list[Outcome[dict[str, Any] | None] | None] = [None] * len(specs)
        self._ended = [anyio.Event() for _ in specs]
        self._open_at_turn = [False] * len(specs)  # its connection was alive when its turn came

    @asynccontextmanager
    async def open(self, bounds: ListingBounds) -> AsyncIterator[list[Outcome[Listing]]]:
        """Connect and list every server; the block gets the listings once all are over, the connections
        still open; they close when it ends."""
        async with anyio.create_task_group() as group:
            for index in range(len(self.specs)):
                group.start_soon(self._serve, index, bounds)
            try:
                await self.listed.wait()
                yield [o for o in self.listings if o is not None]
            finally:
                self.release()

    async def read(self, spec: ServerSpec) -> Outcome[dict[str, Any]]:
        """The read on `spec`'s open connection (its turn), once that connection is closed: the run's
        outcome (the fault masked, a Ctrl+C said) is known only then."""
        index = next(i for i, s in enumerate(self.specs) if s is spec)
        self._reads[index] = True
        self._go[index].set()
        await self._ended[index].wait()
        if not self._open_at_turn[index] and not self.interrupt.requested:
            # Its connection ended before its turn (the server exited after listing its templates):
            # a new one, as `read` did before it read on the listing's connection.
            return await read_on(
                spec, self.uri, protocol=self.protocol, timeout=self.timeout, interrupt=self.interrupt
            )
        run = self._runs[index]
        assert run is not None
        outcome = Outcome[dict[str, Any]](
            spec,
            run.identity,
            run.value,
            run.fault,
            run.stderr_tail,
            run.problems,
            run.notes,
            run.interrupted,
        )
        if outcome.value is None and outcome.fault is None:  # not expected: its job ends by reading
            outcome.fault = ServerFault("the connection closed before the read", local=True)
        return said_as_shown(outcome, self.uri)

    def release(self) -> None:
        """The servers not reading close their connections: the read is over, or will not be made."""
        for index, go in enumerate(self._go):
            if not self._reads[index]:
                go.set()

    async def _serve(self, index: int, bounds: ListingBounds) -> None:
        """One server's run; when it ends before its listing did (it failed to connect, or was stopped),
        its outcome is that listing's, so `listed` counts outcomes, not jobs that listed."""
        spec = self.specs[index]
        listing_job: Job[Listing] = lister(bounds, stop=self.interrupt.listings)
        reading_job = read_job(spec, self.uri)

        async def job(conn: ServerConnection) -> dict[str, Any] | None:
            listing = await listing_job(conn)
            self._listing_over(index, Outcome(spec, identity=conn.identity, value=listing))
            await self._go[index].wait()
            if not self._reads[index]:
                return None
            self._open_at_turn[index] = not conn.lost.is_set()
            return await reading_job(conn) if self._open_at_turn[index] else None

        [run] = await run_on_servers(
            [spec], job, protocol=self.protocol, timeout=self.timeout, interrupt=self.interrupt
        )
        self._listing_over(index, as_listing(run))
        self._runs[index] = run
        self._ended[index].set()

    def _listing_over(self, index: int, outcome: Outcome[Listing]) -> None:
        if self.listings[index] is None:
            self.listings[index] = outcome
        if all(o is not None for o in self.listings):
            self.listed.set()


def as_listing(run: Outcome[dict[str, Any] | None]) -> Outcome[Listing]:
    """A run that ended before its listing, as that listing's outcome: how it failed, nothing listed."""
    return Outcome[Listing](
        run.spec, run.identity, None, run.fault, run.stderr_tail, run.problems, run.notes, run.interrupted
    )


@asynccontextmanager
async def lone_server(
    spec: ServerSpec, uri: str, *, protocol: str, timeout: float, interrupt: Interrupt
) -> AsyncIterator[tuple[list[Outcome[Listing]], Reader]]:
    """A lone server is not listed: one connection, to read (as `Sessions.open` gives several)."""

    async def read(chosen: ServerSpec) -> Outcome[dict[str, Any]]:
        return await read_on(chosen, uri, protocol=protocol, timeout=timeout, interrupt=interrupt)

    yield [], read


@asynccontextmanager
async def servers_for(
    specs: Sequence[ServerSpec],
    uri: str,
    bounds: ListingBounds,
    *,
    protocol: str,
    timeout: float,
    interrupt: Interrupt,
) -> AsyncIterator[tuple[list[Outcome[Listing]], Reader]]:
    """The servers' listings (none for a lone server) and how to read on one of them."""
    if len(specs) == 1:
        async with lone_server(specs[0], uri, protocol=protocol, timeout=timeout, interrupt=interrupt) as got:
            yield got
        return
    sessions = Sessions(specs, uri, protocol=protocol, timeout=timeout, interrupt=interrupt)
    async with sessions.open(bounds) as outcomes:
        yield outcomes, sessions.read


async def read_command(
    specs: Sequence[ServerSpec],
    uri: str,
    bounds: ListingBounds,
    *,
    protocol: str,
    timeout: float,
    as_json: bool,
    watch: Watch | None = None,
) -> int:
    """Read `uri` (or follow it, `watch`); the first Ctrl+C stops and prints what is done, exit 130."""
    interrupt = Interrupt(abandons=f"reading {shown_uri(uri)}")
    done: int | Callable[[], int] = EXIT_INTERRUPTED
    async with stopping_on_ctrl_c(interrupt) as ctrl_c:
        done = await _read(
            specs,
            uri,
            bounds,
            protocol=protocol,
            timeout=timeout,
            as_json=as_json,
            watch=watch,
            interrupt=interrupt,
        )
    if ctrl_c.aborted:
        return EXIT_INTERRUPTED
    # Written once the servers are done: Ctrl+C then lets the output finish (a second cuts it), as for
    # `tree` (`ctrl_c.finish_output_on_ctrl_c`); inside the block the signal was dropped at its end.
    return done() if callable(done) else done


async def _read(
    specs: Sequence[ServerSpec],
    uri: str,
    bounds: ListingBounds,
    *,
    protocol: str,
    timeout: float,
    as_json: bool,
    watch: Watch | None,
    interrupt: Interrupt,
) -> int | Callable[[], int]:
    """List, choose and read while the connections that listed are open; what came, to be said once
    they closed (`--watch` prints as versions come, and returns its code)."""
    read: tuple[ServerSpec, Outcome[dict[str, Any]]] | None = None
    listed = servers_for(specs, uri, bounds, protocol=protocol, timeout=timeout, interrupt=interrupt)
    async with listed as (outcomes, reader):
        choice = choose(specs, uri, outcomes)
        stopped = interrupt.requested  # stopped while asking the servers which one lists it
        if not stopped:
            warn_unasked(choice, uri)
            if watch is None or choice.unreachable is not None:
                read = await read_in_turn(choice, reader)
    if stopped:
        return stopped_before_asking(specs, outcomes, uri, as_json=as_json)
    if read is None:
        assert watch is not None
        return await watch_on(
            choice, uri, watch, protocol=protocol, timeout=timeout, as_json=as_json, interrupt=interrupt
        )
    return partial(report, choice, *read, uri, as_json=as_json)


async def read_in_turn(choice: Choice, reader: Reader) -> tuple[ServerSpec, Outcome[dict[str, Any]]]:
    """The read on the best candidate; when it fails (not stopped by Ctrl+C), on the next one, each failure
    a warning line. Nothing is read when no server connected: asked again, a hung server cost its whole
    timeout twice, for the same failure."""
    spec = choice.candidates[0]
    if choice.unreachable is not None:
        return spec, Outcome(spec, fault=choice.unreachable)
    outcome = await reader(spec)
    for other in choice.candidates[1:]:  # another server that lists or matches it may still answer
        if outcome.fault is None or outcome.interrupted:
            break
        note(f"warning: {fault_line(spec.name, outcome.fault)}; trying server {other.name}")
        spec = other
        outcome = await reader(spec)
    return spec, outcome


def stopped_before_asking(
    specs: Sequence[ServerSpec], outcomes: list[Outcome[Listing]], uri: str, *, as_json: bool
) -> int:
    """Ctrl+C came while the servers were asked which one lists the URI: nothing was read."""
    fault = ServerFault(
        f"reading {shown_uri(uri)}: stopped by Ctrl+C before a server was asked for it", local=True
    )
    if as_json:
        servers = [server_entry(o.name, listing_fault(o)) for o in outcomes]
        servers = servers or [server_entry(s.name, fault) for s in specs]
        emit_json({"server": None, "uri": uri, "ok": False, "error": error_json(fault), "servers": servers})
    error(fault.message)
    return EXIT_INTERRUPTED


async def watch_on(
    choice: Choice,
    uri: str,
    watch: Watch,
    *,
    protocol: str,
    timeout: float,
    as_json: bool,
    interrupt: Interrupt,
) -> int:
    """`--watch` on the chosen server, on a connection of its own (it holds the subscription)."""
    from explorer.cli.watch_cmd import watch_command

    return await watch_command(
        choice.candidates[0],
        uri,
        protocol=protocol,
        timeout=timeout,
        as_json=as_json,
        count=watch.count,
        duration=watch.duration,
        show=print_contents,
        interrupt=interrupt,
        listed=choice.outcomes,
    )


def report(
    choice: Choice, spec: ServerSpec, outcome: Outcome[dict[str, Any]], uri: str, *, as_json: bool
) -> int:
    """The contents (or the result, in JSON), or the error, with why no server was found to ask."""
    servers = server_entries(choice.outcomes, spec, outcome.fault if outcome.identity is None else None)
    if outcome.fault is not None:
        fault = outcome.fault
        unasked = [name for name, _ in choice.unasked]
        why = unresolved_why(unasked, answered=len(unasked) < len(choice.outcomes))
        if (
            choice.unresolved
            and not outcome.interrupted
            and (unasked or fault.message != no_resources(spec.name))
        ):
            fault = ServerFault(f"{fault.message} ({why})", fault.code, fault.data, local=fault.local)
        if as_json:
            emit_json(
                {"server": spec.name, "uri": uri, "ok": False, "error": error_json(fault), "servers": servers}
            )
        error(fault_line(spec.name, fault))
        return EXIT_INTERRUPTED if outcome.interrupted else EXIT_FAILED
    assert outcome.value is not None
    if as_json:
        # The server's result under its own key: none of its fields can stand in for the explorer's.
        emit_json({"server": spec.name, "uri": uri, "ok": True, "result": outcome.value, "servers": servers})
    else:
        print_contents(outcome.value, uri)
    return EXIT_OK
