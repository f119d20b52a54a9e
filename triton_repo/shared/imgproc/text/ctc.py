"""CTC over a recogniser's per-frame probabilities: how likely a given text is, and where it
reads in the frames.

A CTC recogniser answers, for each frame (a few pixels of the line image), a probability for
every class: the blank and each character. A text is read by any path through the frames that
collapses to it (repeats merged, blanks dropped); its probability is the sum over those paths,
which the forward algorithm computes (`text_logprob`). That is what a greedy reading throws
away: a faded or overprinted character the recogniser got wrong still gives its true
character some probability, and a text that holds it keeps most of its likelihood.
`spot` asks whether a given text is read somewhere in the frames: its best path over the
frames it takes, against the best path of anything over those same frames.

Only the likeliest classes of each frame are kept (`Frames`, `top_frames`): at most `keep`
of those at least `KEPT` likely; a character outside them is taken to be `FLOOR` likely.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from imgproc.arrays import Floats, Ints, Mask

NEG_INF = -math.inf
# Classes less likely than this at a frame are not kept (most frames of a line are the blank's
# at 0.99 and more: nothing of theirs is kept), and a character not kept is taken to be `FLOOR`
# likely: a tenth of the least it could have been kept at.
KEPT = 1e-4
FLOOR = 1e-5
BLANK_INDEX = 0


@dataclass(frozen=True, eq=False)  # equal only to itself: arrays have no single truth value
class Frames:
    """A line's CTC probabilities, pruned: per frame the `classes` (indices into `charset`) of
    its likeliest characters with their `probs`, most likely first, and the blank's."""

    classes: Ints  # int32 [T, K]
    probs: Floats  # float32 [T, K]
    blank: Floats  # float32 [T]
    charset: Sequence[str]
    index: Mapping[str, int]  # charset's inverse

    @property
    def length(self) -> int:
        """Number of frames."""
        return int(self.blank.shape[0])

    def window(self, start: int, stop: int) -> Frames:
        """Frames `start` to `stop` (clipped to the line)."""
        start, stop = max(0, start), min(self.length, stop)
        return Frames(
            self.classes[start:stop], self.probs[start:stop], self.blank[start:stop], self.charset, self.index
        )


def top_frames(probs: Floats, charset: Sequence[str], index: Mapping[str, int], keep: int) -> Frames:
    """One line's float[T, C] softmax pruned to at most `keep` characters a frame, the
    likeliest of those at least `KEPT` likely (the rest of a row: class 0, probability 0)."""
    rows, cols = np.nonzero(probs[:, 1:] >= KEPT)  # sparse: far faster than a partition of every row
    values = probs[rows, cols + 1]
    order = np.lexsort((-values, rows))
    rows, cols, values = rows[order], cols[order] + 1, values[order]
    rank = np.arange(len(rows)) - np.searchsorted(rows, rows)  # place within its row
    kept = rank < keep
    classes = np.zeros((probs.shape[0], keep), np.int32)
    chosen = np.zeros((probs.shape[0], keep), np.float32)
    classes[rows[kept], rank[kept]] = cols[kept]
    chosen[rows[kept], rank[kept]] = values[kept]
    blank = np.ascontiguousarray(probs[:, BLANK_INDEX], dtype=np.float32)
    return Frames(classes, chosen, blank, charset, index)


Forms = Callable[[str], Sequence[str]]  # a character's equivalent forms (itself first)


def _itself(char: str) -> Sequence[str]:
    return (char,)


def char_probs(frames: Frames, text: str | Sequence[str], forms: Forms = _itself) -> Floats:
    """float64[T, len(text)]: each character's probability at each frame, the likeliest of its
    `forms` (`FLOOR` where none is among the frame's kept classes or in the charset)."""
    pairs = [
        (i, column)
        for column, char in enumerate(text)
        for form in forms(char)
        if (i := frames.index.get(form, BLANK_INDEX)) != BLANK_INDEX  # the blank is no character
    ]
    table = np.zeros((frames.length, len(text)))
    if pairs and frames.length:
        ids, owners = (np.array(values, np.int64) for values in zip(*sorted(pairs), strict=True))
        # Each kept (frame, class) against the sorted ids: a class is a form of several of the
        # characters only where `text` holds two forms of one character, so most match once.
        flat = frames.classes.reshape(-1)
        left, right = np.searchsorted(ids, flat, "left"), np.searchsorted(ids, flat, "right")
        hits = np.nonzero(right > left)[0]
        repeats = (right - left)[hits]
        entries = np.repeat(hits, repeats)
        within = np.arange(len(entries)) - np.repeat(np.cumsum(repeats) - repeats, repeats)
        frame = entries // frames.classes.shape[1]
        np.maximum.at(table, (frame, owners[left[entries] + within]), frames.probs.reshape(-1)[entries])
    return np.maximum(table, FLOOR)


