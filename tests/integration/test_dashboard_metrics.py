"""Every metric the Grafana dashboard queries is one the real services export.

The gateway's names come from its real `/metrics`, Triton's from the real local Triton's
metrics port. A CPU-only Triton exports no GPU metrics, so those few are allowed unseen: the
names below are Triton's DCGM gauges as its documentation lists them (docs/user_guide/
metrics.md, "GPU Metrics") and its core registers them (src/metrics.cc), label `gpu_uuid`.
"""

from __future__ import annotations

import httpx
import pytest

from gateway.local_triton import LocalTriton
from tests.support.dashboard import exported, load_dashboard, metric_names, queries, selector_labels

pytestmark = pytest.mark.integration
# Exported only by a Triton that sees a GPU (checked against Triton's docs, not seen here).
GPU_ONLY_METRICS = {
    "nv_gpu_utilization",
    "nv_gpu_memory_used_bytes",
    "nv_gpu_memory_total_bytes",
    "nv_gpu_power_usage",
    "nv_gpu_power_limit",
}


@pytest.fixture(scope="module")
def exports(triton: LocalTriton, gateway_url: str) -> dict[str, set[str]]:
    httpx.get(f"{gateway_url}/readyz", timeout=10)  # so the request histogram has labelled samples
    gateway = httpx.get(f"{gateway_url}/metrics", timeout=10)
    server = httpx.get(f"http://127.0.0.1:{triton.ports.metrics}/metrics", timeout=10)
    assert gateway.status_code == server.status_code == 200
    return {**exported(gateway.text), **exported(server.text)}


def test_every_dashboard_metric_is_exported(exports: dict[str, set[str]]) -> None:
    named = set().union(*(metric_names(expr) for expr in queries(load_dashboard())))
    missing = named - set(exports) - GPU_ONLY_METRICS
    assert not missing, f"the dashboard queries metrics nobody exports: {sorted(missing)}"
    assert not GPU_ONLY_METRICS & set(exports), (
        "this Triton exports GPU metrics: drop them from the allow-list"
    )


def test_selectors_filter_on_labels_the_metrics_carry(exports: dict[str, set[str]]) -> None:
    for expr in queries(load_dashboard()):
        for metric, label in selector_labels(expr):
            seen = exports.get(metric, set())
            assert not seen or label in seen, f"{metric} has no label {label!r} ({sorted(seen)})"
