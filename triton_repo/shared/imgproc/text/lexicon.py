"""A Chinese word list as a prior on what a line of text says.

A recogniser reads each character on its own: a blurred or overprinted 案 becomes 菜 (档菜馆)
and 庆 becomes 房 (重房), though the right character is among the few it found nearly as
likely. Names on seals and documents are made of ordinary words, so `correct` chooses, among
each character's alternatives (see `Decoded.alternatives`), the reading that maximises the
sum of the characters' log probabilities plus `weight` for every character that continues a
dictionary word (a word of n characters earns n - 1 times `weight`). A character that forms
no word keeps what the line read there, so a name the list does not know passes through
unchanged, whatever other readings saw there. A character that another recogniser read
where this reading has none (`Decoded.insertions`: 晨 in 义乌光 against 义乌晨光) is put in
when it completes a word, and never otherwise.

The word list is jieba's dictionary (`load_lexicon`), provisioned at set-up from the pinned
PyPI package; only Chinese words of `WORD_LENGTHS` characters are kept. The recognisers were
trained on traditional text as well and now and then read a simplified character as its
traditional form (銷售 for 销售); `with_variants` offers each traditional character's
simplified form as an alternative as likely, so the correction takes it where it forms a
word (the table is OpenCC's, `load_variants`). A traditional character that forms no word
stays as read: a Hong Kong or Taiwan seal is not rewritten.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .recognition import Alternative, Decoded

LEXICON_FILE = "lexicon.txt"  # in the seal model's version directory (triton_repo/provision)
VARIANTS_FILE = "simplified.txt"  # beside it: OpenCC's TSCharacters, traditional -> simplified
WORD_LENGTHS = (2, 6)
PROB_FLOOR = 1e-4  # log of a probability is taken no lower than this one's


def is_chinese(char: str) -> bool:
    """CJK Extension A or Unified Ideographs."""
    return "\u3400" <= char <= "\u9fff"


@dataclass(frozen=True)
class Lexicon:
    """Words and every proper prefix of them (to stop extending a candidate word early)."""

    words: frozenset[str]
    prefixes: frozenset[str]

    @classmethod
    def of(cls, words: Iterable[str]) -> Lexicon:
        """A lexicon of the Chinese words of `WORD_LENGTHS` characters among `words`."""
        low, high = WORD_LENGTHS
        kept = frozenset(w for w in words if low <= len(w) <= high and all(is_chinese(c) for c in w))
        return cls(kept, frozenset(w[:k] for w in kept for k in range(1, len(w))))


def load_lexicon(path: Path) -> Lexicon:
    """A lexicon from a jieba-style dictionary: one `word frequency [tag]` per line."""
    with path.open(encoding="utf-8") as lines:
        return Lexicon.of(line.split(" ", 1)[0] for line in lines)


@dataclass(frozen=True)
class _Slot:
    """A place in the line: a character (one option must be chosen) or a gap between two
    (an insertion may be chosen, or nothing)."""

    options: dict[str, float]
    optional: bool
    step: int
    alternatives: tuple[Alternative, ...]
    own: str = ""  # the character the line read here (none in a gap)


EMPTY_LEXICON = Lexicon(frozenset(), frozenset())


def word_share(text: str, lexicon: Lexicon) -> float:
    """The largest share of `text`'s characters that dictionary words cover, side by side (0
    for an empty text): a name is made of words, a misread one less so (西安市溪桥区 for 灞桥区)."""
    longest = max(WORD_LENGTHS)
    covered = [0] * (len(text) + 1)  # the most characters words cover in text[:i]
    for end in range(1, len(text) + 1):
        covered[end] = covered[end - 1]
        for start in range(max(0, end - longest), end - 1):
            if text[start:end] in lexicon.words:
                covered[end] = max(covered[end], covered[start] + end - start)
    return covered[-1] / len(text) if text else 0.0


# One chosen character: the character, its probability, its step and its alternatives.
Choice = tuple[str, float, int, tuple[Alternative, ...]]


@dataclass(frozen=True)
class _Path:
    """The best reading of the slots so far: its score and its chosen characters."""

    score: float
    chosen: tuple[Choice, ...] = ()


def _log(prob: float) -> float:
    return math.log(max(prob, PROB_FLOOR))


def _slots(line: Decoded) -> list[_Slot]:
    """The gap before each character, the character, and the gap after the last."""
    steps, gaps = line.steps or (0,) * len(line.chars), line.gaps()
    slots: list[_Slot] = []
    for i, alternatives in enumerate(line.options()):
        between = (steps[i - 1] + steps[i]) // 2 if i else steps[i]
        slots.append(_Slot(_options(gaps[i]), True, between, gaps[i]))
        slots.append(_Slot(_options(alternatives), False, steps[i], alternatives, line.chars[i]))
    slots.append(_Slot(_options(gaps[-1]), True, steps[-1] if steps else 0, gaps[-1]))
    return slots


def _options(alternatives: tuple[Alternative, ...]) -> dict[str, float]:
    options: dict[str, float] = {}
    for char, prob in alternatives:
        options[char] = max(prob, options.get(char, 0.0))
    return options


def _pick(slot: _Slot, char: str) -> Choice:
    return char, slot.options[char], slot.step, slot.alternatives


def _words_from(start: int, slots: list[_Slot], lexicon: Lexicon) -> Iterable[tuple[int, tuple[Choice, ...]]]:
    """Every dictionary word whose first character is chosen at slot `start`, with the slot
    after its last character; gaps in between may be skipped, characters may not."""
    stack: list[tuple[str, int, tuple[Choice, ...]]] = [
        (char, start + 1, (_pick(slots[start], char),)) for char in slots[start].options
    ]
    while stack:
        prefix, position, picked = stack.pop()
        if prefix not in lexicon.prefixes:
            continue
        for here in range(position, len(slots)):
            for char in slots[here].options:
                word, now = prefix + char, (*picked, _pick(slots[here], char))
                if word in lexicon.words:
                    yield here + 1, now
                stack.append((word, here + 1, now))
            if not slots[here].optional:
                break


def _better(best: list[_Path], stop: int, score: float, chosen: tuple[Choice, ...]) -> None:
    if score > best[stop].score:
        best[stop] = _Path(score, chosen)


def load_variants(path: Path) -> dict[str, str]:
    """Traditional character -> its (first) simplified form, from an OpenCC character table:
    `traditional<TAB>simplified [simplified...]` per line, `#` comments."""
    variants: dict[str, str] = {}
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            fields = line.split()
            if len(fields) >= 2 and not line.startswith("#"):
                variants[fields[0]] = fields[1]
    return variants


def _with_simplified(
    options: tuple[Alternative, ...], variants: Mapping[str, str]
) -> tuple[Alternative, ...]:
    found = _options(options)
    for char, prob in options:
        if (simple := variants.get(char)) is not None and found.get(simple, 0.0) < prob:
            found[simple] = prob
    return tuple(sorted(found.items(), key=lambda item: item[1], reverse=True))


def with_variants(line: Decoded, variants: Mapping[str, str]) -> Decoded:
    """`line` with each traditional character's simplified form among its alternatives."""
    if not variants or not line.chars:
        return line
    options = tuple(_with_simplified(choices, variants) for choices in line.options())
    return Decoded(line.chars, line.probs, line.steps, line.length, options, line.insertions, line.frames)


