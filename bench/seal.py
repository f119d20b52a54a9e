"""/v1/seal latency for a generated page with one seal and one with three, and for real pages
of the seal corpus's tuning part (`real_pages`: when its image cache is there), time per step,
what checking expected names adds (issue 40's target: at most 50 ms a seal), and what the document
check adds (`check=document`) beside the page's own OCR (/v1/ocr) in the same process tree
(issue 49's target: at most the page's OCR)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

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
from evaluation.seal.corpus import CACHE, Entry, entries, manifest, side_of
from evaluation.seal.dataset import TUNING, generated_pages
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


@dataclass(frozen=True)
class RealPage:
    """A corpus page `bench seal` times, and the rule that chose it."""

    rule: str
    entry: Entry

    @property
    def row_name(self) -> str:
        record = self.entry.record
        size = f"{record['width']}x{record['height']}"
        return f"{self.rule}: `{Path(str(record['path'])).name}`, {size} {record['capture']}"


def _pixels(entry: Entry) -> int:
    return int(entry.record["width"]) * int(entry.record["height"])


Pick = Callable[[list[Entry]], Entry]  # one of the pages a rule fits, largest first
ISSUE_PHOTO_PIXELS = 3839 * 2768  # the one-seal certificate photo issue 47 names (0.78 s then)


def _largest(pages: list[Entry]) -> Entry:
    return pages[0]


def _median(pages: list[Entry]) -> Entry:
    return pages[(len(pages) - 1) // 2]  # the lower median


def _nearest_issue_photo(pages: list[Entry]) -> Entry:
    return min(pages, key=lambda entry: abs(_pixels(entry) - ISSUE_PHOTO_PIXELS))


def _one_seal_photo(entry: Entry) -> bool:
    return len(entry.seals) == 1 and entry.record["capture"] == "photo"


# Which real pages are timed, each by a fixed rule over the corpus's tuning part (never the
# held-out part), by the seals labelled on it (by pixels; the first in the manifest among
# equals): the largest one-seal photo, the one-seal photo nearest in size to the issue's
# example, the largest one-seal page of any capture (a large render), the one-seal scan of
# median size, and the largest page with three seals.
RULES: tuple[tuple[str, Callable[[Entry], bool], Pick], ...] = (
    ("largest one-seal photo", _one_seal_photo, _largest),
    ("one-seal photo nearest 3839x2768", _one_seal_photo, _nearest_issue_photo),
    ("largest one-seal page", lambda e: len(e.seals) == 1, _largest),
    ("median one-seal scan", lambda e: len(e.seals) == 1 and e.record["capture"] == "scan", _median),
    ("largest three-seal page", lambda e: len(e.seals) == 3, _largest),
)


def real_pages() -> list[RealPage]:
    """The tuning part's pages chosen by `RULES`, whether or not their images are cached."""
    split = manifest()["split"]
    tuning = [entry for entry in entries() if side_of(entry.repo, split) == TUNING]
    chosen = []
    for rule, fits, pick in RULES:
        pages = sorted((e for e in tuning if fits(e)), key=_pixels, reverse=True)  # stable: manifest order
        if pages:
            chosen.append(RealPage(rule, pick(pages)))
    return chosen


def model_calls(before: dict[str, tuple[int, float]], after: dict[str, tuple[int, float]], per: int) -> str:
    """The model calls a request made, per model the seal model called (itself left out)."""
    calls = {name: after[name][0] - before.get(name, (0, 0.0))[0] for name in sorted(after) if name != MODEL}
    return ", ".join(f"{count / per:.3g} `{name}`" for name, count in calls.items() if count)


def seals_answered(client: httpx.Client, image: bytes) -> int:
    response = client.post(ROUTE, files={"image": ("page", image)})
    response.raise_for_status()
    return len(response.json()["seals"])


PAGES_HEAD = (
    "| page | seals labelled | seals answered | p50 ms | p95 ms | model calls a request |\n"
    "|---|---|---|---|---|---|"
)


def timed_pages(stack: Stack, pages: Sequence[tuple[str, bytes, str]], requests_per_page: int) -> list[str]:
    """One row of `PAGES_HEAD` a page (name, image, seals labelled), then each page's gateway
    share and time per step."""
    rows, details = [PAGES_HEAD], []
    with httpx.Client(base_url=stack.gateway_url, timeout=600) as client:
        for name, image, labelled in pages:
            answered = seals_answered(client, image)
            before, gateway_before = step_times(stack.triton_grpc), gateway_snapshot(stack, ROUTE, MODEL)
            result = closed_loop(stack.gateway_url, ROUTE, [image], 1, requests_per_page)
            share = gateway_share(gateway_before, gateway_snapshot(stack, ROUTE, MODEL))
            after = step_times(stack.triton_grpc)
            p50, p95 = (np.percentile(result.latencies_s, q) * 1000 for q in (50, 95))
            calls = model_calls(before, after, requests_per_page + 1)
            errors = f" ({result.errors} errors)" if result.errors else ""
            rows.append(f"| {name} | {labelled} | {answered} | **{p50:.0f}**{errors} | {p95:.0f} | {calls} |")
            steps = step_table(before, after, requests_per_page + 1)
            details += [f"{name}:", "", TABLE_HEAD, result.row(), "", share, "", steps, ""]
    return [*rows, "", *details]


BenchPage = tuple[str, bytes, str]  # its name in the table, the image, the seals labelled on it


def bench_pages() -> tuple[list[BenchPage], str | None]:
    """The pages timed: the generated ones, then the real ones where the corpus image cache
    holds them all (else a line that says they were skipped, and why)."""
    pages = [(f"generated, {n} seal(s), 1400x1000 plain", page_with(n)[0], str(n)) for n in (1, 3)]
    real = real_pages()
    missing = [page for page in real if not page.entry.file.is_file()]
    if missing:
        return pages, (
            f"Real pages skipped: {len(missing)} of the {len(real)} chosen are not in the corpus image cache"
            f" ({CACHE}; `python -m evaluation.seal.corpus fetch` assembles it)."
        )
    chosen = [(page.row_name, page.entry.file.read_bytes(), f"{len(page.entry.seals)}") for page in real]
    return pages + chosen, None


def generated_and_real(stack: Stack, requests_per_page: int) -> str:
    """The latency table: the generated pages, then the real ones (or why they were skipped)."""
    pages, skipped = bench_pages()
    lines = ["### /v1/seal (concurrency 1)", "", *timed_pages(stack, pages, requests_per_page)]
    return "\n".join(lines + ([skipped, ""] if skipped else []))


def run(stack: Stack, requests_per_page: int) -> str:
    table = generated_and_real(stack, requests_per_page)
    names = verification(stack, requests_per_page)
    return "\n".join([table, names, "", document_check(stack, requests_per_page)])
