"""The `file:///` tree: a fake but plausible Python project, "Tidewater", a small tide-prediction library.

Hand-written files are plain strings; the few hundred station records under `data/stations/` are
generated from a fixed seed, on demand.
"""

from __future__ import annotations

import json
import random
from functools import cache
from typing import Any

ROOT = "workspace/tidewater"


def _src(text: str) -> str:
    return text.lstrip("\n")


README = _src("""
# Tidewater

Tidewater predicts tides from harmonic constituents. Give it a station and a time range, and it
returns water levels relative to chart datum, high and low waters, and the tidal range of the day.

```console
$ pip install tidewater
$ tidewater predict port-alder --from 2026-07-01 --hours 48
2026-07-01 03:12  HW  4.21 m
2026-07-01 09:31  LW  0.64 m
2026-07-01 15:40  HW  4.05 m
...
```

## Features

- About 300 bundled stations with their constituent tables (`data/stations/`).
- Predictions from the eight main constituents (M2, S2, N2, K2, K1, O1, P1, M4), with nodal
  corrections for the lunar cycle.
- High/low water extraction with sub-minute precision.
- CSV output for spreadsheets, and a compact binary table format for embedded devices.

## Using the library

```python
from datetime import datetime, timedelta, timezone

from tidewater import load_station, predict

station = load_station("port-alder")
start = datetime(2026, 7, 1, tzinfo=timezone.utc)
for t, level in predict(station, start, start + timedelta(hours=6), step=timedelta(minutes=30)):
    print(f"{t:%H:%M}  {level:5.2f} m")
```

## Accuracy

Harmonic predictions do not know about the weather. Storm surge, river discharge and strong winds can
move the water by a metre or more. Never use Tidewater for navigation: use official tide tables.

## Project layout

| Path                        | What is there                              |
|-----------------------------|--------------------------------------------|
| `src/tidewater/`            | the library                                |
| `src/tidewater/harmonics/`  | constituents and nodal corrections         |
| `data/stations/`            | one JSON file per station                  |
| `docs/`                     | the documentation site (MkDocs)            |
| `tests/`                    | pytest suite                               |

## Licence

MIT, see `LICENSE`.
""")

CHANGELOG = _src("""
# Changelog

All notable changes to Tidewater. The format follows *Keep a Changelog*; versions follow SemVer.

## 0.9.0 - 2026-06-30

### Added
- `tidewater.io.binary`: read and write the compact `TWH1` constituent table.
- 41 new stations on the Celtic Sea coast.
- `predict(..., step=...)` accepts any `timedelta`, not just whole minutes.

### Changed
- Nodal corrections are now computed once per day instead of once per sample (about 6x faster).

### Fixed
- High water times were off by one step when the peak fell exactly on a sample.

## 0.8.2 - 2026-04-11

### Fixed
- `tidewater predict` crashed on stations without a timezone.

## 0.8.0 - 2026-02-02

### Added
- CSV output (`--format csv`).
- Python 3.13 support.

### Removed
- The deprecated `Station.constituents_dict` property.
""")

LICENSE = _src("""
MIT License

Copyright (c) 2024-2026 The Tidewater authors

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
""")

PYPROJECT = _src("""
[build-system]
requires = ["hatchling>=1.25"]
build-backend = "hatchling.build"

[project]
name = "tidewater"
version = "0.9.0"
description = "Tide predictions from harmonic constituents."
readme = "README.md"
requires-python = ">=3.11"
license = "MIT"
authors = [{ name = "The Tidewater authors" }]
keywords = ["tides", "oceanography", "harmonics"]
classifiers = [
    "Development Status :: 4 - Beta",
    "Intended Audience :: Science/Research",
    "Programming Language :: Python :: 3",
    "Topic :: Scientific/Engineering :: Physics",
]
dependencies = []

[project.optional-dependencies]
test = ["pytest>=8", "hypothesis>=6.100"]
docs = ["mkdocs>=1.6", "mkdocs-material>=9.5"]

[project.scripts]
tidewater = "tidewater.cli:main"

[tool.hatch.build.targets.wheel]
packages = ["src/tidewater"]

[tool.hatch.build.targets.wheel.force-include]
"data/stations" = "tidewater/_stations"

[tool.pytest.ini_options]
testpaths = ["tests"]
addopts = "-ra --strict-markers"

[tool.ruff]
line-length = 100
src = ["src"]

[tool.ruff.lint]
select = ["E", "F", "I", "B", "UP"]

[tool.mypy]
strict = true
files = ["src/tidewater"]
""")

