"""In-process CPU time of the seal pipeline's page-level stages on the pages `bench seal` times:
decoding, finding (white balance, masks and search), and the whole request with the models in
this process (ONNX Runtime and OpenCV on one thread each). CPU time,
not wall time, and the least of a few runs, so that other work on a shared machine weighs
little; what the models take is the same in every checkout, the page's own work is not.

.venv/bin/python -m bench.seal_stages [--runs N]   (run it from each checkout to compare them)
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import TypeVar

import cv2
from imgproc.imaging import decode_rgb
from imgproc.seal.find import find_on_page

from bench.seal import bench_pages
from evaluation.seal.inprocess import InProcessSeal

T = TypeVar("T")
HEAD = "| page | decode ms | find ms | request ms (models in process) | seals found |\n|---|---|---|---|---|"


def least_cpu_ms(work: Callable[[], T], runs: int) -> tuple[T, int]:
    """What `work` returns, and the least CPU time (ms) of `runs` runs of it (one at least)."""
    start = time.process_time()
    result = work()
    best = time.process_time() - start
    for _ in range(runs - 1):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return result, round(best * 1000)


def row(name: str, image: bytes, seal: InProcessSeal, runs: int) -> str:
    """One page's row of `HEAD`."""
    config = seal.config
    rgb, decode = least_cpu_ms(lambda: decode_rgb(image), runs)
    regions, find = least_cpu_ms(lambda: find_on_page(rgb, config.ink, config.find, config.fit)[1], runs)
    _, request = least_cpu_ms(lambda: seal.page(image), runs)
    return f"| {name} | {decode} | {find} | {request} | {len(regions)} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs a stage, the least CPU time kept")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    seal = InProcessSeal(threads=1)
    pages, skipped = bench_pages()
    print(HEAD)  # noqa: T201 - the table is this command's output
    for name, image, _ in pages:
        print(row(name, image, seal, max(1, args.runs)), flush=True)  # noqa: T201
    if skipped:
        print(skipped)  # noqa: T201


if __name__ == "__main__":
    main()
