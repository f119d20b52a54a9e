"""/v1/seal end to end: the real held-out seals of seals-dev, and generated held-out sets.

All are scored by `evaluation.seal.scoring`, the scorer the evaluation harness uses. The real
held-out part (`evaluation/seal/seals_dev.json`) was set aside before tuning and is never
tuned on; its pages are also sent with their seals painted over (real red print and no
seal), where nothing may be found. The generated sets are drawn with a seed no tuning run
used: the plain scanned documents the generator drew before it was widened, and the widened
mix (invoices and their supervision seals, e-invoices, phone photos, photocopies, small
seals, signatures, crops).

Where issue 12's targets are met they are asserted as they are; where not yet, the floor is
a little under today's measure, so that a change that reads worse fails. Measured through
this stack on 2026-11-24: real held-out 21 round/oval rims, recall 0.964, exact 0.714, CER
0.071 (targets 0.95, 0.85, 0.05); generated plain exact 0.875, CER 0.017 (target 0.93).
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from evaluation.seal.dataset import HELDOUT, TruthPage, generated_pages, seals_dev_pages, without_seals
from evaluation.seal.scoring import FoundSeal, PageResult, Summary, score_page, summarize

pytestmark = pytest.mark.integration
HELDOUT_SEED = 20261122
SEAL_PAGES = 60  # 1 to 3 seals each: well over 100 seals
EMPTY_PAGES = 20
MIX_PAGES = 40
CLIENT_THREADS = 2
REAL_RIM_EXACT_FLOOR = 0.7  # target 0.85
REAL_CER_CEILING = 0.08  # target 0.05
REAL_INNER_FLOOR = 0.7  # of the held-out seals' inner lines and codes, 25/31 = 0.81 today
PLAIN_RIM_EXACT_FLOOR = 0.82  # target 0.93
MIX_RIM_EXACT_FLOOR = 0.55


def post_json(http: httpx.Client, data: bytes) -> dict[str, Any]:
    response = http.post("/v1/seal", files={"image": ("page", data)}, timeout=300)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def post(http: httpx.Client, data: bytes) -> list[FoundSeal]:
    return [FoundSeal.from_json(seal) for seal in post_json(http, data)["seals"]]


def score_all(
    http: httpx.Client, pages: Iterable[TruthPage], threads: int = CLIENT_THREADS
) -> list[PageResult]:
    """Every page posted and scored. Concurrent requests are batched together in Triton,
    which pads lines to other widths and can turn a borderline reading; one thread is exact."""
    pages = list(pages)
    with ThreadPoolExecutor(threads) as pool:
        found = list(pool.map(lambda page: post(http, page.image), pages))
    return [score_page(page, seals) for page, seals in zip(pages, found, strict=True)]


def show(title: str, summary: Summary) -> None:
    print(f"\n{title}: {summary.line()}")  # noqa: T201
    print("\n".join(summary.misses[:30]))  # noqa: T201


@pytest.fixture(scope="module")
def plain(http: httpx.Client) -> Summary:
    pages = generated_pages(HELDOUT_SEED, SEAL_PAGES, EMPTY_PAGES, style="plain")
    summary = summarize(score_all(http, pages))
    show("seal generated held-out set, plain documents", summary)
    return summary


@pytest.fixture(scope="module")
def mix(http: httpx.Client) -> Summary:
    summary = summarize(score_all(http, generated_pages(HELDOUT_SEED, MIX_PAGES, 0)))
    show("seal generated held-out set, the widened mix", summary)
    return summary


@pytest.fixture(scope="module")
def real_heldout(http: httpx.Client) -> tuple[Summary, Summary]:
    """The real held-out pages, and the same pages without their seals."""
    pages = list(seals_dev_pages(frozenset({HELDOUT})))
    blanked = [blank for page in pages if (blank := without_seals(page)) is not None]
    summary, empty = summarize(score_all(http, pages, 1)), summarize(score_all(http, blanked))
    print(f"\nseals-dev held-out: {summary.line()}")  # noqa: T201 - figures only: never tune on it
    print(f"seals-dev held-out pages without their seals: {empty.line()}")  # noqa: T201
    return summary, empty


def test_generated_sets_are_large_enough(plain: Summary, mix: Summary) -> None:
    assert plain.seals >= 100 and mix.seals >= 50


def test_generated_plain_recall_at_least_98_percent(plain: Summary) -> None:
    assert plain.recall >= 0.98


def test_generated_plain_rim_text_exact(plain: Summary) -> None:
    assert plain.exact_rate >= PLAIN_RIM_EXACT_FLOOR


def test_generated_plain_rim_character_error_rate_at_most_5_percent(plain: Summary) -> None:
    assert plain.cer <= 0.05


def test_generated_at_most_one_false_seal_per_20_empty_pages(plain: Summary) -> None:
    assert plain.false_on_empty <= plain.empty_pages / 20


def test_generated_mix_reads_most_rims(mix: Summary) -> None:
    assert mix.recall >= 0.9 and mix.exact_rate >= MIX_RIM_EXACT_FLOOR


def test_real_heldout_recall_at_least_95_percent(real_heldout: tuple[Summary, Summary]) -> None:
    summary, _ = real_heldout
    assert summary.seals >= 25 and summary.recall >= 0.95


def test_no_false_seal_on_real_pages_without_one(real_heldout: tuple[Summary, Summary]) -> None:
    summary, empty = real_heldout
    assert empty.pages >= 10 and empty.false_seals == 0 and summary.false_seals == 0


def test_real_heldout_rim_text(real_heldout: tuple[Summary, Summary]) -> None:
    summary, _ = real_heldout
    assert summary.exact_rate >= REAL_RIM_EXACT_FLOOR and summary.cer <= REAL_CER_CEILING


def test_real_heldout_inner_lines_and_codes(real_heldout: tuple[Summary, Summary]) -> None:
    summary, _ = real_heldout
    hit, total = summary.inner[0] + summary.codes[0], summary.inner[1] + summary.codes[1]
    assert total >= 20 and hit / total >= REAL_INNER_FLOOR


@pytest.mark.parametrize(
    "data, status",
    [(b"", 400), (b"%PDF-1.4", 422), (b"GIF87a", 422), (b"\xff\xd8\xff\xe0\x00\x10JFIF", 422)],
)
def test_error_classes(http: httpx.Client, data: bytes, status: int) -> None:
    response = http.post("/v1/seal", files={"image": ("x", data)})
    assert response.status_code == status
    assert response.json()["error"]["status"] == status


def test_each_code_answered_carries_its_score(http: httpx.Client) -> None:
    """The real held-out pages whose seals carry a code: every code answered comes with the
    probability that it reads exactly (`code_scores`, one per code), and some code is read."""
    pages = [page for page in seals_dev_pages(frozenset({HELDOUT})) if any(s.codes for s in page.seals)]
    seals = [seal for page in pages for seal in post_json(http, page.image)["seals"]]
    assert all(len(seal["code_scores"]) == len(seal["codes"]) for seal in seals)
    scores = [score for seal in seals for score in seal["code_scores"]]
    assert scores and all(0.0 <= score <= 1.0 for score in scores)
