"""A config.toml that is a FIFO (or a device) is refused by what writes it, as by what reads it: saving a
server from the connect dialog or deleting one from config.toml read it as a plain file and waited
forever on a FIFO nothing writes. Each write runs in a subprocess, whose timeout is the hang guard."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")

# What the connect dialog ("save to config.toml") and the palette ("Delete from config.toml") call; a
# ConfigError is the message they show (here: on stderr, exit 2). `forget` prints the removal notice.
PROGRAM = """
import sys
from pathlib import Path
from explorer.config.removal import forget_server
from explorer.config.spec import ConfigError, ServerSpec, SpecOrigin
from explorer.config.writer import remove_server, save_server

action, path = sys.argv[1], Path(sys.argv[2])
spec = ServerSpec(name="demo", transport="stdio", command="python", origin=SpecOrigin(path, "demo"))
try:
    if action == "save":
        save_server(path, spec)
    elif action == "remove":
        remove_server(path, "demo")
    else:
        notice = forget_server(spec, path, delete=True)
        print(notice.message)
        sys.exit(1 if notice.failed else 0)
except ConfigError as exc:
    print(f"error: {exc}", file=sys.stderr)
    sys.exit(2)
"""


def fifo_config(tmp_path: Path) -> Path:
    path = tmp_path / "config" / "config.toml"
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    return path


def write_with(action: str, path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROGRAM, action, str(path)],
        capture_output=True,
        text=True,
        timeout=60,  # the hang guard: the FIFO was read as a file, which waits for a writer forever
        cwd=ROOT,
        check=False,
    )


@pytest.mark.parametrize("action", ["save", "remove"])
def test_a_fifo_config_toml_is_refused_by_a_write(tmp_path: Path, action: str) -> None:
    path = fifo_config(tmp_path)
    done = write_with(action, path)
    assert done.returncode == 2, done
    assert done.stderr == f"error: {path}: is a FIFO, not a file; not changed\n", done


def test_deleting_from_a_fifo_config_toml_says_why_in_the_notice(tmp_path: Path) -> None:
    path = fifo_config(tmp_path)
    done = write_with("forget", path)
    assert done.returncode == 1, done
    assert done.stdout == (
        f"Removed demo for this session only: {path}: is a FIFO, not a file; not changed. "
        "The entry is still in that file.\n"
    ), done


def test_a_symlink_to_a_fifo_is_refused_too(tmp_path: Path) -> None:
    fifo = fifo_config(tmp_path)
    link = tmp_path / "config.toml"
    link.symlink_to(fifo)
    done = write_with("save", link)
    assert done.returncode == 2 and done.stderr == f"error: {link}: is a FIFO, not a file; not changed\n", (
        done
    )
