"""repair: what the recognisers read in (`Readings`), a seal's answer out (`SealReading`), put
right with what is known about seals.

The rim (`repair_rim`): what is not rim text at its ends is cut and marks between characters
dropped (`ends`); its characters are chosen among their alternatives to form dictionary
words (`Correct`: `imgproc.text.lexicon`, jieba's word list); a rim read from the wrong start
is turned to end with its legal form, a legal form misread or cut short at its end restored,
unsure characters after the name's ending cut (`names`); a standard text that a whole class
of seals carries is restored where partly read (`standard`). Inner lines are corrected to
dictionary words and standard lines and purposes, codes put right by their check characters
(`codes`); an oval whose rim went unread is the invoice supervision seal where what is read
in and around it says so. `RepairParams` holds every threshold.
"""

from __future__ import annotations

from imgproc.text import Decoded

from ..codes import checked_code, code_options, code_text, held_code, is_code
from ..records import Line, Readings, SealReading, SealRegion, Shape
from ..words import STANDARD_RIMS, Correct, as_read
from .ends import trim_rim_ends, without_inner_marks
from .names import fix_legal_form, started_after_legal_form, without_unsure_tail
from .params import DEFAULT_REPAIR, RepairParams
from .standard import (
    PURPOSE_LINES,
    inner_standard,
    may_be_supervision,
    purpose_line,
    standard_text,
    supervision_rim,
)

__all__ = [
    "DEFAULT_REPAIR",
    "Correct",
    "RepairParams",
    "as_read",
    "repair_rim",
    "seal_reading",
    "wants_surroundings",
]


def repair_rim(line: Decoded, correct: Correct = as_read, params: RepairParams = DEFAULT_REPAIR) -> Decoded:
    """The rim reading with its ends trimmed, its characters corrected to dictionary words,
    and a misread legal form or standard text restored (the text changes, the rest stays).
    Trimming judges what is rim text by the recogniser's own confidence, the correction only
    which characters it is.
    """
    corrected = without_unsure_tail(correct(without_inner_marks(trim_rim_ends(line, params))), params)
    named = fix_legal_form(started_after_legal_form(corrected.text, params.min_wrapped))
    text = standard_text(named, STANDARD_RIMS, params.standard_shared, params.standard_longer)
    if text == corrected.text:
        return corrected
    return Decoded(tuple(text), (corrected.score,) * len(text), length=corrected.length)


def wants_surroundings(shape: Shape, rim: Decoded | None) -> bool:
    """Whether the lines read in and around the seal may tell its rim (`may_be_supervision`)."""
    return rim is not None and may_be_supervision(shape, rim.text)


def corrected_line(line: Decoded, correct: Correct, params: RepairParams = DEFAULT_REPAIR) -> Line:
    """A line's text corrected, with the confidence it was read with: a code by its check
    characters (`checked_code`), other text to dictionary words."""
    # Only a code that `sorted_lines` keeps is worth checking (its search tries pairs of
    # look-alikes); a less sure line is dropped there whatever it reads.
    code = code_text(line.text) if is_code((line.text, line.score), params.min_line_score) else ""
    options = code_options(line, code) if code else None
    if options is not None:
        return checked_code(code, options, params.code_floor, params.code_changes), line.score
    return correct(line).text, line.score


def sorted_lines(lines: list[Line], params: RepairParams = DEFAULT_REPAIR) -> tuple[list[Line], list[Line]]:
    """Sure lines split into inner lines (standard texts restored) and codes (spaces removed; a
    number line that is no seal's code trimmed to the one it holds, or dropped: `held_code`),
    each with the confidence it was read with."""
    kept = [(text, score) for text, score in lines if text.strip() and score >= params.min_line_score]
    numbers = [(text, score) for text, score in kept if is_code((text, score), params.min_line_score)]
    held = [(held_code(code_text(text)), score) for text, score in numbers]
    codes = [(code, score) for code, score in held if code is not None]
    inner = [
        (purpose_line(inner_standard(text, params), PURPOSE_LINES, params), score)
        for text, score in kept
        if not is_code((text, score), params.min_line_score)
    ]
    return inner, codes


def seal_reading(
    region: SealRegion,
    rim: Decoded | None,
    readings: Readings,
    correct: Correct = as_read,
    params: RepairParams = DEFAULT_REPAIR,
    around: list[Line] | None = None,
) -> SealReading:
    """A seal's answer from its repaired rim, its other readings (and the text read around it,
    where it may be an invoice supervision seal); without a rim (a rect seal), its first inner
    line is its main text."""
    lines = [corrected_line(line, correct, params) for line in readings.lines] + list(readings.found)
    inner, codes = sorted_lines(lines, params)
    if rim is not None:
        text = supervision_rim(region.shape, rim.text, inner, around, params)
        return SealReading(region, text, rim.score, inner, codes)
    first, rest = (inner[0], inner[1:]) if inner else (("", 0.0), [])
    return SealReading(region, first[0], first[1], rest, codes)
