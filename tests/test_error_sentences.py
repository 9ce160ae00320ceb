"""What a user reads when a server fails: its own JSON-RPC errors said as its own, and the stderr line quoted.

A server's own error -32000 or -32001 ("Database quota exceeded") is said as the server's error, never
as a closed connection or a timeout, and quotes no stderr; a server that crashes is quoted by the line
of its stderr that says why (`Error: Cannot find module ...`), not by its runtime's trailer
(`Node.js v20.20.2`) or an exception group's border. Real stdio servers, through the CLI, the
supervisor and the TUI.
"""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from textual.app import App, ComposeResult

from explorer.config import ServerSpec
from explorer.connection.stderr_summary import stderr_clause
from explorer.connection.supervisor import Settings, Supervisor
from explorer.widgets.preview import error_title
from explorer.widgets.prompt_result import PromptResultView, describe_error
from tests.app_helpers import main_screen, preview_text, settled_app
from tests.helpers.cli import CliResult, run_cli

SERVER = r"""
import json, os, signal, sys, time

mode = sys.argv[1]
ERRORS = {
    "e://quota": (-32001, "Database quota exceeded"),
    "e://upstream": (-32603, "Upstream API timed out (GitHub)"),
    "e://db": (-32000, "Connection to upstream database closed"),
}


def crash():
    raise ExceptionGroup("unhandled errors in a TaskGroup", [ValueError("database file is locked")])


def send(**message):
    print(json.dumps({"jsonrpc": "2.0", **message}), flush=True)


sys.stderr.write("listening on stdio\n")
sys.stderr.flush()
if mode == "crash-at-start":
    crash()
print("not a JSON-RPC line", flush=True)
for line in sys.stdin:
    request = json.loads(line)
    method, ident = request.get("method"), request.get("id")
    if ident is None:
        continue
    if method == "initialize" and mode == "init-error":
        send(id=ident, error={"code": -32000, "message": "Connection to upstream database closed"})
    elif method == "initialize":
        version = request["params"]["protocolVersion"]
        info = {"protocolVersion": version, "capabilities": {"resources": {}}}
        send(id=ident, result={**info, "serverInfo": {"name": "own", "version": "1"}})
    elif method == "resources/list":
        send(id=ident, result={"resources": [{"uri": uri, "name": uri} for uri in ERRORS]})
        if mode == "crash-after-list":
            time.sleep(0.3)
            crash()
        if mode == "killed-after-list":
            time.sleep(0.3)
            os.kill(os.getpid(), signal.SIGKILL)
    elif method == "resources/read":
        code, text = ERRORS[request["params"]["uri"]]
        send(id=ident, error={"code": code, "message": text})
    else:
        send(id=ident, error={"code": -32601, "message": "Method not found"})
"""

NOT_OURS = ("its stderr", "did not answer", "closed the connection", "not a JSON-RPC", "(timeout)")
"""Words of the explorer's own sentences, that a server's own error must not be dressed in."""


@pytest.fixture
def own_server(tmp_path: Path) -> Path:
    script = tmp_path / "own_server.py"
    script.write_text(SERVER)
    return script


def words(script: Path, mode: str) -> list[str]:
    return [sys.executable, str(script), mode]


def one_error_line(result: CliResult) -> str:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.code == 1 and len(lines) == 1 and lines[0].startswith("error: "), result
    return lines[0]


# ------------------------------------------------------------------------------- a server's own errors


