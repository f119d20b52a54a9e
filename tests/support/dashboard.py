"""The Grafana dashboard's PromQL, taken apart: which metrics and which selector labels it names."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "deploy" / "grafana" / "dashboards" / "seal-gateway.json"
METRIC = re.compile(r"\b(?:gateway|nv)_[a-z0-9_]+\b")
SELECTOR = re.compile(r"\b((?:gateway|nv)_[a-z0-9_]+)\{([^}]*)\}")
MATCHER_LABEL = re.compile(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)")
HISTOGRAM_SUFFIXES = ("_bucket", "_count", "_sum")


def load_dashboard() -> dict[str, Any]:
    dashboard: dict[str, Any] = json.loads(DASHBOARD.read_text())
    return dashboard


def queries(dashboard: dict[str, Any]) -> Iterator[str]:
    """Every PromQL expression of every panel (rows' nested panels too)."""
    for panel in dashboard["panels"]:
        for inner in [panel, *panel.get("panels", [])]:
            for target in inner.get("targets", []):
                yield str(target["expr"])


def metric_names(expr: str) -> set[str]:
    return set(METRIC.findall(expr))


def selector_labels(expr: str) -> set[tuple[str, str]]:
    """(metric, label) for each label matcher written in a metric's selector."""
    return {
        (metric, label) for metric, body in SELECTOR.findall(expr) for label in MATCHER_LABEL.findall(body)
    }


def exported(exposition: str) -> dict[str, set[str]]:
    """Sample names a Prometheus text exposition offers, each with the labels seen on it.

    A family declared by `# TYPE` counts even before it has samples (a labelled histogram
    nobody has observed yet); a histogram offers its _bucket, _count and _sum series.
    """
    names: dict[str, set[str]] = {}
    for line in exposition.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split()
            for sample in [name, *(name + s for s in HISTOGRAM_SUFFIXES if kind == "histogram")]:
                names.setdefault(sample, set())
        elif line and not line.startswith("#"):
            name, _, rest = line.partition("{")
            labels = MATCHER_LABEL.findall(rest.partition("}")[0]) if rest else []
            names.setdefault(name.split()[0], set()).update(labels)
    return names
