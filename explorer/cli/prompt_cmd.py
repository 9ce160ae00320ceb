"""`prompts` and `prompt NAME`: prompts/list over every server, prompts/get on the one that has it."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import Any

from explorer.cli.output import EXIT_FAILED, EXIT_OK, EXIT_USAGE, emit_json, error, out, safe, safe_line
from explorer.cli.read_cmd import blob_summary
from explorer.cli.runner import Outcome, run_on_servers
from explorer.config import ServerSpec
from explorer.connection.session import ServerConnection


async def _list(conn: ServerConnection) -> list[dict[str, Any]]:
    if conn.identity is not None and not conn.identity.has("prompts"):
        return []
    return await conn.list_prompts()


def _report(outcomes: Sequence[Outcome[Any]]) -> None:
    for o in outcomes:
        if o.fault is not None:
            error(o.error_line())


async def prompts_command(
    specs: Sequence[ServerSpec], *, protocol: str, timeout: float, as_json: bool
) -> int:
    outcomes = await run_on_servers(specs, _list, protocol=protocol, timeout=timeout)
    if as_json:
        emit_json(
            {
                "servers": [
                    {"name": o.name, "ok": o.ok, "error": o.fault.message if o.fault else None}
                    for o in outcomes
                ],
                "prompts": [{"server": o.name, **p} for o in outcomes for p in (o.value or [])],
            }
        )
    else:
        several = len(specs) > 1
        for o in outcomes:
            for prompt in o.value or []:
                out(_prompt_line(o.name if several else None, prompt))
    _report(outcomes)
    return EXIT_FAILED if any(o.fault is not None for o in outcomes) else EXIT_OK


def _prompt_line(server: str | None, prompt: dict[str, Any]) -> str:
    args = []
    for arg in prompt.get("arguments") or []:
        if isinstance(arg, dict) and isinstance(arg.get("name"), str):
            args.append(safe_line(arg["name"], 60) + ("*" if arg.get("required") else ""))
    line = (f"{safe_line(server, 60)}  " if server else "") + safe_line(prompt["name"], 120)
    if args:
        line += "(" + ", ".join(args) + ")"
    description = prompt.get("description") or prompt.get("title")
    if isinstance(description, str) and description:
        line += "  - " + safe_line(description, 200)
    return line


async def prompt_command(
    specs: Sequence[ServerSpec],
    name: str,
    arguments: dict[str, str],
    *,
    protocol: str,
    timeout: float,
    as_json: bool,
) -> int:
    async def job(conn: ServerConnection) -> dict[str, Any] | None:
        prompts = await _list(conn)
        prompt = next((p for p in prompts if p.get("name") == name), None)
        if prompt is None:
            return None
        required = [
            a["name"]
            for a in prompt.get("arguments") or []
            if isinstance(a, dict) and a.get("required") and isinstance(a.get("name"), str)
        ]
        missing = [a for a in required if a not in arguments]
        if missing:
            return {"_missing": missing}
        return await conn.get_prompt(name, arguments)

    outcomes = await run_on_servers(specs, job, protocol=protocol, timeout=timeout)
    found = next((o for o in outcomes if o.value is not None), None)
    if found is None or found.value is None:
        _report(outcomes)
        if as_json:
            emit_json({"prompt": name, "ok": False, "error": f"no server has a prompt named {name}"})
        error(f"no server has a prompt named {name!r}")
        return EXIT_FAILED
    if "_missing" in found.value:
        error(f"prompt {name}: missing required argument(s): {', '.join(found.value['_missing'])}")
        return EXIT_USAGE
    if as_json:
        emit_json({"server": found.name, "prompt": name, "ok": True, **found.value})
    else:
        print_messages(found.value)
    return EXIT_OK


def print_messages(result: dict[str, Any]) -> None:
    description = result.get("description")
    if isinstance(description, str) and description:
        out("# " + safe_line(description, 500))
    for message in result.get("messages", []):
        if not isinstance(message, dict):
            continue
        out(f"[{safe_line(message.get('role', '?'), 40)}]")
        content = message.get("content")
        for part in content if isinstance(content, list) else [content]:
            out(content_text(part))
        out()


def content_text(part: Any) -> str:
    """One prompt content block as text: text itself, media and resources summarized."""
    if not isinstance(part, dict):
        return "[unreadable content]"
    kind = part.get("type")
    if kind == "text":
        return safe(part.get("text", ""), limit=None)
    if kind in ("image", "audio"):
        mime = safe_line(part.get("mimeType") or "?", 80)
        try:
            size = f"{len(base64.b64decode(part.get('data', ''), validate=True)):,} bytes"
        except (binascii.Error, ValueError, TypeError):
            size = "INVALID base64"
        return f"[{kind}: {mime}, {size}]"
    if kind == "resource":
        resource = part.get("resource") or {}
        head = f"[resource {safe_line(resource.get('uri', '?'), 500)}"
        if resource.get("mimeType"):
            head += f" ({safe_line(resource['mimeType'], 80)})"
        head += "]"
        if isinstance(resource.get("text"), str):
            return head + "\n" + safe(resource["text"], limit=None)
        if "blob" in resource:
            return head + " " + blob_summary(resource)
        return head
    if kind == "resource_link":
        return f"[link {safe_line(part.get('uri', '?'), 500)}]"
    return f"[{safe_line(kind or 'unknown', 40)} content]"
