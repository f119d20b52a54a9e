"""What the reader knows of Chinese text, loaded once from the files provisioned beside the seal
model: the word-list correction (`repair`) and each character's equivalent forms (`trust`).

A name is the same name in traditional or simplified characters, with full- or half-width
brackets, with or without spaces: `normalized` brings a text to one form, and `forms` gives a
character's forms as a recogniser may read them (its traditional forms from OpenCC's table,
its simplified one, its width variants), so that a name is scored on whichever was read.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from imgproc.text import Decoded
from imgproc.text.lexicon import LEXICON_FILE, VARIANTS_FILE, correct, load_lexicon, load_variants

Correct = Callable[[Decoded], Decoded]  # rewrites a reading using its characters' alternatives
FULL_WIDTH = {"(": "（", ")": "）", "[": "［", "]": "］"}  # what NFKC folds, unfolded


def as_read(line: Decoded) -> Decoded:
    """No correction: the reading as it is (where no word list is at hand)."""
    return line


@dataclass(frozen=True)
class Words:
    """The word-list correction and the traditional-to-simplified table (empty: none)."""

    correct: Correct = as_read
    simplified: Mapping[str, str] = field(default_factory=dict)  # traditional -> simplified
    traditional: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # simplified -> traditional

    def normalized(self, text: str) -> str:
        """`text` in one form: NFKC (half-width brackets and letters), no spaces, simplified."""
        folded = unicodedata.normalize("NFKC", text).replace(" ", "")
        return "".join(self.simplified.get(char, char) for char in folded)

    def forms(self, char: str) -> Sequence[str]:
        """A normalized character's forms as a recogniser may read them, itself first."""
        found = [char, *self.traditional.get(char, ())]
        if char in FULL_WIDTH:
            found.append(FULL_WIDTH[char])
        return found


NO_WORDS = Words()


def _corrector(directory: Path, lexicon_weight: float, simplified: Mapping[str, str]) -> Correct:
    """The word-list correction, its list loaded from `directory` (~1.5 s)."""
    lexicon = load_lexicon(directory / LEXICON_FILE)
    return lambda line: correct(line, lexicon=lexicon, weight=lexicon_weight, variants=simplified)


def load_words(directory: Path, lexicon_weight: float) -> Words:
    """The correction and variants table provisioned in `directory` (the seal model's version
    directory); `lexicon_weight` is repair's (`RepairParams.lexicon_weight`), passed by the
    caller so that words imports no stage."""
    simplified = load_variants(directory / VARIANTS_FILE)
    traditional: dict[str, list[str]] = {}
    for old, new in simplified.items():
        if old != new:
            traditional.setdefault(new, []).append(old)
    forms = {char: tuple(olds) for char, olds in traditional.items()}
    return Words(_corrector(directory, lexicon_weight, simplified), simplified, forms)
