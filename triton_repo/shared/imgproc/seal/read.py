"""Choosing among readings: the decisions between the recognisers' output and a seal's text.

Everything here is pure: the recognisers have already read the strips (see `pipeline`, which
calls them), and these functions pick and merge what they said.

- The rim: every candidate strip is read and the best `prior * confidence` wins
  (`best_index`); where that is unsure, the other recognisers read it too and the surest
  reading is kept with what the others saw as its alternatives (`with_other_readings`), for
  the word-list correction to choose among. Recognisers trained on different data fail on
  different glyphs.
- Characters a reading skipped (CTC's confidence does not count them, but rim characters are
  engraved at an even pitch, so a place where the pitch is missing lost one): the window
  between their neighbours is read alone (`dropped_windows`) and put in when it reads as just
  as many sure Chinese characters (`filled`).
- A rectangular seal's inside comes in two orientations; the first (nearer the page's own
  upright) is kept unless the other reads clearly better (`best_orientation`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

import numpy as np

from imgproc.text import Decoded
from imgproc.text.edit import aligned_pairs
from imgproc.text.lexicon import is_chinese
from imgproc.text.recognition import MIN_PITCH_CHARS, REC_HEIGHT, rec_width

Line = tuple[str, float]


@dataclass(frozen=True)
class ReadParams:
    """How readings are chosen and repaired."""

    # A rim read with less confidence than this by the first recogniser is read by the others.
    sure: float = 0.93
    alternatives: int = 10  # characters each recogniser offers per rim character
    # Two rim characters further apart than this many times the line's median pitch have lost
    # one between them; lines of fewer characters than `min_pitch_chars` have no pitch.
    pitch_gap: float = 1.6
    min_pitch_chars: int = MIN_PITCH_CHARS
    # Characters closer than this many recogniser steps apart (a dense rim) are read at too
    # coarse a step for a missing pitch to show: a pitch of 2 among pitches of 1 is rounding.
    min_pitch_steps: float = 2.5
    fill_width: float = 1.2  # a skipped character is re-read from a window this many pitches wide
    max_fill: int = 3  # at most this many characters are put in at one place
    fill_prob: float = 0.5  # each of them read at least this surely
    orientation_margin: float = 0.05  # how much better a rect seal's other way must read


DEFAULT_READ = ReadParams()


def best_index(readings: Sequence[Decoded], priors: Sequence[float]) -> int:
    """The reading with the best prior-weighted confidence (the first on a tie)."""
    return max(range(len(readings)), key=lambda i: (priors[i] * readings[i].score, -i))


def _add(options: dict[str, float], char: str, prob: float) -> None:
    options[char] = max(prob, options.get(char, 0.0))


def _ranked(options: list[dict[str, float]]) -> tuple[tuple[tuple[str, float], ...], ...]:
    return tuple(tuple(sorted(o.items(), key=lambda item: item[1], reverse=True)) for o in options)


def with_other_readings(best: Decoded, others: Sequence[Decoded]) -> Decoded:
    """`best` with what the other readings saw, aligned by edit distance: a character read in
    place of one of `best`'s joins that one's alternatives, one read where `best` has none
    (a character it skipped) joins the insertions of that gap. Unchanged when no reading has
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
                _add(gaps[i + 1], other.chars[k], other.probs[k])
    return replace(best, alternatives=_ranked(options), insertions=_ranked(gaps))


def surest(readings: Sequence[Decoded]) -> Decoded:
    """The surest of several readings of one image, with the others as its alternatives."""
    best = max(range(len(readings)), key=lambda i: readings[i].score)
    return with_other_readings(readings[best], [*readings[:best], *readings[best + 1 :]])


def _dropped_places(line: Decoded, params: ReadParams) -> tuple[list[int], float]:
    """Indices i where a character was skipped between characters i and i + 1, and the pitch."""
    pitch = line.pitch(params.min_pitch_chars)
    if pitch < params.min_pitch_steps:
        return [], pitch
    pitches = np.diff(np.asarray(line.steps, np.float64))
    return [int(i) for i in np.nonzero(pitches > params.pitch_gap * pitch)[0]], pitch


def dropped_characters(line: Decoded, params: ReadParams = DEFAULT_READ) -> int:
    """How many places of `line` lie more than `pitch_gap` times its median pitch apart."""
    return len(_dropped_places(line, params)[0])


def step_px(strip: np.ndarray, batch: Sequence[np.ndarray]) -> float:
    """Strip columns per recogniser step, for a strip read in `batch` (all padded to one width)."""
    return rec_width(batch) * strip.shape[0] / REC_HEIGHT


@dataclass(frozen=True)
class Window:
    """Where a reading skipped characters: after character `place`, `count` of them, and the
    strip window to read them from."""

    place: int
    count: int
    image: np.ndarray


def dropped_windows(
    line: Decoded, strip: np.ndarray, px: float, params: ReadParams = DEFAULT_READ
) -> list[Window]:
    """The windows of `strip` (read at `px` columns per step) where `line` skipped characters."""
    places, pitch = _dropped_places(line, params)
    if not places or px <= 0 or not line.length:
        return []
    per_step = px / line.length
    windows = []
    for i in places:
        gap = line.steps[i + 1] - line.steps[i]
        count = min(params.max_fill, max(1, round(gap / pitch) - 1))
        # A character emitted at step t was seen around strip column (t + 0.5) * per_step.
        centre = (line.steps[i] + line.steps[i + 1] + 1) / 2.0 * per_step
        half = (count + params.fill_width - 1.0) * pitch * per_step / 2.0
        windows.append(Window(i, count, strip[:, max(0, round(centre - half)) : round(centre + half)]))
    return windows


def _fills(read: Decoded, count: int, min_prob: float) -> bool:
    """Whether a re-read window says exactly `count` Chinese characters, each surely."""
    return len(read.chars) == count and all(
        is_chinese(char) and prob >= min_prob for char, prob in zip(read.chars, read.probs, strict=True)
    )


def filled(
    line: Decoded, windows: Sequence[Window], reads: Sequence[Decoded], params: ReadParams = DEFAULT_READ
) -> Decoded:
    """`line` with each window's reading put in where it reads as the characters that fit."""
    chars, probs, steps = list(line.chars), list(line.probs), list(line.steps)
    options, gaps = list(line.options()), list(line.gaps())
    for window, read in sorted(
        zip(windows, reads, strict=True), key=lambda pair: pair[0].place, reverse=True
    ):
        i, n = window.place, window.count
        if _fills(read, n, params.fill_prob):
            gap = (line.steps[i + 1] - line.steps[i]) / (n + 1)
            chars[i + 1 : i + 1] = read.chars
            probs[i + 1 : i + 1] = read.probs
            steps[i + 1 : i + 1] = [round(line.steps[i] + gap * (k + 1)) for k in range(n)]
            options[i + 1 : i + 1] = read.options()
            gaps[i + 1 : i + 2] = [()] * (n + 1)  # what another reading saw here is now read
    return Decoded(
        tuple(chars),
        tuple(probs),
        tuple(steps),
        line.length,
        tuple(options) if line.alternatives else (),
        tuple(gaps) if line.insertions else (),
    )


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