GITIGNORE = _src("""
__pycache__/
*.py[cod]
.venv/
build/
dist/
site/
.pytest_cache/
.mypy_cache/
.ruff_cache/
""")

CI_WORKFLOW = _src("""
name: ci

on:
  push:
    branches: [main]
  pull_request:

jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        python: ["3.11", "3.12", "3.13"]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: ${{ matrix.python }}
      - run: pip install -e ".[test]"
      - run: pytest -q
  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.13"
      - run: pip install ruff mypy
      - run: ruff check && mypy
""")

MKDOCS = _src("""
site_name: Tidewater
repo_name: tidewater
theme:
  name: material
  palette:
    primary: teal
nav:
  - Home: index.md
  - Quickstart: quickstart.md
  - API:
      - Stations: api/stations.md
      - Predictions: api/predict.md
""")

DOCS_INDEX = _src("""
# Tidewater

Tide predictions from harmonic constituents, in pure Python.

- **[Quickstart](quickstart.md)**: install, load a station, predict a day of tides.
- **[Stations](api/stations.md)**: what a station file contains and how to add one.
- **[Predictions](api/predict.md)**: the prediction functions and their options.

!!! warning
    Tidewater is not a navigation aid. Always check official tide tables.
""")

DOCS_QUICKSTART = _src("""
# Quickstart

## Install

```console
$ pip install tidewater
```

## Predict a day

```python
from datetime import datetime, timezone
from tidewater import load_station, high_and_low_waters

station = load_station("kestrel-harbour")
day = datetime(2026, 7, 14, tzinfo=timezone.utc)
for event in high_and_low_waters(station, day):
    print(event.kind, event.time.strftime("%H:%M"), f"{event.level:.2f} m")
```

## From the command line

```console
$ tidewater stations --region "Celtic Sea" | head
$ tidewater predict kestrel-harbour --from 2026-07-14 --hours 24 --format csv > day.csv
```
""")

DOCS_API_STATIONS = _src("""
# Stations

A station is a tide gauge with a known constituent table. Each one lives in
`data/stations/<id>.json`:

```json
{
  "id": "port-alder",
  "name": "Port Alder",
  "position": {"lat": 51.62, "lon": -4.91},
  "datum": "LAT",
  "constituents": [{"name": "M2", "amplitude_m": 1.41, "phase_deg": 112.4}]
}
```

## Functions

- `load_station(station_id) -> Station`: read one station; raises `KeyError` if unknown.
- `list_stations(region=None) -> list[str]`: station ids, optionally for one region.

## Adding a station

1. Copy an existing file and change the id, name and position.
2. Fill in at least M2, S2, K1 and O1; the others default to zero.
3. Run `pytest tests/test_stations.py`: it validates every file.
""")

DOCS_API_PREDICT = _src("""
# Predictions

## `predict(station, start, end, step=timedelta(minutes=10))`

Yields `(datetime, level_in_metres)` pairs from `start` (inclusive) to `end` (exclusive).

## `high_and_low_waters(station, day)`

Returns the turning points of one UTC day as `Event(kind, time, level)`, where `kind` is `"HW"` or
`"LW"`. Times are refined by parabolic interpolation between samples.

## `tidal_range(station, day)`

The difference between the highest high water and the lowest low water of the day, in metres.
""")

PY_INIT = _src('''
"""Tidewater: tide predictions from harmonic constituents."""

from tidewater.predict import Event, high_and_low_waters, predict, tidal_range
from tidewater.stations import Station, list_stations, load_station

__all__ = [
    "Event",
    "Station",
    "high_and_low_waters",
    "list_stations",
    "load_station",
    "predict",
    "tidal_range",
]
__version__ = "0.9.0"
''')

PY_MAIN = _src('''
"""`python -m tidewater` runs the command-line interface."""

from tidewater.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
''')

