"""Choosing what a seal says, given a recogniser: the decisions of the seal BLS, kept pure.

The recogniser and the line reader are passed in as callables, so the BLS plugs in
PP-OCRv4, v5 and v6 through Triton (`most_confident` of them), the evaluation harness plugs
in onnxruntime directly, the unit tests plug in fakes, and another recogniser (e.g. TrOCR)
is one more callable.

Rim: every candidate strip is read, and the best `prior * confidence` wins (a wrong start or
direction reads as low-confidence garbage); unsure characters, digits and loose punctuation
at its ends are then cut, since they are stray red marks or the bottom-arc code, not rim
text; its characters are then chosen among their alternatives to form dictionary words
(`correct`, see `imgproc.text.lexicon`), and a legal form (有限公司, 有限责任公司,
股份有限公司) misread by one character at its end is restored. Codes: the bottom-arc strip
is kept when it reads as a code. Inner lines (round/oval) and all lines (rect) come from
detection plus recognition; a rect seal's interior comes in several orientations, nearest
the page's upright first, which is kept unless another reads clearly better (the direction
classifier turns each line of an upside-down crop, so both read alike, but in reverse
order), and its first line is reported as the main text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise

import numpy as np

from imgproc.text import Decoded
from imgproc.text.edit import aligned_pairs, levenshtein
from imgproc.text.lexicon import is_chinese
from imgproc.text.recognition import REC_HEIGHT, rec_width

from .pipeline import SealCrops

Line = tuple[str, float]
# Per character, because the rim's ends are judged character by character.
Recognise = Callable[[Sequence[np.ndarray]], list[Decoded]]
ReadLines = Callable[[np.ndarray], list[Line]]
# Rewrites a rim reading using its characters' alternatives (`imgproc.text.lexicon.correct`).
Correct = Callable[[Decoded], Decoded]

MIN_LINE_SCORE = 0.5
# Two rim characters further apart than this many times the line's median pitch have lost
# one between them; lines of fewer characters than MIN_PITCH_CHARS have no reliable pitch.
PITCH_GAP = 1.6
MIN_PITCH_CHARS = 4
# Skipped characters are re-read from a window this many pitches wider than they are, at
# most MAX_FILL of them in one place.
FILL_WIDTH = 1.2
MAX_FILL = 3
# Each recogniser offers this many characters per rim character to `correct`, which adds
# LEXICON_WEIGHT (a log probability) per character that continues a dictionary word. Dev
# seeds 7000 and 8000 (225 generated seals), exact rims: 191 without; with weight 2/3/4,
# 199/201/202; the seals-dev photographs read as without up to 3, at 4 one reads worse.
# In an offline trial, offering 5 characters read one rim fewer exactly than 10, 25 none more.
RIM_ALTERNATIVES = 10
LEXICON_WEIGHT = 3.0
# How much better another orientation of a rect seal must read than the first to replace it.
ORIENTATION_MARGIN = 0.05
# A rim character read with less probability than this is not kept at either end of the rim.
MIN_EDGE_PROB = 0.5
CODE_PATTERN = re.compile(r"[0-9A-Z]{8,}")
# The legal forms a Chinese company name must end with (Company Law): a rim that ends one
# character away from one of them, and in none exactly, was misread there.
LEGAL_FORMS = ("股份有限公司", "有限责任公司", "有限公司")
# Punctuation that never ends a rim: dashes, dots, commas (brackets, Ps/Pe, may: "(北京)").
LOOSE_PUNCTUATION = frozenset({"Pc", "Pd", "Po"})


@dataclass(frozen=True)
class SealReading:
    """The text of one seal: rim, inner lines and number codes, with confidences."""

    crops: SealCrops
    rim_text: str
    rim_score: float
    inner: list[Line] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)


def dropped_characters(line: Decoded, gap: float = PITCH_GAP) -> int:
    """How many places of `line` lie more than `gap` times its median pitch apart.

    Rim characters are engraved at an even pitch, so such a place has lost a character that
    the recogniser skipped (faint or overprinted ink); CTC's confidence does not count it.
    """
    return len(_dropped_places(line, gap)[0])


def _dropped_places(line: Decoded, gap: float = PITCH_GAP) -> tuple[list[int], float]:
    """Indices i where a character was skipped between characters i and i + 1, and the pitch."""
    if len(line.steps) < MIN_PITCH_CHARS:
        return [], 0.0
    pitches = np.diff(np.asarray(line.steps, np.float64))
    pitch = float(np.median(pitches))
    return [int(i) for i in np.nonzero(pitches > gap * pitch)[0]], pitch


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


def most_confident(*recognisers: Recognise) -> Recognise:
    """A recogniser that reads each image with all of `recognisers` and keeps the surest line,
    with the other lines' characters as alternatives (`with_other_readings`).

    Recognisers trained on different data fail on different glyphs: on the seals-dev
    photographs, PP-OCRv4 or v5 alone read 9 and 10 of 17 rims exactly, the surer of the two
    12 and PP-OCRv6 with them 13. Dev seeds 7000 and 8000 (225 generated seals), exact rims:
    v4 and v5, 182; with v6, 187. Preferring readings that skip no character (see
    `dropped_characters`) gained one generated seal but read two real photographs worse, where
    the reading without a gap was garbage: skipped characters are re-read instead
    (`fill_dropped`).
    """

    def recognise(images: Sequence[np.ndarray]) -> list[Decoded]:
        readings = [reader(images) for reader in recognisers]
        chosen = []
        for lines in zip(*readings, strict=True):
            best = max(range(len(lines)), key=lambda i: lines[i].score)
            chosen.append(with_other_readings(lines[best], lines[:best] + lines[best + 1 :]))
        return chosen

    return recognise


def trim_unsure_ends(line: Decoded, min_prob: float = MIN_EDGE_PROB) -> Decoded:
    """`line` without the characters under `min_prob` at either end (the middle is kept)."""
    start, stop = 0, len(line.probs)
    while start < stop and line.probs[start] < min_prob:
        start += 1
    while stop > start and line.probs[stop - 1] < min_prob:
        stop -= 1
    return line.part(start, stop)


def _not_rim_start(char: str) -> bool:
    """A code digit or loose punctuation: what a Chinese rim text never begins with."""
    return (char.isascii() and char.isdigit()) or unicodedata.category(char) in LOOSE_PUNCTUATION


def _not_rim_end(char: str) -> bool:
    """...nor ends with, and neither with a Latin letter (a name may begin with one: TCL)."""
    return _not_rim_start(char) or (char.isascii() and char.isalpha())


def trim_code_ends(line: Decoded) -> Decoded:
    """A Chinese `line` without digits and loose punctuation at either end, nor Latin letters
    at its end.

    Digits beside the rim text are the bottom-arc code, read along when the gap between them
    is narrow (a letter among them is a misread digit); a rim with no Chinese at all (a Latin
    or number seal) is left as it is.
    """
    if not any(is_chinese(char) for char in line.chars):
        return line
    start, stop = 0, len(line.chars)
    while start < stop and _not_rim_start(line.chars[start]):
        start += 1
    while stop > start and _not_rim_end(line.chars[stop - 1]):
        stop -= 1
    return line.part(start, stop)


def trim_rim_ends(line: Decoded, min_prob: float = MIN_EDGE_PROB) -> Decoded:
    """The rim without what is not rim text at its ends: unsure characters and code digits,
    trimmed in turn until neither finds more (an unsure mark may hide a digit, and back)."""
    while True:
        trimmed = trim_code_ends(trim_unsure_ends(line, min_prob))
        if trimmed == line:
            return line
        line = trimmed


def _misread_ending(text: str, form: str) -> int | None:
    """How many characters at the end of `text` are `form` misread by one edit, or None.

    A dropped character is tried first, then a wrong one, then an extra one: in "设备限公司"
    the 有 was dropped, and 备 is not a misread 有.
    """
    for length in (len(form) - 1, len(form), len(form) + 1):
        if 0 < length <= len(text) and levenshtein(text[-length:], form) == 1:
            return length
    return None


def fix_legal_form(text: str) -> str:
    """`text` with a legal form misread by one edit at its end restored (longest form first);
    unchanged when it already ends in one, or in nothing close.

    Longest first also when a shorter form ends it exactly: "股信有限公司" ends in 有限公司,
    and is 股份有限公司 with 份 misread.
    """
    for form in LEGAL_FORMS:
        if text.endswith(form):
            return text
        if (length := _misread_ending(text, form)) is not None:
            return text[: len(text) - length] + form
    return text


@dataclass(frozen=True)
class RimReading:
    """The chosen rim candidate's reading, with the strip it was read from."""

    line: Decoded
    strip: np.ndarray
    step_px: float  # strip columns per recogniser step


