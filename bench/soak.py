"""Soak and overload: minutes of steady load with memory before and after, and what twice
the admitted concurrency gets.

Soak: wrk drives `/v1/mnist` at 32 connections and `/v1/ocr` at 4 for `duration_s` each;
a failed request (any non-2xx, any socket error or timeout) counts, and the resident memory
of the gateway's and Triton's process trees (Triton's Python stubs included) is read from
/proc before and after, to show whether anything grows. Overload: a gateway admitting
`ADMITTED` requests at a time is driven by twice as many clients; the excess must get 429
quickly and the admitted requests' latency stay bounded.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import numpy as np

from bench.loadgen import Target, wrk
from bench.ocr import pages
from bench.procstat import PROC, all_stats, descendants
from bench.serving import Stack
from evaluation.support.servers import gateway_process

KIB_PER_MIB = 1024
MNIST_CONNECTIONS, OCR_CONNECTIONS = 32, 4
ADMITTED = 4  # the overloaded gateway's max_in_flight
OVERLOAD_CLIENTS = 2 * ADMITTED
OVERLOAD_REQUESTS = 400
# wrk's client timeout in the soak: the gateway's own request deadline is 30 s, and four OCR
# pages at once on two cores take about 10 s each. With wrk's usual 10 s, slow answers counted
# as failures and wrk's retries piled onto the abandoned requests Triton was still serving.
SOAK_CLIENT_TIMEOUT_S = 60


def rss_mib(root: int) -> float:
    """Resident memory of `root` and its descendants, MiB (VmRSS of each, summed)."""
    total = 0
    for pid in descendants(root, all_stats()):
        try:
            status = (PROC / str(pid) / "status").read_text()
        except OSError:  # ended meanwhile
            continue
        total += next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
    return total / KIB_PER_MIB


def _multipart(body: bytes) -> tuple[tuple[str, ...], bytes]:
    boundary = "soakboundary7MA4YWxkTrZu0gW"
    payload = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="image"; filename="i"\r\n'
            f"Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + body
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return (f"Content-Type: multipart/form-data; boundary={boundary}",), payload


def soak_row(stack: Stack, route: str, body: bytes, connections: int, duration_s: int) -> str:
    """One soak run as a table row: load, failures, latency, and memory before -> after."""
    headers, payload = _multipart(body)
    gateway_before, triton_before = rss_mib(stack.gateway_pid), rss_mib(stack.triton_pid)
    target = Target(route, stack.gateway_url + route, headers, payload, "http1")
    run = wrk(target, connections, duration_s, SOAK_CLIENT_TIMEOUT_S)
    gateway_after, triton_after = rss_mib(stack.gateway_pid), rss_mib(stack.triton_pid)
    return (
        f"| `{route}` | {connections} | {run.duration_s:.0f} | {run.requests} | {run.errors} | {run.rps:.1f} "
        f"| {run.p50_ms:.0f} / {run.p99_ms:.0f} | {gateway_before:.0f} -> {gateway_after:.0f} "
        f"| {triton_before:.0f} -> {triton_after:.0f} |"
    )


def _timed(client: httpx.Client, route: str, body: bytes) -> tuple[int, float]:
    start = time.perf_counter()
    response = client.post(route, files={"image": ("i", body)})
    return response.status_code, time.perf_counter() - start


def overload_rows(stack: Stack, route: str, body: bytes) -> list[str]:
    """Per status: how many, and p50/p99 latency, at twice the admitted concurrency."""
    env = {"GATEWAY_MAX_IN_FLIGHT": str(ADMITTED)}
    with gateway_process(stack.triton_grpc, env=env) as gateway:
        limits = httpx.Limits(max_connections=OVERLOAD_CLIENTS)
        with httpx.Client(base_url=gateway.url, timeout=120, limits=limits) as client:
            with ThreadPoolExecutor(OVERLOAD_CLIENTS) as pool:
                results = list(pool.map(lambda _: _timed(client, route, body), range(OVERLOAD_REQUESTS)))
    rows = []
    for status in sorted({status for status, _ in results}):
        latencies = np.array([seconds for code, seconds in results if code == status]) * 1000
        p50, p99 = np.percentile(latencies, (50, 99))
        rows.append(f"| `{route}` | {status} | {latencies.size} | {p50:.1f} | {p99:.1f} |")
    return rows


def run(stack: Stack, digit: bytes, page: bytes, duration_s: int) -> str:
    """The soak and overload tables, Markdown."""
    lines = [
        f"### Soak ({duration_s} s per route, wrk, closed loop)",
        "",
        "| route | connections | s | requests | failed | req/s | p50 / p99 ms "
        "| gateway RSS MiB | Triton RSS MiB |",
        "|---|---|---|---|---|---|---|---|---|",
        soak_row(stack, "/v1/mnist", digit, MNIST_CONNECTIONS, duration_s),
        soak_row(stack, "/v1/ocr", page, OCR_CONNECTIONS, duration_s),
        "",
        f"### Overload (a gateway admitting {ADMITTED} at a time, {OVERLOAD_CLIENTS} clients)",
        "",
        "| route | status | requests | p50 ms | p99 ms |",
        "|---|---|---|---|---|",
        *overload_rows(stack, "/v1/mnist", digit),
    ]
    return "\n".join(lines)


def ocr_page() -> bytes:
    """A generated text page (the OCR benchmark's first)."""
    return pages(1)[0]
