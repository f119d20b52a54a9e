"""Edit distance between strings: used to grade OCR in the tests and to correct legal forms."""

from __future__ import annotations


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insertions, deletions, substitutions all cost 1) between two strings."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, start=1):
        current = [i]
        for j, char_b in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b)))
        previous = current
    return previous[-1]
