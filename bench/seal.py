"""/v1/seal latency for a page with one seal and a page with three, time per step, and what
checking expected names adds (issue 40's target: at most 50 ms a seal)."""

from __future__ import annotations

import time
from collections.abc import Sequence

import httpx
import numpy as np
import numpy.typing as npt

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


# Names checked beside the page's own: organisations of the generator's kind, none on the page.
OTHER_NAMES = (
    "北京华远创新科技有限公司",
    "上海东方明珠实业有限公司",
    "深圳市南山区人民法院",
    "广州白云山制药有限公司",
)
Millis = npt.NDArray[np.float64]
NAME_COUNTS = (1, 20)  # one name, and the most a request may carry
VERIFY_HEAD = (
    "| seals | names | p50 ms without | p50 ms with | added ms (median of pairs) | added ms per seal |"
)


def page_with(seals: int) -> tuple[bytes, list[str]]:
    """A plain scanned page (the style the earlier runs measured) with `seals` seals, and the
    rim texts it was drawn with."""
    rng = np.random.default_rng(SEED)
    while True:  # the generator may fit fewer seals than asked; draw until it fits them all
        page = generate_page(rng, seals, size=(1400, 1000), style="plain")
        if len(page.seals) == seals:
            return page.image_bytes, [seal.rim_text for seal in page.seals if seal.rim_text]


def names_for(rims: Sequence[str], count: int) -> list[str]:
    """`count` names: the page's own rims first, then others, repeated with a suffix as needed."""
    pool = [*rims, *OTHER_NAMES]
    return [pool[i % len(pool)] + ("" if i < len(pool) else f"分公司{i}") for i in range(count)]


def paired_ms(client: httpx.Client, image: bytes, names: list[str], pairs: int) -> tuple[Millis, Millis]:
    """Milliseconds of `pairs` requests without names and with them, alternated (which goes
    first alternating too) so a noisy machine weighs on both alike."""

    def timed(expect: list[str]) -> float:
        start = time.perf_counter()
        client.post(ROUTE, files={"image": ("page.png", image)}, data={"expect": expect}).raise_for_status()
        return (time.perf_counter() - start) * 1000

    timed([]), timed(names)  # warm-up
    without, with_names = [], []
    for pair in range(pairs):
        if pair % 2:
            with_names.append(timed(names))
            without.append(timed([]))
        else:
            without.append(timed([]))
            with_names.append(timed(names))
    return np.array(without), np.array(with_names)


def verification(stack: Stack, pairs: int) -> str:
    """What checking expected names adds to a request, per page and per seal."""
    lines = [
        "Expected names (`expect`), each request paired with one without:",
        "",
        VERIFY_HEAD,
        "|---|---|---|---|---|---|",
    ]
    with httpx.Client(base_url=stack.gateway_url, timeout=600) as client:
        for seals in (1, 3):
            image, rims = page_with(seals)
            for count in NAME_COUNTS:
                without, with_names = paired_ms(client, image, names_for(rims, count), pairs)
                added = float(np.median(with_names - without))
                lines.append(
                    f"| {seals} | {count} | {np.median(without):.0f} | {np.median(with_names):.0f} "
                    f"| {added:.0f} | {added / seals:.0f} |"
                )
    return "\n".join(lines)


def run(stack: Stack, requests_per_page: int) -> str:
    lines = ["### /v1/seal (generated 1400x1000 pages, concurrency 1)", ""]
    for seals in (1, 3):
        before, gateway_before = step_times(stack.triton_grpc), gateway_snapshot(stack, ROUTE, MODEL)
        result = closed_loop(stack.gateway_url, ROUTE, [page_with(seals)[0]], 1, requests_per_page)
        share = gateway_share(gateway_before, gateway_snapshot(stack, ROUTE, MODEL))
        steps = step_table(before, step_times(stack.triton_grpc), requests_per_page + 1)
        lines += [f"Page with {seals} seal(s):", "", TABLE_HEAD, result.row(), "", share, "", steps, ""]
    return "\n".join([*lines, verification(stack, requests_per_page)])
