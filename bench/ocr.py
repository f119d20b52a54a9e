"""/v1/ocr beside RapidOCR in-process: pages/s at concurrency 1, 4 and 16, in alternating rounds.

Both read the same generated pages (evaluation/support/text_corpus.py) in the same run. The
reference (bench/reference_throughput.py, in .venv-ref: it needs numpy>=2) is one process
that reads with as many threads as /v1/ocr has clients, each thread with its own engine on
one ONNX Runtime thread per session, as our models have. Each round measures every level on
both sides one after the other, so drift of the shared machine falls on both; the table gives
the median over rounds and the spread of the per-round ratio says how noisy the machine was.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
from imgproc.arrays import Floats

from bench.serving import Stack, closed_loop, gateway_share, gateway_snapshot, step_table, step_times
from evaluation.support.reference_ocr import REFERENCE_PYTHON
from evaluation.support.text_corpus import generate_corpus
from gateway.local_triton import PROJECT_ROOT

CONCURRENCY = (1, 4, 16)
ROUTE, MODEL = "/v1/ocr", "ocr"
REFERENCE_SCRIPT = PROJECT_ROOT / "bench" / "reference_throughput.py"
PAGES = 6  # at most this many distinct pages (the corpus gives 4 clean ones), cycled through
Side = tuple[float, Floats, int]  # one side's pages/s, latencies in s and failed requests


def pages(count: int) -> list[bytes]:
    corpus = generate_corpus(seed=7, pages=max(1, count // 6 + 1), lines=0)
    return [s.image for s in corpus if s.kind == "page" and s.variant == "clean"][:count] or [corpus[0].image]


@dataclass(frozen=True)
class Round:
    """One level of one round: pages/s and p50 of both sides."""

    concurrency: int
    ours: float
    reference: float
    ours_p50_ms: float
    reference_p50_ms: float
    ours_errors: int

    @property
    def ratio(self) -> float:
        return self.ours / self.reference


class Reference:
    """The reference process: engines loaded once, one closed-loop run per `read` call."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self._process = process

    def read(self, concurrency: int, requests: int) -> Side:
        """(pages/s, latencies in s, 0 failures) of `requests` pages from `concurrency` threads."""
        assert self._process.stdin and self._process.stdout
        self._process.stdin.write(json.dumps({"concurrency": concurrency, "requests": requests}) + "\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError(f"the reference process ended (exit {self._process.wait()})")
        result = json.loads(line)
        return requests / result["wall_s"], np.array(result["latencies_s"]), 0


@contextmanager
def reference(images: Sequence[bytes]) -> Iterator[Reference]:
    with tempfile.TemporaryDirectory() as folder:
        paths = [Path(folder) / f"page{i}.png" for i in range(len(images))]
        for path, data in zip(paths, images, strict=True):
            path.write_bytes(data)
        command = [str(REFERENCE_PYTHON), str(REFERENCE_SCRIPT), *map(str, paths)]
        with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as process:
            try:
                yield Reference(process)
            finally:
                assert process.stdin
                process.stdin.close()


def measure(
    stack: Stack, images: list[bytes], requests: int, rounds: int, levels: Sequence[int]
) -> list[Round]:
    """`rounds` rounds, each every level on both sides one after the other (which side first alternates)."""
    measured = []
    with reference(images) as ref:
        for number in range(rounds):
            for concurrency in levels:
                n = max(requests, concurrency)
                sides: list[Callable[[], Side]] = [
                    partial(_ours, stack, images, concurrency, n),
                    partial(ref.read, concurrency, n),
                ]
                if number % 2:
                    sides.reverse()
                results = [side() for side in sides]
                if number % 2:
                    results.reverse()
                (ours, ours_s, errors), (theirs, ref_s, _) = results
                p50s = (float(1000 * np.median(ours_s)), float(1000 * np.median(ref_s)))
                measured.append(Round(concurrency, ours, theirs, *p50s, errors))
                print(f"round {number + 1}: {measured[-1]}", file=sys.stderr, flush=True)
    return measured


def _ours(stack: Stack, images: list[bytes], concurrency: int, requests: int) -> Side:
    """(pages/s, latencies in s, failed requests); failed requests do not count as pages."""
    result = closed_loop(stack.gateway_url, ROUTE, images, concurrency, requests)
    return (requests - result.errors) / result.wall_s, result.latencies_s, result.errors


def table(rounds: Sequence[Round]) -> str:
    """Median over rounds per level, and the ratio's spread over rounds."""
    lines = [
        "| concurrency | /v1/ocr pages/s | RapidOCR pages/s | ratio (median) | ratio min-max | "
        "/v1/ocr p50 ms | RapidOCR p50 ms | /v1/ocr errors |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for level in sorted({r.concurrency for r in rounds}):
        rs = [r for r in rounds if r.concurrency == level]
        ratios = [r.ratio for r in rs]
        lines.append(
            f"| {level} | {np.median([r.ours for r in rs]):.2f} | {np.median([r.reference for r in rs]):.2f} "
            f"| {np.median(ratios):.2f}x | {min(ratios):.2f}-{max(ratios):.2f} "
            f"| {np.median([r.ours_p50_ms for r in rs]):.0f} "
            f"| {np.median([r.reference_p50_ms for r in rs]):.0f} | {sum(r.ours_errors for r in rs)} |"
        )
    return "\n".join(lines)


def plot(rounds: Sequence[Round], path: Path) -> None:
    """Pages/s against concurrency for both sides: the median line, every round as a dot."""
    levels = sorted({r.concurrency for r in rounds})
    import matplotlib  # noqa: PLC0415 - only the full benchmark draws

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    figure, axes = plt.subplots(figsize=(7, 4.5), dpi=120)
    series: tuple[tuple[str, Callable[[Round], float]], ...] = (
        ("/v1/ocr", lambda r: r.ours),
        ("RapidOCR in-process", lambda r: r.reference),
    )
    for name, value in series:
        medians = [np.median([value(r) for r in rounds if r.concurrency == c]) for c in levels]
        (drawn,) = axes.plot(levels, medians, "o-", label=name)
        axes.plot(
            [r.concurrency for r in rounds],
            [value(r) for r in rounds],
            ".",
            color=drawn.get_color(),
            alpha=0.4,
        )
    axes.set_xscale("log", base=2)
    axes.set_xticks(levels, [str(c) for c in levels])
    axes.set_xlabel("concurrent clients (threads for RapidOCR)")
    axes.set_ylabel("pages/s")
    axes.set_title("OCR throughput, same pages, same run (dots: rounds)")
    axes.grid(True, alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def run(
    stack: Stack,
    requests_per_level: int,
    rounds: int = 3,
    out: Path | None = None,
    levels: Sequence[int] = CONCURRENCY,
) -> str:
    images = pages(PAGES)
    before, gateway_before = step_times(stack.triton_grpc), gateway_snapshot(stack, ROUTE, MODEL)
    measured = measure(stack, images, requests_per_level, rounds, levels)
    share = gateway_share(gateway_before, gateway_snapshot(stack, ROUTE, MODEL))
    served = sum(max(requests_per_level, c) + 1 for c in levels) * rounds
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        plot(measured, out / "ocr.png")
    return "\n".join(
        [
            f"### /v1/ocr vs RapidOCR 1.4.4 in-process ({len(images)} generated pages, "
            f"{requests_per_level} requests per level, {rounds} alternating rounds)",
            "",
            table(measured),
            "",
            share,
            "",
            "Where a request's time goes (Triton statistics, queue + compute, all levels):",
            "",
            step_table(before, step_times(stack.triton_grpc), served),
        ]
    )
