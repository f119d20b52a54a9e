"""/v1/seal latency for a page with one seal and a page with three, time per step, what
checking expected names adds (issue 40's target: at most 50 ms a seal), and what the document
check adds (`check=document`) beside the page's own OCR (/v1/ocr) in the same process tree
(issue 49's target: at most the page's OCR)."""

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
from evaluation.seal.dataset import generated_pages
from evaluation.seal.generator import generate_page

SEED = 99
ROUTE, MODEL = "/v1/seal", "seal"
OCR_ROUTE = "/v1/ocr"
INVOICE_SEED, INVOICE_INDEX = 20261129, 5  # the invoice tests/integration/test_seal_document_check.py checks
CHECK_FORM = {"check": ["document"]}
CHECK_HEAD = (
    "| page | seals | p50 ms without | p50 ms with | added ms (median of pairs) | OCR p50 ms | added / OCR |"
)


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


Form = dict[str, list[str]]


def timed_ms(client: httpx.Client, route: str, image: bytes, form: Form) -> float:
    """Milliseconds of one request of `image` with the form's fields."""
    start = time.perf_counter()
    client.post(route, files={"image": ("page.png", image)}, data=form).raise_for_status()
    return (time.perf_counter() - start) * 1000


def paired_ms(client: httpx.Client, image: bytes, form: Form, pairs: int) -> tuple[Millis, Millis]:
    """Milliseconds of `pairs` requests without the form's fields and with them, alternated
    (which goes first alternating too) so a noisy machine weighs on both alike."""
    timed_ms(client, ROUTE, image, {}), timed_ms(client, ROUTE, image, form)  # warm-up
    without: list[float] = []
    with_form: list[float] = []
    for pair in range(pairs):
        for asked in (form, {}) if pair % 2 else ({}, form):
            (with_form if asked else without).append(timed_ms(client, ROUTE, image, asked))
    return np.array(without), np.array(with_form)


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
                without, with_names = paired_ms(client, image, {"expect": names_for(rims, count)}, pairs)
                added = float(np.median(with_names - without))
                lines.append(
                    f"| {seals} | {count} | {np.median(without):.0f} | {np.median(with_names):.0f} "
                    f"| {added:.0f} | {added / seals:.0f} |"
                )
    return "\n".join(lines)


def invoice_page() -> tuple[bytes, int]:
    """A generated invoice (its seller's name printed, its seller's seal and the 监制章 stamped)
    and its seal count."""
    page = list(generated_pages(INVOICE_SEED, INVOICE_INDEX + 1, 0, style="invoice"))[INVOICE_INDEX]
    return page.image, len(page.seals)


def document_check(stack: Stack, pairs: int) -> str:
    """What the document check adds to a request, against the page's own OCR."""
    lines = [
        "The document check (`check=document`), each request paired with one without, beside the"
        f" same page read by {OCR_ROUTE} (the page's OCR) on the same stack:",
        "",
        CHECK_HEAD,
        "|---|---|---|---|---|---|---|",
    ]
    plain, rims = page_with(1)
    pages = [("generated invoice", *invoice_page()), ("plain, 1 seal", plain, len(rims))]
    with httpx.Client(base_url=stack.gateway_url, timeout=600) as client:
        for name, image, seals in pages:
            without, with_check = paired_ms(client, image, CHECK_FORM, pairs)
            ocr = np.array([timed_ms(client, OCR_ROUTE, image, {}) for _ in range(pairs + 1)][1:])
            added, ocr_ms = float(np.median(with_check - without)), float(np.median(ocr))
            lines.append(
                f"| {name} | {seals} | {np.median(without):.0f} | {np.median(with_check):.0f} | {added:.0f} "
                f"| {ocr_ms:.0f} | {added / ocr_ms:.2f} |"
            )
    return "\n".join([*lines, "", "Issue 49's target: added / OCR at most 1."])


def run(stack: Stack, requests_per_page: int) -> str:
    lines = ["### /v1/seal (generated 1400x1000 pages, concurrency 1)", ""]
    for seals in (1, 3):
        before, gateway_before = step_times(stack.triton_grpc), gateway_snapshot(stack, ROUTE, MODEL)
        result = closed_loop(stack.gateway_url, ROUTE, [page_with(seals)[0]], 1, requests_per_page)
        share = gateway_share(gateway_before, gateway_snapshot(stack, ROUTE, MODEL))
        steps = step_table(before, step_times(stack.triton_grpc), requests_per_page + 1)
        lines += [f"Page with {seals} seal(s):", "", TABLE_HEAD, result.row(), "", share, "", steps, ""]
    checks = document_check(stack, requests_per_page)
    return "\n".join([*lines, verification(stack, requests_per_page), "", checks])
