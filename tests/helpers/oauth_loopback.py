"""A protected MCP server with its own authorization server on a loopback port, each step scriptable, and a
fake browser for `--auth-flow print`: for the tests of what a user sees when a login goes wrong.

`AuthServer.modes` picks the faults (`prm_loop`, `prm_huge`, `token_ep=URL`, `token_hang`,
`token_nonjson`, `token_echo_code`, `token_fail_once`); `events` records every step, with the codes,
verifiers and tokens it handed out or received (a test checks none reaches the output).
"""

from __future__ import annotations

import http.client
import json
import os
import secrets
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, ClassVar

from tests.helpers.cli import CliResult
from tests.helpers.loopback_http import QuietHandler, served
from tests.helpers.paths import ROOT


@dataclass
class AuthState:
    modes: set[str] = field(default_factory=set)
    options: dict[str, str] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    access: set[str] = field(default_factory=set)
    release: threading.Event = field(default_factory=threading.Event)

    def count(self, event: str) -> int:
        return sum(1 for e in self.events if e["event"] == event)

    def secrets(self) -> set[str]:
        """Every code, verifier, state and token of the logins so far."""
        found: set[str] = set()
        for e in self.events:
            for key in ("code", "code_verifier", "state", "access_token", "refresh_token"):
                value = e.get(key)
                if isinstance(value, str) and value:
                    found.add(value)
        return found


class AuthServer(QuietHandler):
    state: ClassVar[AuthState]

    @property
    def base(self) -> str:
        host = self.headers.get("Host", "")
        return f"http://{host}"

    def send(self, status: int, body: Any = b"", kind: str = "application/json", **headers: str) -> None:
        data = json.dumps(body).encode() if isinstance(body, dict) else body
        data = data.encode() if isinstance(data, str) else data
        self.send_response(status)
        if data:
            self.send_header("Content-Type", kind)
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        state = self.state
        path = urllib.parse.urlsplit(self.path)
        if path.path.startswith("/.well-known/oauth-protected-resource"):
            if "prm_loop" in state.modes:
                return self.send(302, Location=self.path)
            if "prm_huge" in state.modes:
                return self.send(200, b'{"resource": "' + b"a" * (2 * 1024 * 1024) + b'"}')
            return self.send(200, {"resource": self.base + "/mcp", "authorization_servers": [self.base]})
        if path.path.startswith("/.well-known/oauth-authorization-server"):
            doc = {
                "issuer": self.base,
                "authorization_endpoint": self.base + "/authorize",
                "token_endpoint": state.options.get("token_ep", self.base + "/token"),
                "registration_endpoint": self.base + "/register",
                "response_types_supported": ["code"],
                "code_challenge_methods_supported": ["S256"],
            }
            return self.send(200, doc)
        if path.path == "/authorize":
            query = dict(urllib.parse.parse_qsl(path.query))
            code = "CODE-" + secrets.token_hex(12)
            state.events.append({"event": "authorize", "code": code, **query})
            back = {"code": code, "state": query.get("state", "")}
            return self.send(302, Location=query["redirect_uri"] + "?" + urllib.parse.urlencode(back))
        return self.send(405 if path.path == "/mcp" else 404)

    def do_DELETE(self) -> None:
        self.send(200)

    def do_POST(self) -> None:
        state = self.state
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        path = urllib.parse.urlsplit(self.path).path
        if path == "/register":
            client = {**json.loads(raw), "client_id": "client-" + secrets.token_hex(4)}
            state.events.append({"event": "register", "redirect_uris": client.get("redirect_uris")})
            return self.send(201, client)
        if path == "/token":
            return self.token(dict(urllib.parse.parse_qsl(raw.decode())))
        if path == "/mcp":
            return self.mcp(json.loads(raw or b"{}"))
        return self.send(404)

    def token(self, form: dict[str, str]) -> None:
        state = self.state
        state.events.append({"event": "token_request", **form})
        grant = form.get("grant_type")
        if grant == "authorization_code":
            if "token_hang" in state.modes:
                state.release.wait(60)
                return self.send(500)
            if "token_nonjson" in state.modes:
                return self.send(200, "access_token=abcdef123456&token_type=bearer", "text/plain")
            if "token_echo_code" in state.modes:
                said = f"bad code {form.get('code')} verifier {form.get('code_verifier')}"
                return self.send(400, {"error": "invalid_grant", "error_description": said})
            if "token_fail_once" in state.modes and state.count("token_request") == 1:
                return self.send(400, {"error": "invalid_grant", "error_description": "try again"})
        access, refresh = "ACCESS-" + secrets.token_hex(12), "REFRESH-" + secrets.token_hex(12)
        state.access.add(access)
        state.events.append({"event": "token", "access_token": access, "refresh_token": refresh})
        answer = {
            "access_token": access,
            "token_type": "Bearer",
            "refresh_token": refresh,
            "expires_in": 3600,
        }
        return self.send(200, answer)

    def mcp(self, message: dict[str, Any]) -> None:
        sent = self.headers.get("Authorization", "")
        if sent.removeprefix("Bearer ") not in self.state.access:
            metadata = self.base + "/.well-known/oauth-protected-resource/mcp"
            return self.send(401, WWW_Authenticate=f'Bearer resource_metadata="{metadata}"')
        if "id" not in message:
            return self.send(202)
        method = str(message.get("method"))
        if method == "server/discover":
            error = {"code": -32601, "message": "Method not found"}
            return self.send(200, {"jsonrpc": "2.0", "id": message["id"], "error": error})
        results: dict[str, Any] = {
            "initialize": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"resources": {}},
                "serverInfo": {"name": "guarded", "version": "1"},
            },
            "resources/list": {"resources": [{"uri": "notes://a", "name": "a"}]},
            "resources/templates/list": {"resourceTemplates": []},
        }
        return self.send(200, {"jsonrpc": "2.0", "id": message["id"], "result": results.get(method, {})})


