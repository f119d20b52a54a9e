"""Character error rate for OCR evaluation.

`normalize` applies NFKC (so full-width and half-width punctuation and digits compare equal)
and removes all whitespace (a recogniser's spaces are not what we grade, and Chinese has
none). `cer` is the Levenshtein distance over characters divided by the truth's length.
`page_text` joins a page's lines in reading order before scoring, so a line the detector
splits in two, or two lines it merges, costs nothing extra; only missing, extra, wrong or
out-of-order characters count. `CerTally` sums edits and lengths over many samples so that
a corpus CER weighs every character the same.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from imgproc.text.edit import levenshtein

__all__ = ["CerTally", "cer", "levenshtein", "normalize", "page_text"]


def normalize(text: str) -> str:
    """NFKC with all whitespace removed."""
    return "".join(unicodedata.normalize("NFKC", text).split())


def page_text(lines: Iterable[str]) -> str:
    """A page's lines in reading order as one normalised string."""
    return normalize("".join(lines))


def edits(predicted: str, truth: str) -> tuple[int, int]:
    """(edit distance, truth length) of the normalised strings."""
    predicted, truth = normalize(predicted), normalize(truth)
    return levenshtein(predicted, truth), len(truth)


def cer(predicted: str, truth: str) -> float:
    """Character error rate of one string against the truth (1.0 per character when truth is empty)."""
    distance, length = edits(predicted, truth)
    return distance / max(length, 1)


@dataclass
class CerTally:
    """Running sum of edit distances and truth lengths."""

    distance: int = 0
    length: int = 0
    samples: int = 0

    def add(self, predicted: str, truth: str) -> None:
        """Count one sample."""
        distance, length = edits(predicted, truth)
        self.distance += distance
        self.length += length
        self.samples += 1

    @property
    def rate(self) -> float:
        """Corpus CER: total edits over total truth characters."""
        return self.distance / max(self.length, 1)
