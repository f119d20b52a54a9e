"""How well a seal's frames support a text: what a rim's score and a name's verdict rest on.

The rim's sources are every candidate strip as every recogniser read it (`RimSource`): their
per-frame probabilities. A text is spotted in each (`imgproc.text.ctc.spot_rotations`: its best
path over the frames it takes, against the best path of anything there, from any start on the
ring); its support is the best of them, and the sources of the reading's own group (its arc,
its way up) agree with it when it costs them little. A text read by the recognisers themselves
has support 0; one a repair made up (a standard text under an invoice's title) far less.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from imgproc.arrays import Floats, Ints
from imgproc.text.ctc import FLOOR, NEG_INF, Forms, excess, rotations_spotted, spot_parts

from ..records import RimEvidence, RimSource
from ..words import RIM_ENDINGS, STANDARD_RIMS, Words
from .params import DEFAULT_TRUST, TrustParams

LEAST_SUPPORT = math.log(FLOOR)  # a rim's support as an input to its score: no lower than this


@dataclass(frozen=True, eq=False)
class CharTable:
    """Every source's `excess` for a set of characters, read once for many texts (a request's
    expected names): per source float[T, C] and its blank's float[T], and each character's
    least cost over the frames, float[sources, C] (`bound`); the texts spotted so far, with the
    rotation each source reads them from and their costliest characters' costs."""

    columns: Mapping[str, int]
    chars: tuple[Floats, ...]
    blanks: tuple[Floats, ...]
    cheapest: Floats
    spotted: dict[str, Floats] = field(default_factory=dict)
    starts: dict[str, Ints] = field(default_factory=dict)
    costliest: dict[str, Floats] = field(default_factory=dict)

    def of(self, text: str) -> list[int]:
        return [self.columns[char] for char in text]


def char_table(
    sources: Sequence[RimSource], texts: Sequence[str], forms: Forms, sure: float | None = None
) -> CharTable:
    """The table of every character of `texts` in every source. With `sure`, a path that reads
    the blank over a character read at `sure` or more pays for leaving it out (`excess`)."""
    columns = {char: i for i, char in enumerate(dict.fromkeys(char for text in texts for char in text))}
    rows = [excess(source.frames, list(columns), forms, sure) for source in sources]
    cheapest = np.array(
        [c.max(axis=0) if len(c) else np.full(len(columns), NEG_INF) for c, _ in rows]
    ).reshape(len(sources), len(columns))
    return CharTable(columns, tuple(c for c, _ in rows), tuple(b for _, b in rows), cheapest)


def bound(table: CharTable, text: str) -> float:
    """At least the text's best `support` in any source: each of its characters takes a frame
    of its own, where it costs no less than at its cheapest frame, and every frame costs its
    path something or nothing (`excess` is at most 0)."""
    return float(table.cheapest[:, table.of(text)].sum(axis=1).max(initial=NEG_INF))


def table_support(table: CharTable, text: str) -> Floats:
    """The text's best spot, over its rotations, in each source of the table: float[sources]
    (and the rotation each source's best spot reads it from, kept for `costliest`)."""
    if text in table.spotted:
        return table.spotted[text]
    found = np.full(len(table.chars), NEG_INF)
    starts = np.zeros(len(table.chars), np.int64)
    by_length: dict[int, list[int]] = {}
    for i, chars in enumerate(table.chars):  # frames of one length go through the Viterbi together
        if len(chars) and text:
            by_length.setdefault(len(chars), []).append(i)
    columns = table.of(text)
    for indices in by_length.values():
        rows = [(table.chars[i][:, columns], table.blanks[i]) for i in indices]
        turned = rotations_spotted(rows, text)
        found[indices], starts[indices] = turned.max(axis=1), turned.argmax(axis=1)
    table.spotted[text] = found
    table.starts[text] = starts
    return found


