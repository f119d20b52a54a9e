"""Latency of the reference (RapidOCR 1.4.4 in-process) per image; runs in .venv-ref only.

.venv-ref/bin/python bench/reference_latency.py IMAGE... > seconds.json
"""

from __future__ import annotations

import json
import sys
import time

from rapidocr_onnxruntime import RapidOCR


def main(paths: list[str]) -> None:
    engine = RapidOCR(intra_op_num_threads=1)
    engine(paths[0])  # warm-up
    seconds = []
    for path in paths:
        start = time.perf_counter()
        engine(path)
        seconds.append(time.perf_counter() - start)
    sys.stdout.write(json.dumps(seconds))


if __name__ == "__main__":
    main(sys.argv[1:])
