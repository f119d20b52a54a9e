"""Shared benchmark machinery: the real stack, closed-loop load, percentiles, Triton step times."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import cycle

import httpx
import numpy as np
import tritonclient.grpc as grpcclient

from gateway.local_triton import LocalTriton
from gateway.settings import Settings
from tests.support.servers import serve_gateway

NS_PER_MS = 1e6


@dataclass(frozen=True)
class Stack:
    gateway_url: str
    triton_grpc: str


@contextmanager
def local_stack() -> Iterator[Stack]:
    """A real local Triton with every model, and the gateway over HTTP in front of it."""
    with LocalTriton() as triton, serve_gateway(Settings(triton_url=triton.grpc_url)) as url:
        yield Stack(url, triton.grpc_url)


@dataclass(frozen=True)
class LoadResult:
    concurrency: int
    requests: int
    errors: int
    wall_s: float
    latencies_s: np.ndarray

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
