"""`read URI --watch`: print a resource, then every new version as the server announces it.

Follows the resource in either protocol era (`resources/subscribe` in the handshake era, the listen
stream's resource set in the modern era), and ends the subscription before it exits, whether it stops after
`--count N` new versions, after `--for SECONDS`, or on Ctrl-C. Announcements that arrive while a version is
being read cost one more read, not one each. Exit codes: 0 when at least one new version arrived (or
`--count` was reached), 3 when none did within `--for` (a `warning:` line says so: how many changes were
announced, when only the re-reads were late), 1 when the resource cannot be read or followed or the server
goes away (said at once, with how its process ended), 130 on Ctrl-C (`read`'s `Interrupt`: the versions
printed stay; before the first one, the error says the read was stopped). The unsubscribe's answer is
waited for 2 s at most: it may be queued behind a storm of announcements. With `--json` each object
(every version, and the error) has `servers`, built as `read --json`'s (`read_cmd.server_entries`).
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

import anyio

from explorer.cli.closed_output import OutputClosed
from explorer.cli.output import (
    EXIT_FAILED,
    EXIT_INCOMPLETE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    emit_json,
    error,
    error_json,
    note,
    out,
    safe_line,
)
from explorer.cli.read_cmd import fault_line, no_resources, server_entries
from explorer.cli.runner import Interrupt, Outcome, run_on_servers
from explorer.config import ServerSpec
from explorer.connection.errors import ServerFault
from explorer.connection.live import FollowTrouble, News, ResourceChanged
from explorer.connection.session import ServerConnection
from explorer.model.listing import Listing

_UNFOLLOW_WAIT = 2.0  # at most, for the server's answer to the unsubscribe sent before exit


async def watch_command(
    spec: ServerSpec,
    uri: str,
    *,
    protocol: str,
    timeout: float,
    as_json: bool,
    count: int | None,
    duration: float | None,
    show: Any,
    interrupt: Interrupt | None = None,
    listed: Sequence[Outcome[Listing]] = (),
) -> int:
    """Read and follow `uri` on `spec`; `show(result)` prints one version's contents as text. A stop of
    `interrupt` (Ctrl+C) abandons the job; its subscription is still ended. `listed`: how each server
    answered when asked which one lists `uri` (none for a lone server), the `servers` of each JSON object
    as in `read --json`."""
    state = {"versions": 0}  # versions printed
    announced = Counter[str]()  # changes of `uri` the server announced (a counter: no JSON key)

    def print_version(result: dict[str, Any]) -> None:
        state["versions"] += 1
        number = state["versions"]
        clock = time.strftime("%H:%M:%S")
        try:
            if as_json:
                envelope = {"server": spec.name, "uri": uri, "version": number, "time": clock, "ok": True}
                emit_json({**envelope, "result": result, "servers": server_entries(listed, spec, None)})
            else:
                out(f"--- {safe_line(uri, 300)} · version {number} · {clock}")
                show(result)
        except BrokenPipeError as exc:  # written inside the server's job: not to be taken for its fault
            raise OutputClosed from exc

    async def job(conn: ServerConnection) -> int:
        changed = anyio.Event()
        stopped = anyio.Event()  # following stopped on its own (the server's change stream gave up)
        why: list[str] = []

        def on_news(news: News) -> None:
            nonlocal changed
            if isinstance(news, ResourceChanged) and news.uri == uri:
                announced[uri] += 1
                changed.set()
            elif isinstance(news, FollowTrouble):
                why.append(news.message)
                stopped.set()

        conn.news_handler = on_news
        if conn.identity is not None and not conn.identity.has("resources"):
            raise ServerFault(no_resources(spec.name), local=True)
        print_version(await conn.read_resource(uri))
        if not await conn.follow(uri):
            problem = conn.follower.problem or "the server does not offer resource subscriptions"
            raise ServerFault(f"cannot follow {uri}: {problem}", local=True)  # in --json too
        try:
            with anyio.move_on_after(duration if duration is not None else math.inf):
                while count is None or state["versions"] - 1 < count:
                    await _first_set(changed, conn.lost, stopped)
                    if conn.lost.is_set():  # no version will come: said now, not after --for
                        raise await conn.loss_fault()
                    if stopped.is_set():
                        raise ServerFault(f"following {uri}: live updates stopped: {why[0]}", local=True)
                    changed = anyio.Event()  # announcements from here on ask for one more read
                    print_version(await conn.read_resource(uri))
        finally:
            # Bounded short: its answer may be queued behind a storm of announcements, and the connection
            # closes next anyway (which ends the subscription); the request is sent all the same.
            with anyio.CancelScope(shield=True), anyio.move_on_after(min(timeout, _UNFOLLOW_WAIT)):
                await conn.unfollow(uri)
        if state["versions"] > 1 or (count is not None and count == 0):
            return EXIT_OK
        seconds = "1 second" if duration == 1 else f"{duration:g} seconds"
        within = f"within {seconds} (--for)" if duration is not None else "before it stopped"
        shown, changes_of = safe_line(uri, 300), announced[uri]
        if changes_of:  # the server did announce changes: it is the re-read that did not finish
            changes = "1 change of" if changes_of == 1 else f"{changes_of:,} changes of"
            was = "was" if changes_of == 1 else "were"
            said = f"{changes} {shown} {was} announced, but no re-read finished {within}"
        else:
            said = f"no new version of {shown} came {within}"
        note(f"warning: server {spec.name}: {said}")
        return EXIT_INCOMPLETE

    [outcome] = await run_on_servers([spec], job, protocol=protocol, timeout=timeout, interrupt=interrupt)
    if outcome.interrupted and state["versions"]:  # what came is printed: Ctrl+C ends the watch, no error
        return EXIT_INTERRUPTED
    if outcome.fault is not None:
        if as_json:
            servers = server_entries(listed, spec, outcome.fault if outcome.identity is None else None)
            failed = {"server": spec.name, "uri": uri, "ok": False, "error": error_json(outcome.fault)}
            emit_json({**failed, "servers": servers})
        error(fault_line(spec.name, outcome.fault))
        return EXIT_INTERRUPTED if outcome.interrupted else EXIT_FAILED
    assert outcome.value is not None
    return outcome.value


async def _first_set(*events: anyio.Event) -> None:
    """Wait until any of `events` is set."""
    async with anyio.create_task_group() as group:

        async def wait_for(event: anyio.Event) -> None:
            await event.wait()
            group.cancel_scope.cancel()

        for event in events:
            group.start_soon(wait_for, event)
