"""Choosing what a seal says, given a recogniser: the decisions of the seal BLS, kept pure.

The recogniser and the line reader are passed in as callables, so the BLS plugs in
PP-OCRv4 through Triton, the evaluation harness plugs in onnxruntime directly, the unit
tests plug in fakes, and a second recogniser (e.g. TrOCR) is one more callable.

Rim: every candidate strip is read, and the best `prior * confidence` wins (a wrong start
or direction reads as low-confidence garbage). Codes: the bottom-arc strip is kept when it
reads as a code. Inner lines (round/oval) and all lines (rect) come from detection plus
recognition; a rect seal's interior comes in several orientations, the best-read one wins,
and its first line is reported as the main text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .pipeline import SealCrops

Line = tuple[str, float]
Recognise = Callable[[Sequence[np.ndarray]], list[Line]]
ReadLines = Callable[[np.ndarray], list[Line]]

MIN_LINE_SCORE = 0.5
CODE_PATTERN = re.compile(r"[0-9A-Z]{8,}")


@dataclass(frozen=True)
class SealReading:
    """The text of one seal: rim, inner lines and number codes, with confidences."""

    crops: SealCrops
    rim_text: str
    rim_score: float
    inner: list[Line] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)


def best_rim(crops: SealCrops, recognise: Recognise) -> Line:
    """The rim candidate with the best prior-weighted confidence, or ("", 0)."""
    if not crops.rim:
        return "", 0.0
    readings = recognise([strip.image for strip in crops.rim])
    scored = [
        (strip.prior * score, (text, score)) for strip, (text, score) in zip(crops.rim, readings, strict=True)
    ]
    return max(scored, key=lambda item: item[0])[1]


def is_code(line: Line, min_score: float = MIN_LINE_SCORE) -> bool:
    """A number line such as a tax ID or a bottom-arc seal code."""
    text, score = line
    return score >= min_score and CODE_PATTERN.fullmatch(text.replace(" ", "")) is not None


def _kept(lines: list[Line], min_score: float) -> list[Line]:
    return [(text, score) for text, score in lines if text.strip() and score >= min_score]


def _mean_score(lines: list[Line]) -> float:
    return float(np.mean([score for _, score in lines])) if lines else 0.0


def _inner_lines(crops: SealCrops, read_lines: ReadLines, min_score: float) -> list[Line]:
    """Inner lines; a rect seal's crops are alternative orientations, and the best-read wins."""
    readings = [_kept(read_lines(crop), min_score) for crop in crops.inner]
    if crops.rim:
        return [line for lines in readings for line in lines]
    return max(readings, key=_mean_score, default=[])


def read_seal(
    crops: SealCrops, recognise: Recognise, read_lines: ReadLines, min_score: float = MIN_LINE_SCORE
) -> SealReading:
    """Everything one seal says; the callables may raise, and their errors pass through."""
    lines = _inner_lines(crops, read_lines, min_score)
    codes = [text.replace(" ", "") for text, score in lines if is_code((text, score), min_score)]
    inner = [line for line in lines if not is_code(line, min_score)]
    if crops.code is not None:
        code = recognise([crops.code])[0]
        if is_code(code, min_score):
            codes.append(code[0].replace(" ", ""))
    if crops.rim:
        rim_text, rim_score = best_rim(crops, recognise)
        return SealReading(crops, rim_text, rim_score, inner, codes)
    first, rest = (inner[0], inner[1:]) if inner else (("", 0.0), [])
    return SealReading(crops, first[0], first[1], rest, codes)
