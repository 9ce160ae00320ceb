"""`prompts` and `prompt NAME`: prompts/list over every server, prompts/get on the one that has it.

Prompt data is read through `explorer.model.prompt_data` (as the TUI reads it), so a malformed listing
or result is printed with a warning naming what is wrong, never a traceback.

`prompt NAME` lists on every server at once, and each server that lists NAME is asked for it (the
connections are open anyway); what the first of them (in the order given) answered is printed, once,
in text and in `--json`:

- the server's error for prompts/get, with its code and message;
- "no server has a prompt named X" only when every server listed its prompts and none has X; when some
  listings failed, their errors, then that X is not among the prompts of the servers that answered.

JSON shapes (the server's own data always under its own key, so it can never overwrite the explorer's):
`prompts`: `{"servers": [SERVER], "prompts": [{"server": NAME, "prompt": {as listed}, "problems": [..]}]}`;
`prompt`: `{"server", "prompt", "arguments", "ok", "result": {as sent} | "error": ERROR, "servers": [SERVER]}`
with SERVER `{"name", "ok", "error": ERROR | null}` and ERROR `{"code", "message", "data", "origin"}`
(`explorer.cli.output.error_json`: `origin` is "server" for an error the server answered with, else
"explorer").

Ctrl+C (`explorer.cli.ctrl_c`): `prompts` prints what was listed (a listing stopped is `"stoppedBy":
"interrupted"`), `prompt` what a server answered, else the error saying it was stopped; exit 130.
"""

from __future__ import annotations

import difflib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from explorer.cli.ctrl_c import stopping_on_ctrl_c
from explorer.cli.output import (
    EXIT_FAILED,
    EXIT_INCOMPLETE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    emit_json,
    error,
    error_json,
    note,
    out,
    safe,
    safe_line,
    stopped_at_bound,
)
from explorer.cli.runner import Interrupt, Outcome, run_on_servers
from explorer.config import ListingBounds, ServerSpec
from explorer.connection.discovery import ListingStop, list_server
from explorer.connection.errors import ServerFault
from explorer.connection.session import ServerConnection
from explorer.model.listing import INTERRUPTED, stopped_text
from explorer.model.prompt_data import (
    Block,
    PromptInfo,
    decoded_size,
    parse_prompt,
    parse_prompt_result,
)


@dataclass
class _Prompts:
    """One server's prompts as listed (raw), and whether a bound stopped the listing."""

    raw: list[dict[str, Any]] = field(default_factory=list)
    stopped_by: str | None = None


def _lister(
    bounds: ListingBounds, stop: ListingStop | None = None
) -> Callable[[ServerConnection], Awaitable[_Prompts]]:
    """Every page of prompts/list within the bounds (a server without `prompts` is not asked); `stop`
    (Ctrl+C) ends the listing with what arrived."""

    async def job(conn: ServerConnection) -> _Prompts:
        if conn.identity is not None and not conn.identity.has("prompts"):
            return _Prompts()
        listing = await list_server(conn, bounds, kinds=("prompts",), stop=stop)
        if listing.error is not None:
            raise ServerFault(listing.error, listing.error_code, local=listing.error_local)
        return _Prompts([entry.raw for entry in listing.prompts], listing.stopped_by)

    return job


def server_json(o: Outcome[Any]) -> dict[str, Any]:
    data: dict[str, Any] = {"name": o.name, "ok": o.ok, "error": error_json(o.fault)}
    if isinstance(o.value, _Prompts):
        data["complete"] = o.value.stopped_by is None
        data["stoppedBy"] = o.value.stopped_by
    elif o.interrupted:  # Ctrl+C came before it was done
        data["complete"] = False
        data["stoppedBy"] = INTERRUPTED
    return data


def _warn(server: str, text: str) -> None:
    note(f"warning: server {server}: {text}")


# ------------------------------------------------------------------------------------------- prompts


async def prompts_command(
    specs: Sequence[ServerSpec],
    *,
    protocol: str,
    timeout: float,
    as_json: bool,
    bounds: ListingBounds | None = None,
) -> int:
    interrupt = Interrupt()  # Ctrl+C: the listings stop, what arrived is printed (marked incomplete)
    async with stopping_on_ctrl_c(interrupt) as ctrl_c:
        job = _lister(bounds or ListingBounds(), interrupt.listings)
        outcomes = await run_on_servers(specs, job, protocol=protocol, timeout=timeout, interrupt=interrupt)
    if ctrl_c.aborted:
        return EXIT_INTERRUPTED
    listed = [(o, raw, parse_prompt(raw)) for o in outcomes for raw in (o.value.raw if o.value else [])]
    if as_json:
        emit_json(
            {
                "servers": [server_json(o) for o in outcomes],
                "prompts": [
                    {"server": o.name, "prompt": raw, "problems": list(info.problems) if info else []}
                    for o, raw, info in listed
                ],
            }
        )
    else:
        several = len(specs) > 1
        for o, _raw, info in listed:
            if info is not None:
                out(_prompt_line(o.name if several else None, info))
    for o, _raw, info in listed:
        if info is not None:
            for problem in info.problems:
                _warn(o.name, f"prompt {info.name}: {problem}")
    for o in outcomes:
        if o.interrupted and o.fault is not None:  # the user stopped it: not the server's failure
            stopped_at_bound(o.name, o.fault.message)
        elif o.fault is not None:
            error(o.error_line())
        elif o.value is not None and o.value.stopped_by is not None:
            count = len(o.value.raw)
            why = stopped_text(o.value.stopped_by)
            stopped_at_bound(o.name, f"{count} prompts listed; incomplete: {why}")
    if ctrl_c.interrupted:
        return EXIT_INTERRUPTED
    if any(o.fault is not None for o in outcomes):
        return EXIT_FAILED
    if any(o.value is not None and o.value.stopped_by is not None for o in outcomes):
        return EXIT_INCOMPLETE
    return EXIT_OK


