"""The canary for the one door to the SDK's private names (`explorer/sdk_door.py`).

When a new `mcp` release moves one of them, these tests say which, instead of a listing failing with an
`AttributeError` deep in a session. They also keep the door the only one: no other module of the
explorer reaches a private SDK name.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import explorer
from explorer import sdk_door
from explorer.config import ServerSpec
from explorer.connection.session import ServerConnection

PACKAGE = Path(explorer.__file__).resolve().parent
DOOR = PACKAGE / "sdk_door.py"
PRIVATE_ATTRIBUTES = {dotted.rsplit(".", 1)[-1] for _module, dotted in sdk_door.PRIVATE_NAMES}


def test_every_private_name_the_door_uses_is_in_this_sdk_release() -> None:
    missing = sdk_door.missing_names()
    assert not missing, (
        "the installed mcp SDK no longer has these private names the explorer uses; adapt "
        f"explorer/sdk_door.py to the new release: {', '.join(missing)}"
    )


def test_a_name_the_sdk_lacks_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    import mcp.shared._httpx_utils

    monkeypatch.delattr(mcp.shared._httpx_utils, "create_mcp_http_client")
    assert sdk_door.missing_names() == ["mcp.shared._httpx_utils:create_mcp_http_client"]


def _private_uses(path: Path) -> list[str]:
    """Imports of private `mcp` modules or names, and attribute reads of the door's private names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    uses: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "mcp":
            private_module = any(part.startswith("_") for part in node.module.split("."))
            private_name = any(alias.name.startswith("_") for alias in node.names)
            if private_module or private_name:
                uses.append(f"line {node.lineno}: from {node.module} import ...")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "mcp" and any(part.startswith("_") for part in parts):
                    uses.append(f"line {node.lineno}: import {alias.name}")
        elif isinstance(node, ast.Attribute) and node.attr in PRIVATE_ATTRIBUTES:
            uses.append(f"line {node.lineno}: .{node.attr}")
    return uses


@pytest.mark.slow
def test_no_module_but_the_door_reaches_a_private_sdk_name() -> None:
    found = {
        str(path.relative_to(PACKAGE.parent)): uses
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != DOOR and (uses := _private_uses(path))
    }
    assert not found, f"private SDK names outside explorer/sdk_door.py: {found}"


def test_the_check_sees_a_private_use(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from mcp.shared._httpx_utils import create_mcp_http_client\n"
        "async def f(session):\n"
        "    return session._dispatcher\n",
        encoding="utf-8",
    )
    assert _private_uses(sample) == [
        "line 1: from mcp.shared._httpx_utils import ...",
        "line 3: ._dispatcher",
    ]


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_live_session_has_the_dispatcher_the_raw_requests_go_through() -> None:
    """The dispatcher is an instance attribute, so only a live session can show it is still there."""
    spec = ServerSpec(
        name="demo", transport="stdio", command=sys.executable, args=("-m", "explorer", "demo-server")
    )
    async with ServerConnection(spec, timeout=30) as connection:
        session = connection.client.session
        for dotted in sdk_door.SESSION_INSTANCE_NAMES:
            name = dotted.rsplit(".", 1)[-1]
            assert hasattr(session, name), f"the SDK's ClientSession lost {name}: adapt explorer/sdk_door.py"
        assert hasattr(session._dispatcher, "send_raw_request"), "the SDK's dispatcher lost send_raw_request"
        assert sdk_door.allocate_request_id(session) is not None, "the SDK's dispatcher lost _allocate_id"
        raw = await sdk_door.send_raw_request(session, "resources/list", {"method": "resources/list"}, {})
    assert isinstance(raw, dict) and isinstance(raw.get("resources"), list)
