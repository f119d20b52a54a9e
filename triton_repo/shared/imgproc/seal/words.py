"""What the reader knows of Chinese text, loaded once from the files provisioned beside the seal
model: the word-list correction (`repair`) and each character's equivalent forms (`trust`).

A name is the same name in traditional or simplified characters, with full- or half-width
brackets, with or without spaces: `normalized` brings a text to one form, and `forms` gives a
character's forms as a recogniser may read them (its traditional forms from OpenCC's table,
its simplified one, its width variants), so that a name is scored on whichever was read.

What a seal's rim says by law and custom is known too: how an organisation's name ends
(`RIM_ENDINGS`: repair cuts what follows one and turns a rim read from the wrong start to end
with one; trust scores a rim that ends as a name does higher) and the rims a whole class of
seals carries word for word (`STANDARD_RIMS`: repair restores one partly read, and one is
trusted as restored).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from imgproc.text import Decoded
from imgproc.text.lexicon import (
    EMPTY_LEXICON,
    LEXICON_FILE,
    VARIANTS_FILE,
    Lexicon,
    correct,
    load_lexicon,
    load_variants,
    word_share,
)

Correct = Callable[[Decoded], Decoded]  # rewrites a reading using its characters' alternatives
FULL_WIDTH = {"(": "（", ")": "）", "[": "［", "]": "］"}  # what NFKC folds, unfolded

# A company name must end in a legal form (Company Law: 有限公司, 有限责任公司, 股份有限公司).
LEGAL_FORMS = ("股份有限公司", "有限责任公司", "有限公司")
# What may follow a legal form on a rim: a branch or office of the company (XX有限公司上海分公司)
# or a department's name, which end in one of these. Anything else after a legal form is the
# start of the name, read after its end (the rim was opened at the wrong place).
AFTER_LEGAL_FORM = tuple("公司 厂 店 部 处 中心 所 站 室 行 社 院 馆 队 组 会 章".split())
# What a rim's name ends in: its legal form, a branch or department, or the kind of body it
# names (a bureau, a university).
RIM_ENDINGS = (*LEGAL_FORMS, *AFTER_LEGAL_FORM, "局", "大学")
# Every invoice supervision seal (监制章, printed on every Chinese invoice since 1993) reads this
# on its rim (`repair.standard`).
STANDARD_RIMS = ("全国统一发票监制章",)


def as_read(line: Decoded) -> Decoded:
    """No correction: the reading as it is (where no word list is at hand)."""
    return line


@dataclass(frozen=True)
class Words:
    """The word-list correction and the traditional-to-simplified table (empty: none)."""

    correct: Correct = as_read
    simplified: Mapping[str, str] = field(default_factory=dict)  # traditional -> simplified
    traditional: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # simplified -> traditional
    lexicon: Lexicon = EMPTY_LEXICON  # the word list `correct` chooses words of

    def word_share(self, text: str) -> float:
        """The share of a normalized text's characters that the word list's words cover."""
        return word_share(text, self.lexicon)

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


def load_words(directory: Path, lexicon_weight: float) -> Words:
    """The correction and variants table provisioned in `directory` (the seal model's version
    directory; the word list loads in ~1.5 s); `lexicon_weight` is repair's
    (`RepairParams.lexicon_weight`), passed by the caller so that words imports no stage."""
    simplified = load_variants(directory / VARIANTS_FILE)
    lexicon = load_lexicon(directory / LEXICON_FILE)
    traditional: dict[str, list[str]] = {}
    for old, new in simplified.items():
        if old != new:
            traditional.setdefault(new, []).append(old)
    forms = {char: tuple(olds) for char, olds in traditional.items()}

    def corrected(line: Decoded) -> Decoded:
        return correct(line, lexicon=lexicon, weight=lexicon_weight, variants=simplified)

    return Words(corrected, simplified, forms, lexicon)
