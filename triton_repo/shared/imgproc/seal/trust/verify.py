"""Whether a seal says a name the caller expects, and how sure that is.

A name is scored on the seal's frames, not on its reading: its support (`evidence.support`:
its best path from any start on the ring, by any recogniser, on any strip, against the best
reading there) is mapped to (0, 1), 0.5 at `TrustParams.name_support`; a faded or
overprinted character that was misread still supports the right name, while a character no
recogniser saw there costs about 11.5 (the floor of an unseen class), which no true name
pays. A seal whose rim (or, for a rectangular seal, any line) reads the name as it is, after
normalizing both (`Words.normalized`), scores at least its rim's calibrated score: a standard
text restored under print has no frames to rest on, but its reading does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..records import Match, RimSource, SealReading, Verdict
from ..words import Words
from .evidence import sigmoid, support
from .params import DEFAULT_TRUST, TrustParams


@dataclass(frozen=True)
class Seal:
    """What a name is checked against on one seal: its answer and its rim's sources."""

    reading: SealReading
    sources: tuple[RimSource, ...]


def name_score(name: str, seal: Seal, words: Words, params: TrustParams = DEFAULT_TRUST) -> float:
    """How sure it is that `seal` says `name` (normalized), in (0, 1)."""
    spotted = support(name, seal.sources, words.forms).max() if seal.sources and name else -float("inf")
    score = sigmoid((float(spotted) - params.name_support) * params.name_slope) if seal.sources else 0.0
    reading = seal.reading
    texts = [reading.rim_text, *(text for text, _ in reading.inner)]
    if any(words.normalized(text) == name for text in texts if text):
        score = max(score, reading.rim_score)
    return score


def verdicts(
    names: Sequence[str], seals: Sequence[Seal], words: Words, params: TrustParams = DEFAULT_TRUST
) -> tuple[list[Verdict], list[Match | None]]:
    """Each expected name's verdict (the seal that says it best; found at `found_score`), and
    each seal's best expected name (None where none is expected)."""
    scores = [[name_score(words.normalized(name), seal, words, params) for seal in seals] for name in names]
    found = []
    for name, row in zip(names, scores, strict=True):
        best = max(range(len(row)), key=row.__getitem__, default=None)
        score = row[best] if best is not None else 0.0
        kept = score >= params.found_score
        found.append(Verdict(name, kept, score, best if kept else None))
    matches: list[Match | None] = []
    for i in range(len(seals)):
        column = [(row[i], name) for name, row in zip(names, scores, strict=True)]
        matches.append(Match(max(column)[1], max(column)[0]) if column else None)
    return found, matches
