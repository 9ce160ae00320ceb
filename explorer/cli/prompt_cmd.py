"""`prompts` and `prompt NAME`: prompts/list over every server, prompts/get on the one that has it.

Prompt data is read through `explorer.model.prompt_data` (as the TUI reads it), so a malformed listing
or result is printed with a warning naming what is wrong, never a traceback.

`prompt NAME` lists on every server at once, and each server that lists NAME is asked for it (the
connections are open anyway); what the first of them (in the order given) answered is printed, once,
in text and in `--json`:

- the server's error for prompts/get, with its code and message;
- "no server has a prompt named X" only when every server listed its prompts and none has X; when some
  listings failed, their errors, then that X is not among the prompts of the servers that answered.

Names as the explorer shows them work too. `prompts` shows a prompt's and an argument's name sanitized
(`who\\x1b` for ESC), and what a user copies from there must find the name it stands for: a name given
is matched exactly first, else against the shown form of the server's names (`GivenArguments`). A
`NAME=VALUE` word is cut at the first `=` that leaves a declared argument's name (so `x=y=1` gives the
argument `x=y` the value `1` when `x` is not declared, and `x` the value `y=1` when it is);
`--arg-json '{"NAME": "VALUE"}'` gives exact names and values (JSON escapes, `\\u001b`), for the cases
the words cannot say. An undeclared name is warned about (with the prompt's argument names) and sent
anyway: the server decides.

JSON shapes (the server's own data always under its own key, so it can never overwrite the explorer's):
`prompts`: `{"servers": [SERVER], "prompts": [{"server": NAME, "prompt": {as listed}, "problems": [..]}]}`;
`prompt`: `{"server", "prompt", "arguments", "ok", "result": {as sent} | "error": ERROR, "servers": [SERVER]}`
with SERVER `{"name", "ok", "error": ERROR | null}` (in `prompts` also `complete` and `stoppedBy`, for
every server: false and null for one that never connected) and ERROR `{"code", "message", "data",
"origin"}` (`explorer.cli.output.error_json`: `origin` is "server" for an error the server answered
with, else "explorer").

Ctrl+C (`explorer.cli.ctrl_c`): `prompts` prints what was listed (a listing stopped is `"stoppedBy":
"interrupted"`), `prompt` what a server answered, else the error saying it was stopped; exit 130.
"""

from __future__ import annotations

import difflib
import json
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
from explorer.cli.tree_cmd import unlisted_end
from explorer.config import ListingBounds, ServerSpec
from explorer.connection.discovery import ListingStop, list_server
from explorer.connection.errors import ServerFault
from explorer.connection.session import ServerConnection
from explorer.model.listing import stopped_text
from explorer.model.prompt_data import (
    Block,
    PromptInfo,
    decoded_size,
    parse_prompt,
    parse_prompt_result,
)
from explorer.sanitize import sanitize_line


@dataclass
class _Prompts:
    """One server's prompts as listed (raw), and whether a bound stopped the listing."""

    raw: list[dict[str, Any]] = field(default_factory=list)
    stopped_by: str | None = None
    offered: bool = True  # False: the server does not offer prompts (it was not asked)


def _lister(
    bounds: ListingBounds, stop: ListingStop | None = None
) -> Callable[[ServerConnection], Awaitable[_Prompts]]:
    """Every page of prompts/list within the bounds (a server without `prompts` is not asked); `stop`
    (Ctrl+C) ends the listing with what arrived."""

    async def job(conn: ServerConnection) -> _Prompts:
        if conn.identity is not None and not conn.identity.has("prompts"):
            return _Prompts(offered=False)
        listing = await list_server(conn, bounds, kinds=("prompts",), stop=stop)
        if listing.error is not None:
            raise ServerFault(listing.error, listing.error_code, local=listing.error_local)
        return _Prompts([entry.raw for entry in listing.prompts], listing.stopped_by)

    return job


def server_json(o: Outcome[Any], *, listed: bool = False) -> dict[str, Any]:
    """A server in `--json` output. `listed` (`prompts`): `complete` and `stoppedBy` for every server, as
    `tree` gives them, so a server that never connected has the keys of one that listed (a script reading
    `s["complete"]` of each failed with a KeyError on the one that was down); `prompt` adds them only for
    a server Ctrl+C stopped."""
    data: dict[str, Any] = {"name": o.name, "ok": o.ok, "error": error_json(o.fault)}
    if isinstance(o.value, _Prompts):
        data["complete"] = o.value.stopped_by is None
        data["stoppedBy"] = o.value.stopped_by
    elif listed or o.interrupted:  # it listed nothing: never connected, failed, or Ctrl+C came first
        data.update(unlisted_end(o))
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
                "servers": [server_json(o, listed=True) for o in outcomes],
                "prompts": [
                    {"server": o.name, "prompt": raw, "problems": list(info.problems) if info else []}
                    for o, raw, info in listed
                ],
            }
        )
    else:
        several = len(specs) > 1
        for o in outcomes:  # said as `tools` says it: nothing printed read as a listing of none
            if isinstance(o.value, _Prompts) and not o.value.offered:
                out(
                    f"{safe_line(o.name, 80)}: offers no prompts"
                    if several
                    else "(this server offers no prompts)"
                )
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


