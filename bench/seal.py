"""/v1/seal latency for a page with one seal and a page with three, and time per step."""

from __future__ import annotations

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
from evaluation.seal.generator import generate_page

SEED = 99
ROUTE, MODEL = "/v1/seal", "seal"


def page_with(seals: int) -> bytes:
    """A plain scanned page (the style the earlier runs measured) with `seals` seals."""
    rng = np.random.default_rng(SEED)
    while True:  # the generator may fit fewer seals than asked; draw until it fits them all
        page = generate_page(rng, seals, size=(1400, 1000), style="plain")
        if len(page.seals) == seals:
            return page.image_bytes


def run(stack: Stack, requests_per_page: int) -> str:
    lines = ["### /v1/seal (generated 1400x1000 pages, concurrency 1)", ""]
    for seals in (1, 3):
        before, gateway_before = step_times(stack.triton_grpc), gateway_snapshot(stack, ROUTE, MODEL)
        result = closed_loop(stack.gateway_url, ROUTE, [page_with(seals)], 1, requests_per_page)
        share = gateway_share(gateway_before, gateway_snapshot(stack, ROUTE, MODEL))
        steps = step_table(before, step_times(stack.triton_grpc), requests_per_page + 1)
        lines += [f"Page with {seals} seal(s):", "", TABLE_HEAD, result.row(), "", share, "", steps, ""]
    return "\n".join(lines)
