"""The thresholds of trusting a seal's reading (`trust`): how a rim's score is calibrated, and
when an expected name is found. Fitted by `python -m evaluation.seal.trust` on the real tuning
part and its perturbations (never on the held-out part); the figures beside each field come
from that command.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TrustParams:
    """The rim score's calibration and the expected names' threshold."""

    # A rim's score is the probability that it reads exactly, from a logistic model of three
    # features of its evidence (`RimEvidence`): the intercept, then the weights of its support
    # (log), the share of its group's sources that agree with it, and the mean probability of
    # its characters. Fitted on the real tuning part and its six perturbations (169 rims, 136
    # exact): of the rims scored 0.9 or more there, 62 of 66 read exactly (0.939).
    intercept: float = -3.158
    support_weight: float = -0.067
    agreement_weight: float = 1.923
    confidence_weight: float = 4.066
    # A text none of whose characters a source saw (a standard text restored under print) would
    # have a support in the hundreds; it counts as this, no lower.
    support_floor: float = -16.0
    # A source agrees with a text when the text costs it at most this much against its own
    # best reading (a natural log: e^-1 = 0.37 of the likelihood).
    agree_cost: float = 1.0
    # An expected name is found in a seal whose frames support it this well (log, against their
    # own best reading over the frames the name takes: a character the recogniser saw at 1% of
    # what it read there costs 4.6, one it did not see at all about 11.5), or whose rim reads
    # it. Chosen on the tuning part so that 1% of names with one character changed reach it:
    # there, 0.013 of 528 changed names, 0.886 of 132 true names and none of 528 other
    # organisations' names.
    name_support: float = -9.83
    # A name's score: its support mapped to (0, 1) as 1 / (1 + exp(-(support - name_support) *
    # name_slope)): a name at the threshold scores 0.5, one a character cheaper 0.73.
    name_slope: float = 1.0
    found_score: float = 0.5  # found at this score or more: at the threshold


DEFAULT_TRUST = TrustParams()
