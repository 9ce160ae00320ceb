"""Start-up: `--help`, `expand`, the TUI's first frame and its first rows, from process start (a script).

Run: python benchmarks/bench_startup.py [--rounds 5]

Each figure is the median of the rounds, whole processes: `--help` and `expand` to exit; the TUI from
spawn until its first frame is on the terminal (a pseudo-terminal of 160x45; the frame is there when the
preview pane's placeholder text has been written), with nothing configured (the built-in demo server) and
a fresh home directory; then until the demo server's first rows are on it (that server is a Python
process that imports the MCP SDK too: it boots while the explorer imports the SDK). Baselines in the
same run: `python -c pass` for the commands, and a minimal Textual app (one Static) for the first frame,
i.e. what Python and Textual cost before the explorer does anything.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
MARKER = b"Nothing to preview"
ROWS_MARKER = b"docs://"  # the demo server's first listed prefix: its rows are on screen
MINIMAL_APP = textwrap.dedent(
    """
    from textual.app import App
    from textual.widgets import Static

    class Minimal(App[None]):
        def compose(self):
            yield Static("Nothing to preview")

    Minimal().run()
    """
)


def compile_explorer() -> None:
    """Bytecode for every module, as an installed package has (a fresh checkout would measure compiling)."""
    import compileall

    compileall.compile_dir(ROOT / "explorer", quiet=1)
    compileall.compile_dir(ROOT / "benchmarks", quiet=1)


def timed_run(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=env, cwd=ROOT)
    return time.perf_counter() - started


def stop(pid: int, fd: int) -> None:
    """SIGTERM, then wait for the exit while reading what the app still writes (a full pseudo-terminal
    would block it on its way out); SIGKILL only if it is still there after 3 s."""
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        if os.waitpid(pid, os.WNOHANG) != (0, 0):
            return
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            with contextlib.suppress(OSError):
                os.read(fd, 65536)
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


def first_frame(
    command: list[str], env: dict[str, str], marker: bytes = MARKER, limit: float = 30.0
) -> float:
    """Seconds from spawn until `marker` has been written to the pseudo-terminal."""
    import fcntl
    import pty
    import struct
    import termios

    started = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the command, on the pseudo-terminal
        os.environ.update(env)
        os.execvpe(command[0], command, os.environ)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 45, 160, 0, 0))
    seen = b""
    found: float | None = None
    try:
        while time.perf_counter() - started < limit:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                seen += os.read(fd, 65536)
            except OSError:
                break
            if marker in seen:
                found = time.perf_counter() - started
                break
    finally:
        stop(pid, fd)
        os.close(fd)
    if found is None:
        raise SystemExit(f"no first frame within {limit} s: {command}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    compile_explorer()
    home = tempfile.mkdtemp(prefix="explorer-bench-home-")
    env = {**os.environ, "MCP_URL_EXPLORER_HOME": home, "TERM": "xterm-256color"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode compiled
    explorer = [PY, "-m", "explorer"]
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
        handle.write(MINIMAL_APP)
    minimal = [PY, handle.name]
    samples: dict[str, list[float]] = {}
    first_frame(explorer, env)  # a warm-up: the disk cache, not the explorer, would be measured first
    for _ in range(args.rounds):  # alternating, so a busy machine slows them alike
        samples.setdefault("python -c pass", []).append(timed_run([PY, "-c", "pass"], env))
        samples.setdefault("mcp-url-explorer --help", []).append(timed_run([*explorer, "--help"], env))
        expand = [*explorer, "expand", "x://{host}/{+path}{?q}", "host=h", "path=a/b", "q=1"]
        samples.setdefault("mcp-url-explorer expand", []).append(timed_run(expand, env))
        samples.setdefault("minimal Textual app: first frame", []).append(first_frame(minimal, env))
        samples.setdefault("mcp-url-explorer: first frame", []).append(first_frame(explorer, env))
        samples.setdefault("mcp-url-explorer: demo's first rows", []).append(
            first_frame(explorer, env, ROWS_MARKER)
        )
    os.unlink(handle.name)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; median of {args.rounds} rounds, seconds")
    for label, values in samples.items():
        print(f"  {label:<36} {statistics.median(values):6.3f}   (min {min(values):.3f})")
    ratio = statistics.median(samples["mcp-url-explorer: first frame"]) / statistics.median(
        samples["minimal Textual app: first frame"]
    )
    print(f"  first frame / minimal Textual app    x{ratio:.2f}")


if __name__ == "__main__":
    main()