def best_rim(crops: SealCrops, recognise: Recognise) -> RimReading | None:
    """The rim candidate with the best prior-weighted confidence (None without candidates)."""
    if not crops.rim:
        return None
    images = [strip.image for strip in crops.rim]
    readings = recognise(images)
    index = max(range(len(images)), key=lambda i: crops.rim[i].prior * readings[i].score)
    best = readings[index]
    # Every strip of the batch was padded to one width, which the recogniser cut into steps.
    width = rec_width(images) * images[0].shape[0] / REC_HEIGHT
    return RimReading(best, images[index], width / best.length if best.length else 0.0)


def _missing(line: Decoded, place: int, pitch: float) -> int:
    """How many characters fit between characters `place` and `place + 1` (at most MAX_FILL)."""
    return min(MAX_FILL, max(1, round((line.steps[place + 1] - line.steps[place]) / pitch) - 1))


def _fills(read: Decoded, count: int, min_prob: float) -> bool:
    """Whether a re-read window says exactly `count` Chinese characters, each surely."""
    return len(read.chars) == count and all(
        is_chinese(char) and prob >= min_prob for char, prob in zip(read.chars, read.probs, strict=True)
    )


def fill_dropped(rim: RimReading, recognise: Recognise, min_prob: float = MIN_EDGE_PROB) -> Decoded:
    """The rim with the characters re-read alone in each place its pitch says some were skipped.

    Skipped characters are faint or overprinted; the window between their neighbours is read
    on its own, and kept when it reads as just as many Chinese characters as fit there, each
    with at least `min_prob`; anything else leaves the place as it was.
    """
    line = rim.line
    places, pitch = _dropped_places(line)
    if not places or rim.step_px <= 0:
        return line
    counts = [_missing(line, i, pitch) for i in places]
    # A character emitted at step t was seen around strip column (t + 0.5) * step_px.
    centres = [(line.steps[i] + line.steps[i + 1] + 1) / 2.0 * rim.step_px for i in places]
    halves = [(n + FILL_WIDTH - 1.0) * pitch * rim.step_px / 2.0 for n in counts]
    crops = [rim.strip[:, max(0, round(c - h)) : round(c + h)] for c, h in zip(centres, halves, strict=True)]
    chars, probs, steps = list(line.chars), list(line.probs), list(line.steps)
    options, gaps = list(line.options()), list(line.gaps())
    for i, n, read in sorted(zip(places, counts, recognise(crops), strict=True), reverse=True):
        if _fills(read, n, min_prob):
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


