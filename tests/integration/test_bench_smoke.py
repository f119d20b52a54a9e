"""Smoke run of the front-door benchmark, so that `make bench` stays runnable.

A few seconds of every path at two levels, against the session's real Triton and a gateway in
its own process. It checks that the harness works (generators found, bodies accepted by every
path with the same answer, numbers parsed, table and plot written), never how fast anything is:
speed targets live in BENCHMARKS.md, not in tests.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench import documents, frontdoor, soak, trace_continuity, tracing
from bench.serving import Stack
from evaluation.support.digits import load_mnist
from evaluation.support.servers import gateway_process
from gateway.local_triton import LocalTriton

pytestmark = pytest.mark.integration
LEVELS = (1, 4)


def test_frontdoor_harness_runs_every_path(triton: LocalTriton, tmp_path: Path) -> None:
    images, _ = load_mnist("test")
    with gateway_process(triton.grpc_url) as gateway:
        stack = Stack(gateway.url, gateway.pid, triton.grpc_url, triton.http_url, triton.pid)
        text, rows = frontdoor.run(
            stack, frontdoor.digit_png(images[0]), tmp_path, LEVELS, rounds=1, duration_s=1
        )
    assert {(row.path, row.connections) for row in rows} == {(p, c) for p in frontdoor.PATHS for c in LEVELS}
    assert all(row.rps > 0 and row.errors == 0 for row in rows), text
    assert all(row.gateway_cpu_ms > 0 for row in rows if row.path.startswith("gateway")), text
    assert (tmp_path / "frontdoor.png").stat().st_size > 10_000
    assert "req/s ÷ triton-http" in text


def test_soak_harness_measures_failures_memory_and_overload(triton: LocalTriton) -> None:
    """One second of the soak's MNIST row and the overload table: the harness, not the figures."""
    images, _ = load_mnist("test")
    digit = frontdoor.digit_png(images[0])
    with gateway_process(triton.grpc_url) as gateway:
        stack = Stack(gateway.url, gateway.pid, triton.grpc_url, triton.http_url, triton.pid)
        row = soak.soak_row(stack, "/v1/mnist", digit, connections=4, duration_s=1)
        overload = soak.overload_rows(stack, "/v1/mnist", digit)
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert int(cells[3]) > 0 and cells[4] == "0", row  # requests, failed
    assert all(float(mib) > 10 for mib in (*cells[7].split(" -> "), *cells[8].split(" -> "))), row
    statuses = {line.split("|")[2].strip() for line in overload}
    assert "200" in statuses and statuses <= {"200", "429"}, overload


def test_tracing_harness_traces_every_request_of_its_traced_arms() -> None:
    """A second per arm of the tracing suite: three stacks of its own, spans counted."""
    images, _ = load_mnist("test")
    text, ratio = tracing.run(frontdoor.digit_png(images[0]), rounds=1, duration_s=1)
    assert ratio > 0 and "gateway and Triton traced" in text
    counts = re.search(r"Spans received: (\d+) gateway request spans and (\d+) Triton", text)
    assert counts and int(counts[1]) > 0 and int(counts[2]) > 0, text


def test_documents_harness_streams_and_reads_pages_alone(triton: LocalTriton) -> None:
    """A five-page mixed PDF once each way: the harness, not the figures."""
    with gateway_process(triton.grpc_url) as gateway:
        stack = Stack(gateway.url, gateway.pid, triton.grpc_url, triton.http_url, triton.pid)
        table = documents.stream_table(stack, "/v1/seal", count=len(documents.MIX), rounds=1)
    (line,) = [line for line in table.splitlines() if line.startswith("| 1 |")]
    row = [cell.strip() for cell in line.strip("|").split("|")]
    assert row[1] == "5 (0 failed)", table
    first_line, first_page, total, alone = (float(cell) for cell in row[2:6])
    assert 0 < first_line <= first_page <= total and alone > 0, table
    assert "the document model's stub" in table.splitlines()[-1], table


def test_trace_continuity_counts_what_triton_continued() -> None:
    """Its own Triton with tracing on: every protocol reported; HTTP, which never lost a
    context in 800 requests measured, continues all of a few."""
    rows = dict(trace_continuity.measure(4))
    assert set(rows) == {"gRPC", "HTTP"} and 0 <= rows["gRPC"] <= 4
    assert rows["HTTP"] == 4
