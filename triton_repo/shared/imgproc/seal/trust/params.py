"""The thresholds of trusting a seal's reading (`trust`): how a rim's score is calibrated, and
when an expected name is found, and how likely a found region is a seal. Fitted by `python -m
evaluation.seal.trust` on the real tuning parts (seals-dev's with its perturbations, and the
seal corpus's; never on a held-out part); the figures beside each field come from that command.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TrustParams:
    """The rim score's calibration and the expected names' threshold."""

    # A rim's score is the probability that it reads exactly: a logistic model of the share of
    # its group's sources that agree with it and the log of its length (`evidence.score_inputs`),
    # fitted on the real tuning parts: seals-dev's with its six perturbations and the seal
    # corpus's (304 rims, 225 exact). Left out one group at a time (a corpus repository, or a
    # seals-dev seal with its perturbations): log loss 0.463, and of the 101 rims scored 0.9 or
    # more 0.980 read exactly. Support and mean character probability as inputs made it worse
    # (on seals-dev alone: log loss 2.0 against 0.46).
    intercept: float = -2.202
    agreement_weight: float = 2.671
    length_weight: float = 1.012
    # A source agrees with a text when the text costs it at most this much against its own
    # best reading (a natural log: e^-1 = 0.37 of the likelihood).
    agree_cost: float = 1.0
    # An expected name is found in a seal whose frames support it this well (log, against their
    # own best reading over the frames the name takes: a character the recogniser saw at 1% of
    # what it read there costs 4.6, one it did not see at all about 11.5), or whose rim reads
    # it. Chosen on the real tuning parts so that 1% of names with one character changed reach
    # it: there, 0.011 of 1036 changed names, 0.869 of 259 true names and none of 1036 other
    # organisations' names.
    name_support: float = -9.75
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
    # found region a case (276, 209 real: seals, and red print, signs and posters on pages with
    # and without seals), ridge 1 (log loss left out by group 0.345; 0.1: 0.351, 10: 0.363).
    seal_weights: tuple[float, float, float, float, float, float, float, float] = (
        -1.254,
        0.147,
        0.411,
        1.562,
        -0.610,
        1.030,
        -1.741,
        -0.171,
    )
    # A region where nothing was read (no rim, inner line or code) is answered as a seal only
    # from this score: a red mark nobody can read is more often not a seal (on the tuning
    # parts, 18 regions were left out so).
    textless_seal_score: float = 0.5


DEFAULT_TRUST = TrustParams()