@contextmanager
def auth_server(*modes: str, **options: str) -> Iterator[tuple[str, AuthState]]:
    """A protected server with these faults: its MCP URL and its state."""
    state = AuthState(set(modes), dict(options))
    handler = type("ScriptedAuthServer", (AuthServer,), {"state": state})
    for url in served(handler, stopping=state.release.set):
        yield url, state


@dataclass
class BrowserRun:
    result: CliResult
    page: str  # what the browser showed after the redirect back to the explorer


def login_in_print_flow(
    url: str, *more: str, browser: str = "follow", timeout: float = 60, target: tuple[str, ...] = ()
) -> BrowserRun:
    """`tree -s URL --auth-flow print MORE`, with a browser that opens the URL it prints (`wrongstate`:
    brings back another state; `linger`: keeps the callback's connection open a moment, so the
    listener closes first, as a browser does). `target` replaces `-s URL` (`-c FILE -s NAME`)."""
    env = {**os.environ}
    env.pop("FORCE_COLOR", None)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "explorer",
            "tree",
            *(target or ("-s", url)),
            "--auth-flow",
            "print",
            "--timeout",
            "10",
            *more,
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    seen: list[str] = []
    page = ""
    try:
        for line in proc.stderr:
            seen.append(line)
            if line.startswith("http://"):
                page = _browse(line.strip(), browser)
                break
        stdout, stderr = proc.communicate(timeout=timeout)
    finally:
        proc.kill()
        proc.wait()
    return BrowserRun(CliResult(proc.returncode, stdout, "".join(seen) + stderr), page)


def _browse(url: str, mode: str) -> str:
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
    connection.request("GET", f"{parts.path}?{parts.query}")
    location = connection.getresponse().getheader("Location") or ""
    connection.close()
    back = urllib.parse.urlsplit(location)
    query = dict(urllib.parse.parse_qsl(back.query))
    if mode == "wrongstate":
        query["state"] = "WRONG-STATE-FROM-AN-OLD-TAB"
    callback = http.client.HTTPConnection(back.hostname or "", back.port, timeout=30)
    callback.request("GET", f"{back.path}?{urllib.parse.urlencode(query)}")
    page = callback.getresponse().read().decode()
    if mode == "linger":
        time.sleep(0.5)  # the listener closes first: its port waits in TIME_WAIT
    callback.close()
    return page
