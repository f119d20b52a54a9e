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
from dataclasses import replace

import numpy as np
from imgproc.arrays import Floats
from imgproc.seal.trust import TrustParams
from imgproc.seal.trust.region import kept, seal_inputs, seal_score

from evaluation.seal.cases import Cases, Region
from evaluation.seal.logistic import fit_logistic, left_out, log_loss, reliability_rows

RIDGES = (0.1, 1.0, 10.0)  # tried by leaving each group out; the one of least log loss is kept
REGION_HEADER = "| seal score | regions answered | real seals | share real |"
SealWeights = tuple[float, float, float, float, float, float, float, float]


def _inputs(regions: Sequence[Region]) -> Floats:
    return np.array([seal_inputs(region.seal.reading) for region in regions], np.float64)


def fit_regions(regions: Sequence[Region], say: Callable[[str], None]) -> SealWeights:
    """The seal score's weights (intercept first), with the ridge that leaves groups out best."""
    x, real = _inputs(regions), np.array([region.real for region in regions], np.float64)
    groups = [region.group for region in regions]
    losses = {ridge: log_loss(left_out(x, real, groups, ridge), real) for ridge in RIDGES}
    ridge = min(losses, key=losses.__getitem__)
    w = fit_logistic(x, real, ridge)
    say(f"regions: {len(regions)}, {int(real.sum())} real; each group left out, log loss by ridge {losses}")
    say(f"  seal_weights=({', '.join(f'{v:.3f}' for v in w)})  # ridge {ridge}")
    return (
        float(w[0]),
        float(w[1]),
        float(w[2]),
        float(w[3]),
        float(w[4]),
        float(w[5]),
        float(w[6]),
        float(w[7]),
    )


def region_report(cases: Cases, params: TrustParams) -> list[str]:
    """Markdown: the seal scores' reliability table and the pages without a seal."""
    rescored = [(replace(r.seal.reading, score=seal_score(r.seal.reading, params)), r) for r in cases.regions]
    answered = [(reading.score, r) for reading, r in rescored if kept(reading, params)]
    rows = reliability_rows([score for score, _ in answered], [r.real for _, r in answered], REGION_HEADER)
    empty = set(cases.empty_pages)
    on_empty = [score for score, r in answered if r.page in empty]
    with_any = len({r.page for _, r in answered if r.page in empty})
    highest = f"{max(on_empty):.3f}" if on_empty else "-"
    left = len(rescored) - len(answered)
    rows += [
        "",
        f"Pages without a seal: {with_any} of {len(empty)} answered with any seal; highest seal score"
        f" there {highest}. Regions left out as textless and unlikely seals: {left}.",
    ]
    return rows
