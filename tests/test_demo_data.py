"""The demo's documents and tables are package data, found through importlib.resources, wheel or zip."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from explorer.demo import datafiles, handbook, metrics, project, prompts, templates

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "explorer" / "demo"
DATA = DEMO / "data"

# Files that a loader names directly (the rest are named by a manifest: chapters and project files).
NAMED = {
    "instructions.txt",
    "metrics.toml",
    "prompts.toml",
    "stations.toml",
    "templates.toml",
    "tidewater.toml",
    "docs/faq.md",
    "docs/glossary.txt",
    "docs/handbook.toml",
    "docs/inbox/README.md",
    "docs/inbox/note.md",
    "docs/inbox/subjects.toml",
}


def referenced() -> set[str]:
    """Every data file the demo reads, as a path relative to data/."""
    manifest = datafiles.toml("tidewater.toml")["files"]
    files = {f"tidewater/{meta.get('stored', path)}" for path, meta in manifest.items()}
    chapters = {f"docs/handbook/{c.slug}.md" for c in handbook.chapters()}
    return NAMED | files | chapters


def test_every_data_file_is_read_through_importlib_resources() -> None:
    root = datafiles.data_root()
    for relative in sorted(referenced()):
        node = root
        for part in relative.split("/"):
            node = node / part
        assert node.is_file(), relative
    assert datafiles.text("docs/faq.md").startswith("# Frequently asked questions")
    assert datafiles.toml("metrics.toml")["day_count"] == 14


def test_no_data_file_is_left_over() -> None:
    on_disk = {p.relative_to(DATA).as_posix() for p in DATA.rglob("*") if p.is_file()}
    on_disk = {p for p in on_disk if "__pycache__" not in p}
    assert on_disk == referenced()


def test_the_fake_project_is_safe_from_this_repositorys_tools() -> None:
    # mypy, ruff and pytest would check Python files under explorer/, and git would obey a .gitignore.
    stored = [p.relative_to(DATA).as_posix() for p in DATA.rglob("*") if p.is_file()]
    assert not [p for p in stored if p.endswith(".py") or p.rsplit("/", 1)[-1].startswith(".")]
    assert not [p for p in stored if p.rsplit("/", 1)[-1] in ("pyproject.toml", "conftest.py")]
    files = project.text_files()
    assert "src/tidewater/cli.py" in files and ".gitignore" in files and ".github/workflows/ci.yml" in files
    assert files["src/tidewater/cli.py"].text.startswith('"""') and files["src/tidewater/py.typed"].text == ""
    assert tomllib.loads(files["pyproject.toml"].text)["project"]["name"] == "tidewater"


def test_tables_match_the_code_that_uses_them() -> None:
    assert templates.T_STATION.startswith(f"file:///{project.ROOT}/data/stations/")
    assert len({t.name for t in templates.TEMPLATES}) == len(templates.TEMPLATES) == 8
    prompt_args = {(p.name, a.name) for p in prompts.PROMPTS for a in p.arguments or ()}
    assert set(prompts.CHOICES) <= prompt_args
    for choice in prompts.CHOICES.values():
        assert choice.default in choice.values
    assert metrics.REGIONS == ("ap-south", "eu-north", "eu-west", "us-east", "us-west")
    assert sum(len(s) for s in metrics.REGION_SERVICES.values()) == 32
    assert len(project.station_names()) == project.STATION_COUNT == 312
    assert [c.slug for c in handbook.chapters()][:2] == ["welcome", "mcp-in-five-minutes"]


def test_data_loads_from_a_zipped_package(tmp_path: Path) -> None:
    """importlib.resources, not file paths: the data is found inside a zip as it is inside a wheel."""
    archive = tmp_path / "explorer.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for path in (REPO / "explorer").rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                z.write(path, path.relative_to(REPO).as_posix())
    code = (
        "import explorer.demo.datafiles as d, explorer.demo.handbook as h, explorer.demo.project as p\n"
        f"assert d.__file__.startswith({str(archive)!r}), d.__file__\n"
        "print(len(h.chapters()), len(p.text_files()), h.chapters()[0].title)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(archive)}
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split(maxsplit=2) == ["11", "33", "Welcome to the demo server\n"]


@pytest.mark.parametrize("module", sorted(p.name for p in DEMO.glob("*.py")))
def test_demo_modules_stay_small(module: str) -> None:
    lines = (DEMO / module).read_text(encoding="utf-8").count("\n")
    assert lines <= 400, f"{module} has {lines} lines"
