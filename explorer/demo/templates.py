"""The demo's resource templates, from RFC 6570 level 1 to level 4 (definitions only)."""

from __future__ import annotations

import mcp.types as types

from explorer.demo import project

T_CHAPTER = "docs://handbook/{chapter}"
T_SECTION = "docs://handbook/{chapter}{#section}"
T_SEARCH = "docs://search{?q,limit}"
T_PATH = "file:///{+path}"
T_STATION = f"file:///{project.ROOT}/data/stations/{{station}}.json"
T_LATEST = "metrics://{region}/{service}/latest"
T_REPORT = "metrics://{region}/{service}/report{.format}"
T_ROLLUP = "metrics://rollup{/segments*}"

TEMPLATES: tuple[types.ResourceTemplate, ...] = (
    types.ResourceTemplate(
        uri_template=T_CHAPTER,
        name="handbook-chapter",
        title="Handbook chapter",
        description="One chapter of the handbook by its slug (level 1). Completes `chapter`.",
        mime_type="text/markdown",
    ),
    types.ResourceTemplate(
        uri_template=T_SECTION,
        name="handbook-section",
        title="Handbook section",
        description="One section of a chapter (level 2 fragment). `section` completions depend on `chapter`.",
        mime_type="text/markdown",
    ),
    types.ResourceTemplate(
        uri_template=T_SEARCH,
        name="search",
        title="Search the docs and the source tree",
        description="Full-text search (level 3 query): `q` is the text, `limit` caps the results (10).",
        mime_type="text/markdown",
        annotations=types.Annotations(audience=["user", "assistant"], priority=0.7),
    ),
    types.ResourceTemplate(
        uri_template=T_PATH,
        name="file",
        title="Any file or folder of the source tree",
        description="Reserved expansion keeps the slashes (level 2). Folders (ending in /) read as listings.",
    ),
    types.ResourceTemplate(
        uri_template=T_STATION,
        name="station",
        title="Tide station record",
        description="One station's JSON record. Completes `station` from a few hundred ids.",
        mime_type="application/json",
    ),
    types.ResourceTemplate(
        uri_template=T_LATEST,
        name="latest-metrics",
        title="Latest metrics of a service",
        description="The newest sample of every metric. `service` completions depend on the chosen `region`.",
        mime_type="application/json",
        annotations=types.Annotations(audience=["user"], priority=0.9),
    ),
    types.ResourceTemplate(
        uri_template=T_REPORT,
        name="service-report",
        title="14-day service report",
        description="Daily means as csv, json or md (level 3 label); without a format, Markdown.",
    ),
    types.ResourceTemplate(
        uri_template=T_ROLLUP,
        name="rollup",
        title="Roll-up at any depth",
        description="Exploded path segments (level 4): [], [region], [region, service] or [.., metric].",
        mime_type="application/json",
    ),
)
