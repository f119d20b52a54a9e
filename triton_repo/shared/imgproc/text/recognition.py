"""Direction classifier and recogniser tensors, and CTC decoding, as RapidOCR 1.4.4 does them.

Crops are uint8 BGR line images (see `geometry.crop_quad`). Both models take lines resized
to height 48 keeping their aspect ratio, scaled to [-1, 1] and right-padded with zeros:
the classifier at a fixed width of 192, the recogniser at a width set by the widest line of
the batch (at least 320). RapidOCR sorts lines by aspect ratio and recognises them in groups
of `REC_BATCH_SIZE`; `aspect_batches` reproduces that grouping, because the padding width a
line sees changes its scores slightly. `ctc_decode` is greedy CTC with the recogniser's
character table (`charset.load_charset`); `ctc_decode_chars` keeps each character's
probability as well, for callers that judge characters one by one (the seal rim's ends).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

from imgproc.arrays import Floats, Ints, Mask, Pixels, Strings, as_pixels

from .ctc import Frames, top_frames

CHANNELS = 3
CLS_HEIGHT = 48
CLS_WIDTH = 192
CLS_THRESH = 0.9
CLS_UPSIDE_DOWN = 1  # class index of "180" in the classifier's ("0", "180") output
REC_HEIGHT = 48
REC_MIN_WIDTH = 320
REC_BATCH_SIZE = 6
TEXT_SCORE = 0.5
BLANK_INDEX = 0
# A line of fewer characters is too short for the pitch of its characters (`Decoded.pitch`) to show.
MIN_PITCH_CHARS = 4
PIXEL_MAX = 255


def _normalize_table() -> Floats:
    """uint8 -> float32 lookup reproducing PP-OCR's float32 (x / 255 - 0.5) / 0.5 exactly."""
    half = np.float32(0.5)
    return (np.arange(PIXEL_MAX + 1, dtype=np.float32) / np.float32(PIXEL_MAX) - half) / half


_LINE_TABLE = _normalize_table()


def _resized_width(crop: Pixels, height: int, max_width: int) -> int:
    """Width after scaling the crop to `height`, rounded up, capped at `max_width`."""
    scaled = math.ceil(height * (crop.shape[1] / float(crop.shape[0])))
    return max_width if scaled > max_width else int(scaled)


def _pad_lines(crops: Sequence[Pixels], height: int, width: int) -> Floats:
    """float32[N, 3, height, width]: each crop resized to `height`, normalised, zero-padded right."""
    batch = np.zeros((len(crops), CHANNELS, height, width), dtype=np.float32)
    for row, crop in enumerate(crops):
        resized = cv2.resize(crop, (_resized_width(crop, height, width), height))
        batch[row, :, :, : resized.shape[1]] = _LINE_TABLE[resized].transpose(2, 0, 1)
    return batch


def cls_preprocess(crops: Sequence[Pixels]) -> Floats:
    """uint8 BGR crops -> float32[N, 3, 48, 192] input of `text_direction`."""
    return _pad_lines(crops, CLS_HEIGHT, CLS_WIDTH)


def upside_down(cls_output: Floats, thresh: float = CLS_THRESH) -> Mask:
    """bool[N]: the classifier's float32[N, 2] output says "180" with probability above `thresh`."""
    probs = np.asarray(cls_output, np.float32).reshape(-1, 2)
    labels = probs.argmax(axis=1)
    flips: Mask = (labels == CLS_UPSIDE_DOWN) & (probs[np.arange(len(probs)), labels] > thresh)
    return flips


def apply_direction(crops: Sequence[Pixels], cls_output: Floats, thresh: float = CLS_THRESH) -> list[Pixels]:
    """Turn upside-down crops by 180 degrees; raises ValueError on a count mismatch."""
    flips = upside_down(cls_output, thresh)
    if len(flips) != len(crops):
        raise ValueError(f"{len(crops)} crops but {len(flips)} direction scores")
    return [as_pixels(cv2.rotate(c, cv2.ROTATE_180)) if f else c for c, f in zip(crops, flips, strict=True)]


def rec_width(crops: Sequence[Pixels]) -> int:
    """Recogniser input width for these crops: 48 x the widest aspect ratio, at least 320."""
    ratio = max([REC_MIN_WIDTH / REC_HEIGHT] + [c.shape[1] / c.shape[0] for c in crops])
    return int(REC_HEIGHT * ratio)


def rec_preprocess(crops: Sequence[Pixels]) -> Floats:
    """uint8 BGR crops -> float32[N, 3, 48, W] input of `text_recognition`, W = `rec_width(crops)`."""
    return _pad_lines(crops, REC_HEIGHT, rec_width(crops))


def aspect_batches(crops: Sequence[Pixels], batch_size: int = REC_BATCH_SIZE) -> list[Ints]:
    """RapidOCR's recognition groups: crop indices sorted by aspect ratio, in chunks of `batch_size`."""
    order = np.argsort(np.array([c.shape[1] / float(c.shape[0]) for c in crops]))
    return [order[start : start + batch_size] for start in range(0, len(order), batch_size)]


Alternative = tuple[str, float]


def merged_alternatives(*groups: tuple[Alternative, ...]) -> tuple[Alternative, ...]:
    """The alternatives of several groups as one, each character at its highest probability,
    most probable first."""
    options: dict[str, float] = {}
    for group in groups:
        for char, prob in group:
            options[char] = max(prob, options.get(char, 0.0))
    return tuple(sorted(options.items(), key=lambda item: item[1], reverse=True))


