"""A logistic model fitted by Newton's method with a ridge, its scores left out by group, and
the reliability table its scores are judged by: what the trust models (`evaluation.seal.trust`,
`evaluation.seal.regions`) are fitted and reported with."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from imgproc.arrays import Floats

from evaluation.seal.scoring import wilson_interval

BANDS = (0.0, 0.5, 0.7, 0.9, 0.95, 1.0001)
RIDGES = (0.1, 1.0, 10.0)  # tried by leaving each group out; the one of least log loss is kept
SURE = 0.9  # the score a user leans on: its row carries its 95% interval
# What the API's descriptions say a score of 0.9 means: written with docs/seal/trust.md, from the
# part the targets are set on.
MEANINGS = Path("gateway/routers/seal_scores.json")
MEANINGS_PART = "corpus held-out"


def fit_logistic(features: Floats, labels: Floats, ridge: float = 1e-3) -> Floats:
    """Weights (intercept first) of a logistic model, by Newton's method with a small ridge."""
    x = np.hstack([np.ones((len(features), 1)), features])
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        gradient = x.T @ (labels - p) - ridge * w
        hessian = (x * (p * (1 - p))[:, None]).T @ x + ridge * np.eye(len(w))
        step = np.linalg.solve(hessian, gradient)
        w += step
        if np.abs(step).max() < 1e-8:
            break
    return w


def left_out(features: Floats, labels: Floats, groups: list[str], ridge: float) -> Floats:
    """Each case's score from a model fitted without its group: what the model says of cases
    like none it has seen."""
    names = np.array(groups)
    scores = np.zeros(len(labels))
    for group in set(groups):
        out = names == group
        w = fit_logistic(features[~out], labels[~out], ridge)
        scores[out] = 1.0 / (1.0 + np.exp(-(w[0] + features[out] @ w[1:])))
    return scores


def least_loss_ridge(features: Floats, labels: Floats, groups: list[str]) -> tuple[float, dict[float, float]]:
    """Of `RIDGES`, the one whose scores left out by group have the least log loss, and each
    one's log loss."""
    losses = {ridge: log_loss(left_out(features, labels, groups, ridge), labels) for ridge in RIDGES}
    return min(losses, key=losses.__getitem__), losses


def log_loss(scores: Floats, labels: Floats) -> float:
    """The mean negative log-likelihood of the labels under the scores."""
    return float(-np.mean(labels * np.log(scores + 1e-9) + (1 - labels) * np.log(1 - scores + 1e-9)))


@dataclass(frozen=True)
class Sure:
    """What a score of at least SURE means: of `total` cases, `count` scored that high, `good` of
    them were right, the share's 95% interval `low`-`high` (0-1 where none scored that high)."""

    count: int
    good: int
    total: int
    low: float
    high: float

    def json(self) -> dict[str, Any]:
        """As the gateway reads it (`gateway/routers/seal_scores.json`), the interval rounded."""
        return asdict(self) | {"low": round(self.low, 2), "high": round(self.high, 2)}


def sure_figure(scores: Sequence[float], hits: Sequence[bool]) -> Sure:
    """The cases scored at least SURE, how many of them were right, and the share's interval."""
    sure = np.array(scores, np.float64) >= SURE
    count, good = int(sure.sum()), int(np.array(hits, bool)[sure].sum())
    low, high = wilson_interval(good, count)
    return Sure(count, good, len(scores), low, high)


def reliability_rows(scores: Sequence[float], hits: Sequence[bool], header: str) -> list[str]:
    """Markdown rows: per score band, the cases there, the hits and their share; then the cases
    scored at least SURE, with the share's 95% interval (`header`: the table's header row)."""
    scored, hit = np.array(scores, np.float64), np.array(hits, bool)
    rows = [header, "|---|---|---|---|"]
    for low, top in zip(BANDS, BANDS[1:], strict=False):
        band = (scored >= low) & (scored < top)
        share = f"{hit[band].mean():.3f}" if band.any() else "-"
        rows.append(f"| {low:.2f}-{min(top, 1.0):.2f} | {band.sum()} | {hit[band].sum()} | {share} |")
    sure = sure_figure(scores, hits)
    rate = f"{sure.good / sure.count:.3f} (95% {sure.low:.2f}-{sure.high:.2f})" if sure.count else "-"
    rows.append(f"| **at least {SURE:.2f}** | {sure.count} of {sure.total} | {sure.good} | {rate} |")
    return rows