PY_CLI = _src('''
"""The `tidewater` command."""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, timedelta, timezone

from tidewater.io.csvout import write_levels
from tidewater.predict import high_and_low_waters, predict
from tidewater.stations import list_stations, load_station


def _parse_day(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=timezone.utc)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tidewater", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    stations = sub.add_parser("stations", help="list the bundled stations")
    stations.add_argument("--region")

    pred = sub.add_parser("predict", help="predict water levels for a station")
    pred.add_argument("station")
    pred.add_argument("--from", dest="start", type=_parse_day, required=True)
    pred.add_argument("--hours", type=int, default=24)
    pred.add_argument("--format", choices=["table", "csv"], default="table")

    args = parser.parse_args(argv)
    if args.command == "stations":
        for station_id in list_stations(args.region):
            print(station_id)
        return 0

    station = load_station(args.station)
    end = args.start + timedelta(hours=args.hours)
    if args.format == "csv":
        write_levels(sys.stdout, predict(station, args.start, end))
        return 0
    day = args.start
    while day < end:
        for event in high_and_low_waters(station, day):
            print(f"{event.time:%Y-%m-%d %H:%M}  {event.kind}  {event.level:.2f} m")
        day += timedelta(days=1)
    return 0
''')

PY_STATIONS = _src('''
"""Bundled tide stations and their constituent tables."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources


@dataclass(frozen=True, slots=True)
class Constituent:
    name: str
    amplitude_m: float
    phase_deg: float


@dataclass(frozen=True, slots=True)
class Station:
    id: str
    name: str
    region: str
    lat: float
    lon: float
    datum: str = "LAT"
    constituents: tuple[Constituent, ...] = field(default=())

    def amplitude(self, name: str) -> float:
        """Amplitude of one constituent, 0.0 if the station does not list it."""
        return next((c.amplitude_m for c in self.constituents if c.name == name), 0.0)


def _data_dir() -> resources.abc.Traversable:
    return resources.files("tidewater") / "_stations"


@cache
def _index() -> dict[str, str]:
    index = json.loads((_data_dir() / "index.json").read_text(encoding="utf-8"))
    return {row["id"]: row["region"] for row in index["stations"]}


def list_stations(region: str | None = None) -> list[str]:
    return sorted(sid for sid, reg in _index().items() if region is None or reg == region)


@cache
def load_station(station_id: str) -> Station:
    if station_id not in _index():
        raise KeyError(f"unknown station: {station_id}")
    raw = json.loads((_data_dir() / f"{station_id}.json").read_text(encoding="utf-8"))
    return Station(
        id=raw["id"],
        name=raw["name"],
        region=raw["region"],
        lat=raw["position"]["lat"],
        lon=raw["position"]["lon"],
        datum=raw.get("datum", "LAT"),
        constituents=tuple(
            Constituent(c["name"], c["amplitude_m"], c["phase_deg"]) for c in raw["constituents"]
        ),
    )
''')

PY_PREDICT = _src('''
"""Water levels, high and low waters."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from tidewater.harmonics import SPEEDS, nodal_factors
from tidewater.stations import Station

EPOCH = datetime.fromisoformat("2000-01-01T00:00:00+00:00")


@dataclass(frozen=True, slots=True)
class Event:
    kind: Literal["HW", "LW"]
    time: datetime
    level: float


def level_at(station: Station, when: datetime) -> float:
    """The predicted height of the tide above datum at `when`, in metres."""
    hours = (when - EPOCH).total_seconds() / 3600.0
    factors = nodal_factors(when.date())
    total = station.amplitude("Z0") or 2.0
    for c in station.constituents:
        f, u = factors.get(c.name, (1.0, 0.0))
        total += f * c.amplitude_m * math.cos(math.radians(SPEEDS[c.name] * hours + u - c.phase_deg))
    return total


def predict(
    station: Station, start: datetime, end: datetime, step: timedelta = timedelta(minutes=10)
) -> Iterator[tuple[datetime, float]]:
    when = start
    while when < end:
        yield when, level_at(station, when)
        when += step


def high_and_low_waters(station: Station, day: datetime) -> list[Event]:
    step = timedelta(minutes=6)
    samples = list(predict(station, day - step, day + timedelta(days=1) + step, step))
    events: list[Event] = []
    for (_, a), (t, b), (_, c) in zip(samples, samples[1:], samples[2:]):
        if b > a and b >= c:
            kind: Literal["HW", "LW"] = "HW"
        elif b < a and b <= c:
            kind = "LW"
        else:
            continue
        # Parabolic refinement of the turning point between the three samples.
        denom = a - 2 * b + c
        shift = 0.5 * (a - c) / denom if denom else 0.0
        level = b - 0.25 * (a - c) * shift
        if day <= t < day + timedelta(days=1):
            events.append(Event(kind, t + shift * step, level))
    return events


def tidal_range(station: Station, day: datetime) -> float:
    events = high_and_low_waters(station, day)
    highs = [e.level for e in events if e.kind == "HW"]
    lows = [e.level for e in events if e.kind == "LW"]
    return max(highs) - min(lows) if highs and lows else 0.0
''')

