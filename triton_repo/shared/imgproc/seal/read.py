"""Choosing among readings: the decisions between the recognisers' output and a seal's text.

Everything here is pure: the recognisers have already read the strips (see `pipeline`, which
calls them), and these functions pick and merge what they said.

- The rim: every candidate strip is read and the best `prior * confidence` wins
  (`best_in_pool`: a reading that skipped much of what the others read counts the skipped
  characters as unsure); where that is unsure, the other recognisers read it too and the surest
  reading is kept with what the others saw as its alternatives (`with_other_readings`), for
  the word-list correction to choose among. Recognisers trained on different data fail on
  different glyphs.
- Characters a reading skipped (CTC's confidence does not count them, but rim characters are
  engraved at an even pitch, so a place where the pitch is missing lost one): the window
  between their neighbours is read alone (`dropped_windows`) and put in when it reads as just
  as many sure Chinese characters (`filled`). The rim's end characters have no neighbour on
  one side, so a pitch beyond each end is read from the ink image too (`end_windows`), and
  from a strip unwrapped on past the ends, a window over the end characters and beyond them
  (`anchored_windows`: a character alone at the edge of a window reads as anything). One read
  there too unsurely to be put in is left to the word list, which puts it in only where it
  completes a word with the rim's end (`filled`).
- A code (a tax ID, a bottom-arc number) is read again from its image stretched along the line
  and taken where that only repeats characters (`restored_repeats`): CTC merges repeated
  digits that fall in one of its steps.
- A rectangular seal's inside comes in two orientations; the first (nearer the page's own
  upright) is kept unless the other reads clearly better (`best_orientation`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import groupby, pairwise

import cv2
import numpy as np

from imgproc.text import Decoded
from imgproc.text.edit import aligned_pairs
from imgproc.text.lexicon import is_chinese
from imgproc.text.recognition import MIN_PITCH_CHARS, REC_HEIGHT, Alternative, merged_alternatives, rec_width

Line = tuple[str, float]
INK_LEVEL = 128  # a strip pixel darker than this is ink (strips are stretched: paper white)


@dataclass(frozen=True)
class ReadParams:
    """How readings are chosen and repaired."""

    # A rim read with less confidence than this by the first recogniser is read by the others.
    # Tuning part, its perturbations and seeds 3000/7000/8000: 0.97 reads 4 rims more than 0.93
    # (3 of them real: print read along, 役 and 检 under JPEG) and none less; 0.99 as 0.97.
    sure: float = 0.97
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
    fill_prob: float = 0.5  # each of them read (or seen there by another reading) this surely
    # A character one pitch past either end of the rim is put in when read this surely from
    # the ink image (print removed) alone (`end_windows`). Tuning part, its perturbations and
    # seeds 3000/7000/8000: 0.8 puts in none; 0.4 and 0.25 alike one more right (南 of 南宁,
    # crossed by print, read at 0.47), and nothing wrong.
    end_prob: float = 0.4
    end_ink: float = 0.02  # ...from a window with at least this share of ink (darker than INK_LEVEL)
    # A character past either end is put in, too, where a window reaching that far beyond it
    # and over the rim's `anchor_chars` end characters reads them all, the new one this surely
    # (`anchored_windows`): alone, a squeezed end character reads as nothing (石 of 石家庄 as é).
    # Tuning part, its perturbations and seeds 3000/7000/8000/17000: 0.3 reads the same rims
    # exactly as 0.5, and puts a wrong 三 before one rim already read wrong.
    anchor_chars: int = 2
    anchored_reach: float = 1.6  # ...in pitches past the end character
    anchored_prob: float = 0.5
    orientation_margin: float = 0.05  # how much better a rect seal's other way must read
    # A line read as a code is read again this much wider, for repeated digits CTC merged
    # (`restored_repeats`). Real tuning codes: 1.5 and 2.0 alike restore 32011119880908361X01.
    code_stretch: float = 1.5
    # A rim reading shorter than this share of the median of its arc's readings is scored as
    # if it had read that many, the skipped ones with no confidence (`counted_score`): print
    # read along makes some readings longer, and a reading without it must not lose for that.
    counted_share: float = 0.75


DEFAULT_READ = ReadParams()


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
    """Where a reading skipped characters: after character `place` (-1: before the first),
    `count` of them, the strip window to read them from, the steps they are put in at, and
    how surely each must be read."""

    place: int
    count: int
    image: np.ndarray
    steps: tuple[int, ...]
    min_prob: float
    # The line's own characters the window also shows, which its reading must show too: after
    # the new ones where they come before the first character (place -1), else before them.
    anchor: tuple[str, ...] = ()


def _cut(strip: np.ndarray, centre: float, half: float) -> np.ndarray:
    return strip[:, max(0, round(centre - half)) : round(centre + half)]


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
        steps = tuple(round(line.steps[i] + gap / (count + 1) * (k + 1)) for k in range(count))
        windows.append(Window(i, count, _cut(strip, centre, half), steps, params.fill_prob))
    return windows


def end_windows(
    line: Decoded, strip: np.ndarray, px: float, params: ReadParams = DEFAULT_READ
) -> list[Window]:
    """One pitch before the first character and after the last, where the strip goes on that
    far and has ink (a blank window is not sent to be read): the rim's end characters are the
    ones print or a signature crosses most (the ring's gap is where the page's text runs), and
    there a reading has no neighbour to miss."""
    pitch = line.pitch(params.min_pitch_chars)
    if pitch < params.min_pitch_steps or px <= 0 or not line.length:
        return []
    per_step = px / line.length
    half = params.fill_width * pitch * per_step / 2.0
    windows = []
    for place, step in ((-1, line.steps[0] - pitch), (len(line.chars) - 1, line.steps[-1] + pitch)):
        centre = (step + 0.5) * per_step
        if centre - half >= 0 and centre + half <= strip.shape[1]:
            image = _cut(strip, centre, half)
            if _ink_share(image) >= params.end_ink:
                windows.append(Window(place, 1, image, (round(step),), params.end_prob))
    return windows


def _ink_share(image: np.ndarray) -> float:
    """The share of a strip's pixels that are ink: darker than INK_LEVEL (in any channel)."""
    dark = image.min(axis=2) if image.ndim == 3 else image
    return float(np.mean(dark < INK_LEVEL)) if dark.size else 0.0


