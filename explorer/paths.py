"""Where the explorer keeps its files: config, user themes, history, logs.

Locations come from platformdirs (XDG on Linux, Library on macOS, AppData on Windows). Setting
`MCP_URL_EXPLORER_HOME` puts everything under one folder (`config/`, `data/`, `logs/`) so tests and
snapshot runs never touch, or depend on, the user's real files. Nothing is created at import time: a
directory is made only when a caller asks for it (`create=True`) or is about to write a file into it.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import platformdirs

__all__ = [
    "APP_NAME",
    "HOME_ENV",
    "config_dir",
    "config_file",
    "data_dir",
    "history_file",
    "log_dir",
    "safe_file_stem",
    "server_log_path",
    "themes_dir",
]

APP_NAME = "mcp-url-explorer"
HOME_ENV = "MCP_URL_EXPLORER_HOME"

_MAX_STEM = 64
_UNSAFE_FILE_CHARS = re.compile(r"[^A-Za-z0-9._-]")
# Device names Windows refuses as file names, whatever the extension.
_WINDOWS_RESERVED = frozenset(
    {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(10)), *(f"LPT{i}" for i in range(10))}
)


def _home() -> Path | None:
    value = os.environ.get(HOME_ENV)
    return Path(value).expanduser().absolute() if value else None


def _dir(path: Path, create: bool) -> Path:
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path


def config_dir(*, create: bool = False) -> Path:
    """The folder of `config.toml` and user themes."""
    home = _home()
    path = home / "config" if home else Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))
    return _dir(path, create)


def config_file() -> Path:
    """The explorer's own `config.toml` (it may not exist; reading it is optional)."""
    return config_dir() / "config.toml"


def themes_dir(*, create: bool = False) -> Path:
    """User themes (YAML, the same schema as the built-in ones)."""
    return _dir(config_dir() / "themes", create)


def data_dir(*, create: bool = False) -> Path:
    """State worth keeping between runs (history)."""
    home = _home()
    path = home / "data" if home else Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    return _dir(path, create)


def history_file() -> Path:
    """Filled template values and prompt arguments (JSON, keyed by server and template or prompt).

    Its folder is created because the caller is about to write.
    """
    return data_dir(create=True) / "history"


def log_dir(*, create: bool = False) -> Path:
    """The app log and one stderr log per stdio server."""
    home = _home()
    path = home / "logs" if home else Path(platformdirs.user_log_dir(APP_NAME, appauthor=False))
    return _dir(path, create)


def safe_file_stem(name: str, *, max_length: int = _MAX_STEM) -> str:
    """A file name stem from an arbitrary (config- or server-given) name that cannot escape its folder.

    Characters outside `[A-Za-z0-9._-]` become `_`, leading dots and dashes are dropped (no hidden files,
    no `..`, no option look-alikes), and the length is capped. Whenever that changed the name, a short hash
    of the original is appended, so `a/b` and `a_b` still get different files.
    """
    stem = _UNSAFE_FILE_CHARS.sub("_", name).lstrip(".-").rstrip(".")[:max_length]
    if stem and stem == name and stem.split(".")[0].upper() not in _WINDOWS_RESERVED:
        return stem
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{stem or 'server'}-{digest}"


_OWN_LOG_STEMS = frozenset({"sdk"})  # the explorer's own logs in the same folder (`connection.sdk_logs`)


def server_log_path(server_name: str) -> Path:
    """The stderr log file of one stdio server; the log folder is created (the caller opens it next).
    A server named like one of the explorer's own logs (`sdk`) gets the hashed stem an unsafe name gets:
    its stderr and the SDK's log, each capped and rotated its own way, shared one file."""
    stem = safe_file_stem(server_name)
    if stem.lower() in _OWN_LOG_STEMS:
        digest = hashlib.sha256(server_name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        stem = f"{stem}-{digest}"
    return log_dir(create=True) / f"{stem}.log"
