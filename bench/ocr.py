"""/v1/ocr throughput and latency at concurrency 1, 4 and 16, beside RapidOCR in-process.

Both read the same generated pages (tests/support/text_corpus.py) in the same run; the
reference runs in .venv-ref (it needs numpy>=2) on one ONNX Runtime thread, as our models do.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from bench.serving import (
    TABLE_HEAD,
    Stack,
    closed_loop,
    gateway_share,
    gateway_snapshot,
    step_table,
    step_times,
)
from gateway.local_triton import PROJECT_ROOT
from tests.support.text_corpus import generate_corpus

CONCURRENCY = (1, 4, 16)
ROUTE, MODEL = "/v1/ocr", "ocr"
REFERENCE_PYTHON = PROJECT_ROOT / ".venv-ref" / "bin" / "python"


def pages(count: int) -> list[bytes]:
    corpus = generate_corpus(seed=7, pages=max(1, count // 6), lines=0)
    return [s.image for s in corpus if s.kind == "page" and s.variant == "clean"][:count] or [corpus[0].image]


def reference_latencies(images: list[bytes]) -> np.ndarray:
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for i, data in enumerate(images):
            paths.append(Path(folder) / f"page{i}.png")
            paths[-1].write_bytes(data)
        out = subprocess.run(
            [str(REFERENCE_PYTHON), str(PROJECT_ROOT / "bench/reference_latency.py"), *map(str, paths)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
    return np.array(json.loads(out.stdout))


def run(stack: Stack, requests_per_level: int) -> str:
    images = pages(4)
    rows, before, gateway_before = [], step_times(stack.triton_grpc), gateway_snapshot(stack, ROUTE, MODEL)
    for concurrency in CONCURRENCY:
        rows.append(closed_loop(stack.gateway_url, ROUTE, images, concurrency, requests_per_level).row())
    share = gateway_share(gateway_before, gateway_snapshot(stack, ROUTE, MODEL))
    steps = step_table(before, step_times(stack.triton_grpc), (requests_per_level + 1) * len(CONCURRENCY))
    ref = reference_latencies(images * max(1, requests_per_level // len(images)))
    p50, p95, p99 = (np.percentile(ref, q) * 1000 for q in (50, 95, 99))
    reference = f"| 1 (in-process) | {1 / ref.mean():.2f} | {p50:.0f} | {p95:.0f} | {p99:.0f} | 0 |"
    return "\n".join(
        [
            f"### /v1/ocr ({len(images)} generated pages, {requests_per_level} requests per level)",
            "",
            "Gateway + Triton:",
            "",
            TABLE_HEAD,
            *rows,
            "",
            share,
            "",
            "RapidOCR 1.4.4 in-process (reference, same pages):",
            "",
            TABLE_HEAD,
            reference,
            "",
            "Where a request's time goes (Triton statistics, queue + compute, all levels):",
            "",
            steps,
        ]
    )
