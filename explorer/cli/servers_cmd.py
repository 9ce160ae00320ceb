"""`servers` and `tools`: what each server is and offers, headless (the TUI's overview, as text or JSON).

`servers` lists every list a server offers within the bounds (a tools-only server is connected, not
failed), `tools` the tools only: a server's resources may be millions, and would cost `tools` the time
and the bounds of a list it never shows. Both share the exit codes of `tree`: 1 when a server failed, 3
when a list they asked for stopped at a bound.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from explorer.cli.ctrl_c import CtrlC, stopping_on_ctrl_c
from explorer.cli.output import emit_json, out, safe, safe_line
from explorer.cli.runner import Interrupt, Outcome, run_on_servers
from explorer.cli.tree_cmd import exit_code, lister, report_errors, server_json
from explorer.config import ListingBounds, ServerSpec
from explorer.model.entries import ToolEntry
from explorer.model.listing import KINDS, Kind, Listing
from explorer.model.overview import instructions_text, overview_facts
from explorer.model.tool_info import tool_arguments

SERVERS_KINDS: tuple[Kind, ...] = KINDS
TOOLS_KINDS: tuple[Kind, ...] = ("tools",)


async def list_servers(
    specs: Sequence[ServerSpec],
    bounds: ListingBounds,
    kinds: Sequence[Kind],
    *,
    protocol: str,
    timeout: float,
) -> tuple[list[Outcome[Listing]], CtrlC]:
    """Each server's `kinds` lists, within the bounds (the others are left not asked: null in JSON).
    Ctrl+C stops the listings, keeping what arrived, and abandons the connections still being made."""
    interrupt = Interrupt()
    outcomes: list[Outcome[Listing]] = []  # a second Ctrl+C cancels the scope before they are known
    async with stopping_on_ctrl_c(interrupt) as ctrl_c:
        job = lister(bounds, kinds, stop=interrupt.listings)
        outcomes = await run_on_servers(specs, job, protocol=protocol, timeout=timeout, interrupt=interrupt)
    return outcomes, ctrl_c


def print_servers(outcomes: Sequence[Outcome[Listing]], *, as_json: bool, interrupted: bool = False) -> int:
    if as_json:
        emit_json({"servers": [server_json(o) for o in outcomes]})
    else:
        for index, o in enumerate(outcomes):
            if index:
                out()
            _print_overview(o)
    report_errors(outcomes)
    return exit_code(outcomes, interrupted=interrupted)


def _print_overview(o: Outcome[Listing]) -> None:
    out(f"# {safe_line(o.name, 120)}  ({safe_line(o.spec.describe(), 300)})")
    error = o.fault.message if o.fault is not None else None
    for fact in overview_facts(o.identity, o.value, error=error):
        out(f"{fact.label + ':':<14}{safe_line(fact.value, 2000)}")
    instructions = instructions_text(o.identity, cap=None)
    if instructions:
        out("Instructions:")
        for line in safe(instructions, limit=None).splitlines():
            out("  " + line)


def tool_json(entry: ToolEntry) -> dict[str, Any]:
    """A tool as listed (name, title, description, schemas, annotations); `server` is the explorer's key."""
    return {"server": entry.server, "tool": entry.raw}


def print_tools(outcomes: Sequence[Outcome[Listing]], *, as_json: bool, interrupted: bool = False) -> int:
    tools = [t for o in outcomes if o.value is not None for t in o.value.tools]
    if as_json:
        emit_json({"servers": [server_json(o) for o in outcomes], "tools": [tool_json(t) for t in tools]})
    else:
        several = len(outcomes) > 1
        for o in outcomes:
            if o.value is not None and not o.value.offers("tools"):
                out(
                    f"{safe_line(o.name, 80)}: offers no tools"
                    if several
                    else "(this server offers no tools)"
                )
        for tool in tools:
            out(tool_line(tool, server=tool.server if several else None))
    report_errors(outcomes)
    return exit_code(outcomes, interrupted=interrupted)


def tool_line(tool: ToolEntry, *, server: str | None) -> str:
    """`name(arg*, other)  Title - description`: what a tool is called and takes, on one line."""
    line = (f"{safe_line(server, 60)}  " if server else "") + safe_line(tool.name, 120)
    line += "(" + ", ".join(safe_line(a, 60) for a in tool_arguments(tool)) + ")"
    title = tool.title
    if title and title != tool.name:
        line += "  " + safe_line(title, 120)
    description = tool.raw.get("description")
    if isinstance(description, str) and description:
        line += "  - " + safe_line(description.splitlines()[0] if description.strip() else "", 200)
    return line
