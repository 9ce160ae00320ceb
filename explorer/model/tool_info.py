"""What a tool takes, read from its listing: argument names and the input schema, for people to read.

The explorer shows tools so a user sees everything a server exposes; it never calls them.
"""

from __future__ import annotations

import json

from explorer.model.entries import ToolEntry


def tool_arguments(tool: ToolEntry) -> list[str]:
    """Argument names from the input schema's properties, `*` marking the required ones."""
    schema = tool.raw.get("inputSchema")
    if not isinstance(schema, dict):
        return []
    properties = schema.get("properties")
    required = schema.get("required")
    needed = {r for r in required if isinstance(r, str)} if isinstance(required, list) else set()
    if not isinstance(properties, dict):
        return []
    return [str(name) + ("*" if name in needed else "") for name in properties]


def schema_text(tool: ToolEntry) -> str:
    """The input schema, pretty-printed (read-only: the explorer never calls tools)."""
    schema = tool.raw.get("inputSchema")
    if schema is None:
        return "(no input schema)"
    return json.dumps(schema, indent=2, ensure_ascii=False, sort_keys=False, default=str)
