"""The core never imports the UI (design.md, "Two layers, one direction"), and the quick CLI stays quick.

Every core module is imported on its own in a fresh process and `sys.modules` is checked afterwards.
The list comes from walking the package on disk, so a new core module is covered the day it is added.

One interpreter imports the heavy third-party libraries once (the MCP SDK costs ~1.5 s, and about ten
core modules need it), checks that this brought in neither Textual nor Rich nor any `explorer`
module, then forks one child per module. Each child imports just its module, so what that module pulls
in, and only that, shows up in the child's `sys.modules`: the same verdict per module as a new
interpreter, for a fraction of the time. (The suite is POSIX-only already: tests/helpers/npm.py uses `fcntl`.)
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import explorer

PACKAGE = Path(explorer.__file__).resolve().parent
UI_PACKAGES = ("textual", "rich")
# The UI layer: everything else under explorer/ is core.
UI_MODULES = {"explorer.app", "explorer.theming", "explorer.keymap"}
UI_SUBPACKAGES = ("explorer.screens", "explorer.widgets")
PRELOAD = ("mcp", "mcp.types", "mcp.client", "anyio", "click", "pydantic")

PROBE = """
import importlib, json, os, sys

UI = {"textual", "rich"}
modules, preload = json.loads(sys.argv[1]), json.loads(sys.argv[2])


def loaded():
    return {name.partition(".")[0] for name in sys.modules}


for name in preload:
    importlib.import_module(name)
if loaded() & (UI | {"explorer"}):
    sys.exit("the preload brought in " + repr(sorted(loaded() & (UI | {"explorer"}))))

children = {}
for module in modules:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            importlib.import_module(module)
            report = {"ui": sorted(loaded() & UI)}
        except BaseException as exc:
            report = {"error": type(exc).__name__ + ": " + str(exc)}
        os.write(write_end, json.dumps(report).encode())
        os._exit(0)
    os.close(write_end)
    children[module] = (pid, read_end)

results = {}
for module, (pid, read_end) in children.items():
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    results[module] = json.loads(data) if data else {"error": "the child died"}
print(json.dumps(results))
"""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> list[str]:
    return sorted(module_name(path) for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts)


def is_ui(name: str) -> bool:
    return name in UI_MODULES or any(name == p or name.startswith(p + ".") for p in UI_SUBPACKAGES)


def core_modules() -> list[str]:
    return [name for name in all_modules() if not is_ui(name)]


def probe(modules: list[str]) -> dict[str, dict[str, Any]]:
    """Import each module alone in a forked child of a clean interpreter.

    Returns {module: {"ui": [UI packages loaded]}} or {module: {"error": "..."}}.
    """
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(modules), json.dumps(PRELOAD)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    results: dict[str, dict[str, Any]] = json.loads(proc.stdout)
    return results


def test_the_core_module_list_is_discovered_from_the_package() -> None:
    core = core_modules()

    for expected in (
        "explorer",
        "explorer.config",
        "explorer.sanitize",
        "explorer.model.uri_tree",
        "explorer.model.catalogue",
        "explorer.connection.discovery",
        "explorer.connection.session",
        "explorer.cli.main",
        "explorer.demo.server",
    ):
        assert expected in core
    assert not any(is_ui(name) for name in core)
    assert "explorer.app" in all_modules() and "explorer.app" not in core
    assert any(name.startswith("explorer.widgets.") for name in all_modules())


@pytest.mark.slow
def test_no_core_module_imports_textual_or_rich() -> None:
    core = core_modules()
    # explorer.app and explorer.theming are controls: the probe must see the UI there, or it proves nothing.
    results = probe(["explorer.app", "explorer.theming", *core])

    assert results.pop("explorer.app") == {"ui": ["rich", "textual"]}
    assert "textual" in results.pop("explorer.theming")["ui"]
    assert sorted(results) == core
    failed = {name: r["error"] for name, r in results.items() if "error" in r}
    assert not failed, f"core modules that do not import on their own: {failed}"
    offenders = {name: r["ui"] for name, r in results.items() if r["ui"]}
    assert not offenders, f"core modules importing the UI: {offenders}"


CLI_PROBE = """
import json, runpy, sys
sys.argv = ["mcp-url-explorer", *sys.argv[1:]]
try:
    runpy.run_module("explorer", run_name="__main__", alter_sys=True)