def text_logprob(frames: Frames, text: str) -> float:
    """Natural log of the probability that the frames read `text` (the CTC forward algorithm
    over the extended label: blank, first character, blank, ..., last, blank)."""
    if not text:
        return float(np.log(np.maximum(frames.blank.astype(np.float64), FLOOR)).sum())
    chars = np.log(char_probs(frames, text))
    blank = np.log(np.maximum(frames.blank.astype(np.float64), FLOOR))
    size = 2 * len(text) + 1
    # A label position may be skipped from two back when it is a character unlike the one two
    # back (the blank between two equal characters must be read).
    skip = np.zeros(size, bool)
    skip[3::2] = [text[i] != text[i - 1] for i in range(1, len(text))]
    alpha = np.full(size, NEG_INF)
    alpha[0], alpha[1] = blank[0], chars[0, 0]
    for t in range(1, frames.length):
        stay = alpha
        step = np.concatenate([[NEG_INF], alpha[:-1]])
        jump = np.where(skip, np.concatenate([[NEG_INF, NEG_INF], alpha[:-2]]), NEG_INF)
        alpha = np.logaddexp(np.logaddexp(stay, step), jump)
        alpha[0::2] += blank[t]
        alpha[1::2] += chars[t]
    return float(np.logaddexp(alpha[-1], alpha[-2]))


def excess(
    frames: Frames, text: str | Sequence[str], forms: Forms = _itself, sure: float | None = None
) -> tuple[Floats, Floats]:
    """Log probabilities of each character of `text` (float[T, L]) and of the blank (float[T])
    at each frame, less the log probability of the frame's likeliest class: each at most 0.
    With `sure`, a frame whose likeliest class is a character at `sure` or more takes the blank
    at `FLOOR`, like a character it did not keep: a path that reads the blank there has left
    out a character the recogniser was sure of (a name missing a character of the frames' text
    would otherwise pay only the blank's few percent at that character's one or two frames)."""
    top = frames.probs.max(axis=1) if frames.probs.size else np.zeros(frames.length)
    best = np.log(np.maximum(np.maximum(frames.blank, top).astype(np.float64), FLOOR))
    chars = np.log(char_probs(frames, text, forms)) - best[:, None]
    blank = np.log(np.maximum(frames.blank.astype(np.float64), FLOOR)) - best
    if sure is not None:
        read = (top >= sure) & (top > frames.blank)
        blank[read] = np.minimum(blank[read], np.log(FLOOR) - best[read])
    return chars, blank


def _skips(text: str) -> Mask:
    """Which positions of the extended label (blank, c1, blank, ..., cL, blank) may be reached
    from two back: a character unlike the one before it (between equal ones a blank is read)."""
    skip = np.zeros(2 * len(text) + 1, bool)
    skip[3::2] = [text[i] != text[i - 1] for i in range(1, len(text))]
    return skip


def _best_spots(chars: Floats, blank: Floats, skip: Mask) -> Floats:
    """Viterbi with a free start and end, for B labels of one length at once: chars float[B, T,
    L], blank float[B, T], skip bool[B, 2L+1]; the best path's total, float[B]."""
    count, frames, _ = chars.shape
    size = skip.shape[1]
    delta = np.full((count, size), NEG_INF)
    starts = np.full(size, NEG_INF)
    starts[:2] = 0.0  # a path may begin at any frame, in the first blank or on the first character
    found = np.full(count, NEG_INF)
    pad = np.full((count, 2), NEG_INF)
    for t in range(frames):
        shifted = np.concatenate([pad, delta[:, :-1]], axis=1)  # [B, size + 1]: one back at 1:
        step, jump = shifted[:, 1:], np.where(skip, shifted[:, :-1], NEG_INF)
        delta = np.maximum(np.maximum(np.maximum(delta, step), jump), starts)
        delta[:, 0::2] += blank[:, t, None]
        delta[:, 1::2] += chars[:, t, :]
        found = np.maximum(found, np.maximum(delta[:, -1], delta[:, -2]))  # it may end at any frame
    return found