@dataclass(frozen=True)
class Decoded:
    """One greedy-CTC line: its characters, the probability of each (the kept steps), where
    each was emitted (step index, of `length` steps over the padded input) and, when asked
    for, other characters each step gave some probability to (most probable first), and
    characters another reading of the line saw between two of these (see
    `imgproc.seal.read.choose.with_other_readings`)."""

    chars: tuple[str, ...]
    probs: tuple[float, ...]
    steps: tuple[int, ...] = ()
    length: int = 0
    alternatives: tuple[tuple[Alternative, ...], ...] = ()  # one tuple per character, or none
    insertions: tuple[tuple[Alternative, ...], ...] = ()  # before each character and after the last, or none
    # The line's per-frame probabilities, pruned (`imgproc.text.ctc`), when asked for: what a
    # text other than the greedy one is scored on.
    frames: Frames | None = None

    @property
    def text(self) -> str:
        return "".join(self.chars)

    def part(self, start: int, stop: int) -> Decoded:
        """Characters `start` to `stop` with their probabilities, steps, alternatives and the
        insertions around them."""
        return Decoded(
            self.chars[start:stop],
            self.probs[start:stop],
            self.steps[start:stop],
            self.length,
            self.alternatives[start:stop],
            self.insertions[start : max(start, stop) + 1] if self.insertions else (),
            self.frames,
        )

    def options(self) -> tuple[tuple[Alternative, ...], ...]:
        """Each character's alternatives; a character without them is its own only option."""
        if self.alternatives:
            return self.alternatives
        return tuple(((char, prob),) for char, prob in zip(self.chars, self.probs, strict=True))

    def pitch(self, min_chars: int = MIN_PITCH_CHARS) -> float:
        """The median distance in steps between consecutive characters; 0 for a line of fewer
        than `min_chars` (too few for its pitch to show)."""
        if len(self.steps) < max(2, min_chars):
            return 0.0
        return float(np.median(np.diff(np.asarray(self.steps, np.float64))))

    def gaps(self) -> tuple[tuple[Alternative, ...], ...]:
        """What may be inserted before each character and after the last (often nothing)."""
        return self.insertions or ((),) * (len(self.chars) + 1)

    @property
    def score(self) -> float:
        """RapidOCR's line score: the mean probability of the kept steps, 0 for no text."""
        return float(np.mean(np.array(self.probs, np.float64))) if self.probs else 0.0


def _top(step: Floats, count: int, charset: Sequence[str]) -> tuple[Alternative, ...]:
    """The `count` most probable characters of one step (the blank left out)."""
    top = np.argpartition(step, -count)[-count:]
    top = top[np.argsort(step[top])[::-1]]
    return tuple((charset[i], float(step[i])) for i in top if i != BLANK_INDEX)


def _decode_row(
    row: Floats, charset: Sequence[str], alternatives: int, frames: int, index: Mapping[str, int]
) -> Decoded:
    """One sequence: collapse repeats, drop blanks, keep each kept step's probability (and the
    `frames` likeliest characters of every frame, when asked for)."""
    indices = row.argmax(axis=1)
    keep = indices != BLANK_INDEX
    keep[1:] &= indices[1:] != indices[:-1]
    steps = np.nonzero(keep)[0]
    return Decoded(
        tuple(charset[i] for i in indices[keep]),
        tuple(float(p) for p in row[steps, indices[keep]]),
        tuple(int(t) for t in steps),
        len(indices),
        tuple(_top(row[t], alternatives, charset) for t in steps) if alternatives else (),
        frames=top_frames(row, charset, index, frames) if frames else None,
    )


@cache  # a recogniser's table is read once and kept: its index is built once too
def charset_index(charset: tuple[str, ...]) -> dict[str, int]:
    """Each character of a CTC class table with its class (the first, where one repeats)."""
    index: dict[str, int] = {}
    for i, char in enumerate(charset):
        index.setdefault(char, i)
    return index


def ctc_decode_chars(
    probs: Floats, charset: Sequence[str], alternatives: int = 0, frames: int = 0
) -> list[Decoded]:
    """Greedy CTC over float32[N, T, C] softmax, per character, with the `alternatives` most
    probable characters of each kept step and, when `frames` is set, that many likeliest
    characters of every frame (`Decoded.frames`); ValueError if C != len(charset)."""
    probs = np.asarray(probs, np.float32)
    if probs.ndim != 3 or probs.shape[2] != len(charset):
        raise ValueError(f"expected [N, T, {len(charset)}] probabilities, got {list(probs.shape)}")
    count = min(alternatives, probs.shape[2])
    index = charset_index(tuple(charset)) if frames else {}
    return [_decode_row(row, charset, count, frames, index) for row in probs]


def ctc_decode(probs: Floats, charset: Sequence[str]) -> list[tuple[str, float]]:
    """Greedy CTC over float32[N, T, C] softmax -> [(text, score)]; ValueError if C != len(charset)."""
    return [(line.text, line.score) for line in ctc_decode_chars(probs, charset)]


def confident(scores: Floats, text_score: float = TEXT_SCORE) -> Mask:
    """bool[N]: lines RapidOCR keeps in its full pipeline (score >= `text_score`)."""
    return np.asarray(scores, np.float64) >= text_score


def confident_lines(
    lines: Sequence[Decoded], boxes: Floats, text_score: float = TEXT_SCORE
) -> tuple[Strings, Floats, Floats]:
    """RapidOCR's score filter over decoded lines and their float32[N, 4, 2] boxes: (UTF-8 texts
    as an object array, float32 scores, float32 boxes) of the lines kept."""
    scores = np.array([line.score for line in lines], np.float64)
    keep = np.flatnonzero(confident(scores, text_score))
    texts = np.array([lines[i].text.encode() for i in keep], dtype=np.object_)
    return texts, scores[keep].astype(np.float32), np.ascontiguousarray(boxes[keep], np.float32)
