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

    # A rim's score is the probability that it reads exactly: a logistic model of the share of
    # its group's sources that agree with it and the log of its length (`evidence.score_inputs`),
    # fitted on the real tuning part and its six perturbations (169 rims, 136 exact). Its
    # support and mean character probability, tried as inputs too, made it worse: left out one
    # seal at a time (all its perturbations), the model with them had a log loss of 2.0 against
    # 0.46 without, and of the rims it scored 0.9 or more 0.886 read exactly against 0.986
    # (72 of 169 rims scored so).
    intercept: float = -2.281
    agreement_weight: float = 1.562
    length_weight: float = 1.353
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
    # A name whose support cannot come within this much of the threshold (by `evidence.bound`,
    # read off its characters' cheapest frames) is scored by that bound, under 5e-5, without
    # its Viterbi: the score of a 20-name request's three-seal page took 215 ms, most of it on
    # names that were not there (issue 40's budget: 50 ms a seal).
    name_skip: float = 10.0
    # A found region's score, the probability that it is a real seal: a logistic model of
    # `region.seal_inputs` (intercept first; inked share of the outline, rim score, log rim
    # length, inner lines, codes, rectangular, cut), fitted on the real tuning parts with every
    # found region a case (see `evaluation.seal.trust`). Zeros: every region scores 0.5.
    seal_weights: tuple[float, float, float, float, float, float, float, float] = (0.0,) * 8
    # A region where nothing was read (no rim, inner line or code) is answered as a seal only
    # from this score: a red mark nobody can read is more often not a seal.
    textless_seal_score: float = 0.5


DEFAULT_TRUST = TrustParams()
