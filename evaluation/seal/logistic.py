"""A logistic model fitted by Newton's method with a ridge, and its scores left out by group:
what the trust models (`evaluation.seal.trust`, `evaluation.seal.regions`) are fitted with."""

from __future__ import annotations

import numpy as np
from imgproc.arrays import Floats


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


def log_loss(scores: Floats, labels: Floats) -> float:
    """The mean negative log-likelihood of the labels under the scores."""
    return float(-np.mean(labels * np.log(scores + 1e-9) + (1 - labels) * np.log(1 - scores + 1e-9)))