PY_UNITS = _src('''
"""Unit helpers: metres and feet, degrees and radians."""

from __future__ import annotations

FEET_PER_METRE = 3.280839895


def metres_to_feet(metres: float) -> float:
    return metres * FEET_PER_METRE


def feet_to_metres(feet: float) -> float:
    return feet / FEET_PER_METRE


def normalize_degrees(angle: float) -> float:
    """Fold an angle into [0, 360)."""
    return angle % 360.0
''')

PY_HARMONICS_INIT = _src('''
"""Harmonic constituents and nodal corrections."""

from tidewater.harmonics.constituents import SPEEDS
from tidewater.harmonics.nodal import nodal_factors

__all__ = ["SPEEDS", "nodal_factors"]
''')

PY_NODAL = _src('''
"""Nodal corrections: the 18.6-year wobble of the Moon's orbit.

Each constituent's amplitude is multiplied by a factor `f` and its phase shifted by `u` degrees. The
values below are the usual first-order approximations in terms of the longitude of the Moon's
ascending node, `N`.
"""

from __future__ import annotations

import math
from datetime import date
from functools import cache

_J2000 = date(2000, 1, 1)


def _node_longitude(day: date) -> float:
    """Longitude of the Moon's ascending node, in degrees."""
    days = (day - _J2000).days
    return (125.04452 - 0.0529537648 * days) % 360.0


@cache
def nodal_factors(day: date) -> dict[str, tuple[float, float]]:
    n = math.radians(_node_longitude(day))
    f_m2 = 1.0 - 0.037 * math.cos(n)
    u_m2 = -2.1 * math.sin(n)
    f_k1 = 1.006 + 0.115 * math.cos(n)
    u_k1 = -8.9 * math.sin(n)
    f_o1 = 1.009 + 0.187 * math.cos(n)
    u_o1 = 10.8 * math.sin(n)
    return {
        "M2": (f_m2, u_m2),
        "N2": (f_m2, u_m2),
        "K1": (f_k1, u_k1),
        "O1": (f_o1, u_o1),
        "K2": (1.024 + 0.286 * math.cos(n), -17.7 * math.sin(n)),
        "M4": (f_m2 * f_m2, 2 * u_m2),
    }
''')

PY_CONSTITUENTS_INIT = _src('''
"""Angular speeds of the constituents Tidewater knows, in degrees per mean solar hour."""

from tidewater.harmonics.constituents.lunar import LUNAR
from tidewater.harmonics.constituents.shallow import SHALLOW
from tidewater.harmonics.constituents.solar import SOLAR

SPEEDS: dict[str, float] = {**LUNAR, **SOLAR, **SHALLOW}
''')

PY_LUNAR = _src('''
"""Constituents driven mainly by the Moon."""

LUNAR: dict[str, float] = {
    "M2": 28.9841042,  # principal lunar semidiurnal
    "N2": 28.4397295,  # larger lunar elliptic semidiurnal
    "K1": 15.0410686,  # lunisolar diurnal
    "O1": 13.9430356,  # lunar diurnal
}


def period_hours(name: str) -> float:
    """The period of a lunar constituent, in hours (M2 is about 12.42 h)."""
    return 360.0 / LUNAR[name]
''')

