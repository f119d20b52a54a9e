"""Characters a reading skipped, read again from windows of its strip.

CTC's confidence does not count a skipped character, but rim characters are engraved at an
even pitch, so a place where the pitch is missing lost one: the window between its
neighbours is read alone (`dropped_windows`) and put in when it reads as just as many sure
Chinese characters (`filled`). The rim's end characters have no neighbour on one side, so a
pitch beyond each end is read from the ink image too (`end_windows`), and from a strip
unwrapped on past the ends, a window over the end characters and beyond them
(`anchored_windows`: a character alone at the edge of a window reads as anything). One read
there too unsurely to be put in is left to repair's word list, which puts it in only where
it completes a word with the rim's end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from imgproc.arrays import Pixels
from imgproc.text import Decoded
from imgproc.text.lexicon import is_chinese
from imgproc.text.recognition import REC_HEIGHT, Alternative, merged_alternatives, rec_width

from .params import DEFAULT_READ, ReadParams


def _dropped_places(line: Decoded, params: ReadParams) -> tuple[list[int], float]:
    """Indices i where a character was skipped between characters i and i + 1, and the pitch."""
    pitch = line.pitch(params.min_pitch_chars)
    if pitch < params.min_pitch_steps:
        return [], pitch
    pitches = np.diff(np.asarray(line.steps, np.float64))
    return [int(i) for i in np.nonzero(pitches > params.pitch_gap * pitch)[0]], pitch


def step_px(strip: Pixels, batch: Sequence[Pixels]) -> float:
    """Strip columns per recogniser step, for a strip read in `batch` (all padded to one width)."""
    return rec_width(batch) * strip.shape[0] / REC_HEIGHT


@dataclass(frozen=True)
class Window:
    """Where a reading skipped characters: after character `place` (-1: before the first),
    `count` of them, the strip window to read them from, the steps they are put in at, and
    how surely each must be read."""

    place: int
    count: int
    image: Pixels
    steps: tuple[int, ...]
    min_prob: float
    # The line's own characters the window also shows, which its reading must show too: after
    # the new ones where they come before the first character (place -1), else before them.
    anchor: tuple[str, ...] = ()


def _cut(strip: Pixels, centre: float, half: float) -> Pixels:
    return strip[:, max(0, round(centre - half)) : round(centre + half)]


def dropped_windows(
    line: Decoded, strip: Pixels, px: float, params: ReadParams = DEFAULT_READ
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
        image = _cut(strip, centre, half)
        if not image.shape[1]:
            # A reading of garbage can emit characters past the strip, in the padding of the
            # batch it was read in (a red logo's 'pupba Con'): a window there holds no column
            # to read, and the recogniser's resize refuses an empty image.
            continue
        steps = tuple(round(line.steps[i] + gap / (count + 1) * (k + 1)) for k in range(count))
        windows.append(Window(i, count, image, steps, params.fill_prob))
    return windows


def end_windows(line: Decoded, strip: Pixels, px: float, params: ReadParams = DEFAULT_READ) -> list[Window]:
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
            if _ink_share(image, params.ink_level) >= params.end_ink:
                windows.append(Window(place, 1, image, (round(step),), params.end_prob))
    return windows


def _ink_share(image: Pixels, level: int) -> float:
    """The share of a strip's pixels that are ink: darker than `level` (in any channel)."""
    dark = image.min(axis=2) if image.ndim == 3 else image
    return float(np.mean(dark < level)) if dark.size else 0.0


def anchored_windows(
    line: Decoded, strip: Pixels, px: float, params: ReadParams = DEFAULT_READ, offset: float = 0.0
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
        return _ink_share(strip[:, start:stop], params.ink_level) >= params.end_ink

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
        line.frames,
    )
