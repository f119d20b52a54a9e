"""What is not rim text at a rim reading's ends, cut: unsure characters, stray groups, code
digits and loose punctuation, and punctuation between two Chinese characters.

The rim's ends are where the strip runs on past the rim: onto the gap's print, the turned
characters of the purpose line, the bottom-arc code; and where print or a signature crosses
the ring. Trimming judges what is rim text by the recogniser's own confidence and the
engraving's even pitch (`trim_rim_ends`); a trimmed unsure end character is offered back as
an insertion, for the word list to put back where it completes a word (郑 of 郑州 under print).
"""

from __future__ import annotations

import unicodedata
from dataclasses import replace

from imgproc.text import Decoded
from imgproc.text.lexicon import is_chinese
from imgproc.text.recognition import merged_alternatives

from .params import DEFAULT_REPAIR, RepairParams

# Punctuation that never ends a rim: dashes, dots, commas, quotation marks (brackets, Ps/Pe,
# may: "(北京)").
LOOSE_PUNCTUATION = frozenset({"Pc", "Pd", "Po", "Pi", "Pf"})
NAME_MARKS = frozenset("·・")  # the one mark a name holds inside: between a foreign name's parts


def _in_pitch(line: Decoded, i: int, neighbour: int, pitch: float, params: RepairParams) -> bool:
    """Whether end character `i` is rim text by its place: Chinese, not too unsure, and one
    pitch from its `neighbour` (see `RepairParams.keep_pitch`)."""
    return (
        pitch > 0
        and 0 <= neighbour < len(line.chars)
        and is_chinese(line.chars[i])
        and line.probs[i] >= params.keep_floor
        and abs(line.steps[neighbour] - line.steps[i]) <= params.keep_pitch * pitch
    )


def trim_unsure_ends(line: Decoded, params: RepairParams = DEFAULT_REPAIR) -> Decoded:
    """`line` without the characters under `params.min_edge_prob` at either end, but those in
    pitch with the rest (`_in_pitch`); the middle is kept. The trimmed character next to what
    is kept is offered as an insertion there (`_offered_at_ends`): under print an end character
    is often read unsure, and where it completes a word the correction puts it back (郑 of 郑州)."""
    start, stop = 0, len(line.probs)
    pitch = line.pitch()

    def unsure(i: int, neighbour: int) -> bool:
        return line.probs[i] < params.min_edge_prob and not _in_pitch(line, i, neighbour, pitch, params)

    while start < stop and unsure(start, start + 1):
        start += 1
    while stop > start and unsure(stop - 1, stop - 2):
        stop -= 1
    return _offered_at_ends(line, start, stop)


def _offered_at_ends(line: Decoded, start: int, stop: int) -> Decoded:
    """Characters `start` to `stop` of `line`, each unsure end character trimmed next to them
    offered as an insertion there, for the word list to put back where it completes a word."""
    kept = line.part(start, stop)
    if not kept.chars or (start == 0 and stop == len(line.chars)):
        return kept
    gaps, options = list(kept.gaps()), line.options()
    if start > 0:
        gaps[0] = merged_alternatives(gaps[0], options[start - 1])
    if stop < len(line.chars):
        gaps[-1] = merged_alternatives(gaps[-1], options[stop])
    return replace(kept, insertions=tuple(gaps))


def _is_mark(char: str) -> bool:
    """Loose punctuation (`LOOSE_PUNCTUATION`): a dash, dot, comma or quotation mark."""
    return unicodedata.category(char) in LOOSE_PUNCTUATION


def core_pitch(line: Decoded, min_chars: int = DEFAULT_REPAIR.min_core_chars) -> float:
    """The distance in steps between neighbouring characters over the middle half of the line
    (marks left out), finer than the median of whole steps; 0 for fewer than `min_chars`."""
    steps = [step for char, step in zip(line.chars, line.steps, strict=False) if not _is_mark(char)]
    low, high = len(steps) // 4, (3 * len(steps)) // 4
    if len(steps) < min_chars or high <= low:
        return 0.0
    return (steps[high] - steps[low]) / (high - low)


def _stray_tail(line: Decoded, pitch: float, params: RepairParams) -> int:
    """How many characters at the end of `line` are a stray group (see `RepairParams.stray_gap`)."""
    kept = [i for i, char in enumerate(line.chars) if not _is_mark(char)]
    for count in range(min(params.stray_chars, len(kept) - 1), 0, -1):
        first = kept[-count]
        gap = (line.steps[first] - line.steps[first - 1]) / pitch  # a mark read in it breaks it
        unsure = min(line.probs[i] for i in kept[-count:]) < params.stray_keep
        if unsure and params.stray_gap < gap <= params.stray_max_gap:
            return len(line.chars) - first
    return 0


def _reversed(line: Decoded) -> Decoded:
    """`line` back to front, steps mirrored, so that its start can be judged as an end."""
    last = line.steps[-1] if line.steps else 0
    return Decoded(line.chars[::-1], line.probs[::-1], tuple(last - s for s in line.steps[::-1]), line.length)


def trim_stray_ends(line: Decoded, params: RepairParams = DEFAULT_REPAIR) -> Decoded:
    """`line` without a stray group of characters at either end (`RepairParams.stray_gap`)."""
    pitch = core_pitch(line, params.min_core_chars)  # 0 for a line without steps
    if pitch <= 0:
        return line
    start = _stray_tail(_reversed(line), pitch, params)
    return line.part(start, len(line.chars) - _stray_tail(line, pitch, params))


def _not_rim_start(char: str) -> bool:
    """A code digit or loose punctuation: what a Chinese rim text never begins with."""
    return (char.isascii() and char.isdigit()) or _is_mark(char)


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


def _is_inner_mark(chars: tuple[str, ...], i: int) -> bool:
    return (
        _is_mark(chars[i])
        and chars[i] not in NAME_MARKS
        and is_chinese(chars[i - 1])
        and is_chinese(chars[i + 1])
    )


def without_inner_marks(line: Decoded) -> Decoded:
    """`line` without loose punctuation between two Chinese characters (武/汉): a table rule or
    a pen stroke across the ring read as a mark; a name holds none there (but `NAME_MARKS`).
    What other readings saw around a dropped mark joins one gap."""
    dropped = {i for i in range(1, len(line.chars) - 1) if _is_inner_mark(line.chars, i)}
    if not dropped:
        return line
    kept = [i for i in range(len(line.chars)) if i not in dropped]
    gaps = line.gaps()
    merged = [list(gaps[0])]
    for i in range(len(line.chars)):
        if i in dropped:
            merged[-1] += gaps[i + 1]
        else:
            merged.append(list(gaps[i + 1]))
    return Decoded(
        tuple(line.chars[i] for i in kept),
        tuple(line.probs[i] for i in kept),
        tuple(line.steps[i] for i in kept) if line.steps else (),
        line.length,
        tuple(line.alternatives[i] for i in kept) if line.alternatives else (),
        tuple(tuple(gap) for gap in merged) if line.insertions else (),
        line.frames,
    )


def trim_rim_ends(line: Decoded, params: RepairParams = DEFAULT_REPAIR) -> Decoded:
    """The rim without what is not rim text at its ends: a stray group once, then unsure
    characters and code digits, trimmed in turn until neither finds more (an unsure mark may
    hide a digit, and back)."""
    line = trim_stray_ends(line, params)
    while True:
        trimmed = trim_code_ends(trim_unsure_ends(line, params))
        if trimmed == line:
            return line
        line = trimmed
