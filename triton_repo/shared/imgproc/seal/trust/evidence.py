"""How well a seal's frames support a text: what a rim's score and a name's verdict rest on.

The rim's sources are every candidate strip as every recogniser read it (`RimSource`): their
per-frame probabilities. A text is spotted in each (`imgproc.text.ctc.spot_rotations`: its best
path over the frames it takes, against the best path of anything there, from any start on the
ring); its support is the best of them, and the sources of the reading's own group (its arc,
its way up) agree with it when it costs them little. A text read by the recognisers themselves
has support 0; one a repair made up (a standard text under an invoice's title) far less.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from imgproc.arrays import Floats
from imgproc.text.ctc import NEG_INF, Forms, spot_rotations

from ..records import RimEvidence, RimSource
from .params import DEFAULT_TRUST, TrustParams


def support(text: str, sources: Sequence[RimSource], forms: Forms) -> Floats:
    """The text's best spot, over its rotations, in each source: float[len(sources)]."""
    found = np.full(len(sources), NEG_INF)
    by_length: dict[int, list[int]] = {}
    for i, source in enumerate(sources):  # frames of one length go through the Viterbi together
        by_length.setdefault(source.frames.length, []).append(i)
    for indices in by_length.values():
        spotted = spot_rotations([sources[i].frames for i in indices], text, forms)
        found[indices] = spotted.max(axis=1)
    return found


def rim_evidence(
    text: str,
    confidence: float,
    sources: Sequence[RimSource],
    group: int,
    forms: Forms,
    params: TrustParams = DEFAULT_TRUST,
) -> RimEvidence:
    """The evidence for a rim read as `text` (normalized) with `confidence`, from its sources."""
    if not text or not sources:
        return RimEvidence(NEG_INF, 0.0, confidence, len(text))
    spotted = support(text, sources, forms)
    own = spotted[[source.group == group for source in sources]]
    agreement = float(np.mean(own >= -params.agree_cost)) if own.size else 0.0
    return RimEvidence(float(spotted.max()), agreement, confidence, len(text))


def sigmoid(value: float) -> float:
    """1 / (1 + e^-value), without overflow."""
    if value >= 0:
        return float(1.0 / (1.0 + np.exp(-value)))
    odds = float(np.exp(value))
    return odds / (1.0 + odds)


def score_inputs(evidence: RimEvidence) -> tuple[float, float]:
    """What the rim's score is a logistic function of: the share of its sources that agree,
    and the log of its length (a two- or three-character rim is most often a longer one with
    characters lost at its ends)."""
    return evidence.agreement, float(np.log(max(evidence.length, 1)))


def rim_score(evidence: RimEvidence, params: TrustParams = DEFAULT_TRUST) -> float:
    """The probability that a rim reads exactly, from its evidence (a logistic model fitted on
    the real tuning part: `TrustParams`)."""
    agreement, log_length = score_inputs(evidence)
    return sigmoid(params.intercept + params.agreement_weight * agreement + params.length_weight * log_length)
