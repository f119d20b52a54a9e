"""How likely a found region is a real seal at all (`SealReading.score`).

Red things that are not seals (a shop sign, a poster's title, a logo, a red date) can pass the
finding stages. What was read in a region says much of what it is: a real seal's outline
carries ink all round, and its rim reads as a name with a calibrated score, often with an inner
line or a code. The score is a logistic model of those (`seal_inputs`), fitted by `python -m
evaluation.seal.trust` on the real tuning parts, every found region a case: real where it
overlaps a labelled seal, false elsewhere (pages without a seal, red print, signs and posters).
"""

from __future__ import annotations

import math

from ..records import SealReading
from .evidence import sigmoid
from .params import DEFAULT_TRUST, TrustParams


def seal_inputs(reading: SealReading) -> tuple[float, ...]:
    """The region's evidence of being a seal: its outline's inked share, its rim's score (0
    without a rim text), the log of its rim's length, whether it has inner lines, whether it has
    codes, whether it is rectangular, and whether it leaves the image."""
    text = reading.rim_text.strip()
    return (
        reading.region.border_coverage,
        reading.rim_score if text else 0.0,
        math.log1p(len(text)),
        float(bool(reading.inner)),
        float(bool(reading.codes)),
        float(not reading.region.is_elliptic),
        float(reading.region.cut),
    )


def seal_score(reading: SealReading, params: TrustParams = DEFAULT_TRUST) -> float:
    """The probability that the region is a real seal (`TrustParams.seal_weights`)."""
    intercept, *weights = params.seal_weights
    inputs = seal_inputs(reading)
    return sigmoid(intercept + sum(w * x for w, x in zip(weights, inputs, strict=True)))


def has_text(reading: SealReading) -> bool:
    """Whether anything was read in the region: a rim, an inner line or a code."""
    return bool(reading.rim_text.strip() or reading.inner or reading.codes)


def kept(reading: SealReading, params: TrustParams = DEFAULT_TRUST) -> bool:
    """A region is answered as a seal unless nothing was read in it and it scores under
    `TrustParams.textless_seal_score` (a red mark, not a seal anyone can use)."""
    return has_text(reading) or reading.score >= params.textless_seal_score