def costliest(table: CharTable, text: str) -> tuple[Floats, Floats]:
    """The text's support in each source of the table (`table_support`) and, on that best spot,
    what its costliest character costs (its frames and the blanks before it): float[sources]
    each (0 where the source has no frames)."""
    if text in table.costliest:
        return table.spotted[text], table.costliest[text]
    totals = table_support(table, text)
    worst = np.zeros(len(totals))
    columns = np.array(table.of(text))
    for i, chars in enumerate(table.chars):
        if len(chars) and totals[i] > NEG_INF:
            start = int(table.starts[text][i])  # the ring's text read from its character `start`
            order = np.roll(np.arange(len(text)), -start)
            turned = text[start:] + text[:start]
            worst[i] = spot_parts([(chars[:, columns[order]], table.blanks[i])], turned)[1][0].min()
    table.costliest[text] = worst
    return totals, worst


def worst_weighted(table: CharTable, text: str, weight: float) -> Floats:
    """The text's support in each source of the table with its costliest character counted
    `weight` times (float[sources]; `costliest`). A name with one character changed costs
    nearly all its support at that character, which no recogniser saw; a true name read
    faintly or over print costs a little at several: at equal support, the first is less
    likely the seal's. At `weight` 1 it is `table_support`; never more than it (a cost is at
    most 0), so `bound` still bounds it."""
    if weight == 1.0 or not text:
        return table_support(table, text)
    totals, worst = costliest(table, text)
    return totals + (weight - 1.0) * worst


def support(text: str, sources: Sequence[RimSource], forms: Forms, sure: float | None = None) -> Floats:
    """The text's best spot, over its rotations, in each source: float[len(sources)] (`sure`:
    as `char_table`'s)."""
    return table_support(char_table(sources, [text], forms, sure), text)


def rim_evidence(
    text: str,
    confidence: float,
    sources: Sequence[RimSource],
    group: int,
    words: Words,
    params: TrustParams = DEFAULT_TRUST,
) -> RimEvidence:
    """The evidence for a rim read as `text` (normalized) with `confidence`, from its sources."""
    named, standard, worded = text.endswith(RIM_ENDINGS), text in STANDARD_RIMS, words.word_share(text)
    if not text or not sources:
        return RimEvidence(NEG_INF, 0.0, confidence, len(text), named, standard, worded)
    spotted = support(text, sources, words.forms)
    own = spotted[[source.group == group for source in sources]]
    agreement = float(np.mean(own >= -params.agree_cost)) if own.size else 0.0
    return RimEvidence(float(spotted.max()), agreement, confidence, len(text), named, standard, worded)


def sigmoid(value: float) -> float:
    """1 / (1 + e^-value), without overflow."""
    if value >= 0:
        return float(1.0 / (1.0 + np.exp(-value)))
    odds = float(np.exp(value))
    return odds / (1.0 + odds)


def score_inputs(evidence: RimEvidence) -> tuple[float, ...]:
    """What the rim's score is a logistic function of: the share of its sources that agree,
    the log of its length (a two- or three-character rim is most often a longer one with
    characters lost at its ends), whether it ends as an organisation's name does (a rim read
    from inside its name, or past its end, does not: 华大 of 清华大学), whether it is a standard
    rim (restored where the invoice's title hid it: its frames agree little with a text they
    were not read as, and it is nearly always right), the share of its characters that
    dictionary words cover (a misread name breaks its words), and its support, taken no lower
    than a character no recogniser saw (`ctc.FLOOR`; a text the frames read costs nothing)."""
    return (
        evidence.agreement,
        float(np.log(max(evidence.length, 1))),
        float(evidence.named),
        float(evidence.standard),
        evidence.worded,
        max(evidence.support, LEAST_SUPPORT),
    )


def rim_score(evidence: RimEvidence, params: TrustParams = DEFAULT_TRUST) -> float:
    """The probability that a rim reads exactly, from its evidence (a logistic model fitted on
    the real tuning part: `TrustParams.rim_weights`)."""
    intercept, *weights = params.rim_weights
    inputs = score_inputs(evidence)
    return sigmoid(intercept + sum(w * x for w, x in zip(weights, inputs, strict=True)))
