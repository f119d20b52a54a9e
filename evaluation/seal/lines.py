"""The scores of lines read straight (`trust.lines`: inner lines, a rectangular seal's main
text, and codes), fitted and reported.

A found region that matches a true seal (`MATCH_IOU`) gives a case for every inner line its
answer holds, where the true seal's inner lines or codes are known (a line that is none of them
is not exact: a line the labellers did not both read counts against the score too), and, for a
rectangular seal with a known main text (its `rim_text` in the truth), one for its main text.
The score is a logistic model of `trust.lines.line_inputs`, its ridge chosen by leaving one
group (a corpus repository, a seals-dev page) out at a time; the report gives the reliability
table (score band, lines, share exact) of inner lines and of rectangles' main texts. Codes
are fitted and reported alike (`evaluation.seal.codes`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from imgproc.arrays import Floats
from imgproc.seal.trust import TrustParams
from imgproc.seal.trust.lines import line_inputs, line_score

from evaluation.seal.cases import Region
from evaluation.seal.dataset import TruthPage, TruthSeal, box_iou
from evaluation.seal.logistic import fit_logistic, least_loss_ridge, left_out, log_loss, reliability_rows
from evaluation.seal.scoring import ELLIPTIC, MATCH_IOU
from evaluation.text import normalize

LINE_HEADER = "| line score | lines | exact | share exact |"


@dataclass(frozen=True)
class LineCase:
    """One line answered on a found seal: its text, the confidence it was read with, whether it
    is a rectangle's main text, whether it is exact, and its group."""

    text: str
    confidence: float
    main: bool
    exact: bool
    group: str


def _truth(region: Region, page: TruthPage) -> TruthSeal | None:
    box = region.seal.reading.region.box
    return next((seal for seal in page.seals if box_iou(box, seal.box) >= MATCH_IOU), None)


def _cases(region: Region, truth: TruthSeal) -> list[LineCase]:
    reading = region.seal.reading
    cases = []
    known = {normalize(text) for text in (*truth.inner_texts, *truth.codes)}
    if known:
        cases += [
            LineCase(text, score, False, normalize(text) in known, region.group)
            for text, score in reading.inner
        ]
    main = reading.rim_text.strip()
    if truth.shape not in ELLIPTIC and truth.rim_text and not reading.region.is_elliptic and main:
        exact = normalize(reading.rim_text) == normalize(truth.rim_text)
        cases.append(LineCase(reading.rim_text, reading.rim_score, True, exact, region.group))
    return cases


def line_cases(regions: Sequence[Region], pages: Iterable[TruthPage]) -> list[LineCase]:
    """The line cases of the found regions (read before calibration) on `pages` (their truth)."""
    truth = {page.name: page for page in pages if page.seals}
    cases = []
    for region in regions:
        page = truth.get(region.page)
        seal = _truth(region, page) if page is not None else None
        if seal is not None:
            cases += _cases(region, seal)
    return cases


def _inputs(cases: Sequence[LineCase]) -> Floats:
    return np.array([line_inputs(c.text, c.confidence, c.main) for c in cases], np.float64).reshape(-1, 3)


def fit_score(
    name: str, x: Floats, exact: Floats, groups: list[str], raw: Floats, say: Callable[[str], None]
) -> tuple[float, ...]:
    """A score's weights (intercept first), with the ridge that leaves groups out best; the
    left-out log loss of each ridge and of the confidence as read said."""
    ridge, losses = least_loss_ridge(x, exact, groups)
    w = fit_logistic(x, exact, ridge)
    left = left_out(x, exact, groups, ridge)
    say(f"  each group left out, log loss by ridge {losses} (as read: {log_loss(raw, exact):.3f})")
    sure = left >= 0.9
    say(
        f"  {name}=({', '.join(f'{v:.3f}' for v in w)})  # ridge {ridge}; left out, scored 0.9 or"
        f" more {int(sure.sum())}, of them exact {exact[sure].mean() if sure.any() else float('nan'):.3f}"
    )
    return tuple(float(v) for v in w)


def fit_lines(cases: Sequence[LineCase], say: Callable[[str], None]) -> tuple[float, ...]:
    """The line score's weights (intercept first), with the ridge that leaves groups out best."""
    exact = np.array([c.exact for c in cases], np.float64)
    mains = sum(c.main for c in cases)
    say(f"lines: {len(cases)} ({mains} rectangles' main texts), {int(exact.sum())} exact")
    raw = np.array([c.confidence for c in cases])
    return fit_score("line_weights", _inputs(cases), exact, [c.group for c in cases], raw, say)


def line_scored(cases: Sequence[LineCase], params: TrustParams, main: bool) -> tuple[list[float], list[bool]]:
    """Each inner line's (`main`: rectangle's main text's) served score, and whether it is exact."""
    chosen = [c for c in cases if c.main == main]
    return [line_score(c.text, c.confidence, c.main, params) for c in chosen], [c.exact for c in chosen]


def line_report(cases: Sequence[LineCase], params: TrustParams) -> list[str]:
    """Markdown: the reliability tables of inner lines' and rectangles' main texts' scores."""
    rows: list[str] = []
    for title, main in (("inner lines", False), ("rectangular seals' main texts", True)):
        table = reliability_rows(*line_scored(cases, params, main), LINE_HEADER)
        rows += ["", f"{title.capitalize()}:", "", *table]
    return rows[1:]