PY_SOLAR = _src('''
"""Constituents driven mainly by the Sun."""

SOLAR: dict[str, float] = {
    "S2": 30.0,  # principal solar semidiurnal: exactly twice a day
    "K2": 30.0821373,  # lunisolar semidiurnal
    "P1": 14.9589314,  # principal solar diurnal
}
''')

PY_SHALLOW = _src('''
"""Shallow-water overtides: harmonics created by friction in estuaries."""

SHALLOW: dict[str, float] = {
    "M4": 57.9682084,  # first overtide of M2
}
''')

PY_IO_INIT = _src('''
"""Readers and writers for tide data."""
''')

PY_CSVOUT = _src('''
"""CSV output."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from datetime import datetime
from typing import TextIO


def write_levels(out: TextIO, levels: Iterable[tuple[datetime, float]]) -> int:
    """Write `time,level_m` rows; return how many were written."""
    writer = csv.writer(out)
    writer.writerow(["time", "level_m"])
    count = 0
    for when, level in levels:
        writer.writerow([when.isoformat(timespec="minutes"), f"{level:.3f}"])
        count += 1
    return count
''')

PY_BINARY = _src('''
"""The compact TWH1 constituent table (see data/harmonics.bin).

Layout, little-endian: the magic b"TWH1", a u16 count, then `count` records of
(4-byte ASCII name padded with NUL, f64 speed in deg/h, f64 amplitude in m, f64 phase in deg).
"""

from __future__ import annotations

import struct
from typing import NamedTuple

MAGIC = b"TWH1"
_HEADER = struct.Struct("<4sH")
_RECORD = struct.Struct("<4sddd")


class Row(NamedTuple):
    name: str
    speed: float
    amplitude: float
    phase: float


def read_table(data: bytes) -> list[Row]:
    magic, count = _HEADER.unpack_from(data, 0)
    if magic != MAGIC:
        raise ValueError("not a TWH1 table")
    rows = []
    for i in range(count):
        name, speed, amp, phase = _RECORD.unpack_from(data, _HEADER.size + i * _RECORD.size)
        rows.append(Row(name.rstrip(b"\\0").decode("ascii"), speed, amp, phase))
    return rows


def write_table(rows: list[Row]) -> bytes:
    body = b"".join(_RECORD.pack(r.name.encode("ascii"), r.speed, r.amplitude, r.phase) for r in rows)
    return _HEADER.pack(MAGIC, len(rows)) + body
''')

PY_CONFTEST = _src("""
from datetime import datetime, timezone

import pytest

from tidewater import load_station


@pytest.fixture
def alder():
    return load_station("port-alder")


@pytest.fixture
def midsummer():
    return datetime(2026, 6, 21, tzinfo=timezone.utc)
""")

PY_TEST_PREDICT = _src("""
from datetime import timedelta

from tidewater import high_and_low_waters, predict, tidal_range


def test_semidiurnal_station_has_four_turning_points(alder, midsummer):
    events = high_and_low_waters(alder, midsummer)
    assert [e.kind for e in events].count("HW") in (1, 2)
    assert 3 <= len(events) <= 4


def test_levels_are_continuous(alder, midsummer):
    levels = [level for _, level in predict(alder, midsummer, midsummer + timedelta(hours=12))]
    assert max(abs(a - b) for a, b in zip(levels, levels[1:])) < 0.5


def test_range_is_positive(alder, midsummer):
    assert tidal_range(alder, midsummer) > 0
""")

PY_TEST_STATIONS = _src("""
import pytest

from tidewater import list_stations, load_station


@pytest.mark.parametrize("station_id", list_stations())
def test_every_station_loads(station_id):
    station = load_station(station_id)
    assert station.id == station_id
    assert -90 <= station.lat <= 90 and -180 <= station.lon <= 180
    assert {c.name for c in station.constituents} >= {"M2", "S2", "K1", "O1"}


def test_unknown_station():
    with pytest.raises(KeyError):
        load_station("atlantis")
""")

PY_TEST_LUNAR = _src("""
import pytest

from tidewater.harmonics.constituents.lunar import period_hours


def test_m2_period():
    assert period_hours("M2") == pytest.approx(12.4206, abs=1e-4)


def test_o1_is_diurnal():
    assert 24 < period_hours("O1") < 27
""")