def anchored_windows(
    line: Decoded, strip: np.ndarray, px: float, params: ReadParams = DEFAULT_READ, offset: float = 0.0
) -> list[Window]:
    """Windows from `anchored_reach` pitches past each end over the `anchor_chars` characters
    at that end, where the strip goes on that far and has ink past the end character (paper
    there is not sent to be read). `line` was read at `px` columns per step from a strip whose
    first column is `strip`'s column `offset` (`Strip.past_ends`)."""
    pitch, count = line.pitch(params.min_pitch_chars), params.anchor_chars
    if pitch < params.min_pitch_steps or px <= 0 or not line.length or len(line.chars) <= count:
        return []
    per_step = px / line.length
    reach, half = params.anchored_reach * pitch, pitch / 2.0

    def column(step: float) -> int:
        return round((step + 0.5) * per_step + offset)

    def inked(start: int, stop: int) -> bool:
        return _ink_share(strip[:, start:stop]) >= params.end_ink

    windows = []
    first, last = column(line.steps[0] - reach), column(line.steps[count - 1] + half)
    if first >= 0 and inked(first, column(line.steps[0] - half)):
        steps = (round(line.steps[0] - pitch),)
        windows.append(Window(-1, 1, strip[:, first:last], steps, params.anchored_prob, line.chars[:count]))
    first, last = column(line.steps[-count] - half), column(line.steps[-1] + reach)
    if last <= strip.shape[1] and inked(column(line.steps[-1] + half), last):
        steps = (round(line.steps[-1] + pitch),)
        place = len(line.chars) - 1
        anchor = line.chars[-count:]
        windows.append(Window(place, 1, strip[:, first:last], steps, params.anchored_prob, anchor))
    return windows


def _unanchored(read: Decoded, window: Window) -> Decoded:
    """What a window read beyond its anchor; nothing where it does not read the anchor."""
    count = len(window.anchor)
    if not count:
        return read
    if window.place < 0 and read.chars[-count:] == window.anchor:
        return read.part(0, len(read.chars) - count)
    if window.place >= 0 and read.chars[:count] == window.anchor:
        return read.part(count, len(read.chars))
    return Decoded((), ())