def _prompt_line(server: str | None, prompt: PromptInfo) -> str:
    args = [safe_line(a.name, 60) + ("*" if a.required else "") for a in prompt.arguments]
    line = (f"{safe_line(server, 60)}  " if server else "") + safe_line(prompt.name, 120)
    if args:
        line += "(" + ", ".join(args) + ")"
    description = prompt.description or prompt.title
    if description:
        line += "  - " + safe_line(description, 200)
    return line


# -------------------------------------------------------------------------------------------- prompt


@dataclass
class _Lookup:
    """What one server said about prompt NAME: not listed, or listed and then got (or failed)."""

    info: PromptInfo | None = None
    missing: list[str] = field(default_factory=list)
    result: dict[str, Any] | None = None
    fault: ServerFault | None = None
    names: list[str] = field(default_factory=list)  # the server's prompts, when NAME is not among them


async def prompt_command(
    specs: Sequence[ServerSpec],
    name: str,
    arguments: dict[str, str],
    *,
    protocol: str,
    timeout: float,
    as_json: bool,
) -> int:
    interrupt = Interrupt(abandons=f"getting prompt {name}")
    lister = _lister(ListingBounds())

    async def job(conn: ServerConnection) -> _Lookup:
        infos = [parse_prompt(raw) for raw in (await lister(conn)).raw]
        info = next((i for i in infos if i is not None and i.name == name), None)
        if info is None:
            return _Lookup(names=[i.name for i in infos if i is not None])
        missing = [a for a in info.required if a not in arguments]
        if missing:
            return _Lookup(info, missing=missing)
        try:
            return _Lookup(info, result=await conn.get_prompt(name, arguments))
        except ServerFault as fault:
            return _Lookup(info, fault=fault)

    async with stopping_on_ctrl_c(interrupt) as ctrl_c:
        outcomes = await run_on_servers(specs, job, protocol=protocol, timeout=timeout, interrupt=interrupt)
    if ctrl_c.aborted:
        return EXIT_INTERRUPTED
    if ctrl_c.interrupted:
        return _interrupted(name, outcomes, arguments, as_json)
    found = next((o for o in outcomes if o.value is not None and o.value.info is not None), None)
    envelope: dict[str, Any] = {
        "server": found.name if found else None,
        "prompt": name,
        "arguments": arguments,
    }
    servers = [server_json(o) for o in outcomes]
    if found is None or found.value is None:
        return _not_found(name, outcomes, envelope, servers, as_json)
    lookup = found.value
    for o in outcomes:
        if o.fault is not None:
            _warn(o.name, f"could not list its prompts ({o.fault.message})")
    if lookup.missing:
        error(f"prompt {name}: missing required argument(s): {', '.join(lookup.missing)}")
        return EXIT_USAGE
    assert lookup.info is not None
    _warn_unknown(found.name, name, lookup.info, arguments)
    if lookup.fault is not None or lookup.result is None:
        fault = lookup.fault or ServerFault(f"getting prompt {name}: no result")
        if as_json:
            emit_json({**envelope, "ok": False, "error": error_json(fault), "servers": servers})
        error(f"server {found.name}: {fault.message}")
        return EXIT_FAILED
    parsed = parse_prompt_result(lookup.result)
    if as_json:
        emit_json({**envelope, "ok": True, "result": lookup.result, "servers": servers})
    else:
        print_messages(lookup.result)
    for problem in parsed.problems:
        _warn(found.name, f"prompt {name}: {problem}")
    for number, message in enumerate(parsed.messages, 1):
        if message.problem is not None and message.role is None:
            _warn(found.name, f"prompt {name}: message {number}: {message.problem}")
    return EXIT_OK


