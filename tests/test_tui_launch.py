"""How the CLI starts the TUI: the frame rate (240 unless the user set `TEXTUAL_FPS`), set before Textual
is imported, and the import itself kept from the collector, what it built frozen.

Each check runs in a fresh interpreter: Textual reads the variable once, at its import.
"""

from __future__ import annotations

import os
import subprocess
import sys

from tests.helpers.paths import ROOT

CAP = "from explorer.frame_rate import cap_frame_rate"
PERIOD = f"{CAP}; cap_frame_rate(); import textual.screen as s; print(s.UPDATE_PERIOD)"

# The CLI without a command opens the TUI: `explorer.app` stands in with a module whose `launch_tui` tells
# what Textual would read, so that nothing imports Textual before the CLI's own call.
CLI = """
import sys, types
fake = types.ModuleType("explorer.app")
def launch_tui(*args, **kwargs):
    import textual.screen
    print(textual.screen.UPDATE_PERIOD)
    return 0
fake.launch_tui = launch_tui
sys.modules["explorer.app"] = fake
from explorer.cli.main import cli
cli(["-s", "stdio-server-never-started"], standalone_mode=False)
"""


def run(code: str, **env: str) -> str:
    environ = {k: v for k, v in os.environ.items() if k != "TEXTUAL_FPS"} | env
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environ, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def test_the_app_paints_up_to_240_frames_a_second() -> None:
    assert float(run(PERIOD)) == 1 / 240


def test_a_frame_rate_the_user_set_is_kept() -> None:
    assert float(run(PERIOD, TEXTUAL_FPS="30")) == 1 / 30


def test_too_late_once_textual_is_imported() -> None:
    code = f"import textual.screen as s; {CAP}; print(cap_frame_rate(), s.UPDATE_PERIOD)"
    assert run(code) == f"False {1 / 60}"


def test_the_cli_caps_it_before_the_tui_imports_textual() -> None:
    assert float(run(CLI)) == 1 / 240


# `explorer.app` as a module the CLI imports for real (from a folder put first on the package's path): its
# import-time code says whether the collector was on, `launch_tui` whether the import's objects are frozen.
IMPORTED = """
import gc, pathlib, sys, tempfile
import explorer
folder = pathlib.Path(tempfile.mkdtemp())
(folder / "app.py").write_text(
    "import gc\\nDURING = gc.isenabled()\\n"
    "def launch_tui(*args, **kwargs):\\n"
    "    print(DURING, gc.isenabled(), gc.get_freeze_count() > 0)\\n"
    "    return 0\\n"
)
explorer.__path__.insert(0, str(folder))
from explorer.cli.main import cli
cli(["-s", "stdio-server-never-started"], standalone_mode=False)
"""


def test_the_cli_imports_the_tui_without_the_collector_and_freezes_what_it_built() -> None:
    assert run(IMPORTED) == "False True True"
