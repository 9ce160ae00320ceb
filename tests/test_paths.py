"""File locations: one folder under the home override, nothing created until needed, safe log names."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer import paths


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "home"
    monkeypatch.setenv(paths.HOME_ENV, str(root))
    return root


def test_override_puts_everything_under_one_folder(home: Path) -> None:
    assert paths.config_dir() == home / "config"
    assert paths.config_file() == home / "config" / "config.toml"
    assert paths.themes_dir() == home / "config" / "themes"
    assert paths.data_dir() == home / "data"
    assert paths.log_dir() == home / "logs"
    assert paths.history_file().parent == home / "data"
    assert paths.server_log_path("demo") == home / "logs" / "demo.log"


def test_nothing_is_created_by_asking_where_things_are(home: Path) -> None:
    paths.config_dir()
    paths.config_file()
    paths.themes_dir()
    paths.data_dir()
    paths.log_dir()
    assert not home.exists()


def test_directories_are_created_on_demand(home: Path) -> None:
    assert paths.config_dir(create=True).is_dir()
    assert paths.themes_dir(create=True).is_dir()
    assert paths.data_dir(create=True).is_dir()
    assert paths.log_dir(create=True).is_dir()


def test_files_about_to_be_written_get_their_folder(home: Path) -> None:
    history = paths.history_file()
    assert history.parent.is_dir()
    assert not history.exists()
    log = paths.server_log_path("demo")
    assert log.parent.is_dir()
    log.write_text("stderr\n")


def test_relative_override_is_made_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(paths.HOME_ENV, "rel")
    assert paths.config_dir() == tmp_path / "rel" / "config"


def test_without_override_platformdirs_locations_are_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(paths.HOME_ENV, raising=False)
    for location in (paths.config_dir(), paths.data_dir(), paths.log_dir()):
        assert paths.APP_NAME in location.parts
    assert paths.config_file().name == "config.toml"


def test_empty_override_means_no_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(paths.HOME_ENV, "")
    assert paths.APP_NAME in paths.config_dir().parts


def test_importing_creates_nothing(tmp_path: Path) -> None:
    home = tmp_path / "fresh"
    code = "import explorer.paths, explorer.config"
    env = {"MCP_URL_EXPLORER_HOME": str(home), "PATH": "/usr/bin:/bin"}
    root = Path(__file__).resolve().parent.parent
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=root)
    assert not home.exists()


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("demo", "demo.log"),
        ("my-server_2.v1", "my-server_2.v1.log"),
    ],
)
def test_plain_names_are_kept(home: Path, name: str, expected: str) -> None:
    assert paths.server_log_path(name).name == expected


@pytest.mark.parametrize(
    "name",
    [
        "",
        ".",
        "..",
        "../../etc/passwd",
        "/abs/path",
        "a\\b",
        "CON",
        "nul.txt",
        ".hidden",
        "-rf",
        "ü",
        "x" * 500,
    ],
)
def test_hostile_names_stay_in_the_log_folder(home: Path, name: str) -> None:
    log = paths.server_log_path(name)
    assert log.parent == home / "logs"
    assert log.name.endswith(".log")
    assert not log.name.startswith((".", "-"))
    assert len(log.name) <= 64 + 9 + 4
    assert log.resolve().parent == (home / "logs").resolve()


def test_names_that_map_to_the_same_text_get_different_files(home: Path) -> None:
    assert paths.server_log_path("a/b") != paths.server_log_path("a_b")
    assert paths.server_log_path("a/b") != paths.server_log_path("a:b")
    assert paths.server_log_path("x" * 100) != paths.server_log_path("x" * 101)


@given(st.text(max_size=200))
def test_safe_file_stem_is_always_a_plain_file_name(name: str) -> None:
    stem = paths.safe_file_stem(name)
    assert stem
    assert stem not in (".", "..")
    assert all(char.isascii() and (char.isalnum() or char in "._-") for char in stem)
    assert not stem.startswith((".", "-"))
    assert len(stem) <= 64 + 9


@pytest.mark.parametrize("name", ["sdk", "SDK"])
def test_a_server_named_like_the_sdks_log_gets_a_file_of_its_own(home: Path, name: str) -> None:
    """Its stderr went into `sdk.log`, the SDK's own log, which is capped and rotated another way."""
    log = paths.server_log_path(name)
    assert log.parent == home / "logs" and log.name.lower() != "sdk.log"
    assert log.name.lower().startswith("sdk-") and log.suffix == ".log"
