"""How likely a line read straight is exact: a seal's inner lines and a rectangular seal's main
text (its first line; round and oval seals' rims are scored on their frames, `evidence`).

The recogniser's confidence is the mean probability of the characters it read, and says too
much of short lines: a photocopy's two-line usage stamp read as '月' at 0.9998. A line's score
is a logistic model of the logit of that confidence, the log of the line's length and whether
it is a rectangle's main text (`line_inputs`), fitted by `python -m evaluation.seal.trust` on
the real tuning parts: every line answered on a found seal whose true lines are known, exact
or not. The weights (0, 1, 0, 0) give back the confidence as read.
"""

from __future__ import annotations

import math
from dataclasses import replace

from ..records import Line, SealReading
from .evidence import sigmoid
from .params import DEFAULT_TRUST, TrustParams

CLIP = 1e-4  # a confidence is taken within [CLIP, 1 - CLIP]: its logit stays finite


def line_inputs(text: str, confidence: float, main: bool) -> tuple[float, float, float]:
    """What a line's score is a logistic function of: the logit of its confidence, the log of
    its length (spaces aside), and whether it is a rectangular seal's main text."""
    p = min(max(confidence, CLIP), 1.0 - CLIP)
    length = sum(not char.isspace() for char in text)
    return math.log(p / (1.0 - p)), math.log(max(length, 1)), float(main)


def line_score(text: str, confidence: float, main: bool, params: TrustParams = DEFAULT_TRUST) -> float:
    """The probability that a line read with `confidence` reads exactly (`TrustParams.line_weights`)."""
    intercept, *weights = params.line_weights
    inputs = line_inputs(text, confidence, main)
    return sigmoid(intercept + sum(w * x for w, x in zip(weights, inputs, strict=True)))


def _scored(line: Line, params: TrustParams) -> Line:
    return line[0], line_score(line[0], line[1], False, params)


def calibrated(reading: SealReading, params: TrustParams = DEFAULT_TRUST) -> SealReading:
    """The answer with its inner lines' scores, and a rectangular seal's main text's, calibrated
    (a round or oval seal's rim score already is)."""
    inner = [_scored(line, params) for line in reading.inner]
    if reading.region.is_elliptic or not reading.rim_text.strip():
        return replace(reading, inner=inner)
    return replace(
        reading, inner=inner, rim_score=line_score(reading.rim_text, reading.rim_score, True, params)
    )