# ------------------------------------------------------------------------------ names as given


def shown_name(name: str) -> str:
    """A server's name as the explorer shows it (`who\\x1b` for ESC): what a user copies and types back."""
    return sanitize_line(name, limit=None)


class _Names:
    """A server's names, found by what a user typed: the name itself, else the names shown as it."""

    def __init__(self, names: Sequence[str]) -> None:
        self._exact = set(names)
        self._shown: dict[str, list[str]] = {}
        for name in dict.fromkeys(names):
            self._shown.setdefault(shown_name(name), []).append(name)

    def find(self, given: str) -> list[str]:
        """[the name], [] when none has it, or several names shown alike (the user must be exact)."""
        if given in self._exact:
            return [given]
        return self._shown.get(given, [])


@dataclass(frozen=True)
class Resolved:
    """The arguments to send, by declared name; the names given that the prompt does not declare (sent as
    given) and those shown alike by several of its arguments (not sent: the user must say which)."""

    arguments: dict[str, str]
    unknown: list[str]
    ambiguous: list[str]


@dataclass(frozen=True)
class GivenArguments:
    """A prompt's arguments as the user gave them, matched to its declared names once it is listed:
    `NAME=VALUE` words, and the pairs of `--arg-json` objects (applied first; a word given later wins)."""

    words: tuple[str, ...] = ()
    exact: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, words: Sequence[str], json_texts: Sequence[str] = ()) -> GivenArguments:
        """Raises ValueError (one sentence) for a word without `NAME=` or a `--arg-json` that is not an
        object of strings: a usage error, said before anything connects."""
        for word in words:
            if word.find("=", 1) < 0:
                raise ValueError(f"expected NAME=VALUE, got {word!r} (or use --arg-json)")
        pairs: list[tuple[str, str]] = []
        for text in json_texts:
            pairs += _json_pairs(text)
        return cls(tuple(words), tuple(pairs))

    def resolve(self, declared: Sequence[str]) -> Resolved:
        """Matched to the argument names one server's prompt declares (each server's listing its own)."""
        names = _Names(declared)
        arguments: dict[str, str] = {}
        unknown: list[str] = []
        ambiguous: list[str] = []
        given = [(key, value, names.find(key)) for key, value in self.exact]
        given += [_split(word, names) for word in self.words]
        for key, value, hits in given:
            if len(hits) > 1:
                ambiguous.append(key)
                continue
            if not hits:
                unknown.append(key)
            arguments[hits[0] if hits else key] = value
        return Resolved(arguments, list(dict.fromkeys(unknown)), list(dict.fromkeys(ambiguous)))


def _split(word: str, names: _Names) -> tuple[str, str, list[str]]:
    """A `NAME=VALUE` word cut at the first `=` that leaves a declared name (as is, or as shown), else at
    its first `=` after the first character: (name as given, value, the declared names it stands for)."""
    first = at = word.find("=", 1)
    while at > 0:
        hits = names.find(word[:at])
        if hits:
            return word[:at], word[at + 1 :], hits
        at = word.find("=", at + 1)
    return word[:first], word[first + 1 :], []


def _json_pairs(text: str) -> list[tuple[str, str]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"--arg-json is not JSON: {exc.msg} (character {exc.pos + 1})") from None
    if not isinstance(data, dict):
        raise ValueError('--arg-json takes a JSON object of names and values: \'{"NAME": "VALUE"}\'')
    for key, value in data.items():
        if not isinstance(value, str):
            raise ValueError(
                f"--arg-json: the value of {key!r} is not a string (prompt arguments are strings)"
            )
    return list(data.items())


def _find_prompt(infos: Sequence[PromptInfo], name: str) -> list[PromptInfo]:
    """The prompt named `name` (as is, or as shown), or several shown alike, or none."""
    by_name: dict[str, PromptInfo] = {}
    for info in infos:
        by_name.setdefault(info.name, info)  # a name listed twice: the first, as before
    return [by_name[found] for found in _Names(list(by_name)).find(name)]


# -------------------------------------------------------------------------------------------- prompt


@dataclass
class _Lookup:
    """What one server said about prompt NAME: not listed, or listed and then got (or failed)."""

    info: PromptInfo | None = None
    arguments: dict[str, str] = field(default_factory=dict)  # by the names the prompt declares
    unknown: list[str] = field(default_factory=list)  # names given that it does not declare
    usage: str | None = None  # what the user must say differently (a name several shown alike)
    missing: list[str] = field(default_factory=list)
    result: dict[str, Any] | None = None
    fault: ServerFault | None = None
    names: list[str] = field(default_factory=list)  # the server's prompts, when NAME is not among them