except SystemExit as exit:
    code = exit.code
else:
    code = 0
loaded = sorted({name.partition(".")[0] for name in sys.modules})
print("\\nMODULES " + json.dumps({"code": code, "loaded": loaded}))
"""


def run_cli_probe(*args: str) -> tuple[str, int, set[str]]:
    proc = subprocess.run(
        [sys.executable, "-c", CLI_PROBE, *args], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    output, _, report = proc.stdout.rpartition("\nMODULES ")
    data = json.loads(report)
    return output, data["code"], set(data["loaded"])


def test_help_does_not_import_mcp_or_the_ui() -> None:
    output, code, loaded = run_cli_probe("--help")

    assert code == 0
    assert "Usage:" in output and "expand" in output
    assert not loaded & {"mcp", "textual", "rich"}, sorted(loaded & {"mcp", "textual", "rich"})


def test_expand_does_not_import_mcp_or_the_ui() -> None:
    output, code, loaded = run_cli_probe("expand", "x://{a}", "a=1")

    assert code == 0
    assert output.strip() == "x://1"
    assert not loaded & {"mcp", "textual", "rich"}, sorted(loaded & {"mcp", "textual", "rich"})


@pytest.mark.slow
def test_the_cli_probe_sees_mcp_when_a_command_needs_it() -> None:
    """Control for the two tests above: a command talking to a server loads the SDK; the probe sees it."""
    output, code, loaded = run_cli_probe("-s", "mcp-url-explorer-no-such-command-42", "prompts")

    assert code == 1, output
    assert "mcp" in loaded


def conftest_imports(source: str) -> list[int]:
    """Lines of `source` that import from a conftest module (by any spelling)."""
    found: list[int] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            names = [node.module or ""] + [f"{node.module or ''}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        if any(name == "conftest" or name.endswith(".conftest") for name in names):
            found.append(node.lineno)
    return found


def test_no_test_module_imports_from_conftest() -> None:
    """conftest.py holds fixtures and hooks; helpers live in plain modules that tests import by name.

    (pytest loads conftest itself; importing it as a module as well runs it twice under two names.)
    """
    tests = Path(__file__).resolve().parent
    offenders = [
        f"{path.relative_to(tests.parent)}:{line}"
        for path in sorted(tests.rglob("*.py"))
        if "fixtures" not in path.relative_to(tests).parts
        if "conftest" in (text := path.read_text(encoding="utf-8"))
        for line in conftest_imports(text)
    ]
    assert offenders == [], f"import helpers from tests/helpers/ instead of conftest: {offenders}"


def test_the_conftest_check_sees_every_spelling() -> None:
    spellings = [
        "from tests.conftest import run_cli",
        "from .conftest import run_cli",
        "from conftest import run_cli",
        "import tests.conftest",
        "from tests import conftest",
        "def f():\n    from tests.conftest import ROOT",
    ]
    assert [conftest_imports(text) for text in spellings] == [[1], [1], [1], [1], [1], [2]]
    assert conftest_imports("from tests.helpers.cli import run_cli\nimport conftest_like") == []


def test_the_tui_before_its_first_frame_loads_neither_the_sdk_nor_the_http_client() -> None:
    """The app and its main screen are what the first frame needs; the MCP SDK and the HTTP client (50 ms
    of imports, for logins) come after it, when the first server connects, and Markdown and Pygments (30
    ms) when the preview first shows a text."""
    probe = (
        "import sys, json; import explorer.app, explorer.screens.main; "
        "print(json.dumps(sorted({name.partition('.')[0] for name in sys.modules})))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    loaded = set(json.loads(proc.stdout))
    assert "textual" in loaded  # the probe sees what the app imports
    later = {"mcp", "httpx", "httpx2", "pydantic", "markdown_it", "pygments"}
    assert not loaded & later, sorted(loaded & later)
