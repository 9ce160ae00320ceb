"""The CLI as a user runs it (a subprocess), and the -s SPECs of the servers the tests start."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.helpers.paths import FIXTURES, ROOT


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return f"exit {self.code}\n--- stdout\n{self.stdout[-3000:]}\n--- stderr\n{self.stderr[-3000:]}"


def run_cli(*args: str, timeout: float = 90.0, env: dict[str, str] | None = None) -> CliResult:
    """Run `python -m explorer ARGS` as a user would, and capture what it printed."""
    return _explorer(["-m", "explorer", *args], timeout, env)


def run_cli_at_home(tmp_path: Path, *args: str) -> CliResult:
    """The CLI with a fake HOME and XDG config under `tmp_path`, so no config of the machine's clients is
    read (the config files a test writes go under `tmp_path / "home"`)."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return run_cli(*args, env={"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")})


def warnings_of(result: CliResult) -> list[str]:
    """The `warning: ` lines the CLI printed on stderr."""
    return [line for line in result.stderr.splitlines() if line.startswith("warning: ")]


def run_cli_patched(prelude: str, *args: str, timeout: float = 90.0) -> CliResult:
    """`run_cli`, with `prelude` (Python) run in the explorer's process first: a module constant set where
    a test must not depend on the machine's speed (a rate a busy machine might never reach)."""
    start = "from explorer.__main__ import main\nsys.argv[0] = 'mcp-url-explorer'\nmain()"
    return _explorer(["-c", f"import sys\n{prelude}\n{start}", *args], timeout, None)


def _explorer(argv: list[str], timeout: float, env: dict[str, str] | None) -> CliResult:
    full_env = {**os.environ, **(env or {})}
    full_env.pop("FORCE_COLOR", None)
    proc = subprocess.run(
        [sys.executable, *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=full_env,
        cwd=ROOT,
        check=False,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def raw_server(*modes: str, **options: object) -> str:
    """A -s SPEC that starts the raw fixture server with these fault modes."""
    words = [sys.executable, str(FIXTURES / "raw_server.py")]
    for mode in modes:
        words += ["--mode", mode]
    for key, value in options.items():
        words += ["--" + key.replace("_", "-"), str(value)]
    return shlex.join(words)


@contextmanager
def raw_http_server(*words: str) -> Iterator[str]:
    """The raw fixture served over HTTP with these words; its URL while the block runs."""
    proc = subprocess.Popen(
        [sys.executable, str(FIXTURES / "raw_server.py"), *words], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    try:
        yield proc.stdout.readline().strip()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def demo_server() -> str:
    """A -s SPEC for the built-in demo server (what runs when nothing is configured)."""
    return shlex.join([sys.executable, "-m", "explorer", "demo-server"])