async def prompt_command(
    specs: Sequence[ServerSpec],
    name: str,
    given: GivenArguments,
    *,
    protocol: str,
    timeout: float,
    as_json: bool,
) -> int:
    interrupt = Interrupt(abandons=f"getting prompt {name}")
    lister = _lister(ListingBounds())

    async def job(conn: ServerConnection) -> _Lookup:
        infos = [i for i in (parse_prompt(raw) for raw in (await lister(conn)).raw) if i is not None]
        found = _find_prompt(infos, name)
        if not found:
            return _Lookup(names=[i.name for i in infos])
        info = found[0]
        if len(found) > 1:
            usage = (
                f"{len(found)} of its prompts are shown as '{name}'; give the exact name "
                "(in bash or zsh, $'...' with the escapes as shown)"
            )
            return _Lookup(info, usage=usage)
        resolved = given.resolve([argument.name for argument in info.arguments])
        lookup = _Lookup(info, resolved.arguments, resolved.unknown)
        if resolved.ambiguous:
            lookup.usage = _ambiguous_text(resolved.ambiguous)
            return lookup
        lookup.missing = [a for a in info.required if a not in resolved.arguments]
        if lookup.missing:
            return lookup
        try:
            lookup.result = await conn.get_prompt(info.name, resolved.arguments)
        except ServerFault as fault:
            lookup.fault = fault
        return lookup

    async with stopping_on_ctrl_c(interrupt) as ctrl_c:
        outcomes = await run_on_servers(specs, job, protocol=protocol, timeout=timeout, interrupt=interrupt)
    if ctrl_c.aborted:
        return EXIT_INTERRUPTED
    as_given = given.resolve(()).arguments
    if ctrl_c.interrupted:
        return _interrupted(name, outcomes, as_given, as_json)
    found = next((o for o in outcomes if o.value is not None and o.value.info is not None), None)
    envelope: dict[str, Any] = {
        "server": found.name if found else None,
        "prompt": name,
        "arguments": as_given,
    }
    servers = [server_json(o) for o in outcomes]
    if found is None or found.value is None:
        return _not_found(name, outcomes, envelope, servers, as_json)
    lookup = found.value
    assert lookup.info is not None
    name = lookup.info.name  # the name as the server spells it (the user may have typed it as shown)
    envelope.update(prompt=name, arguments=lookup.arguments)
    for o in outcomes:
        if o.fault is not None:
            _warn(o.name, f"could not list its prompts ({o.fault.message})")
    if lookup.usage is not None:
        error(f"prompt {name}: {lookup.usage}")
        return EXIT_USAGE
    if lookup.missing:
        error(f"prompt {name}: missing required argument(s): {', '.join(lookup.missing)}")
        return EXIT_USAGE
    _warn_unknown(found.name, name, lookup.info, lookup.unknown)
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


def _ambiguous_text(given: Sequence[str]) -> str:
    names = ", ".join(f"'{shown_name(g)}'" for g in given)
    return (
        f"{names}: several of its arguments are shown alike; give the exact name with "
        '--arg-json \'{"NAME": "VALUE"}\' (JSON escapes such as \\u001b)'
    )


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
            assert got.value.info is not None
            head = {"server": got.name, "prompt": got.value.info.name, "arguments": got.value.arguments}
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


def _warn_unknown(server: str, name: str, info: PromptInfo, unknown: Sequence[str]) -> None:
    """An argument the prompt does not declare (a typo, most likely) is sent all the same, and said, with
    the names it does declare as `prompts` shows them (what a user may type)."""
    declared = {shown_name(argument.name): argument.name for argument in info.arguments}
    known = ", ".join(safe_line(d, 60) for d in declared.values()) or "none"
    for given in unknown:
        hint = difflib.get_close_matches(given, list(declared), n=1)
        maybe = f"; did you mean '{safe_line(declared[hint[0]], 60)}'?" if hint else ""
        shown = safe_line(given, 60)
        _warn(server, f"prompt {name}: '{shown}' is not one of its arguments ({known}), sent anyway{maybe}")


def _not_found(
    name: str,
    outcomes: Sequence[Outcome[_Lookup]],
    envelope: dict[str, Any],
    servers: list[dict[str, Any]],
    as_json: bool,
) -> int:
    failed = [o for o in outcomes if o.fault is not None]
    answered = [o.name for o in outcomes if o.fault is None]
    # Names as they are, in quotes: `error` sanitizes the line and JSON escapes it (a repr of the
    # sanitized text escaped it twice: `did you mean 'p\\x1b[31m'`, which pasted back finds nothing).
    if not failed:
        message = f"no server has a prompt named '{name}'"
        known = sorted({n for o in outcomes if o.value is not None for n in o.value.names})
        hint = difflib.get_close_matches(name, known, n=1)
        if hint:
            message += f"; did you mean '{hint[0][:200]}'?"
    elif answered:
        message = (
            f"prompt '{name}' is not among the prompts of {', '.join(answered)}; "
            f"{', '.join(o.name for o in failed)} could not list theirs"
        )
    else:
        message = f"prompt '{name}': no server could list its prompts"
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