def _interrupted(
    name: str, outcomes: Sequence[Outcome[_Lookup]], arguments: dict[str, str], as_json: bool
) -> int:
    """Ctrl+C came before the prompt was got: the first server that answered prints as usual; else
    the error says the user stopped it (code null, origin "explorer"), exit 130."""
    got = next((o for o in outcomes if o.value is not None and o.value.result is not None), None)
    stopped = next((o for o in outcomes if o.interrupted), None)
    servers = [server_json(o) for o in outcomes]
    if got is not None and got.value is not None and got.value.result is not None:
        if as_json:
            head = {"server": got.name, "prompt": name, "arguments": arguments}
            emit_json({**head, "ok": True, "result": got.value.result, "servers": servers})
        else:
            print_messages(got.value.result)
        return EXIT_INTERRUPTED
    fault = stopped.fault if stopped is not None else None
    fault = fault or ServerFault(f"getting prompt {name}: stopped by Ctrl+C", local=True)
    lister = next((o for o in outcomes if o.value is not None and o.value.info is not None), stopped)
    if as_json:
        server = lister.name if lister is not None else None
        envelope: dict[str, Any] = {"server": server, "prompt": name, "arguments": arguments}
        emit_json({**envelope, "ok": False, "error": error_json(fault), "servers": servers})
    for o in outcomes:
        if o.fault is not None:
            error(o.error_line())
    return EXIT_INTERRUPTED


def _warn_unknown(server: str, name: str, info: PromptInfo, arguments: Mapping[str, str]) -> None:
    """An argument the prompt does not declare (a typo, most likely) is sent all the same, and said."""
    declared = [argument.name for argument in info.arguments]
    for given in arguments:
        if given not in declared:
            known = ", ".join(safe_line(d, 60) for d in declared) or "none"
            hint = difflib.get_close_matches(given, declared, n=1)
            maybe = f"; did you mean {safe_line(hint[0], 60)!r}?" if hint else ""
            _warn(
                server, f"prompt {name}: {given!r} is not one of its arguments ({known}), sent anyway{maybe}"
            )


def _not_found(
    name: str,
    outcomes: Sequence[Outcome[_Lookup]],
    envelope: dict[str, Any],
    servers: list[dict[str, Any]],
    as_json: bool,
) -> int:
    failed = [o for o in outcomes if o.fault is not None]
    answered = [o.name for o in outcomes if o.fault is None]
    if not failed:
        message = f"no server has a prompt named {name!r}"
        known = sorted({n for o in outcomes if o.value is not None for n in o.value.names})
        hint = difflib.get_close_matches(name, known, n=1)
        if hint:
            message += f"; did you mean {safe_line(hint[0], 100)!r}?"
    elif answered:
        message = (
            f"prompt {name!r} is not among the prompts of {', '.join(answered)}; "
            f"{', '.join(o.name for o in failed)} could not list theirs"
        )
    else:
        message = f"prompt {name!r}: no server could list its prompts"
    if as_json:
        fault = ServerFault(message) if len(failed) != 1 else failed[0].fault
        emit_json({**envelope, "ok": False, "error": error_json(fault), "servers": servers})
    for o in failed:
        error(o.error_line())
    if answered or not failed:
        error(message)
    return EXIT_FAILED


# --------------------------------------------------------------------------------------------- text


def print_messages(result: Mapping[str, Any]) -> None:
    parsed = parse_prompt_result(result)
    if parsed.description:
        out("# " + safe_line(parsed.description, 500))
    for number, message in enumerate(parsed.messages, 1):
        if message.role is None:
            out(f"[message {number}: {safe_line(message.problem or 'no role', 80)}]")
        elif message.known_role:
            out(f"[{safe_line(message.role, 40)}]")
        else:
            out(f"[{safe_line(message.role, 40)}] (unknown role)")
        for block in message.blocks:
            out(content_text(block))
        out()


def content_text(block: Block) -> str:
    """One prompt content block as text: text itself, media and resources summarized, problems named."""
    if block.kind == "text":
        return safe(block.text or "", limit=None)
    if block.kind in ("image", "audio"):
        size = decoded_size(block.data or "")
        shown = f"{size:,} bytes" if size is not None else "INVALID base64"
        return f"[{block.kind}: {safe_line(block.mime_type or '?', 80)}, {shown}]"
    if block.kind == "resource" and block.resource is not None:
        resource = block.resource
        head = f"[resource {safe_line(resource.uri or '?', 500)}"
        if resource.mime_type:
            head += f" ({safe_line(resource.mime_type, 80)})"
        head += "]"
        if block.problem is not None:
            head += f" ({safe_line(block.problem, 200)})"
        if resource.text is not None:
            return head + "\n" + safe(resource.text, limit=None)
        if resource.blob is not None:
            size = decoded_size(resource.blob)
            mime = safe_line(resource.mime_type or "application/octet-stream", 80)
            if size is None:
                return f"{head} [blob: {mime}, {len(resource.blob):,} characters of INVALID base64]"
            return f"{head} [blob: {mime}, {size:,} bytes]"
        return head
    if block.kind == "resource_link":
        details = [safe_line(d, 200) for d in (block.name, block.mime_type) if d]
        return f"[link {safe_line(block.uri or '?', 500)}]" + (f" {' · '.join(details)}" if details else "")
    line = f"[{safe_line(block.problem or 'unreadable content', 200)}]"
    if block.text is not None:  # e.g. an embedded "resource" that is a string: shown as the text it is
        line += "\n" + safe(block.text, limit=None)
    return line