CONFIG_TOML = _src("""
# Regions used to group stations in listings and in the CLI.

[defaults]
datum = "LAT"
timezone = "UTC"
step_minutes = 10

[regions."North Sea"]
countries = ["GB", "NL", "DE", "DK", "NO"]
typical_range_m = 3.5

[regions."Celtic Sea"]
countries = ["GB", "IE", "FR"]
typical_range_m = 6.0

[regions."Bay of Biscay"]
countries = ["FR", "ES"]
typical_range_m = 4.2

[regions."Irish Sea"]
countries = ["GB", "IE", "IM"]
typical_range_m = 5.1

[regions.Baltic]
countries = ["DE", "DK", "SE", "FI", "EE", "LV", "LT", "PL"]
typical_range_m = 0.2
notes = "Almost tideless: wind and pressure dominate."
""")

REGIONS = ("North Sea", "Celtic Sea", "Bay of Biscay", "Irish Sea", "Baltic")
_REGION_BOXES = {
    "North Sea": (52.0, 58.5, -2.5, 8.0),
    "Celtic Sea": (49.5, 52.0, -10.0, -4.0),
    "Bay of Biscay": (43.3, 47.8, -9.5, -1.2),
    "Irish Sea": (52.0, 55.0, -6.5, -2.9),
    "Baltic": (54.0, 60.5, 10.0, 28.0),
}
_ROOTS = (
    "Alder", "Bracken", "Carrow", "Dunmere", "Elling", "Fenwick", "Garth", "Holm", "Inverrin",
    "Kelling", "Larkby", "Marrow", "Norbury", "Orrin", "Pellam", "Quarrel", "Rookham", "Selby",
    "Tarnwick", "Ulverstrand", "Vane", "Whitby", "Yarrow", "Ashcombe", "Bramble", "Colby", "Drumlin",
    "Eskmouth", "Fairlight", "Glenmore", "Hythewick", "Ismere", "Juniper", "Kestrel", "Lowther",
    "Merrow", "Nethercott", "Osprey", "Pendle", "Quayle", "Redcliff", "Saltash", "Thornby", "Wren",
)  # fmt: skip
_PREFIXES = ("Port", "North", "South", "Old", "Upper", "Saint")
_SUFFIXES = ("Harbour", "Bay", "Point", "Quay", "Head", "Sound", "Haven", "Ness", "Pier")
_SENSORS = ("radar", "pressure", "float", "acoustic")
_CONSTITUENTS = ("M2", "S2", "N2", "K2", "K1", "O1", "P1", "M4")
STATION_COUNT = 312
FEATURED_STATIONS = ("Port Alder", "Kestrel Harbour")  # named in the README and the docs


def _slug(name: str) -> str:
    return name.lower().replace(" ", "-")


@cache
def station_names() -> dict[str, str]:
    """Station slug -> display name: 312 unique names, sorted by slug."""
    candidates = [f"{p} {r}" for p in _PREFIXES for r in _ROOTS] + [
        f"{r} {s}" for r in _ROOTS for s in _SUFFIXES
    ]
    rng = random.Random("tidewater-stations")
    rng.shuffle(candidates)
    rest = [c for c in candidates if c not in FEATURED_STATIONS]
    chosen = [*FEATURED_STATIONS, *rest[: STATION_COUNT - len(FEATURED_STATIONS)]]
    return {_slug(name): name for name in sorted(chosen, key=_slug)}


@cache
def station_record(slug: str) -> dict[str, Any]:
    name = station_names()[slug]
    rng = random.Random(f"station:{slug}")
    region = REGIONS[rng.randrange(len(REGIONS))]
    lat0, lat1, lon0, lon1 = _REGION_BOXES[region]
    scale = 0.08 if region == "Baltic" else rng.uniform(0.6, 2.4)
    amplitudes = {"M2": 1.0, "S2": 0.33, "N2": 0.2, "K2": 0.09, "K1": 0.12, "O1": 0.1, "P1": 0.04, "M4": 0.03}
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
            for c in _CONSTITUENTS
        ],
        "sensors": [
            {"kind": kind, "installed": year + 5 * i, "sample_seconds": rng.choice((60, 300, 360))}
            for i, kind in enumerate(rng.sample(_SENSORS, rng.randrange(1, 3)))
        ],
        "tags": sorted(rng.sample(["harbour", "estuary", "open-coast", "island", "ferry-port", "river"], 2)),
    }


