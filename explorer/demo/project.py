"""The `file:///` tree: a fake but plausible Python project, "Tidewater", a small tide-prediction library.

The hand-written files are package data (`data/tidewater/`, listed with their MIME types in
`data/tidewater.toml`); the few hundred station records under `data/stations/` are generated from a
fixed seed and the tables of `data/stations.toml`, on demand.
"""

from __future__ import annotations

import json
import random
from functools import cache
from typing import Any, NamedTuple

from explorer.demo import datafiles


class ProjectFile(NamedTuple):
    """One hand-written file of the project: its text and listing metadata."""

    mime_type: str
    text: str
    description: str | None
    priority: float | None


def _manifest() -> dict[str, Any]:
    return datafiles.toml("tidewater.toml")


ROOT: str = _manifest()["root"]
RELEASED: str = _manifest()["released"]  # when the featured (described) files last changed


@cache
def text_files() -> dict[str, ProjectFile]:
    """Relative path -> file, for every hand-written file. Binary files and stations are the catalogue's."""
    out: dict[str, ProjectFile] = {}
    for path, meta in _manifest()["files"].items():
        text = datafiles.text(f"tidewater/{meta.get('stored', path)}")
        out[path] = ProjectFile(meta["mime"], text, meta.get("description"), meta.get("priority"))
    return out


def _stations() -> dict[str, Any]:
    return datafiles.toml("stations.toml")


STATION_COUNT: int = _stations()["count"]
REGIONS: tuple[str, ...] = tuple(_stations()["regions"])
CONSTITUENTS: tuple[str, ...] = tuple(_stations()["amplitudes"])


def _slug(name: str) -> str:
    return name.lower().replace(" ", "-")


@cache
def station_names() -> dict[str, str]:
    """Station slug -> display name: 312 unique names, sorted by slug."""
    table = _stations()
    roots, featured = table["roots"], tuple(table["featured"])
    candidates = [f"{p} {r}" for p in table["prefixes"] for r in roots] + [
        f"{r} {s}" for r in roots for s in table["suffixes"]
    ]
    rng = random.Random("tidewater-stations")
    rng.shuffle(candidates)
    rest = [c for c in candidates if c not in featured]
    chosen = [*featured, *rest[: STATION_COUNT - len(featured)]]
    return {_slug(name): name for name in sorted(chosen, key=_slug)}


@cache
def station_record(slug: str) -> dict[str, Any]:
    table = _stations()
    name = station_names()[slug]
    rng = random.Random(f"station:{slug}")
    region = REGIONS[rng.randrange(len(REGIONS))]
    lat0, lat1, lon0, lon1 = table["regions"][region]
    scale = 0.08 if region == "Baltic" else rng.uniform(0.6, 2.4)
    amplitudes: dict[str, float] = table["amplitudes"]
    year = rng.randrange(1952, 2021)
    return {
        "id": slug,
        "name": name,
        "region": region,
        "position": {"lat": round(rng.uniform(lat0, lat1), 4), "lon": round(rng.uniform(lon0, lon1), 4)},
        "datum": "LAT",
        "timezone": "UTC",
        "established": f"{year}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}",
        "z0_m": round(scale * rng.uniform(1.6, 2.4), 3),
        "constituents": [
            {
                "name": c,
                "amplitude_m": round(amplitudes[c] * scale * rng.uniform(0.8, 1.2), 3),
                "phase_deg": round(rng.uniform(0, 360), 1),
            }
            for c in CONSTITUENTS
        ],
        "sensors": [
            {"kind": kind, "installed": year + 5 * i, "sample_seconds": rng.choice((60, 300, 360))}
            for i, kind in enumerate(rng.sample(table["sensors"], rng.randrange(1, 3)))
        ],
        "tags": sorted(rng.sample(table["tags"], 2)),
    }


def station_json(slug: str) -> str:
    return json.dumps(station_record(slug), indent=2) + "\n"


def station_index_json() -> str:
    rows = [{"id": s, "name": n, "region": station_record(s)["region"]} for s, n in station_names().items()]
    body = {"version": 3, "count": len(rows), "regions": list(REGIONS), "stations": rows}
    return json.dumps(body, indent=2) + "\n"
