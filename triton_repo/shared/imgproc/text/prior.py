"""A reading's characters chosen with a character n-gram prior over names (`ngram.CharNgram`).

Each character of a reading comes with the other characters its frame gave some probability
(`Decoded.alternatives`), and between characters there may be characters another reading saw
(`Decoded.insertions`). `with_prior` chooses, by Viterbi over the last `order - 1` characters
chosen, the sequence maximising the sum of the characters' log probabilities and `weight` times
the prior's log probability of the sequence (its end included): a misread character of a
common word or place name (深州 for 深圳) is put right where its frame saw the right one too,
and an inserted character is taken where the prior wants it more than its probability costs.
A traditional character's simplified form is offered as likely (`variants`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from .ngram import BOS, EOS, CharNgram
from .recognition import Alternative, Decoded

PROB_FLOOR = 1e-4  # a character's log probability is taken no lower than this one's


@dataclass(frozen=True)
class _Choice:
    """A character chosen at a slot: the character, its probability, its step, its alternatives."""

    char: str
    prob: float
    step: int
    options: tuple[Alternative, ...]


def _options(alternatives: tuple[Alternative, ...], variants: Mapping[str, str]) -> dict[str, float]:
    """The slot's characters with their probabilities, simplified forms as likely as their own."""
    found: dict[str, float] = {}
    for char, prob in alternatives:
        for form in (char, variants.get(char, char)):
            found[form] = max(prob, found.get(form, 0.0))
    return found


def _slots(
    line: Decoded, variants: Mapping[str, str]
) -> list[tuple[bool, dict[str, float], int, tuple[Alternative, ...]]]:
    """The lattice: an optional insertion slot before each character and after the last, and a
    slot for each character (optional, a mapping of characters to probabilities, the step, and
    the alternatives kept with a choice)."""
    gaps, options = line.gaps(), line.options()
    slots = []
    for i, char_options in enumerate(options):
        if gaps[i]:
            slots.append((True, _options(gaps[i], variants), line.steps[i] if line.steps else 0, gaps[i]))
        slots.append(
            (False, _options(char_options, variants), line.steps[i] if line.steps else 0, char_options)
        )
    if gaps[-1]:
        slots.append((True, _options(gaps[-1], variants), line.steps[-1] if line.steps else 0, gaps[-1]))
    return slots


def with_prior(
    line: Decoded, model: CharNgram, weight: float, variants: Mapping[str, str] | None = None
) -> Decoded:
    """`line` with its characters chosen among their alternatives under the prior (see the
    module docstring); its probabilities, steps and frames are those of what was chosen."""
    if not line.chars:
        return line
    variants = variants or {}
    keep = model.order - 1
    start = BOS * keep
    # state (the last `keep` characters) -> (score, choices)
    states: dict[str, tuple[float, tuple[_Choice, ...]]] = {start: (0.0, ())}
    cache: dict[tuple[str, str], float] = {}

    def prior(history: str, char: str) -> float:
        key = (history, char)
        if key not in cache:
            cache[key] = weight * math.log(model.prob(history, char))
        return cache[key]

    for optional, options, step, alternatives in _slots(line, variants):
        after: dict[str, tuple[float, tuple[_Choice, ...]]] = dict(states) if optional else {}
        for history, (score, chosen) in states.items():
            for char, prob in options.items():
                total = score + math.log(max(prob, PROB_FLOOR)) + prior(history, char)
                state = (history + char)[-keep:] if keep else ""
                if state not in after or total > after[state][0]:
                    after[state] = (total, (*chosen, _Choice(char, prob, step, alternatives)))
        states = after
    best = max(states.items(), key=lambda item: item[1][0] + prior(item[0], EOS))[1][1]
    return Decoded(
        tuple(c.char for c in best),
        tuple(c.prob for c in best),
        tuple(c.step for c in best) if line.steps else (),
        line.length,
        tuple(c.options for c in best) if line.alternatives else (),
        frames=line.frames,
    )