@pytest.mark.slow
@pytest.mark.parametrize(
    ("uri", "said"),
    [
        ("e://quota", "the server answered error -32001: Database quota exceeded"),
        ("e://upstream", "the server answered error -32603: Upstream API timed out (GitHub)"),
        ("e://db", "the server answered error -32000: Connection to upstream database closed"),
    ],
)
def test_a_servers_own_error_is_said_as_its_own_in_the_cli(own_server: Path, uri: str, said: str) -> None:
    """The server wrote an unrelated stderr line and a stray stdout line: neither explains its answer."""
    spec = shlex.join(words(own_server, "own-errors"))
    line = one_error_line(run_cli("read", uri, "--protocol", "legacy", "-s", spec))
    assert line.endswith(f": reading {uri}: {said}"), line
    assert not any(sentence in line for sentence in NOT_OURS), line


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_servers_own_minus_32000_at_connect_quotes_no_stderr_in_its_status(own_server: Path) -> None:
    """The supervisor (the TUI's server status) added the last stderr line to every -32000."""
    spec = ServerSpec(
        name="own", transport="stdio", command=sys.executable, args=(str(own_server), "init-error")
    )
    supervisor = Supervisor([spec], Settings(protocol="legacy", timeout=10, log_level=None), _Quiet())  # type: ignore[arg-type]
    with anyio.fail_after(30):
        await supervisor.run("own")
    status = supervisor.catalogue.servers["own"]
    assert status.state == "failed"
    assert (
        status.error == "connecting: the server answered error -32000: Connection to upstream database closed"
    )


@pytest.mark.slow
@pytest.mark.anyio
async def test_the_preview_heads_a_servers_own_minus_32001_as_a_server_error(own_server: Path) -> None:
    spec = ServerSpec(
        name="own", transport="stdio", command=sys.executable, args=(str(own_server), "own-errors")
    )
    async with settled_app(spec) as (app, pilot):
        screen = main_screen(app)
        screen.read("own", "e://quota")
        for _ in range(200):
            if "Database quota exceeded" in preview_text(app):
                break
            await pilot.pause(0.05)
        shown = preview_text(app)
        assert "Server error (-32001)" in shown
        assert "reading e://quota: the server answered error -32001: Database quota exceeded" in shown
        assert "Timed out" not in shown


@pytest.mark.parametrize(
    ("code", "message", "heading"),
    [
        (
            -32001,
            "reading e://q: the server answered error -32001: Database quota exceeded",
            "Server error (-32001)",
        ),
        (-32000, "reading e://q: the server answered error -32000: upstream closed", "Server error (-32000)"),
        (-32001, "reading e://q: the server did not answer after 5 s (timeout)", "Timed out (-32001)"),
        (
            -32000,
            "reading e://q: the server closed the connection (did it exit?)",
            "The connection closed (-32000)",
        ),
        (42, "reading e://q: the server answered error 42: Upstream API timed out", "Read failed (42)"),
    ],
)
def test_the_read_heading_names_a_timeout_or_a_closed_connection_only_when_it_was_one(
    code: int, message: str, heading: str
) -> None:
    assert error_title(code, message) == heading


class _PromptApp(App[None]):
    def compose(self) -> ComposeResult:
        yield PromptResultView()


@pytest.mark.anyio
async def test_the_prompt_heading_names_a_closed_connection_only_when_it_was_one() -> None:
    app = _PromptApp()
    async with app.run_test() as pilot:
        view = app.query_one(PromptResultView)
        view.show_error(
            "srv", "p", "getting prompt p: the server answered error -32000: tenant suspended", -32000
        )
        await pilot.pause()
        assert "Prompt failed: server error (-32000)" in view.text and "tenant suspended" in view.text
        assert "connection closed" not in view.text
    closed = "getting prompt p: the server closed the connection (did it exit?)"
    assert describe_error(-32000, closed) == "Prompt failed: connection closed (-32000)"