def is_code(line: Line, min_score: float = MIN_LINE_SCORE) -> bool:
    """A number line such as a tax ID or a bottom-arc seal code."""
    text, score = line
    return score >= min_score and CODE_PATTERN.fullmatch(text.replace(" ", "")) is not None


def _kept(lines: list[Line], min_score: float) -> list[Line]:
    return [(text, score) for text, score in lines if text.strip() and score >= min_score]


def _mean_score(lines: list[Line]) -> float:
    return float(np.mean([score for _, score in lines])) if lines else 0.0


def _best_orientation(readings: list[list[Line]], margin: float = ORIENTATION_MARGIN) -> list[Line]:
    """The first reading, unless a later one has a mean score over `margin` higher."""
    best: list[Line] = readings[0] if readings else []
    for lines in readings[1:]:
        if _mean_score(lines) > _mean_score(best) + margin:
            best = lines
    return best


def _inner_lines(crops: SealCrops, read_lines: ReadLines, min_score: float) -> list[Line]:
    """Inner lines; a rect seal's crops are alternative orientations, preferred in order."""
    readings = [_kept(read_lines(crop), min_score) for crop in crops.inner]
    if crops.rim:
        return [line for lines in readings for line in lines]
    return _best_orientation(readings)


def _as_read(line: Decoded) -> Decoded:
    return line


def read_seal(
    crops: SealCrops,
    recognise: Recognise,
    read_lines: ReadLines,
    min_score: float = MIN_LINE_SCORE,
    correct: Correct = _as_read,
) -> SealReading:
    """Everything one seal says; the callables may raise, and their errors pass through.

    `correct` rewrites the rim once its ends are trimmed: trimming judges what is rim text
    by the recogniser's own confidence, the correction only which characters it is.
    """
    lines = _inner_lines(crops, read_lines, min_score)
    codes = [text.replace(" ", "") for text, score in lines if is_code((text, score), min_score)]
    inner = [line for line in lines if not is_code(line, min_score)]
    if crops.code is not None:
        code = recognise([crops.code])[0]
        if is_code((code.text, code.score), min_score):
            codes.append(code.text.replace(" ", ""))
    if (chosen := best_rim(crops, recognise)) is not None:
        rim = correct(trim_rim_ends(fill_dropped(chosen, recognise)))
        return SealReading(crops, fix_legal_form(rim.text), rim.score, inner, codes)
    first, rest = (inner[0], inner[1:]) if inner else (("", 0.0), [])
    return SealReading(crops, first[0], first[1], rest, codes)
