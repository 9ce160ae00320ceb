"""The demo's package data: documents and tables under `explorer/demo/data/`, read once and cached.

What the demo serves is kept as data files rather than as string literals in code:

- `docs/`: the `docs://` documents (Markdown and plain text) and the handbook's chapter list (TOML);
- `tidewater/` and `tidewater.toml`: the fake project of `file:///workspace/tidewater/`, one file per
  project file, with a manifest of MIME types and listing metadata;
- `stations.toml`, `metrics.toml`: the tables the generated station records and metrics are made from;
- `templates.toml`, `prompts.toml`: resource templates and prompts, in their wire shape;
- `instructions.txt`: the server's `instructions`.

They are read through `importlib.resources`, so they are found in a wheel, a source checkout or a zip.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

PACKAGE = "explorer.demo"
DATA_DIR = "data"


def data_root() -> Traversable:
    """The `data/` folder of this package, wherever the package was installed."""
    return resources.files(PACKAGE) / DATA_DIR


def _path(relative: str) -> Traversable:
    node = data_root()
    for part in relative.split("/"):
        node = node / part
    return node


@cache
def text(relative: str) -> str:
    """A data file's text (UTF-8, newlines as "\\n"), e.g. `text("docs/faq.md")`."""
    return _path(relative).read_text(encoding="utf-8")


@cache
def toml(relative: str) -> dict[str, Any]:
    """A TOML data file, parsed; callers must not mutate what they get (it is shared)."""
    return tomllib.loads(text(relative))