def correct(
    line: Decoded, lexicon: Lexicon, weight: float, variants: Mapping[str, str] | None = None
) -> Decoded:
    """`line` with each character chosen among its alternatives, and characters another reading
    saw inserted, to form dictionary words where that outweighs the recogniser's preference
    (see the module's docstring)."""
    if not line.chars:
        return line
    line = with_variants(line, variants or {})
    slots = _slots(line)
    best = [_Path(0.0)] + [_Path(-math.inf)] * len(slots)
    for start, slot in enumerate(slots):
        here = best[start]
        if slot.optional:
            _better(best, start + 1, here.score, here.chosen)  # nothing inserted
        else:
            # Outside a word a character keeps its reading, even where another reading saw
            # something surer there: the line was chosen as the surest whole.
            char = slot.own if slot.own in slot.options else max(slot.options, key=lambda c: slot.options[c])
            _better(best, start + 1, here.score + _log(slot.options[char]), (*here.chosen, _pick(slot, char)))
        for stop, word in _words_from(start, slots, lexicon):
            score = here.score + sum(_log(prob) for _, prob, _, _ in word) + weight * (len(word) - 1)
            _better(best, stop, score, here.chosen + word)
    chosen = best[-1].chosen
    return Decoded(
        tuple(c[0] for c in chosen),
        tuple(c[1] for c in chosen),
        tuple(c[2] for c in chosen) if line.steps else (),
        line.length,
        tuple(c[3] for c in chosen) if line.alternatives else (),
        frames=line.frames,
    )
