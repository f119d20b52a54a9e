"""RapidOCR 1.4.4 in-process under closed-loop load; runs in .venv-ref only, driven by bench/ocr.py.

    .venv-ref/bin/python bench/reference_throughput.py IMAGE...

then one JSON line per run on stdin, {"concurrency": C, "requests": N}, answered by one line
{"wall_s": ..., "latencies_s": [...]}. C threads of this one process each read pages with
their own engine (one ONNX Runtime thread per session, as our models have), like C clients
of /v1/ocr; the engines stay loaded between runs, so only reading is timed.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from itertools import cycle
from pathlib import Path

from rapidocr_onnxruntime import RapidOCR

_local = threading.local()


def _engine() -> RapidOCR:
    if not hasattr(_local, "engine"):
        _local.engine = RapidOCR(intra_op_num_threads=1)
    return _local.engine


def _read(image: bytes) -> float:
    engine = _engine()
    start = time.perf_counter()
    engine(image)
    return time.perf_counter() - start


def run(pool: ThreadPoolExecutor, images: list[bytes], concurrency: int, requests: int) -> dict[str, object]:
    pages = cycle(images)
    list(pool.map(_read, [next(pages) for _ in range(concurrency)]))  # warm-up: one engine per thread
    work = [next(pages) for _ in range(requests)]
    start = time.perf_counter()
    latencies = list(pool.map(_read, work))
    return {"wall_s": time.perf_counter() - start, "latencies_s": latencies}


def main(paths: list[str]) -> None:
    images = [Path(path).read_bytes() for path in paths]
    pools: dict[int, ThreadPoolExecutor] = {}
    for line in sys.stdin:
        order = json.loads(line)
        concurrency = int(order["concurrency"])
        pool = pools.setdefault(concurrency, ThreadPoolExecutor(concurrency))
        sys.stdout.write(json.dumps(run(pool, images, concurrency, int(order["requests"]))) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
