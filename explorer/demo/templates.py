"""The demo's resource templates, from RFC 6570 level 1 to level 4: definitions, from `data/templates.toml`.

The code that reads through a template (`contents`) or completes its variables (`completions`) finds it
by name, through the `T_*` constants.
"""

from __future__ import annotations

import mcp.types as types

from explorer.demo import datafiles

TEMPLATES: tuple[types.ResourceTemplate, ...] = tuple(
    types.ResourceTemplate.model_validate(t) for t in datafiles.toml("templates.toml")["templates"]
)


def _uri(name: str) -> str:
    return next(t.uri_template for t in TEMPLATES if t.name == name)


T_CHAPTER = _uri("handbook-chapter")
T_SECTION = _uri("handbook-section")
T_SEARCH = _uri("search")
T_PATH = _uri("file")
T_STATION = _uri("station")
T_LATEST = _uri("latest-metrics")
T_REPORT = _uri("service-report")
T_ROLLUP = _uri("rollup")
