"""The seal score (`SealReading.score`: is a found region a real seal?), fitted and reported.

Every region the finder proposes on the real tuning parts is a case: real where it overlaps a
labelled seal (or a mark to ignore), false elsewhere, on pages with seals, on the same pages
with their seals painted out, and on the corpus's pages without any seal (signs, posters, red
titles, emblems). A logistic model of `trust.region.seal_inputs` is fitted there with a ridge
chosen by leaving one group (a corpus repository, a seals-dev page) out at a time; the report
gives the reliability table (score band, regions, share real) and what pages without a seal
are answered with: how many have any seal at all, and the highest score among them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
from imgproc.arrays import Floats
from imgproc.seal.trust import DEFAULT_TRUST, TrustParams
from imgproc.seal.trust.region import has_text, kept, seal_inputs, seal_score

from evaluation.seal.cases import Cases, Region
from evaluation.seal.dataset import BLANKED
from evaluation.seal.logistic import RIDGES, fit_logistic, left_out, log_loss, reliability_rows

MIN_SCORES = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)  # tried as the least score of a region with text
REAL_DROPPED = 0.01  # of the real regions (scored left out) at most this share may be left out
TEXTLESS = DEFAULT_TRUST.textless_seal_score
SURE_SEAL = 0.5  # no region on a page without a seal should score this high (issue 48)
REGION_HEADER = "| seal score | regions answered | real seals | share real |"


def _inputs(regions: Sequence[Region]) -> Floats:
    return np.array([seal_inputs(region.seal.reading) for region in regions], np.float64)


@dataclass(frozen=True)
class RegionFit:
    """The seal score's weights (intercept first) and the least score a region where something
    was read is answered from (`TrustParams.min_seal_score`)."""

    weights: tuple[float, ...]
    min_seal_score: float


def fit_regions(regions: Sequence[Region], empty: Sequence[str], say: Callable[[str], None]) -> RegionFit:
    """The seal score's weights, with the ridge that leaves groups out best, and the highest of
    `MIN_SCORES` that leaves out at most `REAL_DROPPED` of the real regions (scored left out)."""
    x, real = _inputs(regions), np.array([region.real for region in regions], np.float64)
    groups = [region.group for region in regions]
    scored = {ridge: left_out(x, real, groups, ridge) for ridge in RIDGES}
    losses = {ridge: round(log_loss(scores, real), 3) for ridge, scores in scored.items()}
    ridge = min(losses, key=losses.__getitem__)
    w = fit_logistic(x, real, ridge)
    say(f"regions: {len(regions)}, {int(real.sum())} real; each group left out, log loss by ridge {losses}")
    say(f"  seal_weights=({', '.join(f'{v:.3f}' for v in w)})  # ridge {ridge}")
    textless = np.array([not has_text(region.seal.reading) for region in regions])
    on_empty = np.array([region.page in set(empty) for region in regions])
    chosen = 0.0
    for least in MIN_SCORES:
        out = (scored[ridge] < least) | (textless & (scored[ridge] < TEXTLESS))
        dropped = int((out & (real > 0)).sum())
        pages = len({regions[i].page for i in np.flatnonzero(~out & on_empty)})
        say(f"  min_seal_score {least}: real regions left out {dropped}, empty pages answered {pages}")
        if dropped <= REAL_DROPPED * real.sum():
            chosen = least
    return RegionFit(tuple(float(v) for v in w), chosen)


def _answered(cases: Cases, params: TrustParams) -> list[tuple[float, Region]]:
    """Each region answered (not left out as an unlikely seal) with its served seal score."""
    rescored = [(replace(r.seal.reading, score=seal_score(r.seal.reading, params)), r) for r in cases.regions]
    return [(reading.score, r) for reading, r in rescored if kept(reading, params)]


def region_scored(cases: Cases, params: TrustParams) -> tuple[list[float], list[bool]]:
    """Each answered region's served seal score, and whether it is a real seal."""
    answered = _answered(cases, params)
    return [score for score, _ in answered], [r.real for _, r in answered]


def region_report(cases: Cases, params: TrustParams) -> list[str]:
    """Markdown: the seal scores' reliability table and the pages without a seal."""
    answered = _answered(cases, params)
    rows = reliability_rows(*region_scored(cases, params), REGION_HEADER)
    empty = set(cases.empty_pages)
    on_empty = [score for score, r in answered if r.page in empty]
    with_any = len({r.page for _, r in answered if r.page in empty})
    highest = f"{max(on_empty):.3f}" if on_empty else "-"
    left = len(cases.regions) - len(answered)
    sure = sum(score >= SURE_SEAL for score in on_empty)
    real_empty = {page for page in empty if not page.endswith(BLANKED)}  # not painted out
    real_any = len({r.page for _, r in answered if r.page in real_empty})
    real_sure = sum(score >= SURE_SEAL for score, r in answered if r.page in real_empty)
    painted = len(empty) - len(real_empty)
    rows += [
        "",
        f"Pages without a seal: {with_any} of {len(empty)} answered with any seal; highest seal score"
        f" there {highest}, {sure} of {len(on_empty)} regions there at {SURE_SEAL} or more. Regions left"
        f" out as unlikely seals: {left}. Of those pages, real pages without a seal: {real_any} of"
        f" {len(real_empty)} answered with any seal, {real_sure} regions there at {SURE_SEAL} or more;"
        f" pages with their seals painted out (a page left"
        f" without colour is searched in its toner): {with_any - real_any} of {painted}.",
    ]
    return rows