# ------------------------------------------------------------------------------- the stderr line quoted


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_a_node_server_that_cannot_start_is_quoted_by_its_error_not_its_version(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent.js"
    line = one_error_line(run_cli("tree", "-s", shlex.join(["node", str(missing)])))
    assert "the server closed the connection (did it exit?)" in line
    assert f"its stderr says: Error: Cannot find module '{missing}'" in line, line
    assert "Node.js v" not in line


@pytest.mark.slow
def test_a_python_server_that_crashes_at_start_is_quoted_by_its_exception(own_server: Path) -> None:
    """An uncaught exception group (anyio's task groups) ends its traceback with a border line."""
    line = one_error_line(
        run_cli("tree", "--protocol", "legacy", "-s", shlex.join(words(own_server, "crash-at-start")))
    )
    assert line.endswith("its stderr says: ValueError: database file is locked"), line


@pytest.mark.slow
@pytest.mark.anyio
@pytest.mark.parametrize(
    ("mode", "ending"),
    [
        ("crash-after-list", "; it exited with code 1; its stderr says: ValueError: database file is locked"),
        # The OOM killer or a `kill -9` leaves no traceback: the signal is the only explanation there is.
        (
            "killed-after-list",
            "(did it exit?); it was killed by signal SIGKILL; its stderr ends with: listening on stdio",
        ),
    ],
)
async def test_a_server_lost_after_listing_says_how_it_ended_in_its_status(
    own_server: Path, mode: str, ending: str
) -> None:
    """The supervisor's own fault for a connection lost while held: its exit and its stderr line."""
    spec = ServerSpec(name="own", transport="stdio", command=sys.executable, args=(str(own_server), mode))
    supervisor = Supervisor([spec], Settings(protocol="legacy", timeout=10, log_level=None), _Quiet())  # type: ignore[arg-type]
    with anyio.fail_after(30):
        await supervisor.run("own")
    status = supervisor.catalogue.servers["own"]
    assert status.error is not None and "closed the connection" in status.error
    assert status.error.endswith(ending), status.error


NODE_THROWN = """\
/srv/server.js:3
throw "config missing";
^
config missing
(Use `node --trace-uncaught ...` to show where the exception was thrown)

Node.js v20.20.2
"""
PYTHON_CHAINED = """\
Traceback (most recent call last):
  File "/srv/server.py", line 3, in load
    {}["a"]
    ~~^^^^^
KeyError: 'a'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/srv/server.py", line 6, in <module>
    load()
  File "/srv/server.py", line 5, in load
    raise app.ConfigMissing("no token")
app.ConfigMissing: no token
"""
RUST_PANIC = """\
starting server
thread 'main' panicked at src/main.rs:12:5:
no API key in the environment
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace
"""
GO_PANIC = """\
panic: runtime error: index out of range [5] with length 3

goroutine 1 [running]:
main.main()
\t/srv/main.go:8 +0x1d
exit status 2
"""
JAVA = """\
Exception in thread "main" java.lang.IllegalStateException: no database
\tat server.Main.start(Main.java:14)
\tat server.Main.main(Main.java:5)
"""


@pytest.mark.parametrize(
    ("tail", "clause"),
    [
        (NODE_THROWN, "its stderr says: config missing"),
        (PYTHON_CHAINED, "its stderr ends with: app.ConfigMissing: no token"),
        (
            RUST_PANIC,
            "its stderr says: thread 'main' panicked at src/main.rs:12:5: no API key in the environment",
        ),
        (GO_PANIC, "its stderr says: panic: runtime error: index out of range [5] with length 3"),
        (JAVA, 'its stderr says: Exception in thread "main" java.lang.IllegalStateException: no database'),
        ("ready\nlistening on stdio\n  \nNode.js v22.1.0\n", "its stderr says: listening on stdio"),
        ("Node.js v22.1.0\n", "its stderr ends with: Node.js v22.1.0"),
        ("", ""),
    ],
)
def test_the_quoted_stderr_line_is_the_one_that_says_why(tail: str, clause: str) -> None:
    """Whatever the runtime, the cause and not its trailer; `ends with` only when it is the last line."""
    assert stderr_clause(tail) == clause


def test_the_quoted_stderr_line_is_bounded() -> None:
    tail = ("x" * 5000 + "\n") * 10 + "Error: " + "y" * 5000 + "\nNode.js v20.20.2\n"
    said = stderr_clause(tail)
    assert said.startswith("its stderr says: Error: yyy") and len(said) <= len("its stderr says: ") + 300


class _Quiet:
    """A supervisor listener that hears nothing."""

    def __getattr__(self, name: str) -> Any:
        async def nothing_async(*args: object) -> None:
            return None

        return nothing_async if name == "resource_changed" else (lambda *args: None)
