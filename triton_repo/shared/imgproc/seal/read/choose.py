"""Choosing among readings: which candidate's reading wins, and what the others saw.

Every candidate strip of the rim is read and the best `prior * confidence` wins
(`best_in_pool`: a reading that skipped much of what the others read counts the skipped
characters as unsure); the others' characters become its alternatives (`with_other_readings`),
for repair to choose among. A rectangular seal's inside comes in two orientations; the first
(nearer the page's own upright) is kept unless the other reads clearly better
(`best_orientation`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise

import numpy as np

from imgproc.text import Decoded
from imgproc.text.edit import aligned_pairs
from imgproc.text.recognition import Alternative, merged_alternatives

from ..records import Line
from .params import DEFAULT_READ, ReadParams


def best_index(readings: Sequence[Decoded], priors: Sequence[float]) -> int:
    """The reading with the best prior-weighted confidence (the first on a tie)."""
    return max(range(len(readings)), key=lambda i: (priors[i] * readings[i].score, -i))


def counted_score(line: Decoded, reference: float) -> float:
    """`line`'s confidence with its probabilities spread over at least `reference` characters.

    CTC's confidence is the mean over the characters it emitted: a recogniser that skips
    every character it is unsure of (有公司 of 扬州博远通讯设备集团有限公司, under print) reads
    surer than one that reads them all. Against what the other readings of the same text
    found (`reference`), what it skipped counts as read with no confidence.
    """
    return float(sum(line.probs)) / max(len(line.probs), reference, 1.0)


def counted_scores(
    lines: Sequence[Decoded], groups: Sequence[int], params: ReadParams = DEFAULT_READ
) -> list[float]:
    """Each reading's `counted_score` against `counted_share` of the median length of its
    group's readings (the readings of one arc, by every recogniser that read it)."""
    lengths: dict[int, list[int]] = {}
    for line, group in zip(lines, groups, strict=True):
        lengths.setdefault(group, []).append(len(line.chars))
    medians = {group: params.counted_share * float(np.median(counts)) for group, counts in lengths.items()}
    return [counted_score(line, medians[group]) for line, group in zip(lines, groups, strict=True)]


def best_in_pool(
    lines: Sequence[Decoded],
    priors: Sequence[float],
    groups: Sequence[int],
    params: ReadParams = DEFAULT_READ,
) -> tuple[int, float]:
    """The reading with the best prior-weighted `counted_scores` (the first on a tie), and its
    counted score (unweighted: how sure the reading is)."""
    scores = counted_scores(lines, groups, params)
    best = max(range(len(lines)), key=lambda i: (priors[i] * scores[i], -i))
    return best, scores[best]


def _add(options: dict[str, float], char: str, prob: float) -> None:
    options[char] = max(prob, options.get(char, 0.0))


def _ranked(options: list[dict[str, float]]) -> tuple[tuple[Alternative, ...], ...]:
    return tuple(merged_alternatives(tuple(o.items())) for o in options)


def with_other_readings(best: Decoded, others: Sequence[Decoded]) -> Decoded:
    """`best` with what the other readings saw, aligned by edit distance: a character read in
    place of one of `best`'s joins that one's alternatives, one read where `best` has none
    (a character it skipped) joins the insertions of that gap with its own alternatives (乌 of
    义乌, read as 岛 there: the word list may still choose it). Unchanged when no reading has
    alternatives (the recognisers were not asked for them)."""
    if not best.alternatives and not any(other.alternatives for other in others):
        return best
    options = [dict(alternatives) for alternatives in best.options()]
    gaps: list[dict[str, float]] = [{} for _ in range(len(best.chars) + 1)]
    for other in others:
        pairs = aligned_pairs(best.chars, other.chars)
        for i, j in pairs:
            _add(options[i], other.chars[j], other.probs[j])
        # A character of `other` between aligned pairs (i, j) and (i', j') lies in gap i + 1.
        bounds = [(-1, -1), *pairs, (len(best.chars), len(other.chars))]
        for (i, j), (_, next_j) in pairwise(bounds):
            for k in range(j + 1, next_j):
                for char, prob in other.options()[k]:
                    _add(gaps[i + 1], char, prob)
    return replace(best, alternatives=_ranked(options), insertions=_ranked(gaps))


def _mean_score(lines: list[Line]) -> float:
    return float(np.mean([score for _, score in lines])) if lines else 0.0


def best_orientation(
    readings: list[list[Line]], margin: float = DEFAULT_READ.orientation_margin
) -> list[Line]:
    """The first reading, unless a later one has a mean score over `margin` higher."""
    best: list[Line] = readings[0] if readings else []
    for lines in readings[1:]:
        if _mean_score(lines) > _mean_score(best) + margin:
            best = lines
    return best
