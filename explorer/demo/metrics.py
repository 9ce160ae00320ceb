"""The `metrics://` dataset: synthetic monitoring data, generated from fixed seeds on demand.

Five regions run 32 service deployments (13 distinct services), each with five metrics, and each
metric has fourteen daily snapshots of 24 hourly samples. Values are smooth daily curves plus seeded
noise, with a few incidents sprinkled in, so that charts and summaries have something to say. The
regions, services and metrics are the tables of `data/metrics.toml`.
"""

from __future__ import annotations

import json
import math
import random
from datetime import date, timedelta
from functools import cache
from typing import Any, NamedTuple

from explorer.demo import datafiles


class Metric(NamedTuple):
    title: str
    unit: str
    base: float  # typical value
    swing: float  # daily swing, as a fraction of base
    noise: float  # noise, as a fraction of base


def _table() -> dict[str, Any]:
    return datafiles.toml("metrics.toml")


REGION_SERVICES: dict[str, tuple[str, ...]] = {
    region: tuple(spec["services"]) for region, spec in _table()["regions"].items()
}
REGIONS: tuple[str, ...] = tuple(REGION_SERVICES)
_UTC_OFFSETS: dict[str, float] = {region: spec["utc_offset"] for region, spec in _table()["regions"].items()}
METRICS: dict[str, Metric] = {name: Metric(**spec) for name, spec in _table()["metrics"].items()}
FIRST_DAY = date.fromisoformat(_table()["first_day"])
DAY_COUNT: int = _table()["day_count"]
DAYS: tuple[str, ...] = tuple((FIRST_DAY + timedelta(days=i)).isoformat() for i in range(DAY_COUNT))
FORMATS: tuple[str, ...] = tuple(_table()["formats"])


def all_services() -> list[str]:
    return sorted({s for services in REGION_SERVICES.values() for s in services})


def is_series(region: str, service: str, metric: str | None = None) -> bool:
    return service in REGION_SERVICES.get(region, ()) and (metric is None or metric in METRICS)


@cache
def _service_scale(region: str, service: str) -> float:
    return random.Random(f"scale:{region}/{service}").uniform(0.4, 2.5)


@cache
def hourly(region: str, service: str, metric: str, day: str) -> tuple[float, ...]:
    """24 hourly samples for one day."""
    _, unit, base, swing, noise = METRICS[metric]
    rng = random.Random(f"{region}/{service}/{metric}/{day}")
    scale = _service_scale(region, service) if metric in ("requests", "latency-p99", "latency-p50") else 1.0
    offset = _UTC_OFFSETS[region]
    incident_hour = rng.randrange(24) if rng.random() < 0.12 else -1
    values: list[float] = []
    for hour in range(24):
        phase = 2 * math.pi * ((hour + offset) % 24 - 14) / 24
        value = base * scale * (1 + swing * math.cos(phase)) * (1 + noise * rng.gauss(0, 1))
        if hour in (incident_hour, incident_hour + 1) and metric != "requests":
            value *= rng.uniform(2.5, 6.0)
        if unit == "%":
            value = min(value, 100.0)
        values.append(round(max(value, 0.0), 3))
    return tuple(values)


def _summary(values: tuple[float, ...] | list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]
    return {
        "min": ordered[0],
        "max": ordered[-1],
        "mean": round(sum(ordered) / len(ordered), 3),
        "p95": p95,
    }


def day_snapshot(region: str, service: str, metric: str, day: str) -> dict[str, Any]:
    title, unit, base, _, _ = METRICS[metric]
    values = hourly(region, service, metric, day)
    summary = _summary(values)
    threshold = base * 2.2 * (_service_scale(region, service) if unit != "%" else 1.0)
    incidents = [
        {"hour": hour, "value": v, "note": f"{title} above {threshold:.1f} {unit}"}
        for hour, v in enumerate(values)
        if v > threshold
    ]
    return {
        "region": region,
        "service": service,
        "metric": metric,
        "title": title,
        "unit": unit,
        "day": day,
        "summary": summary,
        "hourly": [{"hour": f"{hour:02d}:00", "value": v} for hour, v in enumerate(values)],
        "incidents": incidents,
        "source": {"generator": "mcp-url-explorer-demo", "seed": f"{region}/{service}/{metric}/{day}"},
    }