def _fills(read: Decoded, window: Window) -> bool:
    """Whether a re-read window says exactly its count of Chinese characters, each surely."""
    pairs = zip(read.chars, read.probs, strict=True)
    return len(read.chars) == window.count and all(
        is_chinese(char) and prob >= window.min_prob for char, prob in pairs
    )


def _seen_there(gap: tuple[Alternative, ...], window: Window, length: int) -> Decoded:
    """What another reading saw in a skipped place between two characters (its likeliest), as a
    reading of the place's window: where the pitch says one character is missing and the window
    alone does not read as one sure Chinese character, another reading that saw one there is
    the second witness (盛 of 北京荣盛投资, seen by the colour strip's reading at 0.56). Past
    the rim's ends another reading often saw print read along, so nothing is taken there."""
    if window.count != 1 or not gap or not 0 <= window.place < length - 1:
        return Decoded((), ())
    char, prob = gap[0]
    return Decoded((char,), (prob,), alternatives=(gap,))


def _beyond_end(read: Decoded, window: Window, length: int) -> tuple[Alternative, ...]:
    """What a window past either end of the rim saw there as one character, whatever its
    confidence, with its look-alikes: too unsure to be put in alone, it may still be put in
    where it completes a dictionary word with the rim's end (合 of 合肥 under print, read as
    金 0.37, 会 0.29, 合 ...). Nothing for a window between characters."""
    if window.count != 1 or len(read.chars) != 1 or 0 <= window.place < length - 1:
        return ()
    return read.options()[0]


def filled(line: Decoded, windows: Sequence[Window], reads: Sequence[Decoded]) -> Decoded:
    """`line` with each window's reading put in where it reads as the characters that fit; a
    skipped place between characters whose window does not takes what another reading saw
    there, if that is one character seen as surely (`_seen_there`); a window past either end
    that reads one character too unsurely leaves it, with its look-alikes, as an insertion
    there for the word list (`_beyond_end`)."""
    chars, probs, steps = list(line.chars), list(line.probs), list(line.steps)
    options, gaps = list(line.options()), list(line.gaps())
    done: set[int] = set()  # places filled: a later window of the same place is not put in too
    for window, read in sorted(
        zip(windows, reads, strict=True), key=lambda pair: pair[0].place, reverse=True
    ):
        at = window.place + 1
        if at in done:
            continue
        read = _unanchored(read, window)
        beyond = _beyond_end(read, window, len(chars))
        if not _fills(read, window):
            read = _seen_there(gaps[at], window, len(chars))
        if _fills(read, window):
            chars[at:at] = read.chars
            probs[at:at] = read.probs
            steps[at:at] = window.steps
            options[at:at] = read.options()
            gaps[at : at + 1] = [()] * (window.count + 1)  # what another reading saw here is now read
            done.add(at)
        elif beyond:
            gaps[at] = merged_alternatives(gaps[at], beyond)
    return Decoded(
        tuple(chars),
        tuple(probs),
        tuple(steps),
        line.length,
        tuple(options) if line.alternatives else (),
        tuple(gaps) if line.insertions or any(gaps) else (),
    )


def _runs(chars: Sequence[str]) -> list[tuple[str, int]]:
    return [(char, len(list(run))) for char, run in groupby(chars)]


def restored_repeats(read: Decoded, stretched: Decoded) -> Decoded:
    """`stretched` (the same line read from its image stretched along the line) where it only
    repeats some of `read`'s characters more often, else `read`.

    A recogniser's CTC steps are a few pixels apart; digits are narrow, and where a code's
    digits repeat (32011119...) two of them fall in one step and CTC, which merges repeated
    characters not parted by a blank, reads one (3201119...). Read wider, each digit gets
    more steps. That merging is the one error stretching undoes, so only that is taken.
    """
    mine, wide = _runs(read.chars), _runs(stretched.chars)
    same_chars = [char for char, _ in mine] == [char for char, _ in wide]
    if not same_chars or wide == mine:
        return read
    return stretched if all(more >= count for (_, count), (_, more) in zip(mine, wide, strict=True)) else read


def stretched_image(image: np.ndarray, factor: float) -> np.ndarray:
    """A line's image stretched along the line by `factor`."""
    width = max(1, round(image.shape[1] * factor))
    return cv2.resize(image, (width, image.shape[0]), interpolation=cv2.INTER_LINEAR)


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