def spots(frames: Sequence[Frames], texts: Sequence[str], forms: Forms = _itself) -> Floats:
    """`spot` of every text (all of one length) in every frames (all of one length) at once:
    float[len(frames), len(texts)]."""
    if not frames or not texts or not texts[0] or not frames[0].length:
        return np.full((len(frames), len(texts)), NEG_INF)
    pairs = [excess(f, text, forms) for f in frames for text in texts]
    chars = np.stack([c for c, _ in pairs])
    blank = np.stack([b for _, b in pairs])
    skip = np.stack([_skips(text) for _ in frames for text in texts])
    return _best_spots(chars, blank, skip).reshape(len(frames), len(texts))


def spot_rotations(frames: Sequence[Frames], text: str, forms: Forms = _itself) -> Floats:
    """`spot` of every rotation of `text` (a ring's text read from another start: rotation r
    starts at its character r) in every frames: float[len(frames), len(text)]. Each frames'
    character probabilities are read once and their columns turned."""
    if not frames or not text or not frames[0].length:
        return np.full((len(frames), len(text)), NEG_INF)
    return rotations_spotted([excess(f, text, forms) for f in frames], text)


def rotations_spotted(rows: Sequence[tuple[Floats, Floats]], text: str) -> Floats:
    """`spot_rotations` from each frames' `excess` of `text` (all of one length, at least one
    frame): float[len(rows), len(text)]."""
    turns = [np.roll(np.arange(len(text)), -r) for r in range(len(text))]
    chars = np.stack([c[:, turn] for c, _ in rows for turn in turns])
    blank = np.stack([b for _, b in rows for _ in turns])
    skip = np.stack([_skips(text[r:] + text[:r]) for _ in rows for r in range(len(text))])
    return _best_spots(chars, blank, skip).reshape(len(rows), len(text))


def spot_parts(rows: Sequence[tuple[Floats, Floats]], text: str) -> tuple[Floats, Floats]:
    """The best spot of `text` (not turned) in each frames' `excess` of it (all of one length, at
    least one frame), and what each character costs on that path: its own frames and the blanks
    read before it (the first character's, the blanks after the last too): float[len(rows)]
    and float[len(rows), len(text)], each row of the second summing to the first."""
    chars = np.stack([c for c, _ in rows])
    blank = np.stack([b for _, b in rows])
    count, frames, length = chars.shape
    size = 2 * length + 1
    skip = _skips(text)
    owner = np.minimum(np.arange(size) // 2, length - 1)  # the character each label position pays for
    delta = np.full((count, size), NEG_INF)
    parts = np.zeros((count, size, length))
    found, found_parts = np.full(count, NEG_INF), np.zeros((count, length))
    rows_index = np.arange(count)[:, None]
    for t in range(frames):
        moves = np.full((count, 4, size), NEG_INF)  # stay, one on, two on, start here
        moves[:, 0] = delta
        moves[:, 1, 1:] = delta[:, :-1]
        moves[:, 2, 2:] = np.where(skip[2:], delta[:, :-2], NEG_INF)
        moves[:, 3, :2] = 0.0
        move = moves.argmax(axis=1)
        delta = moves.max(axis=1)
        parts = parts[rows_index, np.arange(size) - np.where(move == 3, 0, move)]
        parts[move == 3] = 0.0
        cost = np.empty((count, size))
        cost[:, 0::2], cost[:, 1::2] = blank[:, t, None], chars[:, t, :]
        delta += cost
        parts[:, np.arange(size), owner] += cost
        for end in (size - 1, size - 2):  # it may end at any frame
            better = delta[:, end] > found
            found[better], found_parts[better] = delta[better, end], parts[better, end]
    return found, found_parts


def spot(frames: Frames, text: str, forms: Forms = _itself) -> float:
    """How well `text` reads somewhere in the frames: the log of its best path over the frames
    it takes (free before and after them), less that of the best path of anything over the same
    frames; 0 where it is the frames' own best reading there, negative otherwise."""
    return float(spots([frames], [text], forms)[0, 0])