def day_snapshot_json(region: str, service: str, metric: str, day: str) -> str:
    return json.dumps(day_snapshot(region, service, metric, day), indent=2) + "\n"


def latest(region: str, service: str) -> dict[str, Any]:
    """The newest sample of every metric, with a health verdict."""
    day = DAYS[-1]
    metrics: dict[str, dict[str, Any]] = {}
    for metric, (title, unit, _, _, _) in METRICS.items():
        values = hourly(region, service, metric, day)
        metrics[metric] = {
            "title": title,
            "unit": unit,
            "value": values[-1],
            "day_mean": _summary(values)["mean"],
        }
    error_rate = metrics["error-rate"]["value"]
    status = "degraded" if error_rate > 1.0 else "ok"
    return {
        "region": region,
        "service": service,
        "at": f"{day}T23:00:00Z",
        "status": status,
        "metrics": metrics,
        "links": {m: f"metrics://{region}/{service}/{m}/{day}" for m in METRICS},
    }


def report(region: str, service: str, fmt: str) -> tuple[str, str]:
    """A 14-day report as (MIME type, text) in csv, json or md."""
    rows = []
    for day in DAYS:
        row: dict[str, Any] = {"day": day}
        for metric in METRICS:
            row[metric] = _summary(hourly(region, service, metric, day))["mean"]
        rows.append(row)
    if fmt == "json":
        body = {"region": region, "service": service, "days": rows}
        return "application/json", json.dumps(body, indent=2) + "\n"
    columns = ["day", *METRICS]
    if fmt == "csv":
        lines = [",".join(columns)] + [",".join(str(row[c]) for c in columns) for row in rows]
        return "text/csv", "\n".join(lines) + "\n"
    head = [
        f"# {service} in {region}: 14-day report",
        "",
        f"Daily means from {DAYS[0]} to {DAYS[-1]}. Units: "
        + ", ".join(f"{m} in {METRICS[m][1]}" for m in METRICS)
        + ".",
        "",
        "| " + " | ".join(columns) + " |",
        "|" + "|".join("---" for _ in columns) + "|",
    ]
    table = ["| " + " | ".join(str(row[c]) for c in columns) + " |" for row in rows]
    worst = max(rows, key=lambda r: float(r["latency-p99"]))
    tail = ["", f"The slowest day was **{worst['day']}** (p99 mean {worst['latency-p99']} ms).", ""]
    return "text/markdown", "\n".join(head + table + tail)


def rollup(segments: list[str]) -> dict[str, Any] | None:
    """Aggregates at any depth: [], [region], [region, service], [region, service, metric]."""
    if len(segments) > 3:
        return None
    if not segments:
        return {
            "level": "global",
            "regions": {
                r: {"services": len(s), "uri": f"metrics://rollup/{r}"} for r, s in REGION_SERVICES.items()
            },
            "services": sum(len(s) for s in REGION_SERVICES.values()),
            "days": [DAYS[0], DAYS[-1]],
        }
    region = segments[0]
    if region not in REGION_SERVICES:
        return None
    if len(segments) == 1:
        return {
            "level": "region",
            "region": region,
            "services": {s: latest(region, s)["status"] for s in REGION_SERVICES[region]},
        }
    service = segments[1]
    if not is_series(region, service):
        return None
    if len(segments) == 2:
        return {
            "level": "service",
            "region": region,
            "service": service,
            "metrics": {
                m: _summary([v for d in DAYS for v in hourly(region, service, m, d)]) for m in METRICS
            },
        }
    metric = segments[2]
    if metric not in METRICS:
        return None
    return {
        "level": "metric",
        "region": region,
        "service": service,
        "metric": metric,
        "unit": METRICS[metric][1],
        "daily": {d: _summary(hourly(region, service, metric, d)) for d in DAYS},
    }
