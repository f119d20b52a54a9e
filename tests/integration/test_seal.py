"""/v1/seal end to end on generated held-out seals and the real seals-dev photographs.

The held-out set is drawn with a seed that no tuning run used. Seals are matched to the
truth by box overlap; rim texts are compared after NFKC normalisation without spaces.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import httpx
import numpy as np
import pytest

from tests.support.cer import levenshtein, normalize
from tests.support.seal_data import MATCH_IOU, SEALS_DEV, box_iou, dev_group
from tests.support.seal_generator import Page, SealTruth, generate_page

pytestmark = pytest.mark.integration
HELDOUT_SEED = 20261122
SEAL_PAGES = 60  # 1 to 3 seals each: well over 100 seals
EMPTY_PAGES = 20
CLIENT_THREADS = 2
# Issue 4's target. Measured here: 92.9% (2026-11-23). In-process (tests.support.seal_eval),
# dev seeds 7000 and 8000 (225 seals) give 89.3%, and seed 9000, with 19 of its 117 seals cut
# by the page edge, 81.2% (89.8% of the uncut ones): a set with many cut seals can fall
# below the target. The batches two client threads form vary the readings slightly per run.
RIM_EXACT_TARGET = 0.85


@dataclass
class Tally:
    seals: int = 0
    found: int = 0
    exact: int = 0
    char_errors: int = 0
    chars: int = 0
    empty_pages: int = 0
    false_seals: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, truth: SealTruth, predicted: dict[str, object] | None) -> None:
        self.seals += 1
        text = normalize(str(predicted["rim_text"])) if predicted else ""
        want = normalize(truth.rim_text)
        self.found += predicted is not None
        self.exact += text == want
        self.char_errors += levenshtein(text, want)
        self.chars += len(want)
        if text != want:
            self.misses.append(f"{truth.shape}: {want} -> {text}")

    def summary(self) -> str:
        recall, exact = self.found / self.seals, self.exact / self.seals
        return (
            f"{self.seals} seals: recall {recall:.3f}, exact rim {exact:.3f}, "
            f"CER {self.char_errors / self.chars:.4f}; "
            f"{self.false_seals} false seals on {self.empty_pages} empty pages"
        )


def post(http: httpx.Client, data: bytes) -> list[dict[str, object]]:
    response = http.post("/v1/seal", files={"image": ("page.jpg", data)}, timeout=300)
    assert response.status_code == 200, response.text
    seals: list[dict[str, object]] = response.json()["seals"]
    return seals


def score(tally: Tally, page: Page, predicted: list[dict[str, object]]) -> None:
    if not page.seals:
        tally.empty_pages += 1
        tally.false_seals += len(predicted)
        return
    for truth in page.seals:
        best = max(predicted, key=lambda p: box_iou(truth.box, tuple(p["box"])), default=None)  # type: ignore[arg-type]
        matched = best is not None and box_iou(truth.box, tuple(best["box"])) >= MATCH_IOU  # type: ignore[arg-type]
        tally.add(truth, best if matched else None)


def heldout_pages() -> Iterator[Page]:
    rng = np.random.default_rng(HELDOUT_SEED)
    for index in range(SEAL_PAGES + EMPTY_PAGES):
        yield generate_page(rng, int(rng.integers(1, 4)) if index < SEAL_PAGES else 0)


@pytest.fixture(scope="module")
def heldout(http: httpx.Client) -> Tally:
    pages = list(heldout_pages())
    with ThreadPoolExecutor(CLIENT_THREADS) as pool:
        results = list(pool.map(lambda page: post(http, page.image_bytes), pages))
    tally = Tally()
    for page, predicted in zip(pages, results, strict=True):
        score(tally, page, predicted)
    print(f"\nseal held-out set: {tally.summary()}")  # noqa: T201
    print("\n".join(tally.misses[:20]))  # noqa: T201
    return tally


def test_heldout_has_enough_seals(heldout: Tally) -> None:
    assert heldout.seals >= 100


def test_seal_recall_at_least_98_percent(heldout: Tally) -> None:
    assert heldout.found / heldout.seals >= 0.98


def test_rim_text_exact_match_at_least_85_percent(heldout: Tally) -> None:
    assert heldout.exact / heldout.seals >= RIM_EXACT_TARGET


def test_rim_character_error_rate_at_most_5_percent(heldout: Tally) -> None:
    assert heldout.char_errors / heldout.chars <= 0.05


def test_at_most_one_false_seal_per_20_empty_pages(heldout: Tally) -> None:
    assert heldout.false_seals <= heldout.empty_pages / 20


def test_seals_dev_report(http: httpx.Client) -> None:
    """The real photographs: measured and printed (a development set, not a target)."""
    manifest = json.loads((SEALS_DEV / "manifest.json").read_text())
    groups: dict[str, list[float]] = {"real": [], "synthetic": [], "rendered": []}
    exact: dict[str, int] = dict.fromkeys(groups, 0)
    for item in manifest:
        group = dev_group(item["file"])
        seals = post(http, (SEALS_DEV / item["file"]).read_bytes())
        want = normalize(item["rim_text"] or "")
        got = min(
            (normalize(str(s["rim_text"])) for s in seals), key=lambda t: levenshtein(t, want), default=""
        )
        groups[group].append(levenshtein(got, want) / max(1, len(want)))
        exact[group] += got == want
        print(f"{item['file']}: {want} -> {got}")  # noqa: T201
    for name, rates in groups.items():
        print(f"seals-dev {name}: {len(rates)} images, exact {exact[name]}, mean CER {np.mean(rates):.3f}")  # noqa: T201
    assert sum(len(r) for r in groups.values()) == len(manifest)


@pytest.mark.parametrize(
    "data, status",
    [(b"", 400), (b"%PDF-1.4", 415), (b"\xff\xd8\xff\xe0\x00\x10JFIF", 422)],
)
def test_error_classes(http: httpx.Client, data: bytes, status: int) -> None:
    response = http.post("/v1/seal", files={"image": ("x", data)})
    assert response.status_code == status
    assert response.json()["error"]["status"] == status
