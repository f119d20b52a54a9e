"""Two checkouts' /v1/seal side by side: the pages `bench seal` times (generated and real),
each sent to stack A (before) and stack B (after) in turn, which goes first alternating, so a
machine loaded by others weighs on both alike. Per page: p50 and p95 of each, the median of
the paired differences, whether both answered the same rims, and the model calls a request.

.venv/bin/python -m bench.seal_ab BEFORE.json AFTER.json [--requests N]   (files of `bench.hold`)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import numpy as np

from bench.seal import ROUTE, bench_pages, model_calls
from bench.serving import step_times

WAIT_S, POLL_S = 600, 2
HEAD = (
    "| page | p50 ms before | p50 ms after | p95 ms before | p95 ms after | after - before (median of pairs) "
    "| same rims | model calls a request (after) |\n|---|---|---|---|---|---|---|---|"
)


@dataclass(frozen=True)
class Arm:
    client: httpx.Client
    grpc: str


def _arm(path: Path) -> Arm:
    waited = 0
    while not path.exists() and waited < WAIT_S:  # `bench.hold` writes it once its stack is up
        time.sleep(POLL_S)
        waited += POLL_S
    urls = json.loads(path.read_text())
    return Arm(httpx.Client(base_url=urls["gateway"], timeout=600), urls["grpc"])


def _post(arm: Arm, image: bytes) -> tuple[float, list[str | None]]:
    start = time.perf_counter()
    response = arm.client.post(ROUTE, files={"image": ("page", image)})
    response.raise_for_status()
    return (time.perf_counter() - start) * 1000, [seal.get("rim_text") for seal in response.json()["seals"]]


def _row(name: str, image: bytes, before: Arm, after: Arm, requests: int) -> str:
    rims = [_post(arm, image)[1] for arm in (before, after)]  # warm-up, and what each answers
    stats = step_times(after.grpc)
    times: tuple[list[float], list[float]] = ([], [])
    for pair in range(requests):
        order = (0, 1) if pair % 2 == 0 else (1, 0)
        for side in order:
            times[side].append(_post((before, after)[side], image)[0])
    calls = model_calls(stats, step_times(after.grpc), requests)
    a, b = np.array(times[0]), np.array(times[1])
    return (
        f"| {name} | {np.median(a):.0f} | {np.median(b):.0f} | {np.percentile(a, 95):.0f} "
        f"| {np.percentile(b, 95):.0f} | {np.median(b - a):+.0f} | {'yes' if rims[0] == rims[1] else 'no'} "
        f"| {calls} |"
    )


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.seal_ab")
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--requests", type=int, default=10, help="requests a page to each stack")
    args = parser.parse_args()
    before, after = _arm(args.before), _arm(args.after)
    pages, skipped = bench_pages()
    print(f"Load average before: {load()}", "", HEAD, sep="\n", flush=True)
    for name, image, _ in pages:
        print(_row(name, image, before, after, args.requests), flush=True)
    print("", *([skipped] if skipped else []), f"Load average after: {load()}", sep="\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
