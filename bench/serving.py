"""Shared benchmark machinery: the real stack, closed-loop load, percentiles, Triton step times."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import cycle

import httpx
import numpy as np
import tritonclient.grpc as grpcclient
from imgproc.arrays import Floats
from prometheus_client.parser import text_string_to_metric_families

from bench.procstat import pin_tree, tree_cpu_s
from evaluation.support.servers import gateway_process
from gateway.local_triton import LocalTriton

NS_PER_MS = 1e6
REQUEST_SECONDS = "gateway_http_request_duration_seconds"
TRITON_SECONDS = "gateway_triton_request_duration_seconds"


@dataclass(frozen=True)
class Stack:
    gateway_url: str
    gateway_pid: int
    triton_grpc: str
    triton_http: str
    triton_pid: int


@contextmanager
def local_stack(gateway_workers: int = 1) -> Iterator[Stack]:
    """A real local Triton with every model, and the gateway in its own process in front of it."""
    with LocalTriton() as triton, gateway_process(triton.grpc_url, gateway_workers) as gateway:
        yield Stack(gateway.url, gateway.pid, triton.grpc_url, triton.http_url, triton.pid)


def split_cores(*stacks: Stack) -> str:
    """Each stack's Triton on the first half of this process's CPUs; the gateways and the load
    generators (children of this process from now on) on the rest: the gateway's CPU then no
    longer competes with Triton's, as when each runs on its own machine. Returns how it split."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        raise RuntimeError("splitting cores needs at least two CPUs")
    triton, rest = set(cpus[: len(cpus) // 2]), set(cpus[len(cpus) // 2 :])
    for stack in stacks:
        pin_tree(stack.triton_pid, triton)
        pin_tree(stack.gateway_pid, rest)
    os.sched_setaffinity(0, rest)
    return f"Triton pinned to CPUs {sorted(triton)}; gateway and load generators to {sorted(rest)}."


@dataclass(frozen=True)
class LoadResult:
    concurrency: int
    requests: int
    errors: int
    wall_s: float
    latencies_s: Floats

    def row(self) -> str:
        p50, p95, p99 = (np.percentile(self.latencies_s, q) * 1000 for q in (50, 95, 99))
        rps = self.requests / self.wall_s
        return f"| {self.concurrency} | {rps:.2f} | {p50:.0f} | {p95:.0f} | {p99:.0f} | {self.errors} |"


TABLE_HEAD = "| concurrency | req/s | p50 ms | p95 ms | p99 ms | errors |\n|---|---|---|---|---|---|"


def closed_loop(
    url: str, path: str, payloads: Sequence[bytes], concurrency: int, requests: int
) -> LoadResult:
    """`requests` POSTs from `concurrency` clients that each send the next as soon as one returns."""
    bodies = cycle(payloads)
    work = [next(bodies) for _ in range(requests)]

    def one(client: httpx.Client, body: bytes) -> tuple[float, bool]:
        start = time.perf_counter()
        response = client.post(path, files={"image": ("image", body)})
        return time.perf_counter() - start, response.status_code == 200

    with httpx.Client(base_url=url, timeout=600, limits=httpx.Limits(max_connections=concurrency)) as client:
        one(client, work[0])  # warm-up: connection, first-call allocations
        start = time.perf_counter()
        with ThreadPoolExecutor(concurrency) as pool:
            results = list(pool.map(lambda body: one(client, body), work))
        wall = time.perf_counter() - start
    latencies = np.array([latency for latency, _ in results])
    return LoadResult(concurrency, requests, sum(not ok for _, ok in results), wall, latencies)


def step_times(grpc_url: str) -> dict[str, tuple[int, float]]:
    """Per model: (requests, total compute + queue ms) from Triton's cumulative statistics."""
    with grpcclient.InferenceServerClient(grpc_url) as client:
        stats = client.get_inference_statistics().model_stats
    out = {}
    for model in stats:
        s = model.inference_stats
        total_ns = s.queue.ns + s.compute_input.ns + s.compute_infer.ns + s.compute_output.ns
        out[model.name] = (s.success.count, total_ns / NS_PER_MS)
    return out


def step_table(before: dict[str, tuple[int, float]], after: dict[str, tuple[int, float]], per: int) -> str:
    """Mean ms per top-level request spent in each model between two statistics snapshots."""
    rows = ["| model | calls | ms per request |", "|---|---|---|"]
    for name in sorted(after):
        calls = after[name][0] - before.get(name, (0, 0.0))[0]
        if calls:
            ms = (after[name][1] - before.get(name, (0, 0.0))[1]) / per
            rows.append(f"| {name} | {calls} | {ms:.1f} |")
    return "\n".join(rows)


@dataclass(frozen=True)
class GatewaySnapshot:
    """Cumulative totals for one route: the gateway's own metrics and its process CPU."""

    requests: float
    request_s: float
    triton_s: float
    cpu_s: float


def gateway_snapshot(stack: Stack, route: str, model: str) -> GatewaySnapshot:
    text = httpx.get(f"{stack.gateway_url}/metrics", timeout=10).text
    sums: dict[str, float] = {"requests": 0.0, "request_s": 0.0, "triton_s": 0.0}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.labels.get("route") == route and sample.name == f"{REQUEST_SECONDS}_count":
                sums["requests"] += sample.value
            elif sample.labels.get("route") == route and sample.name == f"{REQUEST_SECONDS}_sum":
                sums["request_s"] += sample.value
            elif sample.labels.get("model") == model and sample.name == f"{TRITON_SECONDS}_sum":
                sums["triton_s"] += sample.value
    return GatewaySnapshot(**sums, cpu_s=tree_cpu_s(stack.gateway_pid))


def gateway_share(before: GatewaySnapshot, after: GatewaySnapshot) -> str:
    """What the gateway added to the requests between two snapshots, in wall time and CPU."""
    requests = after.requests - before.requests
    request_s, triton_s = after.request_s - before.request_s, after.triton_s - before.triton_s
    cpu_ms = 1000 * (after.cpu_s - before.cpu_s) / requests
    return (
        f"Gateway's share of request time: {100 * (1 - triton_s / request_s):.2f}% of wall time outside "
        f"the Triton call ({1000 * (request_s - triton_s) / requests:.1f} ms of "
        f"{1000 * request_s / requests:.0f} ms); gateway CPU {cpu_ms:.1f} ms per request."
    )
