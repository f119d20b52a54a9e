"""How likely a line read straight is exact: a seal's inner lines, a rectangular seal's main
text (its first line; round and oval seals' rims are scored on their frames, `evidence`) and
its codes.

The recogniser's confidence is the mean probability of the characters it read, and says too
much of short lines: a photocopy's two-line usage stamp read as '月' at 0.9998. A line's score
is a logistic model of the logit of that confidence, the log of the line's length and whether
it is a rectangle's main text (`line_inputs`), fitted by `python -m evaluation.seal.trust` on
the real tuning parts: every line answered on a found seal whose true lines are known, exact
or not. The weights (0, 1, 0, 0) give back the confidence as read. A code's score is a
logistic model of the logit of its confidence and what its check characters say
(`code_inputs`), fitted on the codes answered there.
"""

from __future__ import annotations

import math
from dataclasses import replace

from ..codes import has_checks, passes_checks
from ..records import Line, SealReading
from .evidence import sigmoid
from .params import DEFAULT_TRUST, TrustParams

CLIP = 1e-4  # a confidence is taken within [CLIP, 1 - CLIP]: its logit stays finite


def _logit(confidence: float) -> float:
    p = min(max(confidence, CLIP), 1.0 - CLIP)
    return math.log(p / (1.0 - p))


def line_inputs(text: str, confidence: float, main: bool) -> tuple[float, float, float]:
    """What a line's score is a logistic function of: the logit of its confidence, the log of
    its length (spaces aside), and whether it is a rectangular seal's main text."""
    length = sum(not char.isspace() for char in text)
    return _logit(confidence), math.log(max(length, 1)), float(main)


def checks_sign(code: str) -> float:
    """What a code's check characters say: 1 where it passes them (as read, or put right by
    them in repair), -1 where it is of a kind that has them and fails, 0 where it has none (a
    13-digit seal code, a longer tax number)."""
    if passes_checks(code):
        return 1.0
    return -1.0 if has_checks(code) else 0.0


def code_inputs(code: str, confidence: float) -> tuple[float, float]:
    """What a code's score is a logistic function of: the logit of its confidence and what its
    check characters say (`checks_sign`). Its length as well told nothing more on the tuning
    parts (log loss left out by group 0.135 against 0.134 without)."""
    return _logit(confidence), checks_sign(code)


def _logistic(weights: tuple[float, ...], inputs: tuple[float, ...]) -> float:
    intercept, *slopes = weights
    return sigmoid(intercept + sum(w * x for w, x in zip(slopes, inputs, strict=True)))


def line_score(text: str, confidence: float, main: bool, params: TrustParams = DEFAULT_TRUST) -> float:
    """The probability that a line read with `confidence` reads exactly (`TrustParams.line_weights`)."""
    return _logistic(params.line_weights, line_inputs(text, confidence, main))


def code_score(code: str, confidence: float, params: TrustParams = DEFAULT_TRUST) -> float:
    """The probability that a code read with `confidence` reads exactly (`TrustParams.code_weights`)."""
    return _logistic(params.code_weights, code_inputs(code, confidence))


def _scored(line: Line, params: TrustParams) -> Line:
    return line[0], line_score(line[0], line[1], False, params)


def calibrated(reading: SealReading, params: TrustParams = DEFAULT_TRUST) -> SealReading:
    """The answer with its inner lines' and codes' scores, and a rectangular seal's main
    text's, calibrated (a round or oval seal's rim score already is)."""
    inner = [_scored(line, params) for line in reading.inner]
    codes = [(code, code_score(code, confidence, params)) for code, confidence in reading.codes]
    if reading.region.is_elliptic or not reading.rim_text.strip():
        return replace(reading, inner=inner, codes=codes)
    main = line_score(reading.rim_text, reading.rim_score, True, params)
    return replace(reading, inner=inner, codes=codes, rim_score=main)
