"""Tiny raw JSON-RPC stdio servers for tests: the loop, `send` and the `initialize` answer written once.

A test gives the part that differs: `answer(method, params)` returns the result of a request (a dict), or
None for "method not found"; it may `send` notifications first. `CAPABILITIES` and `NAME` may be set.
The script is written to a folder of the test's and run with this interpreter (`tiny_server`).
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

__all__ = ["tiny_server"]

_PRELUDE = """
import json, sys
CAPABILITIES = {"resources": {}}
NAME = "tiny"
def send(obj):
    sys.stdout.write(json.dumps(obj) + "\\n")
    sys.stdout.flush()
"""

_LOOP = """
for _line in sys.stdin:
    _message = json.loads(_line)
    if "id" not in _message:
        continue
    _method, _id = _message.get("method"), _message["id"]
    if _method == "initialize":
        _result = {"protocolVersion": "2025-06-18", "capabilities": CAPABILITIES,
                   "serverInfo": {"name": NAME, "version": "1"}}
    else:
        _result = answer(_method, _message.get("params") or {})
    if _result is None:
        send({"jsonrpc": "2.0", "id": _id, "error": {"code": -32601, "message": "Method not found"}})
    else:
        send({"jsonrpc": "2.0", "id": _id, "result": _result})
"""


def tiny_server(folder: Path, body: str, *args: str, name: str = "tiny_server.py") -> str:
    """Write a server whose requests `body` answers (see the module docstring); its command line."""
    script = folder / name
    script.write_text(_PRELUDE + body + _LOOP)
    return shlex.join([sys.executable, str(script), *args])