def station_json(slug: str) -> str:
    return json.dumps(station_record(slug), indent=2) + "\n"


def station_index_json() -> str:
    rows = [{"id": s, "name": n, "region": station_record(s)["region"]} for s, n in station_names().items()]
    body = {"version": 3, "count": len(rows), "regions": list(REGIONS), "stations": rows}
    return json.dumps(body, indent=2) + "\n"


def app_config() -> dict[str, Any]:
    return {
        "service": {"name": "tidewater-api", "listen": {"host": "0.0.0.0", "port": 8086}, "workers": 4},
        "prediction": {
            "default_step_minutes": 10,
            "constituents": list(_CONSTITUENTS),
            "nodal_corrections": {"enabled": True, "cache": "daily"},
        },
        "stations": {"path": "data/stations", "index": "data/stations/index.json", "reload_seconds": 3600},
        "logging": {"level": "INFO", "format": "json", "fields": ["time", "level", "station", "msg"]},
        "features": {"csv_export": True, "binary_tables": True, "storm_surge": False},
    }


# Relative path -> (MIME type, text). Binary files and the generated stations are added by the catalogue.
TEXT_FILES: dict[str, tuple[str, str]] = {
    ".gitignore": ("text/plain", GITIGNORE),
    ".github/workflows/ci.yml": ("application/yaml", CI_WORKFLOW),
    "CHANGELOG.md": ("text/markdown", CHANGELOG),
    "LICENSE": ("text/plain", LICENSE),
    "README.md": ("text/markdown", README),
    "config/regions.toml": ("application/toml", CONFIG_TOML),
    "config/tidewater.json": ("application/json", json.dumps(app_config(), indent=2) + "\n"),
    "docs/api/predict.md": ("text/markdown", DOCS_API_PREDICT),
    "docs/api/stations.md": ("text/markdown", DOCS_API_STATIONS),
    "docs/index.md": ("text/markdown", DOCS_INDEX),
    "docs/quickstart.md": ("text/markdown", DOCS_QUICKSTART),
    "mkdocs.yml": ("application/yaml", MKDOCS),
    "pyproject.toml": ("application/toml", PYPROJECT),
    "src/tidewater/__init__.py": ("text/x-python", PY_INIT),
    "src/tidewater/__main__.py": ("text/x-python", PY_MAIN),
    "src/tidewater/cli.py": ("text/x-python", PY_CLI),
    "src/tidewater/harmonics/__init__.py": ("text/x-python", PY_HARMONICS_INIT),
    "src/tidewater/harmonics/constituents/__init__.py": ("text/x-python", PY_CONSTITUENTS_INIT),
    "src/tidewater/harmonics/constituents/lunar.py": ("text/x-python", PY_LUNAR),
    "src/tidewater/harmonics/constituents/shallow.py": ("text/x-python", PY_SHALLOW),
    "src/tidewater/harmonics/constituents/solar.py": ("text/x-python", PY_SOLAR),
    "src/tidewater/harmonics/nodal.py": ("text/x-python", PY_NODAL),
    "src/tidewater/io/__init__.py": ("text/x-python", PY_IO_INIT),
    "src/tidewater/io/binary.py": ("text/x-python", PY_BINARY),
    "src/tidewater/io/csvout.py": ("text/x-python", PY_CSVOUT),
    "src/tidewater/predict.py": ("text/x-python", PY_PREDICT),
    "src/tidewater/py.typed": ("text/plain", ""),
    "src/tidewater/stations.py": ("text/x-python", PY_STATIONS),
    "src/tidewater/units.py": ("text/x-python", PY_UNITS),
    "tests/conftest.py": ("text/x-python", PY_CONFTEST),
    "tests/harmonics/test_lunar.py": ("text/x-python", PY_TEST_LUNAR),
    "tests/test_predict.py": ("text/x-python", PY_TEST_PREDICT),
    "tests/test_stations.py": ("text/x-python", PY_TEST_STATIONS),
}
